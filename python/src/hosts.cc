#include "python/src/hosts.h"

#include <pthread.h>

#include <map>
#include <memory>
#include <mutex>
#include <utility>

#include "absl/status/statusor.h"
#include "bef/host/host_allocator.h"
#include "bef/host/kernel_registry.h"
#include "bef/host/native_function.h"
#include "bef/host/work_queue.h"
#include "python/src/python_values.h"

namespace bef::python {
namespace {

std::mutex hosts_mutex;
std::map<std::string, HostContext*>* hosts = new std::map<std::string, HostContext*>();

}  // namespace

HostContext* HostFor(const std::string& work_queue) {
  absl::StatusOr<std::string> canonical = CanonicalWorkQueueSpec(work_queue);
  if (!canonical.ok()) {
    ThrowArgumentError("work_queue='" + work_queue +
                       "': not a work queue (use 'mstd', 'mstd:THREADS', "
                       "'mstd:THREADS,BLOCKING_THREADS' or 's')");
  }
  std::lock_guard<std::mutex> lock(hosts_mutex);
  auto found = hosts->find(*canonical);
  if (found != hosts->end()) return found->second;
  absl::StatusOr<std::unique_ptr<ConcurrentWorkQueue>> queue = CreateWorkQueue(*canonical);
  if (!queue.ok()) {
    ThrowArgumentError("work_queue='" + work_queue + "': " + std::string(queue.status().message()));
  }
  // Errors reach Python through the results (with their locations); the
  // diagnostic stream is not needed.
  auto* host = new HostContext([](const DecodedDiagnostic&) {},
                               CreateMallocAllocator(kMaxKeptBytes), std::move(*queue));
  RegisterStaticKernels(&host->kernel_registry());
  RegisterStaticNativeFunctions(&host->native_functions());
  hosts->emplace(*canonical, host);
  return host;
}

void PrepareHostsForForks() {
  pthread_atfork([] { hosts_mutex.lock(); }, [] { hosts_mutex.unlock(); },
                 [] {
                   // The parent's hosts are unusable here (and leaked); oneTBB
                   // does not survive a fork.
                   hosts = new std::map<std::string, HostContext*>();
                   UsePlainThreadArenas();
                   hosts_mutex.unlock();
                 });
}

}  // namespace bef::python
