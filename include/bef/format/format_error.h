// Format errors: how every reader of BEF bytes reports malformed input.
//
// A format error is an absl::Status (code DATA_LOSS) whose message is the
// short summary TFRT prints for the same condition (e.g. "BEF file section
// header corrupted"), so that bef_executor's output stays identical to TFRT's,
// and whose "bef.detail" payload says where and what exactly: section, byte
// offset in the file, and the offending value. Tools that are not bound to
// TFRT's wording (bef-dump, tests) print both with DescribeFormatError().
#ifndef BEF_FORMAT_FORMAT_ERROR_H_
#define BEF_FORMAT_FORMAT_ERROR_H_

#include <string>
#include <string_view>

#include "absl/status/status.h"

namespace bef {

// REQUIRES: summary is non-empty.
absl::Status FormatError(std::string_view summary, std::string_view detail);

// The detail of a FormatError, or "" for any other status.
std::string FormatErrorDetail(const absl::Status& status);

// "summary (detail)" for a FormatError, the plain message otherwise.
std::string DescribeFormatError(const absl::Status& status);

}  // namespace bef

#endif  // BEF_FORMAT_FORMAT_ERROR_H_
