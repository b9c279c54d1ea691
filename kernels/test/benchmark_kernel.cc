// tfrt_test.benchmark (host-dialects.md §3.4): runs its region serially, each
// run a work-queue task started once the previous run's result is
// available, then prints TFRT's BM: summary lines. This is how executor
// speed is compared with TFRT.
#include <time.h>
#if defined(__x86_64__)
#include <cpuid.h>
#include <x86intrin.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "bef/async/async_value_ref.h"
#include "bef/host/function.h"
#include "bef/host/host_context.h"
#include "bef/host/kernel_utils.h"
#include "bef/kernels/kernel_types.h"

namespace bef {
namespace {

int64_t NowNanos(clockid_t clock) {
  timespec now;
  clock_gettime(clock, &now);
  return int64_t{now.tv_sec} * 1'000'000'000 + now.tv_nsec;
}

// The wall clock of one run. A run of a small body takes tens of
// nanoseconds, and clock_gettime(CLOCK_MONOTONIC) alone costs 45-95 ns on
// the VMs this is measured on (docs/performance.md), so where the CPU has an
// invariant time-stamp counter a run is timed in TSC ticks (one rdtsc, about
// half that), converted to nanoseconds at the rate measured against
// CLOCK_MONOTONIC over the whole benchmark. Elsewhere ticks are nanoseconds.
class WallClock {
 public:
  WallClock() : use_tsc_(HasInvariantTsc()) { Restart(); }

  int64_t Ticks() const {
#if defined(__x86_64__)
    if (use_tsc_) return static_cast<int64_t>(__rdtsc());
#endif
    return NowNanos(CLOCK_MONOTONIC);
  }
  // Nanoseconds per tick, from the ticks and nanoseconds since Restart.
  double NanosPerTick() const {
    if (!use_tsc_) return 1.0;
    int64_t ticks = Ticks() - start_ticks_;
    int64_t nanos = NowNanos(CLOCK_MONOTONIC) - start_nanos_;
    return ticks > 0 && nanos > 0 ? static_cast<double>(nanos) / ticks : 1.0;
  }
  void Restart() {
    start_nanos_ = NowNanos(CLOCK_MONOTONIC);
    start_ticks_ = Ticks();
  }

 private:
  static bool HasInvariantTsc() {
#if defined(__x86_64__)
    unsigned eax, ebx, ecx, edx;
    return __get_cpuid(0x80000007, &eax, &ebx, &ecx, &edx) && (edx & (1u << 8));
#else
    return false;
#endif
  }

