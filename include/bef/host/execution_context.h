// Per-request state: RequestContext (cancellation, deadline, request data),
// ResourceContext (named resources, e.g. for tfrt.once) and the
// ExecutionContext a kernel runs under (request + current location).
//
// Cancellation: RequestContext::Cancel() publishes an error value
// ("Cancelled", code CANCELLED); kernels that become ready afterwards in any
// function running under the request are skipped and their results become
// that error. Kernels already running are not interrupted. A deadline is a
// timer that cancels the request when it expires.
//
// Thread safety: everything here may be used from any thread.
#ifndef BEF_HOST_EXECUTION_CONTEXT_H_
#define BEF_HOST_EXECUTION_CONTEXT_H_

#include <any>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <typeindex>

#include "absl/container/flat_hash_map.h"
#include <mutex>
#include "absl/time/clock.h"
#include "absl/time/time.h"
#include "bef/async/async_value.h"
#include "bef/async/location.h"
#include "bef/async/rc_reference.h"

namespace bef {

class HostContext;

// Named resources shared by the functions of one request (or of one
// embedder-defined scope).
class ResourceContext {
 public:
  ResourceContext() = default;
  ResourceContext(const ResourceContext&) = delete;
  ResourceContext& operator=(const ResourceContext&) = delete;

  // The resource `name`; created with `make()` (returning T) the first time.
  template <typename T, typename MakeFn>
  T* GetOrCreate(std::string_view name, MakeFn make) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto [it, inserted] = resources_.try_emplace(std::string(name));
    if (inserted) it->second = std::make_shared<T>(make());
    return static_cast<T*>(it->second.get());
  }
  // The resource `name` if it exists. REQUIRES: it was created as a T.
  template <typename T>
  T* Get(std::string_view name) {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = resources_.find(std::string(name));
    return it == resources_.end() ? nullptr : static_cast<T*>(it->second.get());
  }

 private:
  std::mutex mutex_;
  absl::flat_hash_map<std::string, std::shared_ptr<void>> resources_;
};

class RequestContext {
 public:
  // `resources` may be null (then tfrt.once fails as TFRT's does); it must
  // outlive the request.
  static RCReference<RequestContext> Create(HostContext* host,
                                            ResourceContext* resources,
                                            int64_t id = 0);

  HostContext* host() const { return host_; }
  ResourceContext* resource_context() const { return resources_; }
  int64_t id() const { return id_; }

  bool IsCancelled() const {
    return cancel_value_.load(std::memory_order_acquire) != nullptr;
  }
  // The cancellation error value, or null. The request keeps it alive.
  AsyncValue* GetCancelAsyncValue() const {
    return cancel_value_.load(std::memory_order_acquire);
  }
  // Cancels the request (the first call wins).
  void Cancel(absl::Status status = absl::CancelledError("Cancelled"));
  // A chain value that becomes the cancellation's error when the request is
  // cancelled (Cancel, its deadline, its kernel budget; at once if it
  // already is), and an available chain if the request ends uncancelled.
  // How a caller stops waiting for a run that cannot end on its own (a
  // kernel whose result is never completed): FunctionRun::Done.
  RCReference<AsyncValue> CancellationSignal();
  // Cancels the request with DEADLINE_EXCEEDED ("Deadline exceeded") at
  // `deadline` (at once if it has passed). A later call replaces the
  // deadline; the timer never outlives the request.
  void SetDeadline(absl::Time deadline);

