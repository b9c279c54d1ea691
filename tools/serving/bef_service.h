// BefService: bef_serve's /v1/ API (a program's functions by name, in the
// single-file form), without the HTTP layer.
//
// One service holds one loaded BEF program on the server's HostContext and
// one ResourceContext shared by every request (so tfrt.once runs once per
// loaded program, as a model's initialisation would). Every method is
// thread-safe; request threads call them concurrently.
//
// Values travel in the JSON forms of json_codec.h; metrics are
// service_metrics.h's. Errors: {"error": {"code": "INVALID_ARGUMENT", "message": "...",
//   "location": "file.mlir:3:8"}} (location when the runtime knows one).
#ifndef BEF_TOOLS_SERVING_BEF_SERVICE_H_
#define BEF_TOOLS_SERVING_BEF_SERVICE_H_

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "bef/executor/bef_program.h"
#include "bef/host/execution_context.h"
#include "bef/host/host_context.h"
#include "tools/serving/run_limits.h"
#include "tools/serving/service_metrics.h"
#include "tools/serving/status_mapping.h"

namespace bef {

struct ServiceResponse {
  int http_status = 200;
  std::string json;
};

class BefService {
 public:
  // Loads `path` on `host`; both `host` and `limits` outlive the service.
  static absl::StatusOr<std::unique_ptr<BefService>> Create(const std::string& path,
                                                            HostContext* host,
                                                            serving::RunLimits* limits);
  ~BefService();

  // GET /v1/functions: {"functions": [{"name", "arguments", "results"}]}
  // (named BEF functions; the types as BEF names them).
  ServiceResponse ListFunctions() const;
  // POST /v1/functions/NAME:run with `body` = {"args": [...],
  // "deadline_ms": optional positive number}; ended early as
  // serving::WaitForRun says (the limits, `stop`).
  ServiceResponse Run(std::string_view name, std::string_view body,
                      const serving::StopCheck& stop = {});

  ServiceMetrics& metrics() { return metrics_; }
  // Whether this program's runs are known to be short (ShortRunStreak):
  // the front end then runs its requests on the I/O thread.
  bool known_short() const { return short_runs_.known_short(); }
  // Waits for work the runtime still has queued.
  void Quiesce();

 private:
  BefService() = default;
  HostContext* host_ = nullptr;
  serving::RunLimits* limits_ = nullptr;
  // The program and the resources its runs share, held by every run's
  // request too (FunctionRun's keep-alive).
  struct Loaded {
    std::unique_ptr<BefProgram> program;
    ResourceContext resources;
  };
  std::shared_ptr<Loaded> loaded_;
  ServiceMetrics metrics_;
  serving::ShortRunStreak short_runs_;
};

// The HostContext bef_serve runs every program on: a work queue made from
// `work_queue_type` (bef_executor's syntax, e.g. "mstd:2"), the malloc
// allocator, every static kernel and native function registered.
absl::StatusOr<std::unique_ptr<HostContext>> CreateServingHost(
    const std::string& work_queue_type);

// {"error": {"code": ..., "message": ...}} with `http_status`: the front
// end's own refusals (405, 413, 431, ...), named by CodeNameOfHttpStatus.
ServiceResponse ErrorResponse(int http_status, std::string_view code,
                              std::string_view message);
// The same for `error`: its HTTP status from status_mapping (as `source`
// maps it) and its code's name.
ServiceResponse ErrorResponse(const absl::Status& error, serving::ErrorSource source);

}  // namespace bef

#endif  // BEF_TOOLS_SERVING_BEF_SERVICE_H_
