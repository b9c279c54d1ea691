// What handing work to another thread costs on this machine
// (docs/performance.md, below the program table): the round trip of a flag
// between two threads that spin, and of a turn between two threads that
// sleep on a condition variable (a futex wait and wake each way, what
// waking a parked thread costs). Printed beside the program table: the
// `mstd:2` column's async rows hand tasks between its two threads.
//
//   thread_handoff [ROUNDS]
//
// Prints one markdown row per measurement: the median over ROUNDS (default
// 5) of each round's mean round trip, in ns, with the range.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

double Nanoseconds(Clock::duration duration) {
  return std::chrono::duration<double, std::nano>(duration).count();
}

// Mean round trip of a flag passed back and forth by two spinning threads.
double SpinRoundTrip(int trips) {
  std::atomic<int> turn{0};
  const Clock::time_point start = Clock::now();
  std::thread other([&] {
    for (int i = 0; i < trips; ++i) {
      while (turn.load(std::memory_order_acquire) != 1) {
      }
      turn.store(0, std::memory_order_release);
    }
  });
  for (int i = 0; i < trips; ++i) {
    turn.store(1, std::memory_order_release);
    while (turn.load(std::memory_order_acquire) != 0) {
    }
  }
  other.join();
  return Nanoseconds(Clock::now() - start) / trips;
}

// Mean round trip of a turn passed by two threads that sleep until it is
// theirs.
double SleepRoundTrip(int trips) {
  std::mutex mutex;
  std::condition_variable changed;
  int turn = 0;
  const Clock::time_point start = Clock::now();
  std::thread other([&] {
    for (int i = 0; i < trips; ++i) {
      std::unique_lock lock(mutex);
      changed.wait(lock, [&] { return turn == 1; });
      turn = 0;
      changed.notify_one();
    }
  });
  for (int i = 0; i < trips; ++i) {
    std::unique_lock lock(mutex);
    turn = 1;
    changed.notify_one();
    changed.wait(lock, [&] { return turn == 0; });
  }
  other.join();
  return Nanoseconds(Clock::now() - start) / trips;
}

void PrintRow(const char* what, std::vector<double> times) {
  std::sort(times.begin(), times.end());
  std::printf("| %s | ns | %.0f (%.0f-%.0f) |\n", what, times[times.size() / 2], times.front(),
              times.back());
}

}  // namespace

int main(int argc, char** argv) {
  const int rounds = argc > 1 ? std::max(1, std::atoi(argv[1])) : 5;
  std::vector<double> spin, sleep;
  for (int round = 0; round < rounds; ++round) {
    spin.push_back(SpinRoundTrip(100000));
    sleep.push_back(SleepRoundTrip(5000));
  }
  std::printf("| between two threads | unit | round trip: median (range) |\n|---|---|---|\n");
  PrintRow("a flag, both threads spinning", spin);
  PrintRow("a turn, both threads sleeping (condition variable)", sleep);
  return 0;
}
