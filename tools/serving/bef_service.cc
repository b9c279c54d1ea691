#include "tools/serving/bef_service.h"

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <limits>
#include <mutex>
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
#include "nlohmann/json.hpp"

namespace bef {
namespace {

using Json = nlohmann::json;

// How deep a request body may nest arrays and objects (docs/serving.md).
constexpr int kMaxJsonDepth = 64;

// A request error: the HTTP status and message of a 4xx answer.
struct BadRequest {
  std::string message;
};

int64_t NowNanos() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(
             std::chrono::steady_clock::now().time_since_epoch())
      .count();
}

std::string CodeName(absl::StatusCode code) {
  std::string name = absl::StatusCodeToString(code);
  for (char& c : name) {
    c = c == ' ' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  }
  return name;
}

// ---- JSON -> values ----

struct DTypeInfo {
  const char* name;
  DType dtype;
};
constexpr DTypeInfo kTensorDTypes[] = {
    {"i1", DType::kI1},     {"i8", DType::kI8},     {"i32", DType::kI32},
    {"i64", DType::kI64},   {"ui8", DType::kUI8},   {"ui32", DType::kUI32},
    {"ui64", DType::kUI64}, {"f32", DType::kF32},   {"f64", DType::kF64},
};

const char* DTypeJsonName(DType dtype) {
  for (const DTypeInfo& info : kTensorDTypes) {
    if (info.dtype == dtype) return info.name;
  }
  return nullptr;
}

template <typename T>
T IntegerFrom(const Json& value, const std::string& what) {
  if (value.is_boolean() || !value.is_number_integer()) {
    throw BadRequest{absl::StrCat(what, " must be an integer")};
  }
  if constexpr (std::is_signed_v<T>) {
    if (value.is_number_unsigned() &&
        value.get<uint64_t>() > static_cast<uint64_t>(std::numeric_limits<T>::max())) {
      throw BadRequest{absl::StrCat(what, " is out of range")};
    }
    int64_t v = value.get<int64_t>();
    if (!value.is_number_unsigned() &&
        (v < std::numeric_limits<T>::min() || v > std::numeric_limits<T>::max())) {
      throw BadRequest{absl::StrCat(what, " is out of range")};
    }
    return static_cast<T>(v);
  } else {
    if (!value.is_number_unsigned()) {
      if (value.get<int64_t>() < 0) throw BadRequest{absl::StrCat(what, " is out of range")};
    }
    uint64_t v = value.get<uint64_t>();
    if (v > std::numeric_limits<T>::max()) {
      throw BadRequest{absl::StrCat(what, " is out of range")};
    }
    return static_cast<T>(v);
  }
}

template <typename T>
T FloatFrom(const Json& value, const std::string& what) {
  if (value.is_number() && !value.is_boolean()) return static_cast<T>(value.get<double>());
  if (value.is_string()) {
    const std::string& text = value.get_ref<const std::string&>();
    if (text == "nan") return std::numeric_limits<T>::quiet_NaN();
    if (text == "inf") return std::numeric_limits<T>::infinity();
    if (text == "-inf") return -std::numeric_limits<T>::infinity();
  }
  throw BadRequest{absl::StrCat(what, " must be a number (or \"nan\", \"inf\", \"-inf\")")};
}

bool BoolFrom(const Json& value, const std::string& what) {
  if (!value.is_boolean()) throw BadRequest{absl::StrCat(what, " must be true or false")};
  return value.get<bool>();
}

template <typename T>
void StoreElements(const Json& values, void* data, const std::string& what) {
  T* out = static_cast<T*>(data);
  for (size_t i = 0; i < values.size(); ++i) {
    std::string element = absl::StrCat(what, " value ", i);
    if constexpr (std::is_same_v<T, bool>) {
      out[i] = BoolFrom(values[i], element);
    } else if constexpr (std::is_floating_point_v<T>) {
      out[i] = FloatFrom<T>(values[i], element);
    } else {
      out[i] = IntegerFrom<T>(values[i], element);
    }
  }
}

RCReference<AsyncValue> TensorFrom(const Json& value, HostAllocator* allocator,
                                   const std::string& what) {
  if (!value.is_object() || !value.contains("dtype") || !value.contains("shape") ||
      !value.contains("values")) {
    throw BadRequest{absl::StrCat(what, " must be a tensor: {\"dtype\", \"shape\", \"values\"}")};
  }
  const Json& dtype_json = value["dtype"];
  const Json& shape_json = value["shape"];
  const Json& values = value["values"];
  if (!dtype_json.is_string()) throw BadRequest{absl::StrCat(what, " dtype must be a string")};
  std::string dtype_name = dtype_json.get<std::string>();
  if (!shape_json.is_array()) throw BadRequest{absl::StrCat(what, " shape must be an array")};
  if (!values.is_array()) throw BadRequest{absl::StrCat(what, " values must be an array")};
  std::vector<int64_t> dims;
  int64_t count = 1;
  for (const Json& dim : shape_json) {
    int64_t d = IntegerFrom<int64_t>(dim, absl::StrCat(what, " dimension"));
    if (d < 0) throw BadRequest{absl::StrCat(what, " dimensions must not be negative")};
    if (__builtin_mul_overflow(count, d, &count)) {
      throw BadRequest{absl::StrCat(what, " shape is too large")};
    }
  }
  for (const Json& dim : shape_json) dims.push_back(dim.get<int64_t>());
  if (static_cast<uint64_t>(count) != values.size()) {
    throw BadRequest{absl::StrCat(what, " has ", values.size(),
                                  " values, its shape needs ", count)};
  }
  TensorShape shape(std::move(dims));
  if (dtype_name == "string") {
    std::vector<std::string> strings;
    for (const Json& element : values) {
      if (!element.is_string()) throw BadRequest{absl::StrCat(what, " values must be strings")};
      strings.push_back(element.get<std::string>());
    }
    return MakeAvailableAsyncValueRef<StringHostTensor>(std::move(shape), std::move(strings))
        .ReleaseRCRef();
  }
  const DTypeInfo* info = nullptr;
  for (const DTypeInfo& candidate : kTensorDTypes) {
    if (dtype_name == candidate.name) info = &candidate;
  }
  if (info == nullptr) {
    throw BadRequest{absl::StrCat(what, " has an unsupported dtype '", dtype_name,
                                  "' (i1, i8, i32, i64, ui8, ui32, ui64, f32, f64, string)")};
  }
  RCReference<HostBuffer> buffer =
      DenseHostTensor::AllocateBuffer(allocator, info->dtype, shape);
  if (!buffer) throw BadRequest{absl::StrCat(what, " cannot be allocated")};
  DenseHostTensor tensor(info->dtype, std::move(shape), std::move(buffer));
  void* data = tensor.writable_data();
  switch (info->dtype) {
    case DType::kI1: StoreElements<bool>(values, data, what); break;
    case DType::kI8: StoreElements<int8_t>(values, data, what); break;
    case DType::kI32: StoreElements<int32_t>(values, data, what); break;
    case DType::kI64: StoreElements<int64_t>(values, data, what); break;
    case DType::kUI8: StoreElements<uint8_t>(values, data, what); break;
    case DType::kUI32: StoreElements<uint32_t>(values, data, what); break;
    case DType::kUI64: StoreElements<uint64_t>(values, data, what); break;
    case DType::kF32: StoreElements<float>(values, data, what); break;
    case DType::kF64: StoreElements<double>(values, data, what); break;
    default: break;
  }
  return MakeAvailableAsyncValueRef<DenseHostTensor>(std::move(tensor)).ReleaseRCRef();
}

RCReference<AsyncValue> ArgumentFrom(std::string_view type, const Json& value,
                                     HostAllocator* allocator, const std::string& what) {
  if (type == "i1") return MakeAvailableAsyncValueRef<bool>(BoolFrom(value, what)).ReleaseRCRef();
  if (type == "i8") return MakeAvailableAsyncValueRef<int8_t>(IntegerFrom<int8_t>(value, what)).ReleaseRCRef();
  if (type == "i32") return MakeAvailableAsyncValueRef<int32_t>(IntegerFrom<int32_t>(value, what)).ReleaseRCRef();
  if (type == "i64") return MakeAvailableAsyncValueRef<int64_t>(IntegerFrom<int64_t>(value, what)).ReleaseRCRef();
  if (type == "ui8") return MakeAvailableAsyncValueRef<uint8_t>(IntegerFrom<uint8_t>(value, what)).ReleaseRCRef();
  if (type == "ui32") return MakeAvailableAsyncValueRef<uint32_t>(IntegerFrom<uint32_t>(value, what)).ReleaseRCRef();
  if (type == "ui64") return MakeAvailableAsyncValueRef<uint64_t>(IntegerFrom<uint64_t>(value, what)).ReleaseRCRef();
  if (type == "f32") return MakeAvailableAsyncValueRef<float>(FloatFrom<float>(value, what)).ReleaseRCRef();
  if (type == "f64") return MakeAvailableAsyncValueRef<double>(FloatFrom<double>(value, what)).ReleaseRCRef();
  if (type == "!tfrt.string") {
    if (!value.is_string()) throw BadRequest{absl::StrCat(what, " must be a string")};
    return MakeAvailableAsyncValueRef<std::string>(value.get<std::string>()).ReleaseRCRef();
  }
  if (type == "!tfrt.chain") {
    if (!value.is_null()) throw BadRequest{absl::StrCat(what, " (a chain) must be null")};
    return MakeAvailableAsyncValueRef<Chain>().ReleaseRCRef();
  }
  if (type == "!tfrt_tensor.tensor") return TensorFrom(value, allocator, what);
  throw BadRequest{absl::StrCat(what, " has type ", ToAbsl(type),
                                ", which requests cannot supply")};
}

// ---- values -> JSON ----

Json FloatJson(double value) {
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  return value;
}

template <typename T>
Json ElementsJson(const DenseHostTensor& tensor) {
  Json values = Json::array();
  const T* data = static_cast<const T*>(tensor.data());
  int64_t count = std::max<int64_t>(tensor.NumElements(), 0);
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_floating_point_v<T>) {
      values.push_back(FloatJson(data[i]));
    } else {
      values.push_back(data[i]);
    }
  }
  return values;
}

