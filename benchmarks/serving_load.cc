// serving_load: a load test of bef_serve (docs/performance.md, "Serving").
//
// Drives bef_serve with concurrent keep-alive clients for a while and prints
// one line:
//
//   serving: R requests, E errors, L lost, B bad-rejected, C cancelled,
//            p50=..us p99=..us rps=..
//
// Protocols (--protocol): `http` (the Open Inference Protocol over HTTP,
// JSON; with --binary, tensors as binary tensor data), `grpc` (the
// protocol's gRPC service), `v1` (bef_serve's /v1/ JSON API). Unless
// --target is given, it starts bef_serve itself on free loopback ports: for
// `http` and `grpc` with a model repository it builds from --program (the
// test program of tests/serving): models add_0 ... add_{N-1} (--models=N),
// echo and spin; for `v1` with the program itself. With --target=HOST:PORT
// (and --grpc_target=HOST:PORT) it drives a server that is already running
// with such a repository (e.g. replicas behind a load balancer). With
// --target and --answer_from_memory (HTTP, --mix=scalar only) it drives a
// server that answers every request from memory, whatever it asks (nginx's
// `return 200 '...'`, the front-end baseline of scripts/serving-benchmarks.sh):
// a 200 with a body counts as a right answer.
//
// Of every 20 requests a client sends, 16 are good runs whose answers are
// checked (`add` on a random model, `echo` of a small tensor), 2 are bad
// requests that must be refused (400 / INVALID_ARGUMENT) and 2 are runs of a
// long loop with a 2 ms timeout that must be cancelled (504 /
// DEADLINE_EXCEEDED). E counts wrong answers; L counts requests that got no
// answer at all (a connection reset, a server gone). The exit status is 0
// only when E and L are 0 (and a server it started stops cleanly on
// SIGTERM). Latencies are of good requests.
//
// With --mix=request it drives any model (of --target's server, or of its
// own repository: e.g. `echo`): every request is the one binary-tensor HTTP
// request of --request_header=FILE (the JSON part) and --request_data=FILE
// (the tensor bytes after it) to /v2/models/--model/infer, and an answer is
// right when it is a 200 with binary tensor data of --answer_bytes (e.g. a
// model onnx-to-bef converted, benchmarks/compute/serve_model.py).
//
// With --idle_connections=N and --slowloris_connections=M it first opens N
// keep-alive connections that then stay idle (half of them after one
// request) and keeps M connections sending a header byte a second (each
// reconnects when the server cuts it at its header deadline), all held open
// for the whole run: the load's answers and latencies must not suffer.
//
//   bazel run --config=opt //benchmarks:serving_load -- --seconds=60
//   (flags: --protocol=http|grpc|v1 (http), --binary, --models=N (1),
//    --mix=all|scalar|tensor|request (all: the mix above; scalar: only
//    `add`; tensor: only `echo` of --tensor_elements=N INT32s, 262144 = 1
//    MiB; request: --model, --request_header, --request_data, --answer_bytes),
//    --seconds=N (20), --clients=N (8), --calls_per_client=N (1: gRPC calls
//    each client's connection keeps in flight, from one completion queue,
//    as h2load's -m), --work_queue_type=SPEC (mstd:2),
//    --idle_connections=N (0), --slowloris_connections=N (0),
//    --server=PATH --program=PATH | --target=HOST:PORT [--grpc_target=HOST:PORT]
//    [--answer_from_memory], --server_flag=FLAG (repeatable: passed on to the
//    bef_serve it starts, e.g. --server_flag=--io_threads=2))
#include <arpa/inet.h>
#include <netdb.h>
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
#include <cstring>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "grpcpp/grpcpp.h"
#include "tools/serving/grpc_predict_v2.grpc.pb.h"

