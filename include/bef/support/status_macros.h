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

#define BEF_RETURN_IF_ERROR(expr)                 \
  do {                                            \
    ::absl::Status bef_status_ = (expr);          \
    if (!bef_status_.ok()) return bef_status_;    \
  } while (false)

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
