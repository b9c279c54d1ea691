// tfrt_test.* kernels used by the executor and basic-kernel test programs
// (host-dialects.md §3.1-3.2, §3.5), with TFRT's names and exact texts.
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <map>
#include <optional>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/async_dispatch.h"
#include "bef/host/function.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"
#include "bef/support/logging.h"
#include "bef/support/sanitizers.h"
#include "bef/support/string_view.h"

namespace bef {
namespace {

constexpr char kSomethingBad[] = "something bad happened";
constexpr char kSomethingBadAsync[] = "something bad happened asynchronously";

// ---- Printing and strings.
Chain PrintHello() {
  PrintToStdout("hello host executor!\n");
  return Chain();
}
Chain PrintString(Argument<std::string> text) {
  PrintToStdout(absl::StrCat("string = ", *text, "\n"));
  return Chain();
}
Chain PrintBool(Argument<Chain>, Argument<bool> value) {
  PrintToStdout(*value ? "true\n" : "false\n");
  return Chain();
}
std::string GetString(StringAttribute value) { return std::string(*value); }
std::string AppendString(Argument<std::string> a, Argument<std::string> b) {
  return *a + *b;
}
bool StringEqual(Argument<std::string> a, Argument<std::string> b) { return *a == *b; }
absl::StatusOr<std::string> ReadStringFromFile(Argument<std::string> path) {
  std::ifstream file(*path, std::ios::binary);
  if (!file) return absl::InternalError(absl::StrCat("failed to read from file ", *path));
  std::stringstream contents;
  contents << file.rdbuf();
  return contents.str();
}
std::string FormatString(Argument<std::string> format, Argument<int32_t> value) {
  char buffer[1024];
  std::snprintf(buffer, sizeof(buffer), format->c_str(), *value);
  return buffer;
}

// ---- Failures.
absl::StatusOr<int32_t> Fail() { return absl::InternalError(kSomethingBad); }
void PartialFail(Result<int32_t> first, Result<int32_t>, KernelErrorHandler handler) {
  first.Emplace(1);
  handler.ReportError(kSomethingBad);
}
absl::StatusOr<Chain> ErrorChain(Argument<Chain>) {
  return absl::InternalError("error chain");
}

// Errors reported from a work-queue task: the diagnostic goes to the host,
// the returned status fills the result.
absl::Status ReportAsyncError(HostContext* host, Location location) {
  DecodedDiagnostic diagnostic;
  if (location.has_value()) diagnostic.location = location.Decode();
  diagnostic.status = absl::InternalError(kSomethingBadAsync);
  host->EmitError(diagnostic);
  return diagnostic.status;
}

RCReference<AsyncValue> ReportErrorAsync(AsyncKernelFrame* frame) {
  AsyncValueRef<int32_t> result = MakeUnconstructedAsyncValueRef<int32_t>();
  Location location = frame->GetLocation();
  HostContext* host = frame->GetHostContext();
  host->EnqueueWork([result = result.CopyRef(), location, host] {
    result.SetError(ReportAsyncError(host, location), location);
  });
  return result.ReleaseRCRef();
}
// Input 0 gives 0, anything else the error; through a concrete value, or an
// indirect value forwarded later.
RCReference<AsyncValue> ReportErrorConcreteAsync(Argument<int32_t> input,
                                                 AsyncKernelFrame* frame) {
  AsyncValueRef<int32_t> result = MakeUnconstructedAsyncValueRef<int32_t>();
  Location location = frame->GetLocation();
  HostContext* host = frame->GetHostContext();
  host->EnqueueWork([result = result.CopyRef(), location, host, value = *input] {
    if (value == 0) {
      result.emplace(0);
    } else {
      result.SetError(ReportAsyncError(host, location), location);
    }
  });
  return result.ReleaseRCRef();
}
RCReference<AsyncValue> ReportErrorIndirectAsync(Argument<int32_t> input,
                                                 AsyncKernelFrame* frame) {
  RCReference<IndirectAsyncValue> result = MakeIndirectAsyncValue();
  Location location = frame->GetLocation();
  HostContext* host = frame->GetHostContext();
  host->EnqueueWork([result, location, host, value = *input] {
    result->ForwardTo(value == 0
                          ? MakeAvailableAsyncValueRef<int32_t>(0).ReleaseRCRef()
                          : MakeErrorAsyncValueRef(ReportAsyncError(host, location),
                                                   location));
  });
  return result;
}

// ---- Cancellation.
std::pair<int32_t, RCReference<AsyncValue>> Cancel(Argument<Chain> chain,
                                                  const ExecutionContext& context) {
  context.request_context()->Cancel();
  return {0, chain.ValueRef().ReleaseRCRef()};
}

// ---- Async values.
template <typename T>
RCReference<AsyncValue> AsyncConstant(Attribute<T> value, HostContext* host) {
  AsyncValueRef<T> result = MakeUnconstructedAsyncValueRef<T>();
  T v = *value;
  host->EnqueueWork([result = result.CopyRef(), v] { result.emplace(v); });
  return result.ReleaseRCRef();
}
// As TFRT writes them: the work on a task (EnqueueWork, async_dispatch.h).
AsyncValueRef<int32_t> AsyncAdd(Argument<int32_t> a, Argument<int32_t> b,
                                const ExecutionContext& context) {
  return EnqueueWork(context, [a = *a, b = *b] { return WrappingAdd(a, b); });
}
AsyncValueRef<int32_t> AsyncCopy(Argument<int32_t> input, const ExecutionContext& context) {
  return EnqueueWork(context, [value = *input] { return value; });
}
// As TFRT writes it: the result's value allocated into the work, which a
// task of the work queue runs (EnqueueWork of a work returning nothing).
void AsyncCopy2(Argument<int32_t> input, Result<int32_t> output, const ExecutionContext& context) {
  EnqueueWork(context, [result = output.Allocate(), value = *input] { result.emplace(value); });
}

void SleepRandomMilliseconds() {
  thread_local std::mt19937 random(std::random_device{}());
  std::this_thread::sleep_for(
      std::chrono::milliseconds(std::uniform_int_distribution<int>(1, 10)(random)));
}
template <typename T>
T CopyWithDelay(Argument<T> input) {
  SleepRandomMilliseconds();
  return *input;
}
template <typename T>
RCReference<AsyncValue> AsyncCopyWithDelay(Argument<T> input, HostContext* host) {
  AsyncValueRef<T> result = MakeUnconstructedAsyncValueRef<T>();
  T value = *input;
  host->EnqueueWork([result = result.CopyRef(), value] {
    SleepRandomMilliseconds();
    result.emplace(value);
  });
  return result.ReleaseRCRef();
}

// tfrt_test.do.async: the region runs as a work-queue task.
void DoAsync(AsyncKernelFrame* frame) {
  const Function* body = frame->GetFunctionAt(0);
  std::vector<RCReference<AsyncValue>> arguments = CopyRefs(frame->GetArguments());
  std::vector<RCReference<IndirectAsyncValue>> results = frame->AllocateIndirectResults();
  if (body->num_arguments() != arguments.size() || body->num_results() != results.size()) {
    RCReference<AsyncValue> error = frame->EmitErrorAsync(
        absl::InternalError("tfrt_test.do.async body does not match the op"));
    for (auto& result : results) result->ForwardTo(error);
    return;
  }
  ExecutionContext context = frame->GetExecutionContext();
  frame->GetHostContext()->EnqueueWork(
      [body, context, arguments = std::move(arguments), results = std::move(results)] {
        std::vector<AsyncValue*> values;
        for (auto& argument : arguments) values.push_back(argument.get());
        std::vector<RCReference<AsyncValue>> outputs(results.size());
        body->Execute(context, values, outputs);
        for (size_t i = 0; i < outputs.size(); ++i) results[i]->ForwardTo(std::move(outputs[i]));
      });
}

// tfrt_test.quiesce: a chain available after the host quiesced.
RCReference<AsyncValue> Quiesce(Argument<Chain>, HostContext* host) {
  AsyncValueRef<Chain> done = MakeUnconstructedAsyncValueRef<Chain>();
  host->EnqueueBlockingWork([host, done = done.CopyRef()] {
    host->Quiesce();
    done.emplace();
  });
  return done.ReleaseRCRef();
}

// ---- Values passed through.
Chain AsChain(RemainingArguments) { return Chain(); }
void Identity(AsyncKernelFrame* frame) {
  // (chain, values...) -> values...
  for (size_t i = 0; i < frame->GetNumResults(); ++i) {
    frame->SetResultAt(i, FormRef(frame->GetArgAt(i + 1)));
  }
}
void MultiArgResult(AsyncKernelFrame* frame) {
  for (size_t i = 0; i < frame->GetNumResults(); ++i) {
    frame->SetResultAt(i, FormRef(frame->GetArgAt(i)));
  }
}
void GetUniqueness(AsyncKernelFrame* frame) {
  for (size_t i = 0; i < frame->GetNumResults(); ++i) {
    frame->EmplaceResultAt<bool>(i, frame->IsArgumentUnique(i));
  }
}
void MakeIndirect(AsyncKernelFrame* frame) {
  for (size_t i = 0; i < frame->GetNumResults(); ++i) {
    RCReference<IndirectAsyncValue> indirect = MakeIndirectAsyncValue();
    indirect->ForwardTo(FormRef(frame->GetArgAt(i)));
    frame->SetResultAt(i, std::move(indirect));
  }
}
void ShareToTwo(AsyncKernelFrame* frame) {
  frame->SetResultAt(0, FormRef(frame->GetArgAt(0)));
  frame->SetResultAt(1, FormRef(frame->GetArgAt(0)));
}

// ---- Request data (for embedders; the stock driver provides none, so
// these fail there). The error texts for missing data are this runtime's:
// the reference's are not specified.
template <typename T>
absl::StatusOr<T> GetRequestContextData(const ExecutionContext& context) {
  T* data = context.request_context()->GetData<T>();
  if (data == nullptr) {
    return absl::InternalError(absl::StrCat("request context has no ",
                                            ToAbsl(BefTypeName<T>::value), " data"));
  }
  return *data;
}

// init (parsed from a string) + the array's elements + the request's data +
// the resource context's "val".
template <typename T>
absl::StatusOr<T> SumArrayAttr(Argument<std::string> init, ArrayAttribute<T> values,
                               const ExecutionContext& context) {
  T sum;
  if (!absl::SimpleAtoi(*init, &sum)) {
    return absl::InternalError(absl::StrCat("Cannot convert ", *init, " to target int"));
  }
  for (T value : values.data()) sum = WrappingAdd(sum, value);
  absl::StatusOr<T> data = GetRequestContextData<T>(context);
  if (!data.ok()) return data.status();
  sum = WrappingAdd(sum, *data);
  ResourceContext* resources = context.request_context()->resource_context();
  T* val = resources ? resources->Get<T>("val") : nullptr;
  if (val == nullptr) return absl::InternalError("resource context has no \"val\"");
  return WrappingAdd(sum, *val);
}

// ---- Arithmetic helpers.
template <typename T>
std::tuple<T, T, T> Count3(Argument<T> x) {
  return {WrappingAdd<T>(*x, 1), WrappingAdd<T>(*x, 2), WrappingAdd<T>(*x, 3)};
}
absl::StatusOr<int32_t> Sum(RemainingArguments values) {
  int32_t sum = 0;
  for (size_t i = 0; i < values.size(); ++i) {
    if (!values[i]->IsType<int32_t>()) {
      return absl::InvalidArgumentError(
          absl::StrCat("operand ", i, " is not a value of type i32"));
    }
    sum = WrappingAdd(sum, values[i]->get<int32_t>());
  }
  return sum;
}
int32_t TestCost(RemainingArguments, Attribute<int64_t> id) {
  PrintToStdout(absl::StrCat("id: ", *id, "\n"));
  return 0;
}

// tfrt_test.flat: value = [["str", [a : i32, b : i32]], [f : f32]]. Inner
// lists may be encoded as homogeneous arrays or as aggregates.
template <typename T>
bool ReadList(const uint8_t* list, uint8_t type, std::vector<T>& out) {
  constexpr uint8_t kElement = static_cast<uint8_t>(BefDTypeOf<T>::value);
  if (type == ArrayAttributeType(kElement)) {
    for (T value : ArrayAttributeView<T>(list)) out.push_back(value);
    return true;
  }
  if (type != static_cast<uint8_t>(AttributeType::kAggregate)) return false;
  AggregateAttributeView aggregate(list);
  for (uint32_t i = 0; i < aggregate.size(); ++i) {
    if (aggregate.element_type(i) != kElement) return false;
    out.push_back(LoadScalarAttribute<T>(aggregate.element(i)));
  }
  return true;
}

absl::StatusOr<std::tuple<std::string, int32_t, int32_t, float>> Flat(
    AggregateAttribute value) {
  auto invalid = absl::InternalError("tfrt_test.flat expects [[str, [i32, i32]], [f32]]");
  constexpr uint8_t kAggregate = static_cast<uint8_t>(AttributeType::kAggregate);
  if (value.size() != 2 || value.element_type(0) != kAggregate) return invalid;
  AggregateAttributeView first(value.element(0));
  if (first.size() != 2 || first.element_type(0) != static_cast<uint8_t>(DType::kString)) {
    return invalid;
  }
  std::vector<int32_t> pair;
  std::vector<float> floats;
  if (!ReadList(first.element(1), first.element_type(1), pair) || pair.size() != 2 ||
      !ReadList(value.element(1), value.element_type(1), floats) || floats.size() != 1) {
    return invalid;
  }
  return std::make_tuple(std::string(StringAttributeView(first.element(0))), pair[0],
                         pair[1], floats[0]);
}

// ---- Resources.
struct TestResource {
  TestResource() { PrintToStdout("Allocated TestResource\n"); }
  ~TestResource() { PrintToStdout("Destroyed TestResource\n"); }
};
}  // namespace
BEF_DEFINE_TYPE_NAME(std::unique_ptr<TestResource>, "!tfrt.test.resource");
namespace {

std::pair<std::unique_ptr<TestResource>, RCReference<AsyncValue>> AllocateResource(
    Argument<Chain> chain) {
  return {std::make_unique<TestResource>(), chain.ValueRef().ReleaseRCRef()};
}
Chain DeallocateResource(Argument<std::unique_ptr<TestResource>> resource,
                         Argument<Chain>) {
  resource->reset();
  PrintToStdout("tfrt_test.deallocate_resource done\n");
  return Chain();
}

struct SampleSharedContext : SharedContext {
  explicit SampleSharedContext(HostContext*) {
    static std::atomic<int> next{0};
    name = absl::StrCat("sample_shared_context", next.fetch_add(1));
  }
  std::string name;
};
std::pair<std::string, RCReference<AsyncValue>> UseSampleSharedContext(
    Argument<Chain> chain, HostContext* host) {
  return {host->GetOrCreateSharedContext<SampleSharedContext>().name,
          chain.ValueRef().ReleaseRCRef()};
}

int32_t GetThreadId(Argument<Chain>) {
  static std::atomic<int32_t> next{0};
  thread_local int32_t id = next.fetch_add(1);
  return id;
}

Chain Logging(Argument<std::string> text, Argument<Chain>) {
  const std::string& s = *text;
  LogLine(LogSeverity::kInfo, "simple_test_kernels.cc", 244, "from TFRT_LOG(INFO): " + s);
  LogLine(LogSeverity::kWarning, "simple_test_kernels.cc", 245, "from TFRT_LOG(WARNING): " + s);
  LogLine(LogSeverity::kError, "simple_test_kernels.cc", 246, "from TFRT_LOG(ERROR): " + s);
  LogLine(LogSeverity::kInfo, "simple_test_kernels.cc", 247, "from TFRT_LOG_IF(INFO, true): " + s);
  LogLine(LogSeverity::kWarning, "simple_test_kernels.cc", 248, "from TFRT_LOG_IF(WARNING, true): " + s);
  LogLine(LogSeverity::kError, "simple_test_kernels.cc", 249, "from TFRT_LOG_IF(ERROR, true): " + s);
  return Chain();
}

void MemoryLeakOneInt32(HostContext* host) {
  // Leaked on purpose: the leak-check allocator must report it.
  IgnoreIntentionalLeak(host->allocator()->Allocate<int32_t>());
}

void ScheduleSleep(int32_t microseconds, HostContext* host, AsyncValueRef<Chain> done) {
  bool queued = host->EnqueueBlockingWork([microseconds, done] {
    usleep(static_cast<useconds_t>(microseconds));
    std::printf("Slept for %d microseconds\n", microseconds);
    std::fflush(stdout);
    if (done) done.emplace();
  });
  if (!queued) {
    std::fprintf(stderr,
                 "Failed to enqueue blocking work. Maximum number of pending "
                 "blocking tasks reached.\n");
    if (done) done.emplace();
  }
}
void Usleep(Argument<int32_t> microseconds, HostContext* host) {
  ScheduleSleep(*microseconds, host, nullptr);
}
RCReference<AsyncValue> BlockingUsleep(Argument<int32_t> microseconds, HostContext* host) {
  AsyncValueRef<Chain> done = MakeUnconstructedAsyncValueRef<Chain>();
  ScheduleSleep(*microseconds, host, done.CopyRef());
  return done.ReleaseRCRef();
}

// ---- Atomics.
using TestAtomic = std::shared_ptr<std::atomic<int32_t>>;
}  // namespace
BEF_DEFINE_TYPE_NAME(TestAtomic, "!test.atomic.i32");
namespace {
TestAtomic AtomicCreate() { return std::make_shared<std::atomic<int32_t>>(0); }
Chain AtomicInc(Argument<TestAtomic> atomic) {
  (*atomic)->fetch_add(1);
  return Chain();
}
Chain AtomicAdd(Argument<TestAtomic> atomic, Argument<int32_t> value) {
  (*atomic)->fetch_add(*value);  // atomic arithmetic wraps
  return Chain();
}
std::pair<int32_t, Chain> AtomicGet(Argument<TestAtomic> atomic) {
  return {(*atomic)->load(), Chain()};
}

// ---- Locations.
absl::StatusOr<Chain> UniqueLoc(StringAttribute name, AsyncKernelFrame* frame) {
  static std::mutex mutex;
  static auto* names = new std::map<std::pair<const void*, uint64_t>, std::string>();
  static int duplicates = 0;
  std::lock_guard<std::mutex> lock(mutex);
  Location location = frame->GetLocation();
  auto key = std::make_pair(static_cast<const void*>(location.decoder), location.data);
  auto [it, inserted] = names->try_emplace(key, std::string(*name));
  if (!inserted && it->second != *name) {
    return absl::InternalError(absl::StrCat("duplicate locations ", ++duplicates));
  }
  return Chain();
}

Chain PrintDebugInfo(Argument<Chain>, AsyncKernelFrame* frame) {
  std::string info = "Kernel has no debug info";
  Location location = frame->GetLocation();
  if (location.has_value()) {
    DecodedLocation decoded = location.Decode();
    if (decoded.debug_info) info = *decoded.debug_info;
  }
  PrintToStdout(info + "\n");
  return Chain();
}

// Tensor type descriptors: the host tensor classes' registered names.
struct TensorType {
  std::string name;
};
}  // namespace
BEF_DEFINE_TYPE_NAME(TensorType, "!tfrt.tensor_type");
namespace {

TensorType GetStaticTensorType(StringAttribute name) {
  for (std::string_view known : {"DenseHost", "StringHost", "CooHost", "ScalarHost"}) {
    if (*name == known) return TensorType{std::string(known)};
  }
  return TensorType{"Unknown"};
}
Chain PrintTensorType(Argument<TensorType> type) {
  PrintToStdout(absl::StrCat("tensor_type = ", type->name, "\n"));
  return Chain();
}

std::string AsyncValueGet() { return "base1:base2:final_class:3"; }
std::string AsyncValueRefText() {
  return "available:2;unavailable;(3);available:3;unavailable;available:4";
}

// ---- Sync functions called from async code.
// Runs the frame's function (a sync function of two i32 arguments) on the
// kernel's two i32 operands; the results, or the error reported.
std::optional<std::vector<SyncValue>> RunSyncFunction(AsyncKernelFrame* frame,
                                                      size_t num_results) {
  if (!CheckArgumentTypes<int32_t, int32_t>(frame)) return std::nullopt;
  const Function* function = frame->GetFunctionAt(0);
  SyncValue a(frame->GetArgAt(0)->get<int32_t>());
  SyncValue b(frame->GetArgAt(1)->get<int32_t>());
  SyncValue* arguments[] = {&a, &b};
  std::vector<SyncValue> results(num_results);
  std::vector<SyncValue*> pointers;
  for (SyncValue& result : results) pointers.push_back(&result);
  absl::Status status =
      function->ExecuteSync(frame->GetExecutionContext(), arguments, pointers);
  if (!status.ok()) {
    frame->ReportError(std::move(status));
    return std::nullopt;
  }
  return results;
}

void InvokeSyncFunction(AsyncKernelFrame* frame) {
  const Function* function = frame->GetFunctionAt(0);
  size_t num_results = frame->GetNumResults();
  if (function->num_arguments() != 2 || function->num_results() != num_results) {
    frame->ReportError(absl::StrCat("Invalid signature for function ",
                                    ToAbsl(function->name())));
    return;
  }
  if (auto results = RunSyncFunction(frame, num_results)) {
    for (size_t i = 0; i < num_results; ++i) {
      frame->EmplaceResultAt<int32_t>(i, (*results)[i].get<int32_t>());
    }
  }
}

// The reference's runner is typed for float results: its .i32 variant
// reads the i32 result's bits as a float and converts that float to i32.
void SyncFunctionRunner(AsyncKernelFrame* frame) {
  const Function* function = frame->GetFunctionAt(0);
  if (function->num_arguments() != 2 || function->num_results() != 1) {
    frame->ReportError(absl::StrCat(
        "Invalid signature for function ", ToAbsl(function->name()),
        ". Expected 2 arguments and 1 results, but get ", function->num_arguments(),
        " arguments and ", function->num_results(), " results"));
    return;
  }
  if (auto results = RunSyncFunction(frame, 1)) {
    int32_t bits = (*results)[0].get<int32_t>();
    float as_float;
    std::memcpy(&as_float, &bits, sizeof(float));
    for (size_t i = 0; i < frame->GetNumResults(); ++i) {
      frame->EmplaceResultAt<int32_t>(i, static_cast<int32_t>(as_float));
    }
  }
}

// Sync kernel: the sum of all i32 attributes.
void SyncSumAttributes(SyncKernelFrame* frame) {
  int32_t sum = 0;
  for (size_t i = 0; i < frame->GetNumAttributes(); ++i) {
    if (frame->GetAttributeBytesAvailable(i) < sizeof(int32_t)) {
      frame->SetError(absl::InvalidArgumentError(
          "an attribute is outside the Attributes section"));
      return;
    }
    sum = WrappingAdd(sum, LoadScalarAttribute<int32_t>(frame->GetAttributeAt(i)));
  }
  frame->EmplaceResultAt<int32_t>(0, sum);
}

KernelDefinition<AsyncKernelImplementation> Raw(AsyncKernelImplementation kernel,
                                                std::vector<std::string_view> arguments,
                                                uint32_t functions = 0) {
  KernelSignature signature;
  signature.known = true;
  signature.arguments.assign(arguments.begin(), arguments.end());
  signature.num_functions = functions;
  signature.variadic_arguments = true;
  signature.variadic_results = true;
  signature.variadic_attributes = true;
  return {kernel, std::move(signature)};
}

void RegisterTestKernels(KernelRegistry* registry) {
  registry->AddKernel("tfrt_test.print_hello", BEF_KERNEL(PrintHello));
  registry->AddKernel("tfrt_test.print_string", BEF_KERNEL(PrintString));
  registry->AddKernel("tfrt_test.print_bool", BEF_KERNEL(PrintBool));
  registry->AddKernel("tfrt_test.get_string", BEF_KERNEL(GetString));
  registry->AddKernel("tfrt_test.append_string", BEF_KERNEL(AppendString));
  registry->AddKernel("tfrt_test.string_equal", BEF_KERNEL(StringEqual));
  registry->AddKernel("tfrt_test.read_string_from_file", BEF_KERNEL(ReadStringFromFile));
  registry->AddKernel("tfrt_test.format_string", BEF_KERNEL(FormatString));
  registry->AddKernel("tfrt_test.fail", BEF_KERNEL(Fail));
  registry->AddKernel("tfrt_test.partial_fail", BEF_KERNEL(PartialFail));
  registry->AddKernel("tfrt_test.error_chain", BEF_KERNEL(ErrorChain));
  registry->AddKernel("tfrt_test.report_error_async", BEF_KERNEL(ReportErrorAsync));
  registry->AddKernel("tfrt_test.report_error_concrete_async",
                      BEF_KERNEL(ReportErrorConcreteAsync));
  registry->AddKernel("tfrt_test.report_error_indirect_async",
                      BEF_KERNEL(ReportErrorIndirectAsync));
  registry->AddKernel("tfrt_test.cancel", BEF_KERNEL(Cancel));
  registry->AddKernel("tfrt_test.async_constant.i32", BEF_KERNEL(AsyncConstant<int32_t>));
  registry->AddKernel("tfrt_test.async_constant.i1", BEF_KERNEL(AsyncConstant<bool>));
  registry->AddKernel("tfrt_test.async_add.i32", BEF_KERNEL(AsyncAdd));
  registry->AddKernel("tfrt_test.async_copy.i32", BEF_KERNEL(AsyncCopy));
  registry->AddKernel("tfrt_test.async_copy_2.i32", BEF_KERNEL(AsyncCopy2));
  registry->AddKernel("tfrt_test.copy.with_delay.i32", BEF_KERNEL(CopyWithDelay<int32_t>));
  registry->AddKernel("tfrt_test.copy.with_delay.i64", BEF_KERNEL(CopyWithDelay<int64_t>));
  registry->AddKernel("tfrt_test.async_copy.with_delay.i32",
                      BEF_KERNEL(AsyncCopyWithDelay<int32_t>));
  registry->AddKernel("tfrt_test.async_copy.with_delay.i64",
                      BEF_KERNEL(AsyncCopyWithDelay<int64_t>));
  registry->AddKernel("tfrt_test.do.async", Raw(&DoAsync, {}, 1));
  registry->AddKernel("tfrt_test.quiesce", BEF_KERNEL(Quiesce));
  registry->AddKernel("tfrt_test.as_chain", BEF_KERNEL(AsChain));
  registry->AddKernel("tfrt_test.identity", Raw(&Identity, {"!tfrt.chain"}));
  registry->AddKernel("tfrt_test.multi_arg_result", Raw(&MultiArgResult, {}));
  registry->AddKernel("tfrt_test.get_uniqueness", Raw(&GetUniqueness, {}));
  registry->AddKernel("tfrt_test.make_indirect", Raw(&MakeIndirect, {}));
  registry->AddKernel("tfrt_test.share_to_two", Raw(&ShareToTwo, {""}));
  registry->AddKernel("tfrt_test.count3.i32", BEF_KERNEL(Count3<int32_t>));
  registry->AddKernel("tfrt_test.count3.i64", BEF_KERNEL(Count3<int64_t>));
  registry->AddKernel("tfrt_test.sum", BEF_KERNEL(Sum));
  registry->AddKernel("tfrt_test.get_request_context_data.i32",
                      BEF_KERNEL(GetRequestContextData<int32_t>));
  registry->AddKernel("tfrt_test.sum_array_attr.i32", BEF_KERNEL(SumArrayAttr<int32_t>));
  registry->AddKernel("tfrt_test.sum_array_attr.i64", BEF_KERNEL(SumArrayAttr<int64_t>));
  registry->AddKernel("tfrt_test.test_cost", BEF_KERNEL(TestCost));
  registry->AddKernel("tfrt_test.flat", BEF_KERNEL(Flat));
  registry->AddKernel("tfrt_test.allocate_resource", BEF_KERNEL(AllocateResource));
  registry->AddKernel("tfrt_test.deallocate_resource", BEF_KERNEL(DeallocateResource));
  registry->AddKernel("tfrt_test.use_sample_shared_context",
                      BEF_KERNEL(UseSampleSharedContext));
  registry->AddKernel("tfrt_test.get_thread_id", BEF_KERNEL(GetThreadId));
  registry->AddKernel("tfrt_test.logging", BEF_KERNEL(Logging));
  registry->AddKernel("tfrt_test.memory_leak_one_int32", BEF_KERNEL(MemoryLeakOneInt32));
  registry->AddKernel("tfrt_test.usleep", BEF_KERNEL(Usleep));
  registry->AddKernel("tfrt_test.blocking.usleep", BEF_KERNEL(BlockingUsleep));
  registry->AddKernel("tfrt_test.atomic.create.i32", BEF_KERNEL(AtomicCreate));
  registry->AddKernel("tfrt_test.atomic.inc.i32", BEF_KERNEL(AtomicInc));
  registry->AddKernel("tfrt_test.atomic.add.i32", BEF_KERNEL(AtomicAdd));
  registry->AddKernel("tfrt_test.atomic.get.i32", BEF_KERNEL(AtomicGet));
  registry->AddKernel("tfrt_test.unique_loc", BEF_KERNEL(UniqueLoc));
  registry->AddKernel("tfrt_test.print_debug_info", BEF_KERNEL(PrintDebugInfo));
  registry->AddKernel("tfrt_test.async_value_get", BEF_KERNEL(AsyncValueGet));
  registry->AddKernel("tfrt_test.get_static_tensor_type", BEF_KERNEL(GetStaticTensorType));
  registry->AddKernel("tfrt_test.print_tensor_type", BEF_KERNEL(PrintTensorType));
  registry->AddKernel("tfrt_test.async_value_ref", BEF_KERNEL(AsyncValueRefText));
  registry->AddKernel("tfrt_test.invoke_sync_function.i32_i32.i32",
                      Raw(&InvokeSyncFunction, {"i32", "i32"}, 1));
  registry->AddKernel("tfrt_test.invoke_sync_function.i32_i32.i32_i32",
                      Raw(&InvokeSyncFunction, {"i32", "i32"}, 1));
  registry->AddKernel("tfrt_test.sync_function_runner.i32_i32.i32",
                      Raw(&SyncFunctionRunner, {"i32", "i32"}, 1));
  registry->AddKernel("tfrt_test.sync_function_runner.i32_i32.i32_i32",
                      Raw(&SyncFunctionRunner, {"i32", "i32"}, 1));
  KernelSignature sum_signature;
  sum_signature.known = true;
  sum_signature.results = {"i32"};
  sum_signature.variadic_attributes = true;
  registry->AddSyncKernel("tfrt_test.sync_sum_attributes",
                          {&SyncSumAttributes, sum_signature});
}

BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterTestKernels, "tfrt_test");

}  // namespace
}  // namespace bef
