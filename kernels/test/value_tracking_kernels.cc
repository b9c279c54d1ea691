// vt.* value-tracking kernels (their payload prints on construction, move,
// copy and destruction, making reference release timing observable), the
// tutorial kernels, and the test native functions.
#include <cstdio>
#include <string>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/host/native_function.h"
#include "bef/kernels/kernel_types.h"

namespace bef {
namespace {

class TrackedValue {
 public:
  explicit TrackedValue(int32_t value) : value_(value) {
    PrintToStdout(absl::StrCat("constructed vt.value(", value_, ")\n"));
  }
  TrackedValue(TrackedValue&& other) : value_(other.value_) {
    other.moved_from_ = true;
    PrintToStdout(absl::StrCat("move constructed vt.value(", value_, ")\n"));
  }
  TrackedValue(const TrackedValue& other) : value_(other.value_) {
    PrintToStdout(absl::StrCat("copy constructed vt.value(", value_, ")\n"));
  }
  ~TrackedValue() {
    if (!moved_from_) PrintToStdout(absl::StrCat("destroyed vt.value(", value_, ")\n"));
  }
  int32_t value() const { return value_; }

 private:
  int32_t value_;
  bool moved_from_ = false;
};
}  // namespace
BEF_DEFINE_TYPE_NAME(TrackedValue, "!vt.value");
namespace {

TrackedValue VtConstant(Attribute<int32_t> value) { return TrackedValue(*value); }
TrackedValue VtAdd(Argument<TrackedValue> a, Argument<TrackedValue> b) {
  return TrackedValue(WrappingAdd(a->value(), b->value()));
}
Chain VtPrint(Argument<TrackedValue> value) {
  PrintToStdout(absl::StrCat("print vt_value(", value->value(), ")\n"));
  return Chain();
}

struct Coordinate {
  int32_t x;
  int32_t y;
};
}  // namespace
BEF_DEFINE_TYPE_NAME(Coordinate, "!my.coordinate");
namespace {

Coordinate CreateCoordinate(Argument<int32_t> x, Argument<int32_t> y) {
  return Coordinate{*x, *y};
}
Chain PrintCoordinate(Argument<Coordinate> coordinate) {
  std::printf("(%d, %d)\n", coordinate->x, coordinate->y);
  std::fflush(stdout);
  return Chain();
}

void RegisterValueTrackingKernels(KernelRegistry* registry) {
  registry->AddKernel("vt.constant", BEF_KERNEL(VtConstant));
  registry->AddKernel("vt.add", BEF_KERNEL(VtAdd));
  registry->AddKernel("vt.print", BEF_KERNEL(VtPrint));
  registry->AddKernel("tfrt_tutorial.create_coordinate", BEF_KERNEL(CreateCoordinate));
  registry->AddKernel("tfrt_tutorial.print_coordinate", BEF_KERNEL(PrintCoordinate));
}
BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterValueTrackingKernels, "tfrt_tutorial", "vt");

// ---- Native functions (host-dialects.md §3.6).
// Native functions have no frame: they check their operands themselves.
bool AreTwoI32(std::span<AsyncValue* const> arguments,
               std::span<RCReference<AsyncValue>> results) {
  if (arguments.size() == 2 && results.size() == 1 && arguments[0]->IsType<int32_t>() &&
      arguments[1]->IsType<int32_t>()) {
    return true;
  }
  RCReference<AsyncValue> error = MakeErrorAsyncValueRef(
      absl::InvalidArgumentError("native add takes two i32 values and returns one"));
  for (auto& result : results) result = error;
  return false;
}
void NativeAdd(std::span<AsyncValue* const> arguments,
               std::span<RCReference<AsyncValue>> results, HostContext*) {
  if (!AreTwoI32(arguments, results)) return;
  results[0] = MakeAvailableAsyncValueRef<int32_t>(
                   WrappingAdd(arguments[0]->get<int32_t>(), arguments[1]->get<int32_t>()))
                   .ReleaseRCRef();
}
void NativeAsyncAdd(std::span<AsyncValue* const> arguments,
                    std::span<RCReference<AsyncValue>> results, HostContext* host) {
  if (!AreTwoI32(arguments, results)) return;
  AsyncValueRef<int32_t> sum = MakeUnconstructedAsyncValueRef<int32_t>();
  int32_t value = WrappingAdd(arguments[0]->get<int32_t>(), arguments[1]->get<int32_t>());
  host->EnqueueWork([sum = sum.CopyRef(), value] { sum.emplace(value); });
  results[0] = sum.ReleaseRCRef();
}
void NativeSink(std::span<AsyncValue* const>, std::span<RCReference<AsyncValue>>,
                HostContext*) {}
void NativeAsyncSink(std::span<AsyncValue* const>,
                     std::span<RCReference<AsyncValue>> results, HostContext*) {
  for (auto& result : results) result = FormRef(GetReadyChainValue());
}
void NativeError(std::span<AsyncValue* const>, std::span<RCReference<AsyncValue>> results,
                 HostContext*) {
  for (auto& result : results) {
    result = MakeErrorAsyncValueRef(absl::InternalError("something bad happened"));
  }
}

void RegisterTestNativeFunctions(NativeFunctionRegistry* registry) {
  registry->Add("native_add", &NativeAdd);
  registry->Add("native_async_add", &NativeAsyncAdd);
  registry->Add("native_sink", &NativeSink);
  registry->Add("native_async_sink", &NativeAsyncSink);
  registry->Add("native_error", &NativeError);
}
BEF_STATIC_NATIVE_FUNCTION_REGISTRATION(RegisterTestNativeFunctions);

}  // namespace
}  // namespace bef