// The JSON of a result, or an error message when it has no JSON form.
absl::StatusOr<Json> ResultJson(std::string_view type, AsyncValue* value) {
  if (value->IsType<bool>()) return Json(value->get<bool>());
  if (value->IsType<int8_t>()) return Json(value->get<int8_t>());
  if (value->IsType<int32_t>()) return Json(value->get<int32_t>());
  if (value->IsType<int64_t>()) return Json(value->get<int64_t>());
  if (value->IsType<uint8_t>()) return Json(value->get<uint8_t>());
  if (value->IsType<uint32_t>()) return Json(value->get<uint32_t>());
  if (value->IsType<uint64_t>()) return Json(value->get<uint64_t>());
  if (value->IsType<float>()) return FloatJson(value->get<float>());
  if (value->IsType<double>()) return FloatJson(value->get<double>());
  if (value->IsType<std::string>()) return Json(value->get<std::string>());
  if (value->IsType<Chain>()) return Json(nullptr);
  if (value->IsType<StringHostTensor>()) {
    const StringHostTensor& tensor = value->get<StringHostTensor>();
    return Json{{"dtype", "string"},
                {"shape", tensor.shape().dims()},
                {"values", tensor.values()}};
  }
  if (value->IsType<DenseHostTensor>()) {
    const DenseHostTensor& tensor = value->get<DenseHostTensor>();
    Json values;
    switch (tensor.dtype()) {
      case DType::kI1: values = ElementsJson<bool>(tensor); break;
      case DType::kI8: values = ElementsJson<int8_t>(tensor); break;
      case DType::kI32: values = ElementsJson<int32_t>(tensor); break;
      case DType::kI64: values = ElementsJson<int64_t>(tensor); break;
      case DType::kUI8: values = ElementsJson<uint8_t>(tensor); break;
      case DType::kUI32: values = ElementsJson<uint32_t>(tensor); break;
      case DType::kUI64: values = ElementsJson<uint64_t>(tensor); break;
      case DType::kF32: values = ElementsJson<float>(tensor); break;
      case DType::kF64: values = ElementsJson<double>(tensor); break;
      default:
        return absl::UnimplementedError(absl::StrCat(
            "a result tensor of dtype ", ToAbsl(DTypeName(tensor.dtype())),
            " has no JSON form"));
    }
    return Json{{"dtype", DTypeJsonName(tensor.dtype())},
                {"shape", tensor.shape().dims()},
                {"values", std::move(values)}};
  }
  return absl::UnimplementedError(
      absl::StrCat("a result of type ", ToAbsl(type), " has no JSON form"));
}

