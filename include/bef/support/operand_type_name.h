// OperandTypeName<T>: how a kernel's error message names the payload type T
// of an operand that holds something else ("operand 0 is not a value of type
// NAME", kernel_utils.h). Types with a BEF type name use it; a payload type
// with several BEF spellings (a tensor) or none names itself here, next to
// its definition, so every translation unit sees the same name.
#ifndef BEF_SUPPORT_OPERAND_TYPE_NAME_H_
#define BEF_SUPPORT_OPERAND_TYPE_NAME_H_

#include <string_view>

namespace bef {

// Empty: the kernel ABI uses the type's BEF type name.
template <typename T>
struct OperandTypeName {
  static constexpr std::string_view value = "";
};

}  // namespace bef

#endif  // BEF_SUPPORT_OPERAND_TYPE_NAME_H_
