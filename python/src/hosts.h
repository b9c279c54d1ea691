// The runtime's hosts for Python: one HostContext per work-queue spec
// ("mstd", "mstd:4", "s"), made on first use and shared by every program
// loaded with that spec; equal specs however spelled ("mstd:2", "mstd:02")
// name one host, so the process's thread budget (work_queue.h) is not spent
// twice on one spec. Hosts are never destroyed: runtime threads may still
// finish side-effect kernels of abandoned runs.
//
// os.fork(): a child has none of its parent's threads, so the parent's
// hosts cannot run anything there: a child's loads make new hosts (their
// `mstd` queues on plain threads, work_queue.h's UsePlainThreadArenas), and
// programs of an earlier process generation (signals_and_fork.h) refuse to
// run.
#ifndef BEF_PYTHON_SRC_HOSTS_H_
#define BEF_PYTHON_SRC_HOSTS_H_

#include <string>

#include "bef/host/host_context.h"

namespace bef::python {

// The host for `work_queue`. bef.ArgumentError for what is no spec, or a
// spec asking for more threads than the process may have (with what holds
// them named).
HostContext* HostFor(const std::string& work_queue);

// Registers the hosts' fork handlers (the module's init, once).
void PrepareHostsForForks();

}  // namespace bef::python

#endif  // BEF_PYTHON_SRC_HOSTS_H_
