// ThreadSanitizer suppressions for code we do not build: Debian's oneTBB is
// not instrumented, so TSan does not see the synchronization with which
// TBB's small-object pool recycles task objects between threads, and reports
// a task object's construction in one thread against its destruction in
// another. Only frames of the pool and of the task base class are
// suppressed; races in the tasks' own code (which runs from task_arena.h's
// execute, outside those frames) are still reported.
//
// TBB's own allocations are also invisible to TSan: a worker thread that
// TBB starts on a request's first enqueue frees (operator delete[] called
// from libtbb) memory that the enqueuing thread read inside libtbb, and TSan
// reported it at bef_serve's shutdown (bef_serve_test, about 1 run in 10).
// `called_from_lib` ignores only the intercepted calls (new/delete, memcpy,
// ...) made directly by libtbb's code; the tasks TBB runs are ours and
// still checked.
//
// The TSan runtime finds this function in the executable: --config=tsan
// links tests statically (--dynamic_mode=off) and lib/host is alwayslink.
extern "C" const char* __tsan_default_suppressions() {
  return "race:oneapi/tbb/detail/_small_object_pool.h\n"
         "race:tbb::detail::d1::task::task\n"
         "race:tbb::detail::d1::task::~task\n"
         "called_from_lib:libtbb.so\n";
}
