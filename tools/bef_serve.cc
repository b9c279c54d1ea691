// bef_serve: an HTTP/JSON server running the functions of one BEF file
// (docs/serving.md).
//
//   bef_serve [--host=127.0.0.1] [--port=8080] [--work_queue_type=mstd:2]
//             [--max_body_bytes=16777216] [--threads=N] program.bef
//
// Endpoints: GET /v1/functions, POST /v1/functions/NAME:run, GET /healthz,
// GET /metrics. Prints `bef_serve: listening on http://HOST:PORT` once it
// accepts connections (--port=0 picks a free port). SIGTERM or SIGINT stops
// accepting, lets the requests in flight finish, then exits 0.
#include <signal.h>

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "httplib.h"
#include "tools/serving/bef_service.h"

namespace bef {
namespace {

struct ServeOptions {
  std::string host = "127.0.0.1";
  int port = 8080;
  std::string work_queue_type = "mstd:2";
  size_t max_body_bytes = 16 << 20;
  int threads = 8;
  std::string input;
};

[[noreturn]] void Usage(const char* program, const std::string& problem) {
  std::fprintf(stderr,
               "%s: %s\nusage: %s [--host=ADDR] [--port=N] [--work_queue_type=SPEC] "
               "[--max_body_bytes=N] [--threads=N] program.bef\n",
               program, problem.c_str(), program);
  std::exit(2);
}

ServeOptions ParseOptions(int argc, char** argv) {
  ServeOptions options;
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
    int number = 0;
    if (name == "host") {
      options.host = value;
    } else if (name == "port" && absl::SimpleAtoi(value, &number) && number >= 0 &&
               number < 65536) {
      options.port = number;
    } else if (name == "work_queue_type") {
      options.work_queue_type = value;
    } else if (name == "max_body_bytes" && absl::SimpleAtoi(value, &number) && number > 0) {
      options.max_body_bytes = static_cast<size_t>(number);
    } else if (name == "threads" && absl::SimpleAtoi(value, &number) && number > 0) {
      options.threads = number;
    } else {
      Usage(argv[0], "bad option " + arg);
    }
  }
  if (options.input.empty()) Usage(argv[0], "no input file");
  return options;
}

void Reply(httplib::Response& response, const ServiceResponse& answer) {
  response.status = answer.http_status;
  response.set_content(answer.json, "application/json");
}

int Serve(const ServeOptions& options) {
  // Signals are taken by a dedicated thread (sigwait), never by a handler.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGINT);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  absl::StatusOr<std::unique_ptr<BefService>> service =
      BefService::Create(options.input, options.work_queue_type);
  if (!service.ok()) {
    std::fprintf(stderr, "bef_serve: %s\n", std::string(service.status().message()).c_str());
    return 1;
  }
  BefService& bef = **service;

  httplib::Server server;
  int threads = options.threads;
  server.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  server.set_payload_max_length(options.max_body_bytes);
  server.set_keep_alive_max_count(1000000);
  server.set_tcp_nodelay(true);
  server.Get("/healthz", [](const httplib::Request&, httplib::Response& response) {
    response.set_content("ok\n", "text/plain");
  });
  server.Get("/metrics", [&bef](const httplib::Request&, httplib::Response& response) {
    response.set_content(bef.metrics().ToPrometheusText(),
                         "text/plain; version=0.0.4");
  });
  server.Get("/v1/functions", [&bef](const httplib::Request&, httplib::Response& response) {
    Reply(response, bef.ListFunctions());
  });
  server.Post(R"(/v1/functions/([^/]+):run)",
              [&bef](const httplib::Request& request, httplib::Response& response) {
                Reply(response, bef.Run(request.matches[1].str(), request.body));
              });
  // Everything else, and errors httplib detects itself (413 for bodies over
  // the limit, 400 for malformed HTTP), get a JSON error.
  server.set_error_handler([&bef](const httplib::Request&, httplib::Response& response) {
    if (!response.body.empty()) return;  // an answer of the service
    if (response.status >= 400 && response.status < 500) {
      bef.metrics().bad_requests.fetch_add(1, std::memory_order_relaxed);
    }
    const char* message = response.status == 404   ? "no such endpoint"
                          : response.status == 413 ? "the body is too large"
                          : response.status == 405 ? "method not allowed"
                                                   : "bad request";
    Reply(response, ErrorResponse(response.status,
                                  response.status == 404 ? "NOT_FOUND" : "INVALID_ARGUMENT",
                                  message));
  });

  int port = options.port;
  if (port == 0) {
    port = server.bind_to_any_port(options.host);
    if (port < 0) {
      std::fprintf(stderr, "bef_serve: cannot bind to %s\n", options.host.c_str());
      return 1;
    }
  } else if (!server.bind_to_port(options.host, port)) {
    std::fprintf(stderr, "bef_serve: cannot bind to %s:%d\n", options.host.c_str(), port);
    return 1;
  }

  std::thread signal_waiter([&server, stop_signals] {
    int signal_number = 0;
    sigwait(&stop_signals, &signal_number);
    if (signal_number != 0) server.stop();
  });
  std::printf("bef_serve: listening on http://%s:%d\n", options.host.c_str(), port);
  std::fflush(stdout);
  bool listened = server.listen_after_bind();
  // listen returns after stop(): the pool has finished the requests in
  // flight. Wake the signal thread if the server stopped on its own.
  if (!listened) pthread_kill(signal_waiter.native_handle(), SIGTERM);
  signal_waiter.join();
  bef.Quiesce();
  std::printf("bef_serve: stopped\n");
  std::fflush(stdout);
  return listened ? 0 : 1;
}

}  // namespace
}  // namespace bef

int main(int argc, char** argv) { return bef::Serve(bef::ParseOptions(argc, argv)); }
