// bef_serve: an HTTP server for BEF programs (docs/serving.md): the Open
// Inference Protocol (KServe V2) over a model repository or one BEF file,
// and the /v1/ JSON API of the single-file form.
//
//   bef_serve [--model_repository=DIR [--repository_poll_secs=S] | program.bef
//              [--model_name=NAME]]
//             [--host=127.0.0.1] [--port=8080] [--work_queue_type=mstd:2]
//             [--threads=8] [--io_threads=CORES] [--max_connections=10000]
//             [--max_concurrent_requests=256] [--max_header_bytes=16384]
//             [--max_body_bytes=16777216] [--idle_timeout_secs=60]
//             [--header_timeout_secs=10] [--body_timeout_secs=60]
//             [--write_timeout_secs=60] [--drain_secs=30] [--grpc_port=N]
//             [--max_run_secs=300] [--max_model_bytes=1073741824]
//             [--max_body_bytes_in_flight=268435456]
//             [--max_response_bytes=268435456]
//
// Endpoints: /v2/... (serving/inference_service.h), GET /healthz, GET
// /metrics, and for a single file GET /v1/functions, POST
// /v1/functions/NAME:run. Prints `bef_serve: listening on http://HOST:PORT` once it
// accepts connections (--port=0 picks a free port; an IPv6 HOST is shown in
// brackets). SIGTERM or SIGINT: stops accepting, answers every request
// already received; runs still going after --drain_secs are cancelled
// (answered 503 / UNAVAILABLE) and the process exits at most kStopGrace
// later, printing `bef_serve: stopped`, status 0; during the load, exits 0
// at once. Flags out of their range are refused at start-up (status 2).
#include <malloc.h>
#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <algorithm>
#include <condition_variable>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "bef/host/work_queue.h"
#include "grpcpp/grpcpp.h"
#include "tools/serving/bef_service.h"
#include "tools/serving/grpc_inference_service.h"
#include "tools/serving/http_server.h"
#include "tools/serving/inference_protocol.h"
#include "tools/serving/inference_service.h"
#include "tools/serving/model_repository.h"
#include "tools/serving/run_limits.h"
#include "tools/serving/status_mapping.h"

namespace bef {
namespace {

// After the drain time, what cancelled runs get to answer and exit.
constexpr absl::Duration kStopGrace = absl::Seconds(2);

struct ServeOptions {
  serving::HttpServerOptions http;
  std::string work_queue_type = "mstd:2";
  absl::Duration drain = absl::Seconds(30);
  std::string input;
  std::string model_name;  // single file: default the file's stem
  std::string model_repository;
  int grpc_port = -1;  // -1: no gRPC
  absl::Duration repository_poll;  // zero: no polling
  // Shared by every run of the server (limits, the drain's stop).
  std::unique_ptr<serving::RunLimits> limits = std::make_unique<serving::RunLimits>();
};

// "HOST:PORT", with an IPv6 literal in brackets.
std::string HostPort(const std::string& host, int port) {
  return host.find(':') != std::string::npos ? absl::StrCat("[", host, "]:", port)
                                             : absl::StrCat(host, ":", port);
}

[[noreturn]] void Usage(const char* program, const std::string& problem) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s [--host=ADDR] [--port=N] [--work_queue_type=SPEC] "
               "[--threads=N] [--io_threads=N] [--max_connections=N] "
               "[--max_concurrent_requests=N] [--max_header_bytes=N] [--max_body_bytes=N] "
               "[--idle_timeout_secs=S] [--header_timeout_secs=S] [--body_timeout_secs=S] "
               "[--write_timeout_secs=S] [--drain_secs=S] [--grpc_port=N] [--max_run_secs=S] "
               "[--max_model_bytes=N] [--max_body_bytes_in_flight=N] [--max_response_bytes=N] "
               "(--model_repository=DIR [--repository_poll_secs=S] | "
               "[--model_name=NAME] program.bef)\n",
               program, problem.c_str(), program);
  std::exit(2);
}

// The most I/O threads bef_serve starts by default: one io_context's
// reactor serves every socket, and its threads take turns at it.
constexpr int kMaxDefaultIoThreads = 8;

