// The oneDNN plugin (onednn_api.h), loaded on first use.
//
// OneDnn() finds libbef_onednn.so, in order: $BEF_ONEDNN_LIBRARY; beside
// the binary or shared object these kernels are linked into, and in
// ../kernels/cpu/ from it (Bazel's output and runfiles layout: tools/
// beside kernels/); then the dynamic loader's search path. The first
// success (or the failure, with every path tried) is kept for the process:
// a kernel that needs the library reports that failure as its error.
#ifndef BEF_KERNELS_CPU_ONEDNN_H_
#define BEF_KERNELS_CPU_ONEDNN_H_

#include "absl/status/statusor.h"
#include "kernels/cpu/onednn_api.h"

namespace bef::cpu_kernels {

absl::StatusOr<const BefOneDnnApi*> OneDnn();

}  // namespace bef::cpu_kernels

#endif  // BEF_KERNELS_CPU_ONEDNN_H_