namespace {

struct LoadOptions {
  std::string protocol = "http";
  bool binary = false;
  int models = 1;
  std::string mix = "all";  // all, scalar, tensor
  int tensor_elements = 262144;  // INT32 elements of a --mix=tensor request (1 MiB)
  int seconds = 20;
  int clients = 8;
  int calls_per_client = 1;  // gRPC calls each client keeps in flight
  int idle_connections = 0;
  int slowloris_connections = 0;
  std::string work_queue_type = "mstd:2";
  std::string server;
  std::string program;
  std::string target;       // HOST:PORT of a running server (HTTP)
  std::string grpc_target;  // HOST:PORT of its gRPC port
  bool answer_from_memory = false;  // the target answers from memory (nginx)
  std::vector<std::string> server_flags;  // more flags for the server it starts
  // --mix=request: the model, the request's JSON and tensor bytes, and the
  // binary data size of a right answer.
  std::string model;
  std::string request_header;
  std::string request_data;
  int answer_bytes = 0;
};

struct Totals {
  std::atomic<uint64_t> requests{0};
  std::atomic<uint64_t> errors{0};
  std::atomic<uint64_t> lost{0};
  std::atomic<uint64_t> bad_rejected{0};
  std::atomic<uint64_t> cancelled{0};
  std::mutex latency_mutex;
  std::vector<int64_t> latencies_us;  // good requests
};

[[noreturn]] void Usage(const char* program, const std::string& problem) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s (--server=bef_serve --program=file.bef | "
               "--target=HOST:PORT [--grpc_target=HOST:PORT]) [--protocol=http|grpc|v1] "
               "[--binary] [--models=N] [--mix=all|scalar|tensor|request] [--tensor_elements=N] "
               "[--model=NAME --request_header=FILE --request_data=FILE --answer_bytes=N] "
               "[--seconds=N] [--clients=N] [--calls_per_client=N] [--work_queue_type=SPEC] "
               "[--idle_connections=N] [--slowloris_connections=N]\n",
               program, problem.c_str(), program);
  std::exit(2);
}

// HOST:PORT of the servers to drive.
struct Endpoints {
  std::string host = "127.0.0.1";
  int http_port = 0;
  int grpc_port = 0;
};

bool SplitHostPort(const std::string& target, std::string* host, int* port) {
  size_t colon = target.rfind(':');
  if (colon == std::string::npos) return false;
  *host = target.substr(0, colon);
  return absl::SimpleAtoi(target.substr(colon + 1), port) && *port > 0;
}

// The repository serving_load's own server gets: add_i, echo, spin.
std::string MakeRepository(const LoadOptions& options) {
  char directory[] = "/tmp/serving_load.XXXXXX";
  if (mkdtemp(directory) == nullptr) return "";
  auto model = [&](const std::string& name, const std::string& config) {
    std::filesystem::create_directories(std::string(directory) + "/" + name + "/1");
    std::filesystem::copy_file(options.program,
                               std::string(directory) + "/" + name + "/1/model.bef");
    std::ofstream(std::string(directory) + "/" + name + "/config.json") << config;
  };
  for (int i = 0; i < options.models; ++i) {
    model(absl::StrCat("add_", i),
          R"({"entry_function": "add", "inputs": [{"name": "a"}, {"name": "b"}],
              "outputs": [{"name": "sum"}]})");
  }
  model("echo", R"({"entry_function": "echo_tensor", "inputs": [{"name": "x"}],
                    "outputs": [{"name": "y"}]})");
  model("spin", R"({"entry_function": "spin"})");
  return directory;
}