ServeOptions ParseOptions(int argc, char** argv) {
  ServeOptions options;
  serving::HttpServerOptions& http = options.http;
  // One I/O thread per core the process may use: one thread serves tiny
  // requests at one core's speed (docs/serving.md, "How many I/O threads").
  http.io_threads = std::min(UsableCores(), kMaxDefaultIoThreads);
  for (int i = 1; i < argc; ++i) {
    std::string arg = argv[i];
    if (arg.rfind("--", 0) != 0) {
      if (!options.input.empty()) Usage(argv[0], "more than one input file");
      options.input = arg;
      continue;
    }
    size_t equals = arg.find('=');
    if (equals == std::string::npos) Usage(argv[0], "options take values: " + arg);
    std::string name = arg.substr(2, equals - 2), value = arg.substr(equals + 1);
    int64_t number = 0;
    double seconds = 0;
    bool is_number = absl::SimpleAtoi(value, &number);
    bool is_seconds = absl::SimpleAtod(value, &seconds) && seconds > 0 && seconds < 1e7;
    // A whole number in [low, high]; anything else is refused with the range.
    auto in_range = [&](auto& field, int64_t low, int64_t high) {
      if (!is_number || number < low || number > high) {
        Usage(argv[0], absl::StrCat("--", name, " must be a whole number from ", low, " to ", high,
                                    ", not '", value, "'"));
      }
      field = static_cast<std::remove_reference_t<decltype(field)>>(number);
    };
    auto duration = [&](absl::Duration& field) {
      if (!is_seconds) {
        Usage(argv[0], absl::StrCat("--", name, " must be a number of seconds above 0 and below "
                                    "10000000, not '", value, "'"));
      }
      field = absl::Seconds(seconds);
    };
    if (name == "host") {
      if (value.empty()) Usage(argv[0], "--host must name an address");
      http.host = value;
    } else if (name == "port") {
      in_range(http.port, 0, 65535);
    } else if (name == "work_queue_type") {
      options.work_queue_type = value;
    } else if (name == "threads") {
      in_range(http.worker_threads, 1, 1024);
    } else if (name == "io_threads") {
      in_range(http.io_threads, 1, 64);
    } else if (name == "max_connections") {
      in_range(http.max_connections, 1, 1000000);
    } else if (name == "max_concurrent_requests") {
      in_range(http.max_concurrent_requests, 1, 100000);
    } else if (name == "max_header_bytes") {
      in_range(http.max_header_bytes, 1024, 1 << 20);
    } else if (name == "max_body_bytes") {
      // gRPC's message size is an int.
      in_range(http.max_body_bytes, 1, std::numeric_limits<int>::max());
    } else if (name == "idle_timeout_secs") {
      duration(http.idle_timeout);
    } else if (name == "header_timeout_secs") {
      duration(http.header_timeout);
    } else if (name == "body_timeout_secs") {
      duration(http.body_timeout);
    } else if (name == "write_timeout_secs") {
      duration(http.write_timeout);
    } else if (name == "drain_secs") {
      duration(options.drain);
    } else if (name == "grpc_port") {
      in_range(options.grpc_port, 0, 65535);
    } else if (name == "max_run_secs") {
      duration(options.limits->max_run_time);
    } else if (name == "max_body_bytes_in_flight") {
      in_range(http.max_body_bytes_in_flight, 1 << 20, int64_t{1} << 40);
    } else if (name == "max_response_bytes") {
      uint64_t bytes = 0;
      in_range(bytes, 1 << 20, std::numeric_limits<int>::max());
      options.limits->response_bytes.set_limit(bytes);
    } else if (name == "max_model_bytes") {
      in_range(options.limits->max_model_bytes, 1, int64_t{1} << 40);
    } else if (name == "model_repository") {
      options.model_repository = value;
    } else if (name == "repository_poll_secs") {
      duration(options.repository_poll);
    } else if (name == "model_name" && !value.empty() && value.find('/') == std::string::npos) {
      options.model_name = value;
    } else {
      Usage(argv[0], "bad option " + arg);
    }
  }
  if (http.max_body_bytes_in_flight < http.max_body_bytes) {
    Usage(argv[0], "--max_body_bytes_in_flight must be at least --max_body_bytes");
  }
  if (options.input.empty() == options.model_repository.empty()) {
    Usage(argv[0], "give one BEF file or --model_repository");
  }
  if (!options.input.empty() && options.model_name.empty()) {
    std::string stem = options.input.substr(options.input.find_last_of('/') + 1);
    options.model_name = stem.substr(0, stem.rfind(".bef") == std::string::npos
                                            ? stem.size()
                                            : stem.rfind(".bef"));
    if (options.model_name.empty()) options.model_name = "model";
  }
  return options;
}

