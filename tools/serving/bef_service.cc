#include "tools/serving/bef_service.h"

#include <cmath>
#include <cstring>
#include <limits>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/host_allocator.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/native_function.h"
#include "bef/host/work_queue.h"
#include "bef/tensor/dense_host_tensor.h"
#include "bef/tensor/sparse_and_string_tensors.h"
#include "bef/support/string_view.h"
#include "tools/serving/json_codec.h"
#include "tools/serving/model_repository.h"
#include "tools/serving/status_mapping.h"

namespace bef {

ServiceResponse ErrorResponse(int http_status, std::string_view code,
                              std::string_view message) {
  Json error = {{"error", {{"code", code}, {"message", message}}}};
  return {http_status, DumpJson(error)};
}

ServiceResponse ErrorResponse(const absl::Status& error, serving::ErrorSource source) {
  return ErrorResponse(serving::HttpStatus(error.code(), source),
                       FromAbsl(absl::StatusCodeToString(error.code())), FromAbsl(error.message()));
}

absl::StatusOr<std::unique_ptr<HostContext>> CreateServingHost(
    const std::string& work_queue_type) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue(work_queue_type);
  if (!queue.ok()) return queue.status();
  if (!(*queue)->HasComputeThreads()) {
    // Its queued work would run only in an Await no request thread makes:
    // a run with work on other streams would never end.
    return absl::InvalidArgumentError(absl::StrCat(
        "--work_queue_type=", work_queue_type,
        ": bef_serve needs a work queue with compute threads (mstd:N); the "
        "single-threaded queue runs queued work only inside a caller's wait"));
  }
  // Runtime errors reach the client through the result values (with their
  // locations); the diagnostic stream is not needed here.
  auto host = std::make_unique<HostContext>([](const DecodedDiagnostic&) {},
                                            CreateMallocAllocator(), std::move(*queue));
  RegisterStaticKernels(&host->kernel_registry());
  RegisterStaticNativeFunctions(&host->native_functions());
  return host;
}

absl::StatusOr<std::unique_ptr<BefService>> BefService::Create(const std::string& path,
                                                               HostContext* host,
                                                               serving::RunLimits* limits) {
  auto service = std::unique_ptr<BefService>(new BefService());
  service->host_ = host;
  service->limits_ = limits;
  absl::StatusOr<std::unique_ptr<BefProgram>> program = BefProgram::Open(
      host, path, {.regular_files_only = true, .max_file_bytes = limits->max_model_bytes});
  if (!program.ok()) return program.status();
  service->loaded_ = std::make_shared<Loaded>();
  service->loaded_->program = std::move(*program);
  return service;
}

BefService::~BefService() {
  if (host_) host_->Quiesce();
  loaded_.reset();
}

void BefService::Quiesce() { host_->Quiesce(); }

ServiceResponse BefService::ListFunctions() const {
  Json functions = Json::array();
  for (size_t i = 0; i < loaded_->program->num_functions(); ++i) {
    const Function* function = loaded_->program->GetFunction(static_cast<uint32_t>(i));
    if (function == nullptr || function->name().empty() ||
        function->kind() == FunctionKind::kSyncBefFunction) {
      continue;
    }
    Json arguments = Json::array(), results = Json::array();
    for (std::string_view type : function->argument_types()) arguments.push_back(type);
    for (std::string_view type : function->result_types()) results.push_back(type);
    functions.push_back({{"name", function->name()},
                         {"arguments", std::move(arguments)},
                         {"results", std::move(results)}});
  }
  return {200, DumpJson(Json{{"functions", std::move(functions)}})};
}

ServiceResponse BefService::Run(std::string_view name, std::string_view body,
                                const serving::StopCheck& stop) {
  metrics_.requests.fetch_add(1, std::memory_order_relaxed);
  auto bad = [&](const absl::Status& error) {
    metrics_.bad_requests.fetch_add(1, std::memory_order_relaxed);
    return ErrorResponse(error, serving::ErrorSource::kRequest);
  };
  const Function* function = loaded_->program->GetFunction(name);
  if (function == nullptr || function->kind() == FunctionKind::kSyncBefFunction) {
    return bad(absl::NotFoundError(absl::StrCat("no function named '", EchoName(name), "'")));
  }
  absl::StatusOr<RunRequest> request =
      DecodeRunRequest(body, name, function->argument_types(), host_->allocator());
  if (!request.ok()) return bad(request.status());
  std::optional<absl::Duration> deadline = request->deadline;
  int64_t start = MonotonicNanos();
  metrics_.in_flight.fetch_add(1, std::memory_order_relaxed);
  FunctionRun run(*function, host_, &loaded_->resources, std::move(request->arguments), loaded_,
                  limits_->NextRequestId());
  limits_->Run(run, deadline ? std::optional<absl::Time>(absl::Now() + *deadline) : std::nullopt,
               stop, &short_runs_);
  metrics_.in_flight.fetch_sub(1, std::memory_order_relaxed);
  metrics_.ObserveLatency(MonotonicNanos() - start);
  std::span<RCReference<AsyncValue>> results = run.results();

  Json values = Json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    AsyncValue* value = results[i].get();
    if (value->IsError()) {
      const ErrorInfo& error = value->GetErrorInfo();
      // (Runs ended early are counted by RunLimits as cancelled.)
      if (serving::HttpStatus(error.status.code(), serving::ErrorSource::kRun) == 500) {
        metrics_.runtime_errors.fetch_add(1, std::memory_order_relaxed);
      }
      Json body = {{"code", absl::StatusCodeToString(error.status.code())},
                   {"message", std::string(error.status.message())},
                   {"result", i}};
      if (std::string where = LocationText(error.location); !where.empty()) {
        body["location"] = where;
      }
      return {serving::HttpStatus(error.status.code(), serving::ErrorSource::kRun),
              DumpJson(Json{{"error", std::move(body)}})};
    }
    absl::StatusOr<Json> json = ResultToJson(function->result_types()[i], value);
    if (!json.ok()) {
      metrics_.runtime_errors.fetch_add(1, std::memory_order_relaxed);
      return ErrorResponse(json.status(), serving::ErrorSource::kRun);
    }
    values.push_back(std::move(*json));
  }
  return {200, DumpJson(Json{{"results", std::move(values)}})};
}

}  // namespace bef
