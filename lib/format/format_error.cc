#include "bef/format/format_error.h"

#include <optional>
#include <string>

#include "absl/strings/cord.h"

namespace bef {
namespace {
constexpr char kDetailPayload[] = "bef.detail";
}  // namespace

absl::Status FormatError(std::string_view summary, std::string_view detail) {
  absl::Status status(absl::StatusCode::kDataLoss,
                      absl::string_view(summary.data(), summary.size()));
  status.SetPayload(kDetailPayload,
                    absl::Cord(absl::string_view(detail.data(), detail.size())));
  return status;
}

std::string FormatErrorDetail(const absl::Status& status) {
  auto detail = status.GetPayload(kDetailPayload);
  return detail ? std::string(*detail) : std::string();
}

std::string DescribeFormatError(const absl::Status& status) {
  std::string message(status.message());
  std::string detail = FormatErrorDetail(status);
  if (!detail.empty()) message += " (" + detail + ")";
  return message;
}

}  // namespace bef