  // Limits the number of kernels the request may start (all its functions
  // together, tfrt.call / loop bodies included): once `kernels` have
  // started, the request is cancelled with RESOURCE_EXHAUSTED ("kernel
  // budget of N kernels exhausted"), so even a legal infinite loop ends.
  // For untrusted programs (the execution fuzzer); off by default, and
  // then it costs the executor one well-predicted branch per kernel.
  void SetKernelBudget(int64_t kernels);
  bool has_kernel_budget() const {
    return has_kernel_budget_.load(std::memory_order_relaxed);
  }
  // Counts one kernel against the budget. REQUIRES: has_kernel_budget().
  void ConsumeKernelBudget() {
    if (kernel_budget_.fetch_sub(1, std::memory_order_relaxed) == 1) {
      ExhaustKernelBudget();
    }
  }
  // Counts `kernels` kernels against the budget at once if that leaves some
  // (as many ConsumeKernelBudget calls would, none exhausting it); false,
  // counting nothing, otherwise. REQUIRES: has_kernel_budget().
  bool TryConsumeKernelBudget(int64_t kernels) {
    int64_t remaining = kernel_budget_.load(std::memory_order_relaxed);
    while (remaining > kernels) {
      if (kernel_budget_.compare_exchange_weak(remaining, remaining - kernels,
                                               std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

  // Keeps `owner` alive as long as the request: until the last kernel of
  // every execution under it has run (the executor holds the request that
  // long), also when nobody waits for the results any more. How an embedder
  // keeps a program loaded under executions it abandoned (the Python
  // package's runs, python/src/runtime_module.cc). Unlike SetData, no lock:
  // REQUIRES: called before the request is shared with another thread.
  void KeepAlive(std::shared_ptr<const void> owner) { keep_alive_ = std::move(owner); }

  // Per-request data keyed by type.
  template <typename T>
  void SetData(T value) {
    std::lock_guard<std::mutex> lock(data_mutex_);
    data_[std::type_index(typeid(T))] = std::move(value);
  }
  template <typename T>
  T* GetData() {
    std::lock_guard<std::mutex> lock(data_mutex_);
    auto it = data_.find(std::type_index(typeid(T)));
    return it == data_.end() ? nullptr : std::any_cast<T>(&it->second);
  }

  // References held: the caller's, and one per execution still running
  // under the request (the executor lets go once its last kernel has run).
  uint32_t NumRef() const { return ref_count_.load(std::memory_order_acquire); }
  void AddRef() { ref_count_.fetch_add(1, std::memory_order_relaxed); }
  void DropRef() {
    if (ref_count_.fetch_sub(1, std::memory_order_acq_rel) == 1) delete this;
  }
  // Adds a reference unless none is left (the request is being destroyed):
  // for a holder of a plain pointer whose destructor clears it under a lock
  // (the deadline timer).
  bool TryAddRef() {
    uint32_t count = ref_count_.load(std::memory_order_relaxed);
    while (count != 0) {
      if (ref_count_.compare_exchange_weak(count, count + 1, std::memory_order_acquire,
                                           std::memory_order_relaxed)) {
        return true;
      }
    }
    return false;
  }

 private:
  RequestContext(HostContext* host, ResourceContext* resources, int64_t id)
      : host_(host), resources_(resources), id_(id) {}
  ~RequestContext();

  HostContext* host_;
  ResourceContext* resources_;
  int64_t id_;
  void ExhaustKernelBudget();

  std::atomic<uint32_t> ref_count_{1};
  std::atomic<AsyncValue*> cancel_value_{nullptr};
  std::atomic<bool> has_kernel_budget_{false};
  std::atomic<int64_t> kernel_budget_{0};
  int64_t kernel_budget_limit_ = 0;
  // Shared with the pending deadline timer, which cancels through it only
  // while the request is alive.
  struct DeadlineState {
    std::mutex mutex;
    RequestContext* request = nullptr;
    uint64_t timer = 0;
  };
  std::shared_ptr<DeadlineState> deadline_;
  std::shared_ptr<const void> keep_alive_;
  std::mutex data_mutex_;
  // Made by the first CancellationSignal() before a cancellation; taken
  // (and completed) by Cancel or the destructor. Guarded by data_mutex_.
  RCReference<AsyncValue> cancellation_signal_;
  absl::flat_hash_map<std::type_index, std::any> data_;
};

// What a kernel runs under: the request and the kernel's own location.
class ExecutionContext {
 public:
  explicit ExecutionContext(RCReference<RequestContext> request)
      : request_(std::move(request)) {}

  RequestContext* request_context() const { return request_.get(); }
  HostContext* host() const { return request_->host(); }
  bool IsCancelled() const { return request_->IsCancelled(); }
  Location location() const { return location_; }
  void set_location(Location location) { location_ = location; }

 private:
  RCReference<RequestContext> request_;
  Location location_;
};

}  // namespace bef

#endif  // BEF_HOST_EXECUTION_CONTEXT_H_