// Starts the server; its pid, and the ports from its first lines.
pid_t StartServer(const LoadOptions& options, const std::string& repository,
                  Endpoints* endpoints) {
  int out[2];
  if (pipe(out) != 0) return -1;
  pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    std::string queue = "--work_queue_type=" + options.work_queue_type;
    std::string input = repository.empty() ? options.program : "--model_repository=" + repository;
    std::vector<std::string> arguments = {options.server, "--port=0", queue, "--threads=16"};
    // gRPC only when it is the protocol (the others run under TSan too).
    if (options.protocol == "grpc") arguments.push_back("--grpc_port=0");
    for (const std::string& flag : options.server_flags) arguments.push_back(flag);
    arguments.push_back(input);
    std::vector<char*> argv;
    for (std::string& argument : arguments) argv.push_back(argument.data());
    argv.push_back(nullptr);
    execv(options.server.c_str(), argv.data());
    std::perror("exec bef_serve");
    _exit(127);
  }
  close(out[1]);
  auto read_line = [&] {
    std::string line;
    char c;
    while (read(out[0], &c, 1) == 1 && c != '\n') line += c;
    return line;
  };
  std::string http = read_line();
  std::string grpc = options.protocol == "grpc" ? read_line() : "";
  // Keep reading (and dropping) the server's output so it never blocks.
  std::thread([fd = out[0]] {
    char buffer[256];
    while (read(fd, buffer, sizeof(buffer)) > 0) {
    }
    close(fd);
  }).detach();
  auto port_of = [](const std::string& line, const char* what) {
    int port = 0;
    size_t colon = line.rfind(':');
    if (line.find(what) == std::string::npos || colon == std::string::npos ||
        !absl::SimpleAtoi(line.substr(colon + 1), &port)) {
      std::fprintf(stderr, "serving_load: bef_serve did not start: %s\n", line.c_str());
    }
    return port;
  };
  endpoints->http_port = port_of(http, "listening on http://");
  if (options.protocol == "grpc") endpoints->grpc_port = port_of(grpc, "grpc listening on");
  return pid;
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
    std::optional<size_t> json_length;  // Inference-Header-Content-Length
  };

  explicit HttpClient(int port) : port_(port) {}
  ~HttpClient() { Disconnect(); }

  // POSTs `body`; `json_length` set: binary tensor data follows that many
  // bytes of JSON.
  Reply Post(const std::string& path, const std::string& body,
             std::optional<size_t> json_length = std::nullopt) {
    if (fd_ < 0 && (fd_ = Connect(port_, 60)) < 0) return {-1, "cannot connect"};
    std::string request = absl::StrCat(
        "POST ", path, " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: ",
        json_length ? "application/octet-stream" : "application/json",
        json_length ? absl::StrCat("\r\nInference-Header-Content-Length: ", *json_length) : "",
        "\r\nContent-Length: ", body.size(), "\r\n\r\n", body);
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
      } else if (lower.rfind("inference-header-content-length:", 0) == 0) {
        size_t json = 0;
        if (absl::SimpleAtoi(absl::StripAsciiWhitespace(lower.substr(32)), &json)) {
          reply.json_length = json;
        }
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


// What one client checks, whatever the protocol.
enum class Kind { kAdd, kEcho, kBad, kDeadline, kTensor, kRequest };

Kind KindOf(uint64_t n, const std::string& mix) {
  if (mix == "scalar") return Kind::kAdd;
  if (mix == "tensor") return Kind::kTensor;
  if (mix == "request") return Kind::kRequest;
  int k = n % 20;
  if (k == 7 || k == 17) return Kind::kBad;
  if (k == 3 || k == 13) return Kind::kDeadline;
  if (k == 10) return Kind::kEcho;
  return Kind::kAdd;
}

// The outcome of one request: answered right, refused as expected,
// answered wrongly (`problem` says how), or lost (no answer at all).
struct Outcome {
  enum { kRight, kWrong, kLost } result = kRight;
  std::string problem;
};

// What one client saw: counts go to the totals as answers come, the good
// requests' latencies when the client ends.
class ClientTally {
 public:
  ClientTally(int id, Totals* totals) : id_(id), totals_(totals) {}
  ClientTally(const ClientTally&) = delete;
  ClientTally& operator=(const ClientTally&) = delete;
  ~ClientTally() {
    std::lock_guard<std::mutex> lock(totals_->latency_mutex);
    totals_->latencies_us.insert(totals_->latencies_us.end(), latencies_.begin(), latencies_.end());
  }

  void Sent() { totals_->requests.fetch_add(1, std::memory_order_relaxed); }
  void Answered(Kind kind, const Outcome& outcome, std::chrono::steady_clock::duration elapsed) {
    if (outcome.result != Outcome::kRight) {
      auto& counter = outcome.result == Outcome::kLost ? totals_->lost : totals_->errors;
      if (counter.fetch_add(1) < 5) {
        std::fprintf(stderr, "serving_load: client %d: %s%s\n", id_,
                     outcome.result == Outcome::kLost ? "lost: " : "", outcome.problem.c_str());
      }
    } else if (kind == Kind::kBad) {
      totals_->bad_rejected.fetch_add(1, std::memory_order_relaxed);
    } else if (kind == Kind::kDeadline) {
      totals_->cancelled.fetch_add(1, std::memory_order_relaxed);
    } else {
      latencies_.push_back(std::chrono::duration_cast<std::chrono::microseconds>(elapsed).count());
    }
  }

 private:
  const int id_;
  Totals* const totals_;
  std::vector<int64_t> latencies_;
};

// The operands of one client's requests: the same sequence for every
// protocol (a seed per client).
class RequestMaker {
 public:
  RequestMaker(int id, int models, std::string mix)
      : random_(1234 + id), models_(models), mix_(std::move(mix)) {}
  struct Request {
    Kind kind;
    std::string model;
    int32_t a, b;
  };
  Request Next() {
    Request request;
    request.kind = KindOf(n_++, mix_);
    request.model = absl::StrCat("add_", random_() % models_);
    request.a = operand_(random_);
    request.b = operand_(random_);
    return request;
  }

 private:
  std::mt19937 random_;
  std::uniform_int_distribution<int32_t> operand_{-1000000, 1000000};
  const int models_;
  const std::string mix_;
  uint64_t n_ = 0;
};

std::string Json2(int32_t a, int32_t b) {
  return absl::StrCat(R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [)",
                      a, R"(]}, {"name": "b", "shape": [], "datatype": "INT32", "data": [)", b,
                      "]}]}");
}

class HttpProtocolClient {
 public:
  HttpProtocolClient(int port, bool binary, bool v1, int tensor_elements,
                     bool answer_from_memory = false)
      : http_(port), binary_(binary), v1_(v1), answer_from_memory_(answer_from_memory) {
    if (tensor_elements <= 0) return;
    std::vector<int32_t> values(tensor_elements);
    for (int i = 0; i < tensor_elements; ++i) values[i] = (i * 7) % 1000003;
    std::string list;
    for (int i = 0; i < tensor_elements; ++i) absl::StrAppend(&list, i ? "," : "", values[i]);
    tensor_shape_ = absl::StrCat("\"shape\":[", tensor_elements, "]");
    tensor_prefix_ = absl::StrCat(values[0], ",", tensor_elements > 1 ? values[1] : 0);
    if (v1_) {
      tensor_body_ = absl::StrCat(R"({"args": [{"dtype": "i32", "shape": [)", tensor_elements,
                                  R"(], "values": [)", list, "]}]}");
    } else if (binary_) {
      std::string header = absl::StrCat(
          R"({"inputs": [{"name": "x", "shape": [)", tensor_elements,
          R"(], "datatype": "INT32", "parameters": {"binary_data_size": )",
          tensor_elements * 4, R"(}}], "outputs": [{"name": "y", "parameters": {"binary_data": true}}]})");
      tensor_json_length_ = header.size();
      tensor_raw_ = std::string(reinterpret_cast<const char*>(values.data()), values.size() * 4);
      tensor_body_ = header + tensor_raw_;
    } else {
      tensor_body_ = absl::StrCat(R"({"inputs": [{"name": "x", "shape": [)", tensor_elements,
                                  R"(], "datatype": "INT32", "data": [)", list, "]}]}");
    }
  }

  // The --mix=request request (binary tensor data) and its answer's size.
  void SetRequest(const std::string& model, std::string header, const std::string& data,
                  size_t answer_bytes) {
    request_path_ = absl::StrCat("/v2/models/", model, "/infer");
    request_json_length_ = header.size();
    request_body_ = std::move(header) + data;
    answer_bytes_ = answer_bytes;
  }

  Outcome Send(Kind kind, const std::string& model, int32_t a, int32_t b) {
    HttpClient::Reply reply;
    int expected_status = 200;
    std::string expected;
    switch (kind) {
      case Kind::kRequest:
        reply = http_.Post(request_path_, request_body_, request_json_length_);
        if (reply.status == 200 &&
            (!reply.json_length || reply.body.size() != *reply.json_length + answer_bytes_)) {
          return {Outcome::kWrong, absl::StrCat("an answer without ", answer_bytes_,
                                                " bytes of binary data: ", reply.body.substr(0, 200))};
        }
        break;
      case Kind::kTensor:
        if (binary_ && !v1_) {
          reply = http_.Post("/v2/models/echo/infer", tensor_body_, tensor_json_length_);
          if (reply.status == 200 &&
              (!reply.json_length || reply.body.size() != *reply.json_length + tensor_raw_.size() ||
               reply.body.compare(*reply.json_length, std::string::npos, tensor_raw_) != 0)) {
            return {Outcome::kWrong, "wrong binary tensor echo"};
          }
        } else {
          reply = http_.Post(v1_ ? "/v1/functions/echo_tensor:run" : "/v2/models/echo/infer",
                             tensor_body_);
          if (reply.status == 200 && (reply.body.find(tensor_shape_) == std::string::npos ||
                                      reply.body.find(tensor_prefix_) == std::string::npos)) {
            return {Outcome::kWrong, "wrong tensor echo"};
          }
        }
        break;
      case Kind::kBad:
        expected_status = 400;
        reply = v1_ ? http_.Post("/v1/functions/add:run", "{\"args\": [1]}")
                    : http_.Post(absl::StrCat("/v2/models/", model, "/infer"),
                                 R"({"inputs": [{"name": "a", "shape": [], "datatype": "INT32", "data": [1]}]})");
        break;
      case Kind::kDeadline:
        expected_status = 504;
        reply = v1_ ? http_.Post("/v1/functions/spin:run",
                                 "{\"args\": [2000000000], \"deadline_ms\": 2}")
                    : http_.Post("/v2/models/spin/infer",
                                 R"({"parameters": {"timeout_ms": 2}, "inputs": [{"name": "input_0", "shape": [], "datatype": "INT32", "data": [2000000000]}]})");
        break;
      case Kind::kEcho:
        if (v1_) {
          reply = http_.Post("/v1/functions/echo_tensor:run",
                             absl::StrCat(R"({"args": [{"dtype": "i32", "shape": [2], "values": [)",
                                          a, ", 7]}]}"));
          expected = absl::StrCat(R"({"results":[{"dtype":"i32","shape":[2],"values":[)", a,
                                  ",7]}]}");
        } else if (binary_) {
          std::string header =
              R"({"inputs": [{"name": "x", "shape": [2], "datatype": "INT32", "parameters": {"binary_data_size": 8}}], "outputs": [{"name": "y", "parameters": {"binary_data": true}}]})";
          int32_t values[2] = {a, 7};
          std::string body = header + std::string(reinterpret_cast<const char*>(values), 8);
          reply = http_.Post("/v2/models/echo/infer", body, header.size());
          if (reply.status == 200 &&
              (!reply.json_length || reply.body.size() != *reply.json_length + 8 ||
               std::memcmp(reply.body.data() + *reply.json_length, values, 8) != 0)) {
            return {Outcome::kWrong, "wrong binary echo"};
          }
        } else {
          reply = http_.Post("/v2/models/echo/infer",
                             absl::StrCat(R"({"inputs": [{"name": "x", "shape": [2], "datatype": "INT32", "data": [)",
                                          a, ", 7]}]}"));
          expected = absl::StrCat(R"("data":[)", a, ",7]");
        }
        break;
      case Kind::kAdd:
        if (v1_) {
          reply = http_.Post("/v1/functions/add:run", absl::StrCat("{\"args\": [", a, ", ", b, "]}"));
          expected = absl::StrCat("{\"results\":[", a + b, "]}");
        } else {
          reply = http_.Post(absl::StrCat("/v2/models/", model, "/infer"), Json2(a, b));
          expected = absl::StrCat(R"("data":[)", a + b, "]");
        }
        break;
    }
    if (reply.status < 0) return {Outcome::kLost, reply.body};
    if (answer_from_memory_) {
      // A server answering from memory: any 200 with a body is its answer.
      if (reply.status == 200 && !reply.body.empty()) return {};
      return {Outcome::kWrong, absl::StrCat("status ", reply.status, ": ", reply.body)};
    }
    if (reply.status != expected_status) {
      return {Outcome::kWrong, absl::StrCat("status ", reply.status, " (wanted ",
                                            expected_status, "): ", reply.body)};
    }
    if (!expected.empty() && reply.body.find(expected) == std::string::npos) {
      return {Outcome::kWrong, absl::StrCat("wrong answer ", reply.body, " (wanted ", expected, ")")};
    }
    return {};
  }

 private:
  HttpClient http_;
  bool binary_;
  bool v1_;
  bool answer_from_memory_;
  // The --mix=tensor request and what its answer must hold.
  std::string tensor_body_, tensor_raw_, tensor_shape_, tensor_prefix_;
  size_t tensor_json_length_ = 0;
  // The --mix=request request.
  std::string request_path_, request_body_;
  size_t request_json_length_ = 0, answer_bytes_ = 0;
};

class GrpcProtocolClient {
 public:
  GrpcProtocolClient(const std::string& target, int id, int tensor_elements) {
    if (tensor_elements > 0) {
      tensor_.set_model_name("echo");
      auto* x = tensor_.add_inputs();
      x->set_name("x");
      x->set_datatype("INT32");
      x->add_shape(tensor_elements);
      for (int i = 0; i < tensor_elements; ++i) {
        x->mutable_contents()->add_int_contents((i * 7) % 1000003);
      }
    }
    grpc::ChannelArguments arguments;
    arguments.SetInt("grpc.use_local_subchannel_pool", 1);  // a connection of its own
    arguments.SetInt("serving_load.client", id);
    // As production gRPC clients are configured: a call that fails with
    // UNAVAILABLE (a replica gone; a load balancer's 502) is retried, up to
    // 3 attempts. Only the answer after that counts.
    arguments.SetInt(GRPC_ARG_ENABLE_RETRIES, 1);
    arguments.SetServiceConfigJSON(R"({"methodConfig": [{
        "name": [{"service": "inference.GRPCInferenceService"}],
        "retryPolicy": {"maxAttempts": 3, "initialBackoff": "0.01s", "maxBackoff": "0.1s",
                        "backoffMultiplier": 2, "retryableStatusCodes": ["UNAVAILABLE"]}}]})");
    stub_ = inference::GRPCInferenceService::NewStub(
        grpc::CreateCustomChannel(target, grpc::InsecureChannelCredentials(), arguments));
  }

  // Keeps `calls` calls in flight on one completion queue until `end`:
  // as each answer comes and is checked, the next call starts (an
  // asynchronous client, as h2load's streams per connection: the client's
  // own cost per call is small beside the server's).
  void Run(int calls, RequestMaker& maker, std::chrono::steady_clock::time_point end,
           ClientTally& tally) {
    struct Call {
      RequestMaker::Request what;
      grpc::StatusCode expected_code;
      grpc::ClientContext context;
      inference::ModelInferRequest request;
      inference::ModelInferResponse response;
      grpc::Status status;
      std::unique_ptr<grpc::ClientAsyncResponseReader<inference::ModelInferResponse>> reader;
      std::chrono::steady_clock::time_point start;
    };
    grpc::CompletionQueue queue;
    int in_flight = 0;
    auto start_call = [&] {
      auto call = std::make_unique<Call>();
      call->what = maker.Next();
      call->expected_code = Build(call->what, &call->request);
      call->start = std::chrono::steady_clock::now();
      call->context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
      tally.Sent();
      call->reader = stub_->AsyncModelInfer(&call->context, call->request, &queue);
      Call* tag = call.release();
      tag->reader->Finish(&tag->response, &tag->status, tag);
      ++in_flight;
    };
    for (int i = 0; i < calls && std::chrono::steady_clock::now() < end; ++i) start_call();
    void* tag;
    bool ok;
    while (in_flight > 0 && queue.Next(&tag, &ok)) {
      std::unique_ptr<Call> call(static_cast<Call*>(tag));
      --in_flight;
      const auto now = std::chrono::steady_clock::now();
      tally.Answered(call->what.kind,
                     Check(call->what, call->expected_code, call->status, call->response),
                     now - call->start);
      if (now < end) start_call();
    }
    queue.Shutdown();
    while (queue.Next(&tag, &ok)) {
    }
  }

 private:
  // The request of `what` in `request`; the status code a right answer has.
  grpc::StatusCode Build(const RequestMaker::Request& what, inference::ModelInferRequest* request) {
    const Kind kind = what.kind;
    const std::string& model = what.model;
    const int32_t a = what.a, b = what.b;
    grpc::StatusCode expected_code = grpc::StatusCode::OK;
    if (kind == Kind::kTensor) *request = tensor_;
    auto input = [&](const char* name, const char* datatype) {
      auto* tensor = request->add_inputs();
      tensor->set_name(name);
      tensor->set_datatype(datatype);
      return tensor;
    };
    switch (kind) {
      case Kind::kTensor:
      case Kind::kRequest:  // (HTTP only)
        break;
      case Kind::kBad:
        expected_code = grpc::StatusCode::INVALID_ARGUMENT;
        request->set_model_name(model);
        input("a", "INT32")->mutable_contents()->add_int_contents(1);
        break;
      case Kind::kDeadline:
        expected_code = grpc::StatusCode::DEADLINE_EXCEEDED;
        request->set_model_name("spin");
        (*request->mutable_parameters())["timeout_ms"].set_int64_param(2);
        input("input_0", "INT32")->mutable_contents()->add_int_contents(2000000000);
        break;
      case Kind::kEcho: {
        request->set_model_name("echo");
        auto* x = input("x", "INT32");
        x->add_shape(2);
        x->mutable_contents()->add_int_contents(a);
        x->mutable_contents()->add_int_contents(7);
        break;
      }
      case Kind::kAdd:
        request->set_model_name(model);
        input("a", "INT32")->mutable_contents()->add_int_contents(a);
        input("b", "INT32")->mutable_contents()->add_int_contents(b);
        break;
    }
    return expected_code;
  }

  // Whether the answer to `what` is right.
  Outcome Check(const RequestMaker::Request& what, grpc::StatusCode expected_code,
                const grpc::Status& status, const inference::ModelInferResponse& response) {
    const Kind kind = what.kind;
    const int32_t a = what.a, b = what.b;
    if (status.error_code() == grpc::StatusCode::UNAVAILABLE) {
      return {Outcome::kLost, status.error_message()};
    }
    if (status.error_code() != expected_code) {
      return {Outcome::kWrong, absl::StrCat("status ", status.error_code(), ": ",
                                            status.error_message())};
    }
    if (kind == Kind::kTensor) {
      const auto& want = tensor_.inputs(0).contents().int_contents();
      const auto& got = response.outputs_size() == 1 ? response.outputs(0).contents().int_contents()
                                                     : want;
      if (response.outputs_size() != 1 || got.size() != want.size() ||
          !std::equal(got.begin(), got.end(), want.begin())) {
        return {Outcome::kWrong, "wrong tensor echo"};
      }
    }
    if (kind == Kind::kAdd || kind == Kind::kEcho) {
      std::vector<int32_t> want = kind == Kind::kAdd ? std::vector<int32_t>{a + b}
                                                     : std::vector<int32_t>{a, 7};
      if (response.outputs_size() != 1 ||
          std::vector<int32_t>(response.outputs(0).contents().int_contents().begin(),
                               response.outputs(0).contents().int_contents().end()) != want) {
        return {Outcome::kWrong, "wrong answer " + response.ShortDebugString()};
      }
    }
    return {};
  }

  std::unique_ptr<inference::GRPCInferenceService::Stub> stub_;
  inference::ModelInferRequest tensor_;  // the --mix=tensor request
};

