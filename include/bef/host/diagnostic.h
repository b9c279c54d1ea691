// Diagnostics: errors reported by kernels and by the loader, delivered to the
// single handler the embedder gives its HostContext.
//
// A kernel that fails reports once (DecodedDiagnostic with its location and
// an INTERNAL status); errors that merely propagate through error operands,
// cancellation and native functions' error values are not reported.
#ifndef BEF_HOST_DIAGNOSTIC_H_
#define BEF_HOST_DIAGNOSTIC_H_

#include <functional>
#include <optional>
#include <string>

#include "absl/status/status.h"
#include "bef/async/location.h"

namespace bef {

struct DecodedDiagnostic {
  std::optional<DecodedLocation> location;  // none for loader errors
  absl::Status status;

  std::string message() const { return std::string(status.message()); }
};

// The diagnostic of `status` reported at `location` (decoded, if any): what
// AsyncKernelFrame::ReportError and the executor's frame-less calls report.
DecodedDiagnostic MakeDiagnostic(Location location, absl::Status status);

// Called from whichever thread reports the error; must be thread-safe.
using DiagnosticHandler = std::function<void(const DecodedDiagnostic&)>;

}  // namespace bef

#endif  // BEF_HOST_DIAGNOSTIC_H_
