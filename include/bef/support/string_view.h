// Bridges std::string_view (used in this project's APIs) and Debian's Abseil,
// whose absl::string_view is a distinct type (ABSL_OPTION_USE_STD_STRING_VIEW
// is 0), so absl::StrCat and absl::Status do not accept std::string_view.
#ifndef BEF_SUPPORT_STRING_VIEW_H_
#define BEF_SUPPORT_STRING_VIEW_H_

#include <string_view>

#include "absl/strings/string_view.h"

namespace bef {

inline absl::string_view ToAbsl(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

inline std::string_view FromAbsl(absl::string_view text) {
  return std::string_view(text.data(), text.size());
}

}  // namespace bef

#endif  // BEF_SUPPORT_STRING_VIEW_H_
