#include "tools/serving/inference_service.h"

#include <memory>
#include <utility>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "tools/serving/inference_protocol.h"
#include "tools/serving/json_codec.h"
#include "tools/serving/status_mapping.h"

namespace bef::serving {
namespace {

HttpResponse Error(int status, std::string_view message) {
  return HttpResponse{status, "application/json", ProtocolErrorJson(message), {}};
}

// An error of handling the request (status_mapping.h).
HttpResponse ErrorOf(const absl::Status& error) {
  return Error(HttpStatus(error.code(), ErrorSource::kRequest), std::string(error.message()));
}

HttpResponse Empty(int status = 200) { return HttpResponse{status, "text/plain", "", {}}; }

HttpResponse JsonResponse(std::string body) {
  return HttpResponse{200, "application/json", std::move(body), {}};
}

}  // namespace

std::vector<Route> InferenceService::Routes() {
  std::vector<Route> routes;
  auto add = [&](const char* method, const char* pattern, RouteWork work,
                 std::function<HttpResponse(HttpRequest&)> handler) {
    Route route{method, pattern, work, std::move(handler)};
    if (std::string_view(pattern).ends_with("/infer")) {
      // Any media type, as Triton: `curl -d` (what the KServe and Triton
      // docs show) sends application/x-www-form-urlencoded. The body is
      // binary when Inference-Header-Content-Length says so, else JSON.
      route.media_types = {};
      // A version known to run short runs on the I/O thread.
      route.run_inline_when = [this](const HttpRequest& request) {
        absl::StatusOr<std::shared_ptr<const LoadedModel>> found = repository_->Find(
            request.captures[0], request.captures.size() > 1 ? request.captures[1] : "");
        return found.ok() && (*found)->known_short();
      };
    } else if (std::string_view(pattern).starts_with("/v2/repository/")) {
      route.takes_body = false;  // index, load, unload: an optional, ignored body
    }
    routes.push_back(std::move(route));
  };
  add("GET", "/v2/health/live", RouteWork::kInline, [](HttpRequest&) { return Empty(); });
  add("GET", "/v2/health/ready", RouteWork::kInline, [this](HttpRequest&) {
    return repository_->AllReady() ? Empty() : Error(400, "not every model has a ready version");
  });
  add("GET", "/v2", RouteWork::kInline, [](HttpRequest&) {
    return JsonResponse(DumpJson(Json{{"name", "bef_serve"},
                                      {"version", "1"},
                                      {"extensions", {"binary_tensor_data", "model_repository"}}}));
  });
  add("GET", "/v2/models/*", RouteWork::kInline,
      [this](HttpRequest& request) { return Metadata(request.captures[0], ""); });
  add("GET", "/v2/models/*/versions/*", RouteWork::kInline, [this](HttpRequest& request) {
    return Metadata(request.captures[0], request.captures[1]);
  });
  add("GET", "/v2/models/*/ready", RouteWork::kInline,
      [this](HttpRequest& request) { return Ready(request.captures[0], ""); });
  add("GET", "/v2/models/*/versions/*/ready", RouteWork::kInline, [this](HttpRequest& request) {
    return Ready(request.captures[0], request.captures[1]);
  });
  add("POST", "/v2/models/*/infer", RouteWork::kWorker,
      [this](HttpRequest& request) { return Infer(request, request.captures[0], ""); });
  add("POST", "/v2/models/*/versions/*/infer", RouteWork::kWorker, [this](HttpRequest& request) {
    return Infer(request, request.captures[0], request.captures[1]);
  });
  // The index reads the repository's state only (no file I/O), but may list
  // thousands of versions: built on a worker, never queued behind runs or
  // loads (RouteWork::kOffload).
  add("POST", "/v2/repository/index", RouteWork::kOffload, [this](HttpRequest&) {
    Json index = Json::array();
    for (const VersionState& state : repository_->Index()) {
      Json entry = {{"name", state.model}, {"state", state.state}, {"reason", state.reason}};
      if (state.version > 0) entry["version"] = std::to_string(state.version);
      index.push_back(std::move(entry));
    }
    return JsonResponse(DumpJson(index));
  });
  add("POST", "/v2/repository/models/*/load", RouteWork::kWorker, [this](HttpRequest& request) {
    absl::StatusOr<bool> changed = repository_->Load(request.captures[0]);
    if (!changed.ok()) return ErrorOf(changed.status());
    // The protocol's answer is an empty 200; whether the load applied
    // anything new is said in a header.
    HttpResponse response = Empty();
    response.headers.emplace_back(
        "Bef-Load", *changed ? "applied" : "unchanged (no model.bef or config.json changed)");
    return response;
  });
  add("POST", "/v2/repository/models/*/unload", RouteWork::kWorker,
      [this](HttpRequest& request) {
        absl::Status unloaded = repository_->Unload(request.captures[0]);
        return unloaded.ok() ? Empty() : ErrorOf(unloaded);
      });
  return routes;
}

HttpResponse InferenceService::Metadata(const std::string& model, const std::string& version) {
  absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded = repository_->Find(model, version);
  if (!loaded.ok()) return ErrorOf(loaded.status());
  return JsonResponse(ModelMetadataJson(**loaded, repository_->ReadyVersions(model)));
}

HttpResponse InferenceService::Ready(const std::string& model, const std::string& version) {
  absl::StatusOr<std::shared_ptr<const LoadedModel>> loaded = repository_->Find(model, version);
  if (!loaded.ok()) return ErrorOf(loaded.status());
  return Empty();
}

HttpResponse InferenceService::Infer(HttpRequest& request, const std::string& model_name,
                                     const std::string& version) {
  absl::StatusOr<std::shared_ptr<const LoadedModel>> found =
      repository_->Find(model_name, version);
  if (!found.ok()) return ErrorOf(found.status());
  const LoadedModel& model = **found;
  InferenceMeter meter(model.metrics());
  auto finish = [&](HttpResponse response) {
    if (response.status == 200) meter.Succeeded();
    return response;
  };

  std::optional<size_t> json_length;
  size_t length_headers = 0;
  for (const auto& [field, value] : request.headers) {
    length_headers += field == "inference-header-content-length";
  }
  if (length_headers > 1) {
    return finish(Error(400, "Inference-Header-Content-Length given more than once"));
  }
  if (const std::string* header = request.Header("inference-header-content-length")) {
    size_t length = 0;
    if (!absl::SimpleAtoi(*header, &length)) {
      return finish(Error(400, "Inference-Header-Content-Length must be a size"));
    }
    json_length = length;
  }
  // The body moves into shared ownership: binary inputs view it in place.
  auto body = std::make_shared<const std::string>(std::move(request.body));
  absl::StatusOr<HttpInferRequest> decoded =
      DecodeHttpInferRequest(model, std::move(body), json_length, host_->allocator());
  if (!decoded.ok()) return finish(ErrorOf(decoded.status()));

  std::optional<absl::Time> deadline;
  if (decoded->timeout) deadline = absl::Now() + *decoded->timeout;
  // A client that closes its connection cancels its run.
  LoadedModel::Outcome outcome = model.Run(std::move(decoded->inputs), deadline,
                                           [&request] { return request.ClientGoneStatus(); });
  if (!outcome.error.ok()) {
    return finish(Error(HttpStatus(outcome.error.code(), ErrorSource::kRun),
                        std::string(outcome.error.message())));
  }
  absl::StatusOr<HttpInferResponse> encoded = EncodeHttpInferResponse(
      model, *decoded, std::move(outcome.outputs), limits_->response_bytes);
  if (!encoded.ok()) return finish(ErrorOf(encoded.status()));
  HttpResponse response{200, "application/json", std::move(encoded->body), {}};
  // Its bytes stay in the answer budget until the front end has written them.
  response.reservation = std::move(encoded->reservation);
  if (encoded->json_length) {
    response.content_type = "application/octet-stream";
    response.headers.emplace_back("Inference-Header-Content-Length",
                                  std::to_string(*encoded->json_length));
  }
  return finish(std::move(response));
}

std::string InferenceService::MetricsText() const {
  std::vector<std::shared_ptr<const LoadedModel>> loaded = repository_->Loaded();
  std::vector<ModelMetricsSample> samples;
  for (const auto& model : loaded) {
    samples.push_back({model->name(), model->version(), &model->metrics()});
  }
  return ModelMetricsText(samples);
}

}  // namespace bef::serving
