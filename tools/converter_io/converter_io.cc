#include "tools/converter_io/converter_io.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cstring>
#include <mutex>
#include <utility>
#include <vector>

#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Signals.h"
#include "mlir/IR/AsmState.h"
#include "mlir/IR/MLIRContext.h"

namespace bef::converter_io {
namespace {

llvm::cl::opt<uint64_t> max_input_bytes(
    "max_input_bytes",
    llvm::cl::desc("Refuse inputs larger than this many bytes (checked while "
                   "reading, so endless inputs such as /dev/zero stop)"),
    llvm::cl::init(uint64_t{4} << 30));
llvm::cl::opt<unsigned> max_nesting_depth(
    "max_nesting_depth",
    llvm::cl::desc("Refuse inputs that nest regions, attributes or types "
                   "deeper than this (MLIR's parser and printer recurse once "
                   "per level)"),
    llvm::cl::init(4096));
llvm::cl::opt<uint64_t> max_affine_operators(
    "max_affine_operators",
    llvm::cl::desc("Refuse affine_map and affine_set attributes with more operators "
                   "than this (MLIR's affine parser recurses once per operator and "
                   "simplifies in time quadratic in them; host programs carry a few)"),
    llvm::cl::init(10000));

// A thread stack for max_nesting_depth levels: MLIR's parser takes about
// 3 KB per nested region (8 MB held ~3,000 levels), sanitizer builds a few
// times more; the pages are reserved, not committed, until used.
constexpr size_t kStackBytesPerLevel = 64 * 1024;
constexpr size_t kMinimumStackBytes = size_t{64} << 20;

std::string ErrnoText(int error_number) { return std::strerror(error_number); }

// read(2) until `size` bytes, end of input or an error; EINTR retried.
ssize_t ReadFully(int fd, char* data, size_t size) {
  size_t done = 0;
  while (done < size) {
    ssize_t n = ::read(fd, data + done, size - done);
    if (n < 0) {
      if (errno == EINTR) continue;
      return -1;
    }
    if (n == 0) break;
    done += static_cast<size_t>(n);
  }
  return static_cast<ssize_t>(done);
}

struct FdCloser {
  int fd;
  bool owned;
  ~FdCloser() {
    if (owned && fd >= 0) ::close(fd);
  }
};

}  // namespace

uint64_t MaxInputBytes() { return max_input_bytes; }
unsigned MaxNestingDepth() { return max_nesting_depth; }

std::unique_ptr<llvm::MemoryBuffer> ReadInput(const std::string& path,
                                              const ReadOptions& options,
                                              std::string* error) {
  const bool is_stdin = path == "-";
  const std::string name = is_stdin ? "<stdin>" : path;
  int fd = is_stdin ? STDIN_FILENO : ::open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) {
    *error = "cannot open input file '" + path + "': " + ErrnoText(errno);
    return nullptr;
  }
  FdCloser closer{fd, !is_stdin};
  struct stat input_status;
  if (::fstat(fd, &input_status) != 0) {
    *error = "cannot read input file '" + name + "': " + ErrnoText(errno);
    return nullptr;
  }
  const bool regular = S_ISREG(input_status.st_mode);

  // Writing the output would truncate (and, on failure, remove) the input:
  // refuse before anything is opened for writing.
  if (regular && options.output_path != "-") {
    struct stat output_status;
    if (::stat(options.output_path.c_str(), &output_status) == 0 &&
        output_status.st_dev == input_status.st_dev &&
        output_status.st_ino == input_status.st_ino) {
      *error = "output file '" + options.output_path + "' is the input file '" +
               name + "' (the same file, possibly through a link); writing it "
               "would destroy the input: choose another output";
      return nullptr;
    }
  }

  const uint64_t limit = options.max_bytes;
  if (regular && static_cast<uint64_t>(input_status.st_size) > limit) {
    *error = "input file '" + name + "' is " +
             std::to_string(input_status.st_size) +
             " bytes, more than --max_input_bytes=" + std::to_string(limit);
    return nullptr;
  }

  // The first bytes, checked before the rest is read.
  std::vector<char> data;
  size_t prefix_size = options.check_prefix ? options.prefix_size : 0;
  if (prefix_size > limit) prefix_size = static_cast<size_t>(limit);
  data.resize(prefix_size);
  ssize_t got = ReadFully(fd, data.data(), prefix_size);
  if (got < 0) {
    *error = "cannot read input file '" + name + "': " + ErrnoText(errno);
    return nullptr;
  }
  data.resize(static_cast<size_t>(got));
  if (options.check_prefix && !options.check_prefix(data)) return nullptr;