std::string LocationText(const Location& location) {
  if (!location.has_value()) return "";
  DecodedLocation decoded = location.Decode();
  if (!decoded.is_file_location()) return decoded.description;
  if (decoded.filename.empty()) return "";
  return absl::StrCat(decoded.filename, ":", decoded.line, ":", decoded.column);
}

// Waits until every value is available (from any thread).
void WaitForAll(std::span<const RCReference<AsyncValue>> values) {
  struct Latch {
    std::mutex mutex;
    std::condition_variable done;
    size_t pending;
  };
  auto latch = std::make_shared<Latch>();
  latch->pending = values.size();
  for (const RCReference<AsyncValue>& value : values) {
    value->AndThen([latch] {
      std::lock_guard<std::mutex> lock(latch->mutex);
      if (--latch->pending == 0) latch->done.notify_all();
    });
  }
  std::unique_lock<std::mutex> lock(latch->mutex);
  latch->done.wait(lock, [&] { return latch->pending == 0; });
}

}  // namespace

ServiceResponse ErrorResponse(int http_status, std::string_view code,
                              std::string_view message) {
  Json error = {{"error", {{"code", code}, {"message", message}}}};
  return {http_status, error.dump()};
}

void ServiceMetrics::ObserveLatency(int64_t nanos) {
  double seconds = nanos / 1e9;
  size_t bucket = 0;
  while (bucket < kLatencyBuckets.size() && seconds > kLatencyBuckets[bucket]) ++bucket;
  latency_buckets[bucket].fetch_add(1, std::memory_order_relaxed);
  latency_count.fetch_add(1, std::memory_order_relaxed);
  latency_sum_nanos.fetch_add(static_cast<uint64_t>(nanos), std::memory_order_relaxed);
}

