// Host tensors, part 2: string host tensors and COO (coordinate-list)
// sparse host tensors (../shared/spec/host-tensors.md §4.2, §4.3).
#ifndef BEF_TENSOR_SPARSE_AND_STRING_TENSORS_H_
#define BEF_TENSOR_SPARSE_AND_STRING_TENSORS_H_

#include <string>
#include <vector>

#include "bef/tensor/dense_host_tensor.h"

namespace bef {

// DType `str`: a shape and one byte string per element.
class StringHostTensor {
 public:
  StringHostTensor(TensorShape shape, std::vector<std::string> values)
      : shape_(std::move(shape)), values_(std::move(values)) {}

  const TensorShape& shape() const { return shape_; }
  const std::vector<std::string>& values() const { return values_; }

  // `StringHostTensor shape = [3], values = ["a", "", "b"]`: at most 16
  // strings, written raw; `, ... ` only above 32 elements (TFRT's quirk).
  std::string ToString() const;

 private:
  TensorShape shape_;
  std::vector<std::string> values_;
};

// A dense shape plus `indices` (i64 [nnz, rank]) and `values` ([nnz]).
class CooHostTensor {
 public:
  CooHostTensor(TensorShape shape, DenseHostTensor indices,
                DenseHostTensor values)
      : shape_(std::move(shape)),
        indices_(std::move(indices)),
        values_(std::move(values)) {}

  DType dtype() const { return values_.dtype(); }
  const TensorShape& shape() const { return shape_; }
  const DenseHostTensor& indices() const { return indices_; }
  const DenseHostTensor& values() const { return values_; }

  // `CooHostTensor dtype = i32, shape = [3, 3], indices = [...], values =
  // [...]` and a newline (part of the text, as in TFRT); nothing truncated.
  std::string ToString() const;

 private:
  TensorShape shape_;
  DenseHostTensor indices_;
  DenseHostTensor values_;
};

}  // namespace bef

#endif  // BEF_TENSOR_SPARSE_AND_STRING_TENSORS_H_
