// serving_load: a load test of bef_serve (docs/performance.md, "Serving").
//
// Starts bef_serve on a free loopback port with the test program of
// tests/serving, drives it with concurrent keep-alive clients for a while
// and prints one line:
//
//   serving: R requests, E errors, B bad-rejected, C cancelled,
//            p50=..us p99=..us rps=..
//
// Of every 20 requests a client sends, 16 are good runs whose answers are
// checked (`add` of random integers, `echo_tensor` of a small f32 tensor),
// 2 are bad requests that must get a 400 (wrong arity, malformed JSON) and 2
// are runs of a long loop with a 2 ms deadline that must get a 504. E counts
// only wrong answers and failures of good requests (and a bad request or
// deadline answered wrongly); the exit status is 0 only when E is 0 and the
// server then stops cleanly on SIGTERM. Latencies are of good requests.
//
//   bazel run --config=opt //benchmarks:serving_load -- --seconds=60
//   (flags: --seconds=N (20), --clients=N (8), --work_queue_type=SPEC
//    (mstd:2), --server=PATH, --program=PATH)
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "httplib.h"

namespace {

struct LoadOptions {
  int seconds = 20;
  int clients = 8;
  std::string work_queue_type = "mstd:2";
  std::string server;
  std::string program;
};

struct Totals {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> bad_rejected{0};
  std::atomic<uint64_t> cancelled{0};
  std::mutex latency_mutex;
  std::vector<int64_t> latencies_us;  // good requests
};

[[noreturn]] void Usage(const char* program, const std::string& problem) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s --server=bef_serve --program=file.bef "
               "[--seconds=N] [--clients=N] [--work_queue_type=SPEC]\n",
               program, problem.c_str(), program);
  std::exit(2);
}

// Starts the server; returns its pid and port.
std::pair<pid_t, int> StartServer(const LoadOptions& options) {
  int out[2];
  if (pipe(out) != 0) return {-1, 0};
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    std::string queue = "--work_queue_type=" + options.work_queue_type;
    execl(options.server.c_str(), options.server.c_str(), "--port=0", queue.c_str(),
          "--threads=16", options.program.c_str(), static_cast<char*>(nullptr));
    std::perror("exec bef_serve");
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char c;
  while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
  // Keep reading (and dropping) the server's output so it never blocks.
  std::thread([fd = out[0]] {
    char buffer[256];
    while (read(fd, buffer, sizeof(buffer)) > 0) {
    }
    close(fd);
  }).detach();
  size_t colon = line.rfind(':');
  int port = 0;
  if (line.find("listening on") == std::string::npos || colon == std::string::npos ||
      !absl::SimpleAtoi(line.substr(colon + 1), &port)) {
    std::fprintf(stderr, "serving_load: bef_serve did not start: %s\n", line.c_str());
    return {pid, 0};
  }
  return {pid, port};
}