std::string ServiceMetrics::ToPrometheusText() const {
  std::string text;
  auto counter = [&](const char* name, const char* help, uint64_t value) {
    absl::StrAppend(&text, "# HELP ", name, " ", help, "\n# TYPE ", name,
                    " counter\n", name, " ", value, "\n");
  };
  counter("bef_serve_requests_total", "Requests to /v1/ endpoints.", requests.load());
  counter("bef_serve_bad_requests_total", "Requests answered with a 4xx status.",
          bad_requests.load());
  counter("bef_serve_runtime_errors_total", "Runs whose function reported an error.",
          runtime_errors.load());
  counter("bef_serve_cancelled_total", "Runs cancelled by their deadline.",
          cancelled.load());
  absl::StrAppend(&text,
                  "# HELP bef_serve_in_flight Runs in progress.\n"
                  "# TYPE bef_serve_in_flight gauge\nbef_serve_in_flight ",
                  in_flight.load(), "\n");
  absl::StrAppend(&text,
                  "# HELP bef_serve_run_latency_seconds Time to answer a run request.\n"
                  "# TYPE bef_serve_run_latency_seconds histogram\n");
  uint64_t cumulative = 0;
  for (size_t i = 0; i <= kLatencyBuckets.size(); ++i) {
    cumulative += latency_buckets[i].load();
    std::string bound = i < kLatencyBuckets.size()
                            ? absl::StrFormat("%g", kLatencyBuckets[i])
                            : std::string("+Inf");
    absl::StrAppend(&text, "bef_serve_run_latency_seconds_bucket{le=\"", bound,
                    "\"} ", cumulative, "\n");
  }
  absl::StrAppend(&text, "bef_serve_run_latency_seconds_sum ",
                  absl::StrFormat("%.9f", latency_sum_nanos.load() / 1e9),
                  "\nbef_serve_run_latency_seconds_count ", latency_count.load(), "\n");
  return text;
}

