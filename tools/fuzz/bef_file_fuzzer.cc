// Fuzz target: BefFile::OpenBuffer + inflation of every function + location
// decoding + bef-dump, with typed kernels registered under common names so
// attribute-layout and register-type verification run too.
//
// libFuzzer build and run: scripts/fuzz.sh (clang-14). The same source is
// built by Bazel with replay_main.cc and run over the golden corpus as a
// test, so it cannot rot.
#include <cstddef>
#include <cstdint>
#include <span>

#include "bef/host/kernel_utils.h"
#include "bef/loader/bef_dump.h"
#include "bef/loader/bef_file.h"
#include "lib/testing/stand_in_kernels.h"

namespace {

using namespace bef;  // NOLINT

int64_t Dense(DenseAttribute dense) { return dense.num_elements(); }
int64_t Strings(StringAttribute a, ArrayAttribute<int64_t> b, AggregateAttribute c,
                ShapeAttribute d) {
  return static_cast<int64_t>(a.get().size() + b.size() + c.size() + d.rank());
}
void NativeNothing(std::span<AsyncValue* const>, std::span<RCReference<AsyncValue>>,
                   HostContext*) {}

const KernelRegistry& Kernels() {
  static KernelRegistry* registry = [] {
    auto* r = new KernelRegistry();
    bef::testing::AddStandInCoreKernels(*r);
    r->AddKernel("tfrt_test.const_dense_attr", BEF_KERNEL(Dense));
    r->AddKernel("test.attributes", BEF_KERNEL(Strings));
    return r;
  }();
  return *registry;
}

const NativeFunctionRegistry& Natives() {
  static NativeFunctionRegistry* registry = [] {
    auto* r = new NativeFunctionRegistry();
    r->Add("native_add", &NativeNothing);
    return r;
  }();
  return *registry;
}

void Exercise(const BefFile& file) {
  for (uint32_t f = 0; f < file.num_functions(); ++f) {
    if (file.function(f).kind == FunctionKind::kNativeFunction) continue;
    absl::StatusOr<const FunctionInfo*> info = file.GetFunctionInfo(f);
    if (!info.ok()) continue;
    file.DecodeLocation((*info)->location);
    for (size_t k = 1; k < (*info)->kernels.size(); ++k) {
      file.DecodeLocation((*info)->kernels[k].location());
    }
  }
  DumpBefFile(file);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::span<const uint8_t> bytes(data, size);
  // Unresolved (as bef-dump loads) and resolved against the kernels above.
  if (auto file = BefFile::OpenBuffer(bytes, {}, "fuzz", true); file.ok()) {
    Exercise(**file);
  }
  BefLoadOptions resolved{.kernels = &Kernels(), .native_functions = &Natives()};
  if (auto file = BefFile::OpenBuffer(bytes, resolved, "fuzz", true); file.ok()) {
    Exercise(**file);
  }
  return 0;
}
