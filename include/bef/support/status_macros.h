// Early-return helpers for absl::Status / absl::StatusOr<T>, as used at every
// API boundary of the runtime (no exceptions on the run path).
//
//   BEF_RETURN_IF_ERROR(reader.Skip(4));
//   BEF_ASSIGN_OR_RETURN(uint32_t count, reader.ReadVbr32());
#ifndef BEF_SUPPORT_STATUS_MACROS_H_
#define BEF_SUPPORT_STATUS_MACROS_H_

#include <utility>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define BEF_RETURN_IF_ERROR(expr)                                              \
  do {                                                                         \
    ::bef::status_macros_internal::CheckedStatus bef_status_(                  \
        [&]() -> ::absl::Status { return (expr); });                           \
    if (!bef_status_.ok()) [[unlikely]] return bef_status_.Take();             \
  } while (false)

namespace bef::status_macros_internal {
// The status BEF_RETURN_IF_ERROR looks at, destroyed only when it is an
// error. An OK absl::Status holds nothing to release (its destructor does
// nothing for it), yet GCC 12 calls the destructor out of line in large
// functions (kernels): a call, and the spills around it, per check on the
// path where nothing failed. Made in place from the expression (no
// temporary, no move).
class CheckedStatus {
 public:
  template <typename Make>
  explicit CheckedStatus(Make make) : status_(make()) {}
  // An OK status is left as is: nothing to release.
  ~CheckedStatus() {}
  CheckedStatus(const CheckedStatus&) = delete;
  CheckedStatus& operator=(const CheckedStatus&) = delete;
  bool ok() const { return status_.ok(); }
  // The error, moved out (the held status destroyed).
  ::absl::Status Take() {
    ::absl::Status error = std::move(status_);
    status_.~Status();
    return error;
  }

 private:
  union {
    ::absl::Status status_;
  };
};
}  // namespace bef::status_macros_internal

#define BEF_STATUS_CONCAT_INNER(a, b) a##b
#define BEF_STATUS_CONCAT(a, b) BEF_STATUS_CONCAT_INNER(a, b)

#define BEF_ASSIGN_OR_RETURN(lhs, expr)                                     \
  BEF_ASSIGN_OR_RETURN_IMPL(BEF_STATUS_CONCAT(bef_statusor_, __LINE__), lhs, \
                            expr)

#define BEF_ASSIGN_OR_RETURN_IMPL(statusor, lhs, expr) \
  auto statusor = (expr);                              \
  if (!statusor.ok()) return statusor.status();        \
  lhs = std::move(statusor).value()

#endif  // BEF_SUPPORT_STATUS_MACROS_H_
