// InferenceService: the Open Inference Protocol's HTTP/REST endpoints over a
// ModelRepository (docs/serving.md, "Open Inference Protocol"):
//
//   GET  /v2/health/live, /v2/health/ready
//   GET  /v2                                   server metadata
//   GET  /v2/models/M[/versions/V]             model metadata
//   GET  /v2/models/M[/versions/V]/ready
//   POST /v2/models/M[/versions/V]/infer       JSON or binary tensor data
//   POST /v2/repository/index
//   POST /v2/repository/models/M/load, .../unload
//
// Errors are {"error": "message"}: 400 for what the client got wrong, 404
// for an unknown model or version, 503 for a model with no ready version,
// 500 for a program's error (with the kernel's location), 504 when the
// request's `timeout_ms` expired.
#ifndef BEF_TOOLS_SERVING_INFERENCE_SERVICE_H_
#define BEF_TOOLS_SERVING_INFERENCE_SERVICE_H_

#include <string>
#include <vector>

#include "bef/host/host_context.h"
#include "tools/serving/http_server.h"
#include "tools/serving/model_repository.h"

namespace bef::serving {

class InferenceService {
 public:
  // Both outlive the service.
  // All three outlive the service; `limits` holds the answer budget.
  InferenceService(ModelRepository* repository, HostContext* host, RunLimits* limits)
      : repository_(repository), host_(host), limits_(limits) {}

  std::vector<Route> Routes();
  // The per-model Prometheus families (bef_serve_inference_*).
  std::string MetricsText() const;

 private:
  HttpResponse Infer(HttpRequest& request, const std::string& model, const std::string& version);
  HttpResponse Metadata(const std::string& model, const std::string& version);
  HttpResponse Ready(const std::string& model, const std::string& version);

  ModelRepository* repository_;
  HostContext* host_;
  RunLimits* limits_;
};

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_INFERENCE_SERVICE_H_