  // The rest, never more than the limit (plus one byte to notice excess).
  size_t chunk = regular ? static_cast<size_t>(input_status.st_size) + 1 : 0;
  if (chunk < (size_t{1} << 16)) chunk = size_t{1} << 16;
  while (true) {
    size_t room = chunk;
    uint64_t allowed = limit + 1 - data.size();
    if (room > allowed) room = static_cast<size_t>(allowed);
    size_t before = data.size();
    data.resize(before + room);
    ssize_t n = ReadFully(fd, data.data() + before, room);
    if (n < 0) {
      *error = "cannot read input file '" + name + "': " + ErrnoText(errno);
      return nullptr;
    }
    data.resize(before + static_cast<size_t>(n));
    if (data.size() > limit) {
      *error = "input file '" + name + "' is larger than --max_input_bytes=" +
               std::to_string(limit);
      return nullptr;
    }
    if (static_cast<size_t>(n) < room) break;  // end of input
  }
  return llvm::MemoryBuffer::getMemBufferCopy(
      llvm::StringRef(data.data(), data.size()), name);
}

bool CheckMlirNesting(llvm::StringRef text, unsigned limit,
                      llvm::StringRef buffer_name, std::string* error) {
  unsigned depth = 0;
  unsigned line = 1;
  // Inside `affine_map<...>` or `affine_set<...>` (from the depth of its
  // `<`): the operators seen, each a level of MLIR's recursive affine
  // parser and a term its simplification is quadratic in.
  unsigned affine_depth = 0;  // 0: outside
  uint64_t affine_operators = 0;
  const size_t size = text.size();
  for (size_t i = 0; i < size; ++i) {
    char c = text[i];
    if (affine_depth != 0 && (c == '+' || c == '*' || (c == '-' && (i + 1 >= size || text[i + 1] != '>')))) {
      if (++affine_operators > max_affine_operators) {
        *error = buffer_name.str() + ":" + std::to_string(line) +
                 ": an affine map or set with more than " +
                 std::to_string(max_affine_operators) +
                 " operators (--max_affine_operators; MLIR's affine parser recurses once per "
                 "operator and simplifies in time quadratic in them)";
        return false;
      }
    }
    switch (c) {
      case '\n':
        ++line;
        break;
      case '"':  // a string: to the next unescaped quote
        for (++i; i < size && text[i] != '"'; ++i) {
          if (text[i] == '\\') ++i;
          else if (text[i] == '\n') ++line;
        }
        break;
      case '/':  // a comment: to the end of the line
        if (i + 1 < size && text[i + 1] == '/') {
          while (i < size && text[i] != '\n') ++i;
          if (i < size) ++line;
        }
        break;
      case '{':
      case '[':
      case '(':
      case '<':
        if (c == '<' && affine_depth == 0 && i >= 10 &&
            (text.substr(i - 10, 10) == "affine_map" || text.substr(i - 10, 10) == "affine_set")) {
          affine_depth = depth + 1;
          affine_operators = 0;
        }
        if (++depth > limit) {
          *error = buffer_name.str() + ":" + std::to_string(line) +
                   ": input nests regions, attributes or types more than " +
                   std::to_string(limit) +
                   " levels deep (--max_nesting_depth)";
          return false;
        }
        break;
      case '>':
        if (i > 0 && text[i - 1] == '-') break;  // `->`
        [[fallthrough]];
      case '}':
      case ']':
      case ')':
        if (depth > 0) --depth;
        if (depth < affine_depth) affine_depth = 0;
        break;
      default:
        break;
    }
  }
  return true;
}

std::unique_ptr<OutputFile> OutputFile::Open(const std::string& path,
                                             std::string* error) {
  std::unique_ptr<OutputFile> output(new OutputFile());
  struct stat status;
  bool special = path != "-" && ::stat(path.c_str(), &status) == 0 &&
                 !S_ISREG(status.st_mode);
  std::error_code code;
  if (special) {
    // A device, FIFO or socket: written through, never removed.
    output->special_ = std::make_unique<llvm::raw_fd_ostream>(
        path, code, llvm::sys::fs::OF_None);
    output->stream_ = output->special_.get();
  } else {
    output->regular_ = std::make_unique<llvm::ToolOutputFile>(
        path, code, llvm::sys::fs::OF_None);
    output->stream_ = &output->regular_->os();
  }
  if (code) {
    *error = "cannot open output file '" + path + "': " + code.message();
    if (output->regular_) output->regular_->keep();  // nothing was created
    return nullptr;
  }
  return output;
}

bool OutputFile::Keep(std::string* error) {
  stream_->flush();
  auto* fd_stream = special_ ? special_.get() : &regular_->os();
  if (fd_stream->has_error()) {
    *error = "cannot write the output: " + fd_stream->error().message();
    fd_stream->clear_error();
    return false;
  }
  if (regular_) regular_->keep();
  return true;
}

