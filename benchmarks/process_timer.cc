// Whole-process wall times (docs/performance.md): starts each command with
// posix_spawn, waits for it, and times that from the parent, as a launcher
// like hyperfine does -- so the time is the child's exec, run and exit, not
// the parent's own fork (a Python parent adds about 0.1-0.2 ms here).
//
//   process_timer ROUNDS COMMAND... [-- COMMAND...]...
//
// Every round runs the commands once each, in order, so they all see the
// same machine (the shared VM's process start-up cost drifts by 2x within
// minutes). The child's stdout goes to /dev/null. Prints one line per
// command: its p50 in ms and the p50 over rounds of its time minus the first
// command's in the same round (0 for the first), e.g. with /bin/true first,
// what a program costs above the machine's floor for any process.
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <time.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

extern char** environ;

namespace {

double NowMillis() {
  timespec now;
  clock_gettime(CLOCK_MONOTONIC, &now);
  return now.tv_sec * 1e3 + now.tv_nsec / 1e6;
}

double Median(std::vector<double> values) {
  std::sort(values.begin(), values.end());
  return values[values.size() / 2];
}

// Runs `argv` to completion; false (with a message) unless it exits 0.
bool RunOnce(const std::vector<char*>& argv, const posix_spawn_file_actions_t* actions) {
  pid_t pid;
  if (int error = posix_spawn(&pid, argv[0], actions, nullptr, argv.data(), environ)) {
    std::fprintf(stderr, "process_timer: cannot start %s: %s\n", argv[0], std::strerror(error));
    return false;
  }
  int status = 0;
  if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "process_timer: %s did not exit with 0\n", argv[0]);
    return false;
  }
  return true;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 3 || std::atoi(argv[1]) <= 0) {
    std::fprintf(stderr, "usage: process_timer ROUNDS COMMAND... [-- COMMAND...]...\n");
    return 2;
  }
  const int rounds = std::atoi(argv[1]);
  std::vector<std::vector<char*>> commands(1);
  for (int i = 2; i < argc; ++i) {
    if (std::strcmp(argv[i], "--") == 0) {
      commands.emplace_back();
    } else {
      commands.back().push_back(argv[i]);
    }
  }
  for (auto& command : commands) {
    if (command.empty()) {
      std::fprintf(stderr, "process_timer: an empty command\n");
      return 2;
    }
    command.push_back(nullptr);
  }

  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);

  std::vector<std::vector<double>> times(commands.size());
  for (int round = 0; round < rounds; ++round) {
    for (size_t c = 0; c < commands.size(); ++c) {
      double start = NowMillis();
      if (!RunOnce(commands[c], &actions)) return 1;
      times[c].push_back(NowMillis() - start);
    }
  }
  posix_spawn_file_actions_destroy(&actions);

  for (size_t c = 0; c < commands.size(); ++c) {
    std::vector<double> above_first(rounds);
    for (int round = 0; round < rounds; ++round) {
      above_first[round] = times[c][round] - times[0][round];
    }
    std::printf("%.2f %.2f\n", Median(times[c]), Median(above_first));
  }
  return 0;
}
