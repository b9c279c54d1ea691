// bef_executor skips libstdc++'s set-up of the standard streams.
//
// Why: Abseil's status.h (Debian's 20220623) includes <iostream>, so each
// of the ~40 object files of bef_executor that includes it constructs a
// static std::ios_base::Init, and the first one builds std::cin, cout,
// cerr, clog, their wide twins and the classic locale: 50,000 instructions
// and 12 page faults, 0.04-0.05 ms of every start on the project's machine
// class (docs/performance.md), for streams bef_executor never uses (it
// writes with stdio, and reads stdin with read(2)). Its link (tools/BUILD)
// sends Init's constructor and destructor here, where they do nothing.
//
// Invariant: nothing in bef_executor uses a standard stream. Its link fails
// (undefined __wrap__ZSt4cerr and the like) if anything refers to cin, cerr,
// clog or a wide stream. std::cout cannot be refused that way: Abseil's
// Cord B-tree validator refers to it (a dump before a fatal error, called
// only by code built without NDEBUG). Other streams work as usual:
// std::ostringstream builds the classic locale on its first use.
extern "C" {

void __wrap__ZNSt8ios_base4InitC1Ev(void*) {}  // std::ios_base::Init::Init()
void __wrap__ZNSt8ios_base4InitD1Ev(void*) {}  // std::ios_base::Init::~Init()

}  // extern "C"