OutputFile::~OutputFile() {
  // A failed write would otherwise be a fatal error when the stream closes.
  auto* fd_stream = special_ ? special_.get()
                             : (regular_ ? &regular_->os() : nullptr);
  if (fd_stream != nullptr) {
    fd_stream->flush();
    fd_stream->clear_error();
  }
}

std::unique_ptr<llvm::MemoryBuffer> OpenMlirInput(const std::string& input_path,
                                                  const std::string& output_path) {
  std::string error;
  ReadOptions options;
  options.max_bytes = MaxInputBytes();
  options.output_path = output_path;
  std::unique_ptr<llvm::MemoryBuffer> input = ReadInput(input_path, options, &error);
  // MLIR's bytecode (its magic "ML\xefR") is not text: no brackets to count.
  if (input && !input->getBuffer().starts_with("ML\xefR") &&
      !CheckMlirNesting(input->getBuffer(), MaxNestingDepth(),
                        input->getBufferIdentifier(), &error)) {
    input.reset();
  }
  if (!input) llvm::errs() << error << "\n";
  return input;
}

std::unique_ptr<OutputFile> OpenOutput(const std::string& path) {
  std::string error;
  std::unique_ptr<OutputFile> output = OutputFile::Open(path, &error);
  if (!output) llvm::errs() << error << "\n";
  return output;
}

bool KeepOutput(OutputFile& output) {
  std::string error;
  if (output.Keep(&error)) return true;
  llvm::errs() << error << "\n";
  return false;
}

namespace {

// ---- Stack overflow as an error.
//
// Nesting that brackets do not show (`- - - ... d0`: MLIR's affine parser
// recurses once per unary minus; `d0 + d0 + ...` builds an expression as
// deep as it is long, which walkers recurse over) passes CheckMlirNesting
// and can still exhaust any stack. RunWithLargeStack therefore maps the
// thread's stack itself, with kGuardBytes of inaccessible memory below it,
// and gives the thread an alternate signal stack; a SIGSEGV or SIGBUS whose
// address falls in a running converter thread's guard jumps back to that
// thread's start, which reports it. Any other fault goes to the handler
// that was installed before (LLVM's crash handler, a sanitizer's, Python's
// faulthandler) or to the default action.
constexpr size_t kGuardBytes = size_t{1} << 20;  // more than any one frame
constexpr size_t kAlternateStackBytes = size_t{256} << 10;
constexpr int kMaxGuardedThreads = 64;

struct GuardedThread {
  std::atomic<uintptr_t> guard_begin{0};  // 0: slot free
  uintptr_t guard_end = 0;
  sigjmp_buf* resume = nullptr;
};
GuardedThread guarded_threads[kMaxGuardedThreads];
std::mutex fault_handler_mutex;
struct sigaction previous_segv_action, previous_bus_action;

void OnFault(int signal_number, siginfo_t* info, void* context) {
  const auto address = reinterpret_cast<uintptr_t>(info->si_addr);
  for (GuardedThread& thread : guarded_threads) {
    uintptr_t begin = thread.guard_begin.load(std::memory_order_acquire);
    if (begin != 0 && address >= begin && address < thread.guard_end) {
      siglongjmp(*thread.resume, 1);  // the thread whose stack ran out
    }
  }
  const struct sigaction& previous =
      signal_number == SIGSEGV ? previous_segv_action : previous_bus_action;
  if ((previous.sa_flags & SA_SIGINFO) != 0 && previous.sa_sigaction != nullptr) {
    previous.sa_sigaction(signal_number, info, context);
    return;
  }
  if ((previous.sa_flags & SA_SIGINFO) == 0 && previous.sa_handler != SIG_DFL &&
      previous.sa_handler != SIG_IGN) {
    previous.sa_handler(signal_number);
    return;
  }
  // The default action: returning re-runs the faulting instruction.
  ::signal(signal_number, SIG_DFL);
}

// Installs OnFault for SIGSEGV and SIGBUS unless it is installed (someone
// may have replaced it since: LLVM registers its handlers lazily).
void InstallFaultHandler() {
  std::lock_guard<std::mutex> lock(fault_handler_mutex);
  for (int signal_number : {SIGSEGV, SIGBUS}) {
    struct sigaction current;
    if (::sigaction(signal_number, nullptr, &current) != 0) continue;
    if ((current.sa_flags & SA_SIGINFO) != 0 && current.sa_sigaction == &OnFault) continue;
    struct sigaction action = {};
    action.sa_sigaction = &OnFault;
    action.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&action.sa_mask);
    (signal_number == SIGSEGV ? previous_segv_action : previous_bus_action) = current;
    ::sigaction(signal_number, &action, nullptr);
  }
}