serving::HttpResponse ToHttp(ServiceResponse answer) {
  serving::HttpResponse response;
  response.status = answer.http_status;
  response.body = std::move(answer.json);
  return response;
}

// What the process is doing, for the thread that takes SIGTERM/SIGINT.
class Lifecycle {
 public:
  // A stop signal arrived: during the load, exit at once; while serving,
  // begin the HTTP drain and shut gRPC down (this thread waits for gRPC's
  // calls in flight, for at most `drain`).
  // Runs still going when the drain time ends are cancelled (`limits`);
  // what they answer then gets kStopGrace to be written.
  void OnStopSignal(absl::Duration drain, serving::RunLimits& limits) {
    std::unique_lock<std::mutex> lock(mutex_);
    if (done_) return;
    if (http_ == nullptr) {
      std::printf("bef_serve: stopped while loading\n");
      std::fflush(stdout);
      _exit(0);
    }
    absl::Time stop = absl::Now() + drain;
    limits.StopAt(stop);
    http_->Shutdown(drain + kStopGrace);
    grpc::Server* grpc = grpc_;
    lock.unlock();
    if (grpc != nullptr) grpc->Shutdown(absl::ToChronoTime(stop + kStopGrace));
  }
  void Serving(serving::HttpServer* http, grpc::Server* grpc) {
    std::lock_guard<std::mutex> lock(mutex_);
    http_ = http;
    grpc_ = grpc;
  }
  void Done() {
    std::lock_guard<std::mutex> lock(mutex_);
    done_ = true;
  }

 private:
  std::mutex mutex_;
  serving::HttpServer* http_ = nullptr;
  grpc::Server* grpc_ = nullptr;
  bool done_ = false;
};