// One request at a time on one keep-alive connection (HTTP/1.1 without
// pipelining, as its clients send).
void RunHttpClient(HttpProtocolClient& client, RequestMaker& maker,
                   std::chrono::steady_clock::time_point end, ClientTally& tally) {
  while (std::chrono::steady_clock::now() < end) {
    const RequestMaker::Request what = maker.Next();
    tally.Sent();
    auto start = std::chrono::steady_clock::now();
    Outcome outcome = client.Send(what.kind, what.model, what.a, what.b);
    tally.Answered(what.kind, outcome, std::chrono::steady_clock::now() - start);
  }
}

void Client(const LoadOptions& options, const Endpoints& endpoints, int id,
            std::chrono::steady_clock::time_point end, Totals* totals) {
  RequestMaker maker(id, options.models, options.mix);
  ClientTally tally(id, totals);
  if (options.protocol == "grpc") {
    GrpcProtocolClient client(absl::StrCat(endpoints.host, ":", endpoints.grpc_port), id,
                              options.mix == "tensor" ? options.tensor_elements : 0);
    client.Run(options.calls_per_client, maker, end, tally);
  } else {
    HttpProtocolClient client(endpoints.http_port, options.binary, options.protocol == "v1",
                              options.mix == "tensor" ? options.tensor_elements : 0,
                              options.answer_from_memory);
    if (options.mix == "request") {
      client.SetRequest(options.model, options.request_header, options.request_data,
                        options.answer_bytes);
    }
    RunHttpClient(client, maker, end, tally);
  }
}

}  // namespace