struct LargeStackCall {
  const std::function<int()>* body;
  uintptr_t guard_begin;
  uintptr_t guard_end;
  void* alternate_stack;
  int result = 1;
  bool overflowed = false;
  bool no_slot = false;
};

void* RunGuarded(void* argument) {
  auto* call = static_cast<LargeStackCall*>(argument);
  stack_t alternate = {};
  alternate.ss_sp = call->alternate_stack;
  alternate.ss_size = kAlternateStackBytes;
  stack_t previous_alternate;
  ::sigaltstack(&alternate, &previous_alternate);
  GuardedThread* slot = nullptr;
  for (GuardedThread& candidate : guarded_threads) {
    uintptr_t free_slot = 0;
    if (candidate.guard_begin.load(std::memory_order_relaxed) == 0 &&
        candidate.guard_begin.compare_exchange_strong(free_slot, UINTPTR_MAX)) {
      slot = &candidate;
      break;
    }
  }
  if (slot == nullptr) {
    call->no_slot = true;
  } else {
    sigjmp_buf resume;
    slot->resume = &resume;
    slot->guard_end = call->guard_end;
    if (sigsetjmp(resume, 1) == 0) {
      slot->guard_begin.store(call->guard_begin, std::memory_order_release);
      call->result = (*call->body)();
    } else {
      // The stack ran out: what the body built is abandoned (its memory
      // leaks; nothing of it is touched again).
      call->overflowed = true;
      call->result = 1;
    }
    slot->guard_begin.store(0, std::memory_order_release);
  }
  stack_t disable = {};
  disable.ss_flags = SS_DISABLE;
  ::sigaltstack(&disable, nullptr);
  return nullptr;
}

// What RunWithLargeStack reports when a stack of `stack_bytes` ran out.
std::string StackOverflowMessage(size_t stack_bytes) {
  return "the input nests deeper than the converter's " + std::to_string(stack_bytes >> 20) +
         " MiB stack holds (an expression nested without brackets, such as a long run of "
         "unary minus signs, recurses once per level); nothing was written. "
         "--max_nesting_depth sizes the stack (64 KiB per level)";
}

}  // namespace

int RunWithLargeStack(const std::function<int()>& body, std::string* overflow_message) {
  size_t stack = kStackBytesPerLevel * MaxNestingDepth();
  if (stack < kMinimumStackBytes) stack = kMinimumStackBytes;
  // Reserved, not committed: pages are used as deep as the recursion goes.
  const size_t mapped = kGuardBytes + stack + kAlternateStackBytes;
  void* memory = ::mmap(nullptr, mapped, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
  if (memory == MAP_FAILED) {
    llvm::errs() << "cannot map a " << (stack >> 20) << " MiB stack for --max_nesting_depth="
                 << MaxNestingDepth() << ": " << ErrnoText(errno) << "\n";
    return 1;
  }
  auto* base = static_cast<char*>(memory);
  ::mprotect(base, kGuardBytes, PROT_NONE);  // the stack grows down into it
  LargeStackCall call{&body, reinterpret_cast<uintptr_t>(base),
                      reinterpret_cast<uintptr_t>(base + kGuardBytes),
                      base + kGuardBytes + stack};
  InstallFaultHandler();
  pthread_attr_t attributes;
  pthread_attr_init(&attributes);
  pthread_t thread;
  bool started = pthread_attr_setstack(&attributes, base + kGuardBytes, stack) == 0 &&
                 pthread_create(&thread, &attributes, &RunGuarded, &call) == 0;
  pthread_attr_destroy(&attributes);
  if (!started) {
    ::munmap(memory, mapped);
    llvm::errs() << "cannot start a thread with a " << (stack >> 20)
                 << " MiB stack for --max_nesting_depth=" << MaxNestingDepth() << "\n";
    return 1;
  }
  pthread_join(thread, nullptr);
  ::munmap(memory, mapped);
  if (call.no_slot) {
    llvm::errs() << "more than " << kMaxGuardedThreads
                 << " conversions at once; try again when fewer run\n";
    return 1;
  }
  if (call.overflowed) {
    std::string message = StackOverflowMessage(stack);
    if (overflow_message != nullptr) {
      *overflow_message = std::move(message);
    } else {
      llvm::errs() << message << "\n";
      // Output files the run had opened (registered for removal on a
      // signal; their destructors were skipped).
      llvm::sys::RunInterruptHandlers();
    }
  }
  return call.result;
}

int ConverterMain(int argc, char** argv, const char* overview, int (*run)()) {
  llvm::InitLLVM init(argc, argv);
  mlir::registerAsmPrinterCLOptions();
  mlir::registerMLIRContextCLOptions();
  llvm::cl::ParseCommandLineOptions(argc, argv, overview);
  return RunWithLargeStack(run);
}

}  // namespace bef::converter_io
