#include "bef/host/kernel_registry.h"

#include <algorithm>
#include <vector>

#include "bef/host/native_function.h"

namespace bef {
namespace {

std::vector<KernelRegistration>& StaticKernelRegistrations() {
  static auto* registrations = new std::vector<KernelRegistration>();
  return *registrations;
}

std::vector<NativeFunctionRegistration>& StaticNativeRegistrations() {
  static auto* registrations = new std::vector<NativeFunctionRegistration>();
  return *registrations;
}

}  // namespace

void KernelRegistry::AddKernel(
    std::string_view name, KernelDefinition<AsyncKernelImplementation> definition) {
  auto& entry = kernels_[std::string(name)];
  if (!entry) entry = std::make_unique<KernelEntry>();
  entry->async_implementation = definition.implementation;
  // Direct calls skip the frame's checks: only with a signature the loader
  // verified records against.
  entry->direct = definition.signature.known ? definition.direct : DirectKernel{};
  entry->async_signature = std::move(definition.signature);
}

void KernelRegistry::AddKernel(std::string_view name,
                               AsyncKernelImplementation implementation) {
  AddKernel(name, KernelDefinition<AsyncKernelImplementation>{implementation, {}});
}

void KernelRegistry::AddSyncKernel(
    std::string_view name, KernelDefinition<SyncKernelImplementation> definition) {
  auto& entry = kernels_[std::string(name)];
  if (!entry) entry = std::make_unique<KernelEntry>();
  entry->sync_implementation = definition.implementation;
  entry->sync_signature = std::move(definition.signature);
}

void KernelRegistry::AddSyncKernel(std::string_view name,
                                   SyncKernelImplementation implementation) {
  AddSyncKernel(name, KernelDefinition<SyncKernelImplementation>{implementation, {}});
}

const KernelEntry* KernelRegistry::Find(std::string_view name) const {
  auto it = kernels_.find(std::string(name));
  return it == kernels_.end() ? nullptr : it->second.get();
}

std::vector<std::string> KernelRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : kernels_) names.push_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool AddStaticKernelRegistration(KernelRegistration registration) {
  StaticKernelRegistrations().push_back(registration);
  return true;
}

void RegisterStaticKernels(KernelRegistry* registry) {
  for (KernelRegistration registration : StaticKernelRegistrations()) {
    registration(registry);
  }
}

bool AddStaticNativeFunctionRegistration(NativeFunctionRegistration registration) {
  StaticNativeRegistrations().push_back(registration);
  return true;
}

void RegisterStaticNativeFunctions(NativeFunctionRegistry* registry) {
  for (NativeFunctionRegistration registration : StaticNativeRegistrations()) {
    registration(registry);
  }
}

}  // namespace bef
