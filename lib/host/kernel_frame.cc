#include "bef/host/kernel_frame.h"

#include "bef/host/function.h"
#include "bef/host/host_context.h"

namespace bef {

DecodedDiagnostic MakeDiagnostic(Location location, absl::Status status) {
  DecodedDiagnostic diagnostic;
  if (location.has_value()) diagnostic.location = location.Decode();
  diagnostic.status = std::move(status);
  return diagnostic;
}

void AsyncKernelFrame::ReportError(absl::Status status) {
  GetHostContext()->EmitError(MakeDiagnostic(GetLocation(), status));
  RCReference<AsyncValue> error;
  for (RCReference<AsyncValue>& result : results_) {
    if (result) continue;
    if (!error) error = MakeErrorAsyncValueRef(status, GetLocation());
    result = error;
  }
}

RCReference<AsyncValue> AsyncKernelFrame::EmitErrorAsync(
    absl::Status status) const {
  GetHostContext()->EmitError(MakeDiagnostic(GetLocation(), status));
  return MakeErrorAsyncValueRef(std::move(status), GetLocation());
}

absl::Status Function::ExecuteSync(const ExecutionContext&,
                                   std::span<SyncValue* const>,
                                   std::span<SyncValue* const>) const {
  return absl::FailedPreconditionError(
      absl::StrCat("'", absl::string_view(name().data(), name().size()),
                   "' is not a sync function"));
}

}  // namespace bef
