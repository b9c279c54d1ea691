// Force-included (-include) in every translation unit that uses LLVM/MLIR
// headers (lib/converter/BUILD: LLVM_COPTS).
//
// Debian's libLLVM/libMLIR are not built with AddressSanitizer, but LLVM's
// headers turn on ASan poisoning in inline code (BumpPtrAllocator slabs) when
// the including file is compiled with -fsanitize=address. Slabs poisoned by
// our instrumented inline code and then handed out by the uninstrumented
// library are reported as use-after-poison inside MLIR. Telling the headers
// that LLVM is not an ASan build keeps both sides consistent; our own code
// stays fully instrumented.
#ifndef BEF_CONVERTER_LLVM_SANITIZER_CONFIG_H_
#define BEF_CONVERTER_LLVM_SANITIZER_CONFIG_H_

#include "llvm/Support/Compiler.h"

#if LLVM_ADDRESS_SANITIZER_BUILD
#undef LLVM_ADDRESS_SANITIZER_BUILD
#define LLVM_ADDRESS_SANITIZER_BUILD 0
#define __asan_poison_memory_region(p, size) ((void)(p), (void)(size))
#define __asan_unpoison_memory_region(p, size) ((void)(p), (void)(size))
#endif

#endif  // BEF_CONVERTER_LLVM_SANITIZER_CONFIG_H_
