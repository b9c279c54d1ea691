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
// With --idle_connections=N and --slowloris_connections=M it first opens N
// keep-alive connections that then stay idle (half of them after one
// request) and keeps M connections sending a header byte a second (each
// reconnects when the server cuts it at its header deadline), all held open
// for the whole run: the load's answers and latencies must not suffer.
//
//   bazel run --config=opt //benchmarks:serving_load -- --seconds=60
//   (flags: --seconds=N (20), --clients=N (8), --work_queue_type=SPEC
//    (mstd:2), --idle_connections=N (0), --slowloris_connections=N (0),
//    --server=PATH, --program=PATH)
#include <arpa/inet.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/socket.h>
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

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace {

struct LoadOptions {
  int seconds = 20;
  int clients = 8;
  int idle_connections = 0;
  int slowloris_connections = 0;
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
               "[--seconds=N] [--clients=N] [--work_queue_type=SPEC] "
               "[--idle_connections=N] [--slowloris_connections=N]\n",
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

// A loopback TCP connection to `port` (-1 on failure), with a receive
// timeout of `timeout_seconds`.
int Connect(int port, int timeout_seconds) {
  int fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_port = htons(static_cast<uint16_t>(port));
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval timeout{timeout_seconds, 0};
  int one = 1;
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  if (connect(fd, reinterpret_cast<sockaddr*>(&address), sizeof(address)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

bool SendAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t sent = send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (sent <= 0) return false;
    data.remove_prefix(static_cast<size_t>(sent));
  }
  return true;
}

// A keep-alive HTTP/1.1 client of one connection, reconnecting after the
// server closes it. Reads responses with Content-Length (all bef_serve
// sends).
class HttpClient {
 public:
  struct Reply {
    int status = -1;  // -1: no response (`body` says why)
    std::string body;
  };

  explicit HttpClient(int port) : port_(port) {}
  ~HttpClient() { Disconnect(); }

  Reply Post(const std::string& path, const std::string& body) {
    if (fd_ < 0 && (fd_ = Connect(port_, 60)) < 0) return {-1, "cannot connect"};
    std::string request = absl::StrCat("POST ", path,
                                       " HTTP/1.1\r\nHost: 127.0.0.1\r\n"
                                       "Content-Type: application/json\r\nContent-Length: ",
                                       body.size(), "\r\n\r\n", body);
    if (!SendAll(fd_, request)) return Fail("send failed");
    size_t header_end;
    while ((header_end = received_.find("\r\n\r\n")) == std::string::npos) {
      if (!Receive()) return Fail("the connection closed before a response");
    }
    std::string_view head(received_.data(), header_end);
    Reply reply;
    if (head.size() < 12 || !absl::SimpleAtoi(std::string(head.substr(9, 3)), &reply.status)) {
      return Fail("a malformed status line");
    }
    size_t length = 0;
    bool close_after = false;
    for (size_t line = head.find("\r\n"); line != std::string_view::npos;) {
      size_t next = head.find("\r\n", line + 2);
      std::string_view field = head.substr(line + 2, next == std::string_view::npos
                                                         ? std::string_view::npos
                                                         : next - line - 2);
      std::string lower = absl::AsciiStrToLower(std::string(field));
      if (lower.rfind("content-length:", 0) == 0) {
        absl::SimpleAtoi(absl::StripAsciiWhitespace(lower.substr(15)), &length);
      } else if (lower.rfind("connection:", 0) == 0 && lower.find("close") != std::string::npos) {
        close_after = true;
      }
      line = next;
    }
    while (received_.size() < header_end + 4 + length) {
      if (!Receive()) return Fail("the connection closed inside a response");
    }
    reply.body = received_.substr(header_end + 4, length);
    received_.erase(0, header_end + 4 + length);
    if (close_after) Disconnect();
    return reply;
  }

 private:
  bool Receive() {
    char buffer[16384];
    ssize_t got = recv(fd_, buffer, sizeof(buffer), 0);
    if (got <= 0) return false;
    received_.append(buffer, static_cast<size_t>(got));
    return true;
  }
  Reply Fail(const char* why) {
    Disconnect();
    return {-1, why};
  }
  void Disconnect() {
    if (fd_ >= 0) close(fd_);
    fd_ = -1;
    received_.clear();
  }

  int port_;
  int fd_ = -1;
  std::string received_;
};

// Opens `idle` idle keep-alive connections (into `idle_fds`), then keeps
// `slowloris` header-dripping ones open until `stop`.
void HoldHostileConnections(int port, int idle, int slowloris, const std::atomic<bool>& stop,
                            std::vector<int>* idle_fds) {
  for (int i = 0; i < idle; ++i) {
    int fd = Connect(port, 10);
    if (fd < 0) continue;
    if (i % 2 == 0) {  // kept alive after a request
      char buffer[512];
      SendAll(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
      recv(fd, buffer, sizeof(buffer), 0);
    }
    idle_fds->push_back(fd);
  }
  std::vector<int> drips(slowloris, -1);
  while (slowloris > 0 && !stop) {
    for (int& fd : drips) {
      if (fd < 0) {
        fd = Connect(port, 10);
        if (fd >= 0 && !SendAll(fd, "POST /v1/functions/add:run HTTP/1.1\r\n")) {
          close(fd);
          fd = -1;
        }
      } else if (!SendAll(fd, "X")) {
        close(fd);
        fd = -1;  // cut at its header deadline: come back
      }
    }
    for (int i = 0; i < 20 && !stop; ++i) {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
    }
  }
  for (int fd : drips) {
    if (fd >= 0) close(fd);
  }
}

void Client(int id, int port, std::chrono::steady_clock::time_point end, Totals* totals) {
  HttpClient client(port);
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
      HttpClient::Reply result = client.Post("/v1/functions/add:run", body);
      if (result.status == 400) {
        totals->bad_rejected.fetch_add(1, std::memory_order_relaxed);
      } else {
        error(absl::StrCat("bad request answered with ", result.status, " ", result.body));
      }
      continue;
    }
    if (kind == 3 || kind == 13) {  // deadline expires
      HttpClient::Reply result = client.Post(
          "/v1/functions/spin:run", "{\"args\": [2000000000], \"deadline_ms\": 2}");
      if (result.status == 504) {
        totals->cancelled.fetch_add(1, std::memory_order_relaxed);
      } else {
        error(absl::StrCat("expired request answered with ", result.status, " ", result.body));
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
    HttpClient::Reply result = client.Post(path, body);
    auto elapsed = std::chrono::steady_clock::now() - start;
    if (result.status < 0) {
      error(absl::StrCat("request failed: ", result.body));
      continue;
    }
    if (result.status != 200 || result.body != expected) {
      error(absl::StrCat("wrong answer ", result.status, " ", result.body, " for ", body));
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
    } else if (name == "idle_connections" &&
               absl::SimpleAtoi(value, &options.idle_connections) &&
               options.idle_connections >= 0) {
    } else if (name == "slowloris_connections" &&
               absl::SimpleAtoi(value, &options.slowloris_connections) &&
               options.slowloris_connections >= 0) {
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
  rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  Totals totals;
  // Hostile connections are held from before the load starts until the
  // server has stopped.
  std::vector<int> idle_fds;
  std::atomic<bool> stop_holding{false};
  HoldHostileConnections(port, options.idle_connections, 0, stop_holding, &idle_fds);
  std::thread slowloris([&] {
    HoldHostileConnections(port, 0, options.slowloris_connections, stop_holding, &idle_fds);
  });
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
  stop_holding = true;
  slowloris.join();
  for (int fd : idle_fds) close(fd);
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
