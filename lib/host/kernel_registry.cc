#include "bef/host/kernel_registry.h"

#include <algorithm>
#include <cstring>
#include <mutex>
#include <vector>

#include "bef/host/kernel_utils.h"
#include "bef/host/native_function.h"

namespace bef {

// kernel_utils.h: the executor's state of the frame-less calls on a thread.
namespace internal {
constinit thread_local bool line_kernel_failed = false;
constinit thread_local bool line_call_incomplete = false;
constinit thread_local DirectCall line_direct_call;
}  // namespace internal
namespace {

struct StaticRegistration {
  KernelRegistration registration;
  std::span<const std::string_view> dialects;  // empty: not deferred
};

std::vector<StaticRegistration>& StaticKernelRegistrations() {
  static auto* registrations = new std::vector<StaticRegistration>();
  return *registrations;
}

std::vector<NativeFunctionRegistration>& StaticNativeRegistrations() {
  static auto* registrations = new std::vector<NativeFunctionRegistration>();
  return *registrations;
}

}  // namespace

KernelEntry& KernelRegistry::Entry(std::string_view name) {
  // A deferred registration adding kernels runs no other (Find runs every
  // pending one when a kernel's own dialect does not register it).
  if (!running_deferred_ && deferred_pending_.load(std::memory_order_relaxed) != 0) {
    RunDeferred(DialectOf(name), /*every_dialect=*/false);
  }
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
  entry.chain_only = definition.chain_only;
  entry.function_call = definition.function_call;
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

void KernelRegistry::AddDeferredRegistration(KernelRegistration registration,
                                             std::span<const std::string_view> dialects) {
  deferred_.push_back({registration, dialects});
  deferred_pending_.fetch_add(1, std::memory_order_relaxed);
}

void KernelRegistry::RunDeferred(std::string_view dialect, bool every_dialect) {
  if (running_deferred_) return;
  // By index: a registration may defer another.
  for (size_t i = 0; i < deferred_.size(); ++i) {
    if (deferred_[i].ran) continue;
    std::span<const std::string_view> dialects = deferred_[i].dialects;
    if (!every_dialect && std::find(dialects.begin(), dialects.end(), dialect) == dialects.end()) {
      continue;
    }
    deferred_[i].ran = true;
    // Room for a few kernel libraries up front: growing the table rehashes
    // every name.
    if (kernels_.capacity() < 256) kernels_.reserve(256);
    running_deferred_ = true;
    deferred_[i].registration(this);
    running_deferred_ = false;
    // Publishes the kernels added to lookups that see no pending one.
    deferred_pending_.fetch_sub(1, std::memory_order_release);
  }
}

void KernelRegistry::RunDeferredForLookup(std::string_view dialect, bool every_dialect) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const_cast<KernelRegistry*>(this)->RunDeferred(dialect, every_dialect);
}

const KernelEntry* KernelRegistry::Find(std::string_view name) const {
  if (deferred_pending_.load(std::memory_order_acquire) != 0) [[unlikely]] {
    // Looked up under the lock too: another lookup may be adding kernels.
    auto find_locked = [this, name]() -> const KernelEntry* {
      std::lock_guard<std::mutex> lock(mutex_);
      auto it = kernels_.find(name);
      return it == kernels_.end() ? nullptr : it->second;
    };
    RunDeferredForLookup(DialectOf(name), /*every_dialect=*/false);
    if (const KernelEntry* entry = find_locked();
        entry != nullptr || deferred_pending_.load(std::memory_order_acquire) == 0) {
      return entry;
    }
    // Not registered by its dialect's libraries: maybe by one that did not
    // declare the dialect (a miss is the loader's error path; only it pays).
    RunDeferredForLookup({}, /*every_dialect=*/true);
    return find_locked();
  }
  auto it = kernels_.find(name);
  return it == kernels_.end() ? nullptr : it->second;
}

size_t KernelRegistry::size() const {
  if (deferred_pending_.load(std::memory_order_acquire) != 0) {
    RunDeferredForLookup({}, /*every_dialect=*/true);
  }
  return kernels_.size();
}

std::vector<std::string> KernelRegistry::Names() const {
  if (deferred_pending_.load(std::memory_order_acquire) != 0) {
    RunDeferredForLookup({}, /*every_dialect=*/true);
  }
  std::vector<std::string> names;
  for (const auto& [name, entry] : kernels_) names.emplace_back(name);
  std::sort(names.begin(), names.end());
  return names;
}

bool AddStaticKernelRegistration(KernelRegistration registration) {
  StaticKernelRegistrations().push_back({registration, {}});
  return true;
}

bool AddStaticKernelRegistration(KernelRegistration registration,
                                 std::span<const std::string_view> dialects) {
  StaticKernelRegistrations().push_back({registration, dialects});
  return true;
}

void RegisterStaticKernels(KernelRegistry* registry) {
  for (const StaticRegistration& each : StaticKernelRegistrations()) {
    if (each.dialects.empty()) {
      each.registration(registry);
    } else {
      registry->AddDeferredRegistration(each.registration, each.dialects);
    }
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
