// FunctionInfo: a verified, inflated BEF (or sync) function, ready for the
// executor. Built once per function by BefFile::GetFunctionInfo.
//
// Kernel records stay in the image: KernelInfo points at the record's words
// (4-aligned FIXED32, little-endian) and every field accessor reads in place.
// What the executor needs per invocation is kept compact: the register use
// counts and the initial ready counts (max(1, #operands)) it copies into its
// frame.
#ifndef BEF_LOADER_FUNCTION_INFO_H_
#define BEF_LOADER_FUNCTION_INFO_H_

#include <cstdint>
#include <span>
#include <vector>

#include "bef/format/bef_encoding.h"
#include "bef/format/bef_records.h"
#include "bef/host/kernel_registry.h"

namespace bef {

// A kernel of a verified function: its record, read in place (the
// accessors are KernelRecord's, lib/format), and what the loader resolved.
struct KernelInfo : KernelRecord {
  uint32_t stream = 0;
  // Resolved implementation (null when kernels were not resolved, and for
  // the pseudo kernel).
  AsyncKernelImplementation async_implementation = nullptr;
  SyncKernelImplementation sync_implementation = nullptr;
  // The direct entry point (in the registry), set when the kernel has one
  // and its record fits it (one result, the kernel's operands).
  const DirectKernel* direct = nullptr;
  // The registry marks the kernel chain-only and its record has one result
  // (KernelDefinition::chain_only).
  bool chain_only = false;
  // The registry marks the kernel a function call (KernelDefinition::
  // function_call) and its record names the functions that kind reads
  // (one for kCall, two for kIf).
  FunctionCallKind function_call = FunctionCallKind::kNone;
};

struct FunctionInfo {
  uint32_t index = 0;
  FunctionKind kind = FunctionKind::kBefFunction;
  uint32_t location = 0;  // offset into the Locations section
  uint32_t num_registers = 0;
  uint32_t num_arguments = 0;
  // Per register: how many references the executor hands out (uses by
  // kernels and by the return).
  std::vector<uint32_t> register_uses;
  // Per kernel (kernel 0 is the pseudo kernel): the record and stream.
  std::vector<KernelInfo> kernels;
  // Per kernel: max(1, #operands).
  std::vector<uint32_t> initial_ready_counts;
  std::vector<uint32_t> result_registers;
};

}  // namespace bef

#endif  // BEF_LOADER_FUNCTION_INFO_H_