absl::StatusOr<std::unique_ptr<BefService>> BefService::Create(
    const std::string& path, const std::string& work_queue_type) {
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue =
      CreateWorkQueue(work_queue_type);
  if (!queue.ok()) return queue.status();
  auto service = std::unique_ptr<BefService>(new BefService());
  // Runtime errors reach the client through the result values (with their
  // locations); the diagnostic stream is not needed here.
  service->host_ = std::make_unique<HostContext>(
      [](const DecodedDiagnostic&) {}, CreateMallocAllocator(), std::move(*queue));
  RegisterStaticKernels(&service->host_->kernel_registry());
  RegisterStaticNativeFunctions(&service->host_->native_functions());
  absl::StatusOr<std::unique_ptr<BefProgram>> program =
      BefProgram::Open(service->host_.get(), path);
  if (!program.ok()) return program.status();
  service->program_ = std::move(*program);
  service->resources_ = std::make_unique<ResourceContext>();
  return service;
}

BefService::~BefService() {
  if (host_) host_->Quiesce();
  program_.reset();
}

void BefService::Quiesce() { host_->Quiesce(); }

ServiceResponse BefService::ListFunctions() const {
  Json functions = Json::array();
  for (size_t i = 0; i < program_->num_functions(); ++i) {
    const Function* function = program_->GetFunction(static_cast<uint32_t>(i));
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
  return {200, Json{{"functions", std::move(functions)}}.dump()};
}

ServiceResponse BefService::Run(std::string_view name, std::string_view body) {
  metrics_.requests.fetch_add(1, std::memory_order_relaxed);
  auto bad = [&](int status, std::string_view code, std::string_view message) {
    metrics_.bad_requests.fetch_add(1, std::memory_order_relaxed);
    return ErrorResponse(status, code, message);
  };
  const Function* function = program_->GetFunction(name);
  if (function == nullptr || function->kind() == FunctionKind::kSyncBefFunction) {
    return bad(404, "NOT_FOUND", absl::StrCat("no function named '", ToAbsl(name), "'"));
  }
  // nlohmann's parser is iterative, but copying and destroying a parsed
  // tree recurse once per level: values nested deeper than kMaxJsonDepth are
  // discarded while parsing (never built) and the request refused.
  bool too_deep = false;
  Json request = Json::parse(
      body,
      [&too_deep](int depth, Json::parse_event_t, Json&) {
        if (depth <= kMaxJsonDepth) return true;
        too_deep = true;
        return false;
      },
      /*allow_exceptions=*/false);
  if (too_deep) {
    return bad(400, "INVALID_ARGUMENT",
               absl::StrCat("the body nests arrays or objects more than ", kMaxJsonDepth,
                            " levels deep"));
  }
  if (request.is_discarded()) return bad(400, "INVALID_ARGUMENT", "the body is not valid JSON");
  if (!request.is_object()) {
    return bad(400, "INVALID_ARGUMENT", "the body must be a JSON object with \"args\"");
  }
  for (const auto& [key, unused] : request.items()) {
    if (key != "args" && key != "deadline_ms") {
      return bad(400, "INVALID_ARGUMENT", absl::StrCat("unknown field '", key, "'"));
    }
  }
  Json args = request.contains("args") ? request["args"] : Json::array();
  if (!args.is_array()) return bad(400, "INVALID_ARGUMENT", "\"args\" must be an array");
  if (args.size() != function->num_arguments()) {
    return bad(400, "INVALID_ARGUMENT",
               absl::StrCat("'", ToAbsl(name), "' takes ", function->num_arguments(),
                            " arguments, the request has ", args.size()));
  }
  std::optional<absl::Duration> deadline;
  if (request.contains("deadline_ms")) {
    const Json& value = request["deadline_ms"];
    if (!value.is_number() || value.is_boolean() || !(value.get<double>() > 0)) {
      return bad(400, "INVALID_ARGUMENT", "\"deadline_ms\" must be a positive number");
    }
    deadline = absl::Milliseconds(value.get<double>());
  }
  std::vector<RCReference<AsyncValue>> arguments;
  try {
    for (size_t i = 0; i < args.size(); ++i) {
      arguments.push_back(ArgumentFrom(function->argument_types()[i], args[i],
                                       host_->allocator(), absl::StrCat("argument ", i)));
    }
  } catch (const BadRequest& error) {
    return bad(400, "INVALID_ARGUMENT", error.message);
  }

  int64_t start = NowNanos();
  metrics_.in_flight.fetch_add(1, std::memory_order_relaxed);
  RCReference<RequestContext> request_context = RequestContext::Create(
      host_.get(), resources_.get(), next_request_id_.fetch_add(1));
  if (deadline) request_context->SetDeadline(absl::Now() + *deadline);
  std::vector<AsyncValue*> argument_values;
  for (auto& argument : arguments) argument_values.push_back(argument.get());
  std::vector<RCReference<AsyncValue>> results(function->num_results());
  {
    ExecutionContext context(request_context);
    function->Execute(context, argument_values, results);
  }
  WaitForAll(results);
  metrics_.in_flight.fetch_sub(1, std::memory_order_relaxed);
  metrics_.ObserveLatency(NowNanos() - start);

  Json values = Json::array();
  for (size_t i = 0; i < results.size(); ++i) {
    AsyncValue* value = results[i].get();
    if (value->IsError()) {
      const ErrorInfo& error = value->GetErrorInfo();
      bool cancelled = error.status.code() == absl::StatusCode::kDeadlineExceeded ||
                       error.status.code() == absl::StatusCode::kCancelled;
      (cancelled ? metrics_.cancelled : metrics_.runtime_errors)
          .fetch_add(1, std::memory_order_relaxed);
      Json body = {{"code", CodeName(error.status.code())},
                   {"message", std::string(error.status.message())},
                   {"result", i}};
      if (std::string where = LocationText(error.location); !where.empty()) {
        body["location"] = where;
      }
      int status = error.status.code() == absl::StatusCode::kDeadlineExceeded ? 504
                   : error.status.code() == absl::StatusCode::kCancelled       ? 499
                                                                               : 500;
      return {status, Json{{"error", std::move(body)}}.dump()};
    }
    absl::StatusOr<Json> json = ResultJson(function->result_types()[i], value);
    if (!json.ok()) {
      metrics_.runtime_errors.fetch_add(1, std::memory_order_relaxed);
      return ErrorResponse(500, "UNIMPLEMENTED", std::string(json.status().message()));
    }
    values.push_back(std::move(*json));
  }
  return {200, Json{{"results", std::move(values)}}.dump()};
}

}  // namespace bef
