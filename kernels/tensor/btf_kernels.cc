// BTF (Binary Tensor Format) reader kernels: btf.read_dense_tensor.T.R and
// btf.read_coo_tensor.T.R (host-tensors.md §8). TFRT keeps them in its CPU
// backend, which its bef_executor does not link; they are shipped here with
// the tensor kernels, behaving as the spec's variant build does.
//
// The file is read on a blocking work-queue task; errors are reported as
// diagnostics at the kernel's location and become the result. Every read is
// checked (a truncated or corrupt file is an error, never a crash).
#include <cstdint>
#include <cstring>
#include <fstream>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "bef/host/diagnostic.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/string_view.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"

namespace bef {
namespace {

// BTF dtype codes (§8.1) and their DTypes.
struct BtfDType {
  uint8_t code;
  DType dtype;
  const char* name;
};
constexpr BtfDType kBtfDTypes[] = {
    {0, DType::kI8, "i8"},     {1, DType::kI16, "i16"},
    {2, DType::kI32, "i32"},   {3, DType::kI64, "i64"},
    {4, DType::kF32, "f32"},   {5, DType::kF64, "f64"},
    {6, DType::kUI8, "ui8"},   {7, DType::kUI16, "ui16"},
    {8, DType::kUI32, "ui32"}, {9, DType::kUI64, "ui64"},
};

std::string BtfDTypeName(uint8_t code) {
  for (const BtfDType& entry : kBtfDTypes) {
    if (entry.code == code) return entry.name;
  }
  return absl::StrCat("BadDtype(", code, ")");
}

std::string LayoutName(uint8_t layout) {
  if (layout == 0) return "Row-Major Dense tensor";
  if (layout == 1) return "COOrdinate list sparse tensor";
  return "Unknown";
}

template <typename T>
bool ReadValue(std::ifstream& stream, T& value) {
  return static_cast<bool>(
      stream.read(reinterpret_cast<char*>(&value), sizeof(T)));
}

struct RecordHeader {
  uint64_t rank;
  uint8_t dtype;
  uint8_t layout;
};

// Opens `path`, finds record `index` and reads and checks its header
// (steps 1-8 of §8.4).
absl::StatusOr<RecordHeader> OpenRecord(std::ifstream& stream,
                                        const std::string& path, int32_t index,
                                        const char* expected_dtype,
                                        uint64_t expected_rank,
                                        uint8_t expected_layout,
                                        uint64_t& offset) {
  stream.open(path, std::ios::binary);
  if (!stream) {
    return absl::InternalError(
        absl::StrCat("failed to open file ", path, " for reading"));
  }
  uint64_t count;
  if (!ReadValue(stream, count)) {
    return absl::InternalError(
        absl::StrCat("failed to read tensor num_tensors from path ", path));
  }
  if (static_cast<uint64_t>(static_cast<int64_t>(index)) >= count) {
    return absl::InternalError(absl::StrCat(
        "invalid tensor index ", index, " to read tensor from path ", path,
        " which contains ", count, " tensors"));
  }
  stream.seekg(8 + 8 * static_cast<uint64_t>(index));
  if (!ReadValue(stream, offset)) {
    return absl::InternalError(absl::StrCat(
        "failed to read tensor offset from ", path, " for tensor index ",
        index));
  }
  stream.seekg(offset);
  uint8_t header[16];
  if (!stream.read(reinterpret_cast<char*>(header), sizeof(header))) {
    return absl::InternalError(absl::StrCat(
        "failed to read tensor header from stream at offset ", offset));
  }
  RecordHeader record;
  std::memcpy(&record.rank, header, 8);
  record.dtype = header[8];
  record.layout = header[9];
  if (BtfDTypeName(record.dtype) != expected_dtype) {
    return absl::InternalError(
        absl::StrCat("unexpected tensor dtype ", BtfDTypeName(record.dtype),
                     ". Expected dtype is ", expected_dtype));
  }
  if (record.rank != expected_rank) {
    return absl::InternalError(absl::StrCat("unexpected tensor rank ",
                                            record.rank, ". Expected rank is ",
                                            expected_rank));
  }
  if (record.layout != expected_layout) {
    return absl::InternalError(absl::StrCat("unexpected tensor layout ",
                                            LayoutName(record.layout)));
  }
  return record;
}

absl::StatusOr<std::vector<int64_t>> ReadDims(std::ifstream& stream,
                                              uint64_t rank) {
  uint64_t position = static_cast<uint64_t>(stream.tellg());
  std::vector<int64_t> dims(rank);
  for (int64_t& dim : dims) {
    if (!ReadValue(stream, dim)) {
      return absl::InternalError(
          absl::StrCat("failed to read tensor dims at offset ", position));
    }
  }
  return dims;
}

// Dims then elements (a dense payload without header).
absl::StatusOr<DenseHostTensor> ReadDensePayload(std::ifstream& stream,
                                                 uint64_t rank, DType dtype,
                                                 HostAllocator* allocator) {
  absl::StatusOr<std::vector<int64_t>> dims = ReadDims(stream, rank);
  if (!dims.ok()) return dims.status();
  uint64_t position = static_cast<uint64_t>(stream.tellg());
  TensorShape shape(*dims);
  for (int64_t dim : *dims) {
    if (dim < 0 || dim > (int64_t{1} << 40)) {
      return absl::InternalError(absl::StrCat(
          "failed to read tensor data from stream at offset ", position));
    }
  }
  auto buffer = DenseHostTensor::AllocateBuffer(allocator, dtype, shape);
  if (!buffer) return absl::InternalError("cannot allocate result tensor");
  DenseHostTensor tensor(dtype, std::move(shape), std::move(buffer));
  if (!stream.read(static_cast<char*>(tensor.writable_data()),
                   static_cast<std::streamsize>(tensor.DataSize()))) {
    return absl::InternalError(absl::StrCat(
        "failed to read tensor data from stream at offset ", position));
  }
  return tensor;
}

// Record `index` of the BTF file `path`, expected to hold a tensor of
// `dtype` (BTF's name `dtype_name`) and `rank`.
struct BtfRecordRequest {
  std::string path;
  int32_t index;
  std::string dtype_name;
  DType dtype;
  uint64_t rank;
};

absl::Status OpenRequestedRecord(std::ifstream& stream,
                                 const BtfRecordRequest& request,
                                 uint8_t layout) {
  uint64_t offset = 0;
  return OpenRecord(stream, request.path, request.index,
                    request.dtype_name.c_str(), request.rank, layout, offset)
      .status();
}

absl::StatusOr<DenseHostTensor> ReadDenseTensor(const BtfRecordRequest& request,
                                                HostAllocator* allocator) {
  std::ifstream stream;
  absl::Status opened = OpenRequestedRecord(stream, request, /*layout=*/0);
  if (!opened.ok()) return opened;
  return ReadDensePayload(stream, request.rank, request.dtype, allocator);
}

absl::StatusOr<CooHostTensor> ReadCooTensor(const BtfRecordRequest& request,
                                            HostAllocator* allocator) {
  const uint64_t rank = request.rank;
  const DType dtype = request.dtype;
  std::ifstream stream;
  absl::Status opened = OpenRequestedRecord(stream, request, /*layout=*/1);
  if (!opened.ok()) return opened;
  absl::StatusOr<std::vector<int64_t>> dims = ReadDims(stream, rank);
  if (!dims.ok()) return dims.status();
  TensorShape shape(*dims);
  // As TFRT, allocate (and drop) a dense tensor of the full shape first.
  if (!DenseHostTensor::AllocateBuffer(allocator, dtype, shape)) {
    return absl::InternalError("cannot allocate result tensor");
  }
  auto indices = ReadDensePayload(stream, 2, DType::kI64, allocator);
  if (!indices.ok()) return indices.status();
  auto values = ReadDensePayload(stream, 1, dtype, allocator);
  if (!values.ok()) return values.status();
  const std::vector<int64_t>& index_dims = indices->shape().dims();
  int64_t nnz = values->NumElements();
  if (index_dims[0] != nnz || index_dims[1] != static_cast<int64_t>(rank)) {
    return absl::InternalError(
        "the tensor is not corectly formatted, the indices and values "
        "tensors do not match in size COOrdinate list sparse tensor");
  }
  const int64_t* coordinates = static_cast<const int64_t*>(indices->data());
  for (int64_t k = 0; k < nnz; ++k) {
    for (uint64_t r = 0; r < rank; ++r) {
      int64_t coordinate = coordinates[k * rank + r];
      if (coordinate < 0 || coordinate >= (*dims)[r]) {
        return absl::InternalError(absl::StrCat(
            "the indices tensor has an element at position ", k, ", ", r,
            " that bigger than the respective dimension. Element: ",
            coordinate, ", limit: ", (*dims)[r]));
      }
    }
  }
  return CooHostTensor(std::move(shape), std::move(*indices),
                       std::move(*values));
}

template <typename Tensor>
using Reader = absl::StatusOr<Tensor> (*)(const BtfRecordRequest&,
                                          HostAllocator*);

// (path, index) -> tensor, read on a blocking task.
template <typename Tensor, Reader<Tensor> kRead, DType kDType, uint64_t kRank>
RCReference<AsyncValue> ReadBtf(Argument<std::string> path,
                                Argument<int32_t> index,
                                AsyncKernelFrame* frame) {
  AsyncValueRef<Tensor> result = MakeUnconstructedAsyncValueRef<Tensor>();
  HostContext* host = frame->GetHostContext();
  Location location = frame->GetLocation();
  std::string dtype_name;
  for (const BtfDType& entry : kBtfDTypes) {
    if (entry.dtype == kDType) dtype_name = entry.name;
  }
  bool queued = host->EnqueueBlockingWork(
      [result = result.CopyRef(), host, location, path = *path,
       index = *index, dtype_name] {
        absl::StatusOr<Tensor> tensor =
            kRead(BtfRecordRequest{path, index, dtype_name, kDType, kRank},
                  host->allocator());
        if (tensor.ok()) {
          result.emplace(std::move(*tensor));
          return;
        }
        DecodedDiagnostic diagnostic;
        if (location.has_value()) diagnostic.location = location.Decode();
        diagnostic.status = tensor.status();
        host->EmitError(diagnostic);
        result.SetError(tensor.status(), location);
      });
  if (!queued) {
    result.SetError(absl::InternalError(
        "Failed to enqueue blocking work for a BTF read"));
  }
  return result.ReleaseRCRef();
}

template <DType kDType, uint64_t kRank>
void RegisterRank(KernelRegistry* registry, const std::string& suffix,
                  bool coo) {
  std::string name = absl::StrCat(suffix, ".", kRank);
  registry->AddKernel(
      "btf.read_dense_tensor." + name,
      BEF_KERNEL((ReadBtf<DenseHostTensor, &ReadDenseTensor, kDType, kRank>)));
  if (coo) {
    registry->AddKernel(
        "btf.read_coo_tensor." + name,
        BEF_KERNEL((ReadBtf<CooHostTensor, &ReadCooTensor, kDType, kRank>)));
  }
}

template <DType kDType>
void RegisterDType(KernelRegistry* registry, const std::string& suffix,
                   bool coo) {
  RegisterRank<kDType, 0>(registry, suffix, coo);
  RegisterRank<kDType, 1>(registry, suffix, coo);
  RegisterRank<kDType, 2>(registry, suffix, coo);
  RegisterRank<kDType, 3>(registry, suffix, coo);
  RegisterRank<kDType, 4>(registry, suffix, coo);
}

void RegisterBtfKernels(KernelRegistry* registry) {
  RegisterDType<DType::kF32>(registry, "f32", true);
  RegisterDType<DType::kI32>(registry, "i32", true);
  RegisterDType<DType::kI8>(registry, "i8", true);
  RegisterDType<DType::kI64>(registry, "i64", false);
  RegisterDType<DType::kUI8>(registry, "ui8", false);
}

}  // namespace

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterBtfKernels, "btf");

}  // namespace bef
