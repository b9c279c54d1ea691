"""Compiler options of every target that includes LLVM/MLIR headers."""

# See lib/converter/llvm_sanitizer_config.h.
LLVM_COPTS = ["-include", "lib/converter/llvm_sanitizer_config.h"]