int Serve(ServeOptions& options) {
  // Request and response buffers up to 32 MiB come from malloc's heap and
  // are reused: a buffer mapped fresh for each request costs a page fault
  // per 4 KiB (about 17 us each on a paravirtualized VM: a 1 MiB tensor's
  // request was mostly that). Larger ones come from mmap and go back when
  // freed; a fixed threshold turns off glibc's adaptive one, which after
  // the first large body would keep any size on the heap. What the heap
  // keeps is bounded: one arena per usable core (each arena's top may
  // keep up to M_TRIM_THRESHOLD, and malloc_trim never trims a thread
  // arena's top), and the trimmer below hands back the free lists once
  // they hold more than kTrimSlack (docs/serving.md, "Memory").
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_ARENA_MAX, UsableCores());
  mallopt(M_TRIM_THRESHOLD, 4 << 20);

  // Signals are taken by a dedicated thread (sigwait), never by a handler,
  // from before the program loads.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);
  Lifecycle lifecycle;
  std::thread signal_waiter([&lifecycle, &options, stop_signals] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    lifecycle.OnStopSignal(options.drain, *options.limits);
  });
  // Ends the signal thread: wakes it if no signal came; after a signal,
  // waits for it to finish shutting gRPC down.
  auto end_signal_thread = [&] {
    if (!signal_waiter.joinable()) return;
    lifecycle.Done();
    pthread_kill(signal_waiter.native_handle(), SIGTERM);
    signal_waiter.join();
  };
  auto finish = [&](int code) {
    end_signal_thread();
    return code;
  };

  absl::StatusOr<std::unique_ptr<HostContext>> host = CreateServingHost(options.work_queue_type);
  if (!host.ok()) {
    std::fprintf(stderr, "bef_serve: %s\n", std::string(host.status().message()).c_str());
    return finish(1);
  }
  std::unique_ptr<BefService> v1;  // the single-file form's /v1/ API
  std::unique_ptr<serving::ModelRepository> repository;
  if (!options.input.empty()) {
    absl::StatusOr<std::unique_ptr<BefService>> service =
        BefService::Create(options.input, host->get(), options.limits.get());
    if (!service.ok()) {
      std::fprintf(stderr, "bef_serve: %s\n", std::string(service.status().message()).c_str());
      return finish(1);
    }
    v1 = std::move(*service);
    repository = serving::ModelRepository::Single(host->get(), options.model_name, options.input,
                                                  options.limits.get());
  } else {
    repository = std::make_unique<serving::ModelRepository>(host->get(), options.model_repository,
                                                            options.limits.get());
    repository->LoadAll();
    for (const serving::VersionState& state : repository->Index()) {
      if (state.state != "READY") {
        std::fprintf(stderr, "bef_serve: model %s version %lld: %s\n", state.model.c_str(),
                     static_cast<long long>(state.version), state.reason.c_str());
      }
    }
  }
  serving::InferenceService inference(repository.get(), host->get(), options.limits.get());
  ServiceMetrics own_metrics;
  ServiceMetrics& metrics = v1 ? v1->metrics() : own_metrics;

  std::vector<serving::Route> routes = inference.Routes();
  routes.push_back({"GET", "/healthz", serving::RouteWork::kInline,
                    [](serving::HttpRequest&) {
                      return serving::HttpResponse{200, "text/plain", "ok\n", {}};
                    }});
  // Set once the server exists (its counters are on /metrics).
  serving::HttpServer* http_server = nullptr;
  // Built on a worker: with thousands of versions loaded it is megabytes
  // (RouteWork::kOffload).
  routes.push_back({"GET", "/metrics", serving::RouteWork::kOffload,
                    [&metrics, &inference, &options, &http_server](serving::HttpRequest&) {
                      const serving::HttpServerCounters http = http_server->counters();
                      return serving::HttpResponse{
                          200, "text/plain; version=0.0.4",
                          metrics.ToPrometheusText(options.limits->cancelled(),
                                                   http.requests_inline, http.rescues) +
                              inference.MetricsText(),
                          {}};
                    }});
  if (v1) {
    BefService& bef = *v1;
    routes.push_back({"GET", "/v1/functions", serving::RouteWork::kInline,
                      [&bef](serving::HttpRequest&) { return ToHttp(bef.ListFunctions()); }});
    serving::Route run{
        "POST", "/v1/functions/*:run", serving::RouteWork::kWorker,
        [&bef, &options](serving::HttpRequest& request) {
          // A client that closes its connection cancels its run.
          serving::HttpResponse response =
              ToHttp(bef.Run(request.captures[0], request.body,
                             [&request] { return request.ClientGoneStatus(); }));
          // The answer holds its bytes of the answer budget until written.
          const uint64_t size = response.body.size();
          absl::Status reserved = serving::ReserveAnswerBytes(options.limits->response_bytes, size,
                                                              size, response.reservation);
          if (!reserved.ok()) {
            return ToHttp(ErrorResponse(reserved, serving::ErrorSource::kRequest));
          }
          return response;
        }};
    // A program known to run short runs on the I/O thread, as a model does.
    run.run_inline_when = [&bef](const serving::HttpRequest&) { return bef.known_short(); };
    routes.push_back(std::move(run));
  }
  // Refusals of the front end in each API's error form: the /v1/ API's
  // {"error": {"code", "message"}}, the protocol's {"error": "message"}
  // everywhere else.
  auto refuse = [&metrics](int status, std::string_view message, std::string_view path) {
    if (status >= 400 && status < 500) {
      metrics.bad_requests.fetch_add(1, std::memory_order_relaxed);
    }
    if (!path.starts_with("/v1/")) {
      return serving::HttpResponse{status, "application/json",
                                   serving::ProtocolErrorJson(message), {}};
    }
    return ToHttp(ErrorResponse(status, serving::CodeNameOfHttpStatus(status), message));
  };

  serving::HttpServer server(options.http, std::move(routes), refuse);
  http_server = &server;
  absl::StatusOr<int> port = server.Listen();
  if (!port.ok()) {
    std::fprintf(stderr, "bef_serve: %s\n", std::string(port.status().message()).c_str());
    return finish(1);
  }
  std::unique_ptr<serving::GrpcInferenceService> grpc_service;
  std::unique_ptr<grpc::Server> grpc_server;
  int grpc_port = 0;
  if (options.grpc_port >= 0) {
    // Long runs on as many worker threads as HTTP's (--threads).
    grpc_service = std::make_unique<serving::GrpcInferenceService>(
        repository.get(), host->get(), options.limits.get(), options.http.max_concurrent_requests,
        options.http.worker_threads);
    grpc::ServerBuilder builder;
    builder.SetMaxReceiveMessageSize(static_cast<int>(options.http.max_body_bytes));
    builder.SetMaxSendMessageSize(static_cast<int>(options.limits->response_bytes.limit()));
    builder.AddListeningPort(HostPort(options.http.host, options.grpc_port),
                             grpc::InsecureServerCredentials(), &grpc_port);
    builder.RegisterService(grpc_service.get());
    grpc_server = builder.BuildAndStart();
    if (grpc_server != nullptr) serving::RunGrpcExecutorClosuresInline();
    if (grpc_server == nullptr || grpc_port == 0) {
      std::fprintf(stderr, "bef_serve: cannot serve gRPC on %s\n",
                   HostPort(options.http.host, options.grpc_port).c_str());
      return finish(1);
    }
  }
  lifecycle.Serving(&server, grpc_server.get());
  std::printf("bef_serve: listening on http://%s\n", HostPort(options.http.host, *port).c_str());
  if (grpc_server) {
    std::printf("bef_serve: grpc listening on %s\n",
                HostPort(options.http.host, grpc_port).c_str());
  }
  std::fflush(stdout);
  // Repository changes are looked for every --repository_poll_secs.
  std::mutex poll_mutex;
  std::condition_variable poll_wake;
  bool stop_polling = false;
  std::thread poller;
  if (options.repository_poll > absl::ZeroDuration() && !options.model_repository.empty()) {
    poller = std::thread([&] {
      std::unique_lock<std::mutex> lock(poll_mutex);
      while (!poll_wake.wait_for(lock, absl::ToChronoNanoseconds(options.repository_poll),
                                 [&] { return stop_polling; })) {
        lock.unlock();
        repository->Poll();
        lock.lock();
      }
    });
  }
  // Memory goes back: freed memory that malloc keeps (the free chunks of
  // many small objects -- a 300k-output request's message, a load/unload
  // storm's tables, large buffers of requests that ended) is returned to
  // the system once more than kTrimSlack of it is held.
  std::thread trimmer([&] {
    constexpr size_t kTrimSlack = 8 << 20;
    std::unique_lock<std::mutex> lock(poll_mutex);
    while (!poll_wake.wait_for(lock, std::chrono::milliseconds(250), [&] { return stop_polling; })) {
      if (mallinfo2().fordblks > kTrimSlack) malloc_trim(0);
    }
  });
  absl::Status drained = server.Run();
  if (!drained.ok()) {
    // Requests still run on worker threads: nothing can be torn down under
    // them.
    std::printf("bef_serve: stopped: %s\n", std::string(drained.message()).c_str());
    std::fflush(stdout);
    _exit(0);
  }
  end_signal_thread();  // gRPC has shut down
  if (grpc_server) grpc_server->Wait();
  if (grpc_service) grpc_service->StopWorkers();  // before grpc_server is destroyed
  {
    std::lock_guard<std::mutex> lock(poll_mutex);
    stop_polling = true;
  }
  poll_wake.notify_all();
  if (poller.joinable()) poller.join();
  trimmer.join();
  (*host)->Quiesce();
  v1.reset();
  repository.reset();
  std::printf("bef_serve: stopped\n");
  std::fflush(stdout);
  return 0;
}

}  // namespace
}  // namespace bef

int main(int argc, char** argv) {
  // Debian's Abseil is built with absl::Mutex's deadlock detection on (it
  // is meant for debug builds): every lock gRPC takes then walks a lock
  // graph. bef_serve's own code takes no absl::Mutex.
  absl::SetMutexDeadlockDetectionMode(absl::OnDeadlockCycle::kIgnore);
  bef::ServeOptions options = bef::ParseOptions(argc, argv);
  return bef::Serve(options);
}
