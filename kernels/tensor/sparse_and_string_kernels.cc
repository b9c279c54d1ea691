// tfrt_sht.create_tensor and the coo.* kernels (host-tensors.md §5.5, §5.6).
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/format/attribute_view.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/status_macros.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "kernels/tensor/operands.h"
#include "bef/tensor/sparse_and_string_tensors.h"

namespace bef {
namespace {

// tfrt_sht.create_tensor {shape = [...], values = ["a", ...]}. `values` is
// read as an aggregate (the loader verified it: every element in bounds);
// `[]` is an empty array, the same single zero word as an empty aggregate.
absl::StatusOr<StringHostTensor> CreateStringTensor(
    ArrayAttribute<int64_t> shape_attribute, AggregateAttribute values) {
  TensorShape shape(shape_attribute.data());
  std::vector<std::string> strings;
  for (uint32_t i = 0; i < values.size(); ++i) {
    if (values.element_type(i) != static_cast<uint8_t>(DType::kString)) {
      return absl::InvalidArgumentError(
          "tfrt_sht.create_tensor: values must be strings");
    }
    strings.emplace_back(StringAttributeView(values.element(i)));
  }
  if (static_cast<int64_t>(strings.size()) != shape.NumElements()) {
    return absl::InternalError("Shape mismatch");
  }
  return StringHostTensor(std::move(shape), std::move(strings));
}

// coo.convert_dht_to_coo.T.R: the nonzero elements, row-major, each with
// its row-major coordinates. (TFRT divides by the dimensions first to last
// while filling coordinates last to first, which is right only when
// dim[0] == dim[R-1]; issue #9 asks for the right coordinates, see
// tests/tensor/coo.mlir and BETTER_THAN_REFERENCE in run_golden.py.)
template <typename T, size_t kRank>
absl::StatusOr<std::pair<CooHostTensor, RCReference<AsyncValue>>>
ConvertDhtToCoo(RemainingArguments arguments, HostContext* host) {
  auto dense_or = Operand<DenseHostTensor>(arguments, 0,
                                           "coo.convert_dht_to_coo", "tensor");
  if (!dense_or.ok()) return dense_or.status();
  const DenseHostTensor& dense = **dense_or;
  if (arguments.size() < 2) {
    return absl::InvalidArgumentError("coo.convert_dht_to_coo needs a chain");
  }
  BEF_RETURN_IF_ERROR(dense.CheckDType(BefDTypeOf<T>::value, "coo.convert_dht_to_coo"));
  if (dense.shape().rank() != kRank) {
    return absl::InvalidArgumentError(absl::StrCat(
        "coo.convert_dht_to_coo: the tensor is not of the kernel's rank ", kRank));
  }
  const T* data = static_cast<const T*>(dense.data());
  int64_t count = std::max<int64_t>(dense.NumElements(), 0);
  std::vector<int64_t> nonzero;
  for (int64_t i = 0; i < count; ++i) {
    if (data[i] != T(0)) nonzero.push_back(i);
  }
  int64_t nnz = static_cast<int64_t>(nonzero.size());
  TensorShape values_shape(std::vector<int64_t>{nnz});
  TensorShape indices_shape(std::vector<int64_t>{nnz, int64_t{kRank}});
  auto values_buffer = DenseHostTensor::AllocateBuffer(
      host->allocator(), dense.dtype(), values_shape);
  if (!values_buffer) return absl::InternalError("Cannot allocate value tensor");
  auto indices_buffer = DenseHostTensor::AllocateBuffer(
      host->allocator(), DType::kI64, indices_shape);
  if (!indices_buffer) return absl::InternalError("Cannot allocate index tensor");
  DenseHostTensor values(dense.dtype(), values_shape, values_buffer);
  DenseHostTensor indices(DType::kI64, indices_shape, indices_buffer);
  T* value_data = static_cast<T*>(values.writable_data());
  int64_t* index_data = static_cast<int64_t*>(indices.writable_data());
  const std::vector<int64_t>& dims = dense.shape().dims();
  for (int64_t k = 0; k < nnz; ++k) {
    value_data[k] = data[nonzero[k]];
    int64_t position = nonzero[k];
    for (size_t r = kRank; r-- > 0;) {
      index_data[k * kRank + r] = position % dims[r];
      position /= dims[r];
    }
  }
  return std::pair<CooHostTensor, RCReference<AsyncValue>>(
      CooHostTensor(dense.shape(), std::move(indices), std::move(values)),
      FormRef(arguments[1]));
}

// coo.convert_coo_to_dht (the suffixes are ignored, as in TFRT): a
// zero-filled dense tensor with each value at its coordinates.
absl::StatusOr<std::pair<DenseHostTensor, RCReference<AsyncValue>>>
ConvertCooToDht(RemainingArguments arguments, HostContext* host) {
  auto coo_or = Operand<CooHostTensor>(arguments, 0, "coo.convert_coo_to_dht",
                                       "COO tensor");
  if (!coo_or.ok()) return coo_or.status();
  const CooHostTensor& coo = **coo_or;
  if (arguments.size() < 2) {
    return absl::InvalidArgumentError("coo.convert_coo_to_dht needs a chain");
  }
  auto buffer = DenseHostTensor::AllocateBuffer(host->allocator(), coo.dtype(),
                                                coo.shape());
  if (!buffer) return absl::InternalError("Cannot allocate tensor");
  DenseHostTensor dense(coo.dtype(), coo.shape(), buffer);
  std::memset(dense.writable_data(), 0, dense.DataSize());
  size_t element = DTypeSize(coo.dtype());
  const std::vector<int64_t>& dims = coo.shape().dims();
  size_t rank = dims.size();
  int64_t nnz = coo.values().NumElements();
  const int64_t* indices = static_cast<const int64_t*>(coo.indices().data());
  const char* values = static_cast<const char*>(coo.values().data());
  for (int64_t k = 0; k < nnz; ++k) {
    int64_t offset = 0;
    for (size_t r = 0; r < rank; ++r) {
      int64_t coordinate = indices[k * rank + r];
      if (coordinate < 0 || coordinate >= dims[r]) {
        // TFRT writes outside the buffer here.
        return absl::InvalidArgumentError(
            "coo.convert_coo_to_dht: an index lies outside the dense shape");
      }
      offset = offset * dims[r] + coordinate;
    }
    std::memcpy(static_cast<char*>(dense.writable_data()) + offset * element,
                values + k * element, element);
  }
  return std::pair<DenseHostTensor, RCReference<AsyncValue>>(
      std::move(dense), FormRef(arguments[1]));
}

template <typename T>
bool Close(T x, T y) {
  if constexpr (std::is_floating_point_v<T>) {
    T difference = std::fabs(x - y);
    return difference <= std::numeric_limits<T>::epsilon() * std::fabs(x + y) * 2 ||
           difference < std::numeric_limits<T>::min();
  } else {
    return x == y;
  }
}

// coo.tensor_equal.T.R: values close (2 ULP) and indices equal; the dense
// shapes are not compared (TFRT's behaviour).
template <typename T>
absl::StatusOr<std::pair<bool, RCReference<AsyncValue>>> CooTensorEqual(
    RemainingArguments arguments) {
  auto a = Operand<CooHostTensor>(arguments, 0, "coo.tensor_equal", "COO tensor");
  if (!a.ok()) return a.status();
  auto b = Operand<CooHostTensor>(arguments, 1, "coo.tensor_equal", "COO tensor");
  if (!b.ok()) return b.status();
  if (arguments.size() < 3) {
    return absl::InvalidArgumentError("coo.tensor_equal needs a chain");
  }
  const DenseHostTensor& va = (*a)->values();
  const DenseHostTensor& vb = (*b)->values();
  const DenseHostTensor& ia = (*a)->indices();
  const DenseHostTensor& ib = (*b)->indices();
  // Values of different dtypes are not equal; of one dtype other than T's,
  // an error (TFRT reads their bytes as T's).
  if (va.dtype() == vb.dtype()) {
    BEF_RETURN_IF_ERROR(va.CheckDType(BefDTypeOf<T>::value, "coo.tensor_equal"));
  }
  bool equal = va.dtype() == vb.dtype() && va.shape() == vb.shape() &&
               ia.shape() == ib.shape() && va.DataSize() == vb.DataSize() &&
               std::memcmp(ia.data(), ib.data(), ia.DataSize()) == 0;
  const size_t size = equal ? va.DataSize() : 0;  // once, not per element
  for (size_t i = 0; equal && i < size; i += sizeof(T)) {
    T x, y;
    std::memcpy(&x, static_cast<const char*>(va.data()) + i, sizeof(T));
    std::memcpy(&y, static_cast<const char*>(vb.data()) + i, sizeof(T));
    equal = Close(x, y);
  }
  return std::pair<bool, RCReference<AsyncValue>>(equal, FormRef(arguments[2]));
}

template <typename T, size_t kRank>
void RegisterCoo(KernelRegistry* registry, const std::string& suffix) {
  std::string name = absl::StrCat(suffix, ".", kRank);
  registry->AddKernel("coo.convert_dht_to_coo." + name,
                      BEF_KERNEL((ConvertDhtToCoo<T, kRank>)));
  registry->AddKernel("coo.convert_coo_to_dht." + name,
                      BEF_KERNEL(ConvertCooToDht));
  registry->AddKernel("coo.tensor_equal." + name,
                      BEF_KERNEL(CooTensorEqual<T>));
}

template <typename T>
void RegisterCooRanks(KernelRegistry* registry, const std::string& suffix) {
  RegisterCoo<T, 0>(registry, suffix);
  RegisterCoo<T, 1>(registry, suffix);
  RegisterCoo<T, 2>(registry, suffix);
  RegisterCoo<T, 3>(registry, suffix);
}

void RegisterSparseAndStringKernels(KernelRegistry* registry) {
  registry->AddKernel("tfrt_sht.create_tensor", BEF_KERNEL(CreateStringTensor));
  RegisterCooRanks<int32_t>(registry, "i32");
  RegisterCooRanks<float>(registry, "f32");
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterSparseAndStringKernels, "coo", "tfrt_sht");

}  // namespace bef
