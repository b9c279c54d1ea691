#include "bef/tensor/sparse_and_string_tensors.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "bef/support/string_view.h"

namespace bef {

std::string StringHostTensor::ToString() const {
  constexpr size_t kMaxPrinted = 16;
  constexpr size_t kEllipsisAbove = 32;
  std::string text = absl::StrCat("StringHostTensor shape = ",
                                  shape_.ToString(), ", values = [");
  for (size_t i = 0; i < std::min(values_.size(), kMaxPrinted); ++i) {
    absl::StrAppend(&text, i ? ", " : "", "\"", values_[i], "\"");
  }
  if (values_.size() > kEllipsisAbove) text += ", ... ";
  return text + "]";
}

namespace {

std::string AllElements(const DenseHostTensor& tensor) {
  std::string text;
  int64_t count = std::max<int64_t>(tensor.NumElements(), 0);
  size_t size = DTypeSize(tensor.dtype());
  const char* bytes = static_cast<const char*>(tensor.data());
  for (int64_t i = 0; i < count && size != 0; ++i) {
    absl::StrAppend(&text, i ? ", " : "",
                    FormatElement(tensor.dtype(), bytes + i * size));
  }
  return text;
}

}  // namespace

std::string CooHostTensor::ToString() const {
  return absl::StrCat("CooHostTensor dtype = ", ToAbsl(DTypeName(dtype())),
                      ", shape = ", shape_.ToString(), ", indices = [",
                      AllElements(indices_), "], values = [",
                      AllElements(values_), "]\n");
}

}  // namespace bef