void Client(int id, int port, std::chrono::steady_clock::time_point end, Totals* totals) {
  httplib::Client client("127.0.0.1", port);
  client.set_keep_alive(true);
  client.set_tcp_nodelay(true);
  client.set_read_timeout(60, 0);
  std::mt19937 random(1234 + id);
  std::uniform_int_distribution<int32_t> operand(-1000000, 1000000);
  std::vector<int64_t> latencies;
  auto error = [&](const std::string& what) {
    if (totals->errors.fetch_add(1) < 5) {
      std::fprintf(stderr, "serving_load: client %d: %s\n", id, what.c_str());
    }
  };
  for (uint64_t n = 0; std::chrono::steady_clock::now() < end; ++n) {
    totals->requests.fetch_add(1, std::memory_order_relaxed);
    int kind = n % 20;
    if (kind == 7 || kind == 17) {  // bad requests
      const char* body = kind == 7 ? "{\"args\": [1]}" : "{\"args\": [1,";
      auto result = client.Post("/v1/functions/add:run", body, "application/json");
      if (result && result->status == 400) {
        totals->bad_rejected.fetch_add(1, std::memory_order_relaxed);
      } else {
        error(absl::StrCat("bad request answered with ", result ? result->status : -1));
      }
      continue;
    }
    if (kind == 3 || kind == 13) {  // deadline expires
      auto result = client.Post("/v1/functions/spin:run",
                                "{\"args\": [2000000000], \"deadline_ms\": 2}",
                                "application/json");
      if (result && result->status == 504) {
        totals->cancelled.fetch_add(1, std::memory_order_relaxed);
      } else {
        error(absl::StrCat("expired request answered with ", result ? result->status : -1));
      }
      continue;
    }
    std::string path, body, expected;
    if (kind == 10) {
      path = "/v1/functions/echo_tensor:run";
      int32_t a = operand(random);
      body = absl::StrCat("{\"args\": [{\"dtype\": \"i32\", \"shape\": [2], \"values\": [", a,
                          ", 7]}]}");
      expected = absl::StrCat("{\"results\":[{\"dtype\":\"i32\",\"shape\":[2],\"values\":[", a,
                              ",7]}]}");
    } else {
      path = "/v1/functions/add:run";
      int32_t a = operand(random), b = operand(random);
      body = absl::StrCat("{\"args\": [", a, ", ", b, "]}");
      expected = absl::StrCat("{\"results\":[", a + b, "]}");
    }
    auto start = std::chrono::steady_clock::now();
    auto result = client.Post(path, body, "application/json");
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (!result) {
      error(absl::StrCat("request failed: ", httplib::to_string(result.error())));
      continue;
    }
    if (result->status != 200 || result->body != expected) {
      error(absl::StrCat("wrong answer ", result->status, " ", result->body, " for ", body));
      continue;
    }
    latencies.push_back(
        std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
  }
  std::lock_guard<std::mutex> lock(totals->latency_mutex);
  totals->latencies_us.insert(totals->latencies_us.end(), latencies.begin(), latencies.end());
}

}  // namespace

int main(int argc, char** argv) {
  LoadOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    size_t equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) Usage(argv[0], "bad argument " + arg);
    std::string name = arg.substr(2, equals - 2), value = arg.substr(equals + 1);
    if (name == "seconds" && absl::SimpleAtoi(value, &options.seconds) && options.seconds > 0) {
    } else if (name == "clients" && absl::SimpleAtoi(value, &options.clients) &&
               options.clients > 0) {
    } else if (name == "work_queue_type") {
      options.work_queue_type = value;
    } else if (name == "server") {
      options.server = value;
    } else if (name == "program") {
      options.program = value;
    } else {
      Usage(argv[0], "bad argument " + arg);
    }
  }
  if (options.server.empty() || options.program.empty()) Usage(argv[0], "--server and --program are required");
  signal(SIGPIPE, SIG_IGN);

  auto [pid, port] = StartServer(options);
  if (pid < 0 || port == 0) return 1;
  Totals totals;
  auto start = std::chrono::steady_clock::now();
  auto end = start + std::chrono::seconds(options.seconds);
  std::vector<std::thread> clients;
  for (int i = 0; i < options.clients; ++i) {
    clients.emplace_back(Client, i, port, end, &totals);
  }
  for (std::thread& client : clients) client.join();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  kill(pid, SIGTERM);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    std::fprintf(stderr, "serving_load: bef_serve did not stop cleanly (status %d)\n", status);
    totals.errors.fetch_add(1);
  }

  std::vector<int64_t>& latencies = totals.latencies_us;
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) -> int64_t {
    if (latencies.empty()) return 0;
    return latencies[std::min(latencies.size() - 1,
                              static_cast<size_t>(p * latencies.size()))];
  };
  std::printf("serving: %llu requests, %llu errors, %llu bad-rejected, %llu cancelled, "
              "p50=%lldus p99=%lldus rps=%.0f\n",
              static_cast<unsigned long long>(totals.requests.load()),
              static_cast<unsigned long long>(totals.errors.load()),
              static_cast<unsigned long long>(totals.bad_rejected.load()),
              static_cast<unsigned long long>(totals.cancelled.load()),
              static_cast<long long>(percentile(0.5)),
              static_cast<long long>(percentile(0.99)), totals.requests.load() / seconds);
  return totals.errors.load() == 0 ? 0 : 1;
}