int main(int argc, char** argv) {
  LoadOptions options;
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg == "--binary") {
      options.binary = true;
      continue;
    }
    if (arg == "--answer_from_memory") {
      options.answer_from_memory = true;
      continue;
    }
    size_t equals = arg.find('=');
    if (arg.rfind("--", 0) != 0 || equals == std::string::npos) Usage(argv[0], "bad argument " + arg);
    std::string name = arg.substr(2, equals - 2), value = arg.substr(equals + 1);
    auto count = [&](int* field, int minimum) {
      if (!absl::SimpleAtoi(value, field) || *field < minimum) Usage(argv[0], "bad argument " + arg);
    };
    if (name == "seconds") {
      count(&options.seconds, 1);
    } else if (name == "clients") {
      count(&options.clients, 1);
    } else if (name == "calls_per_client") {
      count(&options.calls_per_client, 1);
    } else if (name == "models") {
      count(&options.models, 1);
    } else if (name == "tensor_elements") {
      count(&options.tensor_elements, 1);
    } else if (name == "mix" &&
               (value == "all" || value == "scalar" || value == "tensor" || value == "request")) {
      options.mix = value;
    } else if (name == "model" && !value.empty()) {
      options.model = value;
    } else if (name == "request_header" || name == "request_data") {
      std::ifstream file(value, std::ios::binary);
      std::string bytes((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
      if (!file.good() && !file.eof()) Usage(argv[0], "cannot read " + value);
      (name == "request_header" ? options.request_header : options.request_data) = bytes;
    } else if (name == "answer_bytes") {
      count(&options.answer_bytes, 0);
    } else if (name == "idle_connections") {
      count(&options.idle_connections, 0);
    } else if (name == "slowloris_connections") {
      count(&options.slowloris_connections, 0);
    } else if (name == "protocol" && (value == "http" || value == "grpc" || value == "v1")) {
      options.protocol = value;
    } else if (name == "work_queue_type") {
      options.work_queue_type = value;
    } else if (name == "server") {
      options.server = value;
    } else if (name == "program") {
      options.program = value;
    } else if (name == "target") {
      options.target = value;
    } else if (name == "grpc_target") {
      options.grpc_target = value;
    } else if (name == "server_flag") {
      options.server_flags.push_back(value);
    } else {
      Usage(argv[0], "bad argument " + arg);
    }
  }
  bool own_server = options.target.empty();
  if (options.calls_per_client > 1 && options.protocol != "grpc") {
    Usage(argv[0], "--calls_per_client needs --protocol=grpc (HTTP/1.1 sends one at a time)");
  }
  if (options.mix == "request" &&
      (options.protocol != "http" || options.model.empty() || options.request_header.empty())) {
    Usage(argv[0], "--mix=request needs --protocol=http, --model and --request_header");
  }
  if (options.answer_from_memory &&
      (own_server || options.protocol != "http" || options.mix != "scalar")) {
    Usage(argv[0], "--answer_from_memory needs --target, --protocol=http and --mix=scalar");
  }
  if (own_server && (options.server.empty() || options.program.empty())) {
    Usage(argv[0], "--server and --program, or --target, are required");
  }
  signal(SIGPIPE, SIG_IGN);
  rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }

  Endpoints endpoints;
  pid_t pid = -1;
  std::string repository;
  if (own_server) {
    if (options.protocol != "v1") repository = MakeRepository(options);
    pid = StartServer(options, repository, &endpoints);
    if (pid < 0 || endpoints.http_port == 0 ||
        (options.protocol == "grpc" && endpoints.grpc_port == 0)) {
      return 1;
    }
  } else if (!SplitHostPort(options.target, &endpoints.host, &endpoints.http_port) ||
             (!options.grpc_target.empty() &&
              !SplitHostPort(options.grpc_target, &endpoints.host, &endpoints.grpc_port))) {
    Usage(argv[0], "--target and --grpc_target are HOST:PORT");
  }
  if (options.protocol == "grpc" && endpoints.grpc_port == 0) Usage(argv[0], "--grpc_target needed");
  if (endpoints.host != "127.0.0.1" && options.protocol != "grpc") {
    Usage(argv[0], "the HTTP client speaks to 127.0.0.1 only");
  }

  // Hostile connections are held from before the load starts until the
  // server has stopped.
  std::vector<int> idle_fds;
  std::atomic<bool> stop_holding{false};
  HoldHostileConnections(endpoints.http_port, options.idle_connections, 0, stop_holding,
                         &idle_fds);
  std::thread slowloris([&] {
    HoldHostileConnections(endpoints.http_port, 0, options.slowloris_connections, stop_holding,
                           &idle_fds);
  });
  Totals totals;
  auto start = std::chrono::steady_clock::now();
  auto end = start + std::chrono::seconds(options.seconds);
  std::vector<std::thread> clients;
  for (int i = 0; i < options.clients; ++i) {
    clients.emplace_back([&, i] { Client(options, endpoints, i, end, &totals); });
  }
  for (std::thread& client : clients) client.join();
  double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();

  if (own_server) {
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
      std::fprintf(stderr, "serving_load: bef_serve did not stop cleanly (status %d)\n", status);
      totals.errors.fetch_add(1);
    }
    if (!repository.empty()) std::filesystem::remove_all(repository);
  }
  stop_holding = true;
  slowloris.join();
  for (int fd : idle_fds) close(fd);

  std::vector<int64_t>& latencies = totals.latencies_us;
  std::sort(latencies.begin(), latencies.end());
  auto percentile = [&](double p) -> int64_t {
    if (latencies.empty()) return 0;
    return latencies[std::min(latencies.size() - 1,
                              static_cast<size_t>(p * latencies.size()))];
  };
  std::printf("serving: %llu requests, %llu errors, %llu lost, %llu bad-rejected, "
              "%llu cancelled, p50=%lldus p99=%lldus rps=%.0f\n",
              static_cast<unsigned long long>(totals.requests.load()),
              static_cast<unsigned long long>(totals.errors.load()),
              static_cast<unsigned long long>(totals.lost.load()),
              static_cast<unsigned long long>(totals.bad_rejected.load()),
              static_cast<unsigned long long>(totals.cancelled.load()),
              static_cast<long long>(percentile(0.5)),
              static_cast<long long>(percentile(0.99)), totals.requests.load() / seconds);
  return totals.errors.load() == 0 && totals.lost.load() == 0 ? 0 : 1;
}
