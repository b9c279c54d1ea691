// Convolution filters reordered once: a model's weights are put into the
// layout oneDNN's convolution wants on their first use, not on every call
// (for a batch-1 ResNet layer the reorder costs about as much as the
// convolution).
//
// Only filters whose bytes cannot change are kept: a dense attribute of a
// BEF image (HostBuffer::constant_owner). An entry is keyed by the filter's
// data pointer and the convolution's shape and watches the image's owner
// through a std::weak_ptr: once the program is unloaded the entry is stale
// (the same address may hold other bytes later) and is replaced or
// dropped; the cache never keeps an image alive. A filter that tensors may
// write (from a BTF file, a kernel, an embedder's array) is reordered per
// call.
//
// Bounded: every miss sweeps out the stale entries (so a server that loads
// and unloads models keeps at most the filters of the images it had at its
// last miss), at most kCapacityBytes of filters are kept (counted at the
// filter's own size: the plugin keeps each in the layouts its calls want,
// up to 4, and Winograd's layout of a 3x3 filter takes up to 4x its size),
// and a filter that does not fit is reordered per call. One lock, taken once per convolution (work
// of microseconds to milliseconds) and never while reordering.
#ifndef BEF_KERNELS_CPU_PREPARED_FILTERS_H_
#define BEF_KERNELS_CPU_PREPARED_FILTERS_H_

#include <cstdint>

#include "bef/tensor/dense_host_tensor.h"
#include "kernels/cpu/onednn_api.h"

namespace bef::cpu_kernels {

inline constexpr int64_t kCapacityBytes = int64_t{1} << 30;

// The prepared form of `filter` for convolutions of `shape` (made now if
// the filter is constant and there is room), or null: reorder per call.
// A non-null result stays valid while `filter`'s buffer lives. For a
// convolution of a range of the filter's output channels (a part of a
// split convolution: shape.filter_out_channels set), `first_channel` is the
// range's first; each range is its own entry.
const void* PreparedFilter(const DenseHostTensor& filter, const BefConv2DShape& shape,
                           const BefOneDnnApi& onednn, int64_t first_channel = 0);

// The bytes of filters kept now (for tests and diagnostics).
int64_t PreparedFilterBytes();

}  // namespace bef::cpu_kernels

#endif  // BEF_KERNELS_CPU_PREPARED_FILTERS_H_
