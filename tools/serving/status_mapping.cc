#include "tools/serving/status_mapping.h"

namespace bef::serving {
namespace {

struct Row {
  absl::StatusCode code;
  int request;
  int run;
};
constexpr Row kRows[] = {
    {absl::StatusCode::kNotFound, 404, 500},
    {absl::StatusCode::kInvalidArgument, 400, 500},
    {absl::StatusCode::kFailedPrecondition, 400, 500},
    {absl::StatusCode::kOutOfRange, 400, 500},
    {absl::StatusCode::kUnavailable, 503, 503},
    // The server's budgets (byte_budget.h): try again.
    {absl::StatusCode::kResourceExhausted, 503, 500},
    {absl::StatusCode::kDeadlineExceeded, 504, 504},
    {absl::StatusCode::kCancelled, 499, 499},
};

}  // namespace

int HttpStatus(absl::StatusCode code, ErrorSource source) {
  for (const Row& row : kRows) {
    if (row.code == code) return source == ErrorSource::kRequest ? row.request : row.run;
  }
  return 500;
}

absl::StatusCode GrpcCode(absl::StatusCode code, ErrorSource source) {
  if (source == ErrorSource::kRequest) return code;
  switch (HttpStatus(code, ErrorSource::kRun)) {
    case 499:
      return absl::StatusCode::kCancelled;
    case 503:
      return absl::StatusCode::kUnavailable;
    case 504:
      return absl::StatusCode::kDeadlineExceeded;
    default:
      return absl::StatusCode::kInternal;
  }
}

std::string_view CodeNameOfHttpStatus(int http_status) {
  switch (http_status) {
    case 404: return "NOT_FOUND";
    case 413:
    case 431: return "RESOURCE_EXHAUSTED";
    case 503: return "UNAVAILABLE";
    default: return "INVALID_ARGUMENT";
  }
}

}  // namespace bef::serving