  const bool use_tsc_;
  int64_t start_nanos_ = 0;
  int64_t start_ticks_ = 0;
};

class BenchmarkRun {
 public:
  BenchmarkRun(const ExecutionContext& context, const Function* body,
               std::vector<RCReference<AsyncValue>> arguments, std::string name,
               int32_t duration_secs, int32_t max_count, int32_t warmup_runs,
               AsyncValueRef<Chain> done)
      : context_(context),
        body_(body),
        arguments_(std::move(arguments)),
        name_(std::move(name)),
        duration_ns_(int64_t{duration_secs} * 1'000'000'000),
        max_runs_(int64_t{max_count} + warmup_runs),
        warmup_runs_(warmup_runs),
        done_(std::move(done)) {}

  // Starts one run; the next is enqueued when its result is available. The
  // wall time ends as soon as the result is: right after Execute for a
  // synchronous body.
  static void Start(std::shared_ptr<BenchmarkRun> run) {
    std::vector<AsyncValue*> arguments;
    for (auto& argument : run->arguments_) arguments.push_back(argument.get());
    std::vector<RCReference<AsyncValue>> results(1);
    // The CPU clock is a system call: keep it outside the wall-clock window.
    int64_t cpu_start = NowNanos(CLOCK_PROCESS_CPUTIME_ID);
    int64_t wall_start = run->clock_.Ticks();
    run->body_->Execute(run->context_, arguments, results);
    AsyncValue* result = results[0].get();
    if (result->IsAvailable()) {
      int64_t wall = run->clock_.Ticks() - wall_start;
      Finish(std::move(run), wall, NowNanos(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
      return;
    }
    result->AndThen([run, keep = std::move(results), wall_start, cpu_start]() mutable {
      int64_t wall = run->clock_.Ticks() - wall_start;
      Finish(std::move(run), wall, NowNanos(CLOCK_PROCESS_CPUTIME_ID) - cpu_start);
    });
  }

 private:
  static void Finish(std::shared_ptr<BenchmarkRun> run, int64_t wall_ticks, int64_t cpu) {
    run->Record(wall_ticks, cpu);
    if (run->Finished()) {
      run->Report();
      run->done_.emplace();
      return;
    }
    run->context_.host()->EnqueueWork([run = std::move(run)] { Start(run); });
  }

  void Record(int64_t wall_ticks, int64_t cpu) {
    if (++runs_ <= warmup_runs_) {
      if (runs_ == warmup_runs_) clock_.Restart();  // calibrate over the measured runs
      return;
    }
    wall_ticks_.push_back(wall_ticks);
    cpu_.push_back(cpu);
    total_wall_ticks_ += wall_ticks;
    total_cpu_ += cpu;
    // The stopping rule in nanoseconds, at the rate measured so far.
    if ((wall_ticks_.size() & 255) == 1) nanos_per_tick_ = clock_.NanosPerTick();
  }
  bool Finished() const {
    return runs_ >= max_runs_ || total_wall_ticks_ * nanos_per_tick_ >= duration_ns_;
  }

  void Report() {
    auto line = [this](std::string_view what, auto value) {
      PrintToStdout(absl::StrCat("BM:", name_, ":", absl::string_view(what.data(), what.size()),
                                 ": ", value, "\n"));
    };
    const double nanos_per_tick = clock_.NanosPerTick();
    std::vector<int64_t> wall;
    wall.reserve(wall_ticks_.size());
    for (int64_t ticks : wall_ticks_) wall.push_back(std::llround(ticks * nanos_per_tick));
    const int64_t total_wall = std::llround(total_wall_ticks_ * nanos_per_tick);
    size_t count = wall.size();
    std::sort(wall.begin(), wall.end());
    std::sort(cpu_.begin(), cpu_.end());
    auto at = [count](const std::vector<int64_t>& sorted, double p) -> int64_t {
      if (count == 0) return 0;
      return sorted[std::min(count - 1, static_cast<size_t>(count * p))];
    };
    line("Duration(ns)", total_wall);
    line("Count", count);
    line("Time Min(ns)", at(wall, 0));
    line("Time 50%(ns)", at(wall, 0.5));
    line("Time 95%(ns)", at(wall, 0.95));
    line("Time 99%(ns)", at(wall, 0.99));
    line("CPU Min(ns)", at(cpu_, 0));
    line("CPU 50%(ns)", at(cpu_, 0.5));
    line("CPU 95%(ns)", at(cpu_, 0.95));
    line("CPU 99%(ns)", at(cpu_, 0.99));
    char utilization[64];
    std::snprintf(utilization, sizeof(utilization), "%.6e",
                  total_wall == 0 ? 0.0 : 100.0 * total_cpu_ / total_wall);
    line("CPU utilization(percent)", utilization);
  }

  ExecutionContext context_;
  const Function* body_;
  std::vector<RCReference<AsyncValue>> arguments_;
  std::string name_;
  int64_t duration_ns_;
  int64_t max_runs_;
  int64_t warmup_runs_;
  AsyncValueRef<Chain> done_;
  WallClock clock_;
  double nanos_per_tick_ = 1.0;
  int64_t runs_ = 0;
  int64_t total_wall_ticks_ = 0;
  int64_t total_cpu_ = 0;
  std::vector<int64_t> wall_ticks_, cpu_;
};

// Attributes in name order: duration_secs, max_count, name,
// num_warmup_runs (optional, default 1).
void Benchmark(AsyncKernelFrame* frame) {
  const Function* body = frame->GetFunctionAt(0);
  if (body->num_results() != 1) {
    frame->ReportError("Benchmark op requires the input function have exactly one return value");
    return;
  }
  if (body->num_arguments() != frame->GetNumArgs()) {
    frame->ReportError("Benchmark op operands do not match the function's arguments");
    return;
  }
  for (size_t i = 0; i < 3 || (i < 4 && i < frame->GetNumAttributes()); ++i) {
    if (frame->GetAttributeBytesAvailable(i) < sizeof(int32_t)) {
      frame->ReportError("tfrt_test.benchmark: an attribute is outside the Attributes section");
      return;
    }
  }
  int32_t duration_secs = LoadScalarAttribute<int32_t>(frame->GetAttributeAt(0));
  int32_t max_count = LoadScalarAttribute<int32_t>(frame->GetAttributeAt(1));
  std::string name(StringAttributeView(frame->GetAttributeAt(2)));
  int32_t warmup = frame->GetNumAttributes() > 3
                       ? LoadScalarAttribute<int32_t>(frame->GetAttributeAt(3))
                       : 1;
  std::vector<RCReference<AsyncValue>> arguments = CopyRefs(frame->GetArguments());
  AsyncValueRef<Chain> done = frame->AllocateResultAt<Chain>(0);
  auto run = std::make_shared<BenchmarkRun>(frame->GetExecutionContext(), body,
                                            std::move(arguments), name, duration_secs,
                                            max_count, warmup, std::move(done));
  frame->GetHostContext()->EnqueueWork([run] { BenchmarkRun::Start(run); });
}

void RegisterBenchmarkKernel(KernelRegistry* registry) {
  KernelSignature signature;
  signature.known = true;
  const uint8_t i32 = static_cast<uint8_t>(DType::kI32);
  signature.attributes = {i32, i32, static_cast<uint8_t>(DType::kString)};
  signature.results = {"!tfrt.chain"};
  signature.num_functions = 1;
  signature.variadic_arguments = true;
  signature.variadic_attributes = true;
  registry->AddKernel("tfrt_test.benchmark", {&Benchmark, signature});
}
BEF_STATIC_KERNEL_REGISTRATION_FOR_DIALECTS(RegisterBenchmarkKernel, "tfrt_test");

}  // namespace
}  // namespace bef
