#include "bef/host/kernel_registry.h"

#include <algorithm>
#include <cstring>
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

KernelEntry& KernelRegistry::Entry(std::string_view name) {
  auto found = kernels_.find(name);
  if (found != kernels_.end()) return *found->second;
  if (name_bytes_left_ < name.size()) {
    size_t size = std::max(kNameBlockSize, name.size());
    name_blocks_.push_back(std::make_unique<char[]>(size));
    name_cursor_ = name_blocks_.back().get();
    name_bytes_left_ = size;
  }
  char* stored = name_cursor_;
  std::memcpy(stored, name.data(), name.size());
  name_cursor_ += name.size();
  name_bytes_left_ -= name.size();
  if (entries_in_last_block_ == kEntriesPerBlock) {
    entry_blocks_.push_back(std::make_unique<KernelEntry[]>(kEntriesPerBlock));
    entries_in_last_block_ = 0;
  }
  KernelEntry* entry = &entry_blocks_.back()[entries_in_last_block_++];
  kernels_.emplace(std::string_view(stored, name.size()), entry);
  return *entry;
}

void KernelRegistry::AddKernel(
    std::string_view name, KernelDefinition<AsyncKernelImplementation> definition) {
  KernelEntry& entry = Entry(name);
  entry.async_implementation = definition.implementation;
  // Direct calls skip the frame's checks: only with a signature the loader
  // verified records against.
  entry.direct = definition.signature.known ? definition.direct : DirectKernel{};
  entry.async_signature = std::move(definition.signature);
}

void KernelRegistry::AddKernel(std::string_view name,
                               AsyncKernelImplementation implementation) {
  AddKernel(name, KernelDefinition<AsyncKernelImplementation>{implementation, {}});
}

void KernelRegistry::AddSyncKernel(
    std::string_view name, KernelDefinition<SyncKernelImplementation> definition) {
  KernelEntry& entry = Entry(name);
  entry.sync_implementation = definition.implementation;
  entry.sync_signature = std::move(definition.signature);
}

void KernelRegistry::AddSyncKernel(std::string_view name,
                                   SyncKernelImplementation implementation) {
  AddSyncKernel(name, KernelDefinition<SyncKernelImplementation>{implementation, {}});
}

const KernelEntry* KernelRegistry::Find(std::string_view name) const {
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : it->second;
}

std::vector<std::string> KernelRegistry::Names() const {
  std::vector<std::string> names;
  for (const auto& [name, entry] : kernels_) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool AddStaticKernelRegistration(KernelRegistration registration) {
  StaticKernelRegistrations().push_back(registration);
  return true;
}

void RegisterStaticKernels(KernelRegistry* registry) {
  // About as many kernels as bef_executor links (the map grows past it).
  registry->Reserve(512);
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
