// HttpServer: bef_serve's HTTP/1.1 front end, event-driven (Boost.Beast on
// Asio), built to stay available under hostile or careless clients
// (docs/serving.md, "Limits and timeouts").
//
// - Connections cost no thread: a few I/O threads multiplex every socket;
//   idle keep-alive connections and slow senders only hold a socket and a
//   few hundred bytes. Beyond `max_connections` a new connection gets a
//   503 and is closed (never queued).
// - Every phase has a deadline: waiting for a request on a kept-alive
//   connection (`idle_timeout`), the whole header once its first byte came
//   (`header_timeout`, so a byte a second cannot hold a connection),
//   the body (`body_timeout`) and the response's write (`write_timeout`).
// - Limits are checked before bytes are buffered: headers over
//   `max_header_bytes` get 431; a Content-Length over `max_body_bytes` gets
//   413 before the body is read, a chunked body is cut at the limit with
//   413; a route that takes no body (GET, HEAD, the repository's POSTs)
//   takes at most kMaxIgnoredBodyBytes of one; conflicting Content-Length
//   headers get 400; a body-carrying request without Content-Length or
//   chunking gets 411; a media type the route does not take, or a
//   Content-Encoding other than one `identity`, gets 415; a wrong method on
//   a known path gets 405 with `Allow`. `Range` is ignored (API responses
//   are never partial). All of these answer at once, with
//   `Connection: close`.
// - Framing by RFC 9112: a Transfer-Encoding other than one final
//   `chunked` gets 501, `chunked` beside Content-Length (or in HTTP/1.0)
//   400; an HTTP/1.1 request needs exactly one Host (400); empty lines
//   before a request line are skipped; `Expect: 100-continue` is honoured in
//   HTTP/1.1 only; a captured path segment with a control character (a
//   percent-decoded NUL) gets 400. Each closes the connection, so nothing
//   after a request framed in doubt is read as another request.
// - Memory per client grows only with what it sent: nothing is reserved
//   from a Content-Length; a body is read into memory as it arrives, and
//   the bytes of bodies of at least kDirectBodyBytes being read hold a
//   server-wide budget (`max_body_bytes_in_flight`): past it, 503 at once.
//   A request is admitted against `max_concurrent_requests` only once its
//   whole body has arrived, and stays admitted until its answer is
//   written (a slow reader holds its slot); an answer's bytes hold
//   HttpResponse::reservation until written.
// - Handlers of `RouteWork::kWorker` routes run on a pool of worker
//   threads; at most `max_concurrent_requests` such requests are queued or
//   running, the next gets 503 at once. While a worker handles a request,
//   the connection is watched: a client that closes it (or resets it) sets
//   HttpRequest::ClientGone. A request its route's `run_inline_when` says
//   is short (a model version whose recent runs all were), with a body of
//   at most kMaxInlineBodyBytes, runs on the I/O thread that read it
//   instead: no hand-off to a worker and back, which
//   is most of a tiny request's cost. Every connection is served by
//   whichever I/O thread is free (per-connection strands), so a request
//   that turns out long holds its own connection and its I/O thread, never
//   the others' sockets while another I/O thread is free; when inline runs
//   hold every I/O thread and none ended for 10 ms, a rescue thread serves
//   the sockets (never running a request inline itself) until one is free
//   again (HttpServerCounters::rescues).
// - Shutdown(drain): the listener closes, connections waiting for a
//   request close, every request already received is answered (then its
//   connection closes), for at most `drain`; Run() then returns.
//
// Thread-safety: Listen and Run from one thread; Shutdown from any thread
// (a signal-waiting thread), once or more.
#ifndef BEF_TOOLS_SERVING_HTTP_SERVER_H_
#define BEF_TOOLS_SERVING_HTTP_SERVER_H_

#include <atomic>
#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/time/time.h"
#include "tools/serving/byte_budget.h"

namespace bef::serving {

// The largest body of a request that may run on the I/O thread that read
// it (Route::run_inline_when): a larger one goes to a worker, as its
// decoding alone takes long.
inline constexpr size_t kMaxInlineBodyBytes = 64 << 10;
// The most a request to a route that takes no body may send of one (read
// and dropped); more gets 413.
inline constexpr size_t kMaxIgnoredBodyBytes = 4 << 10;
// Bodies of a known length from this size on are read straight into the
// request's string, growing with what arrives, and hold the body budget.
inline constexpr size_t kDirectBodyBytes = 16 << 10;

struct HttpServerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;  // 0: any free port (Listen returns it)
  int io_threads = 1;
  int worker_threads = 8;
  size_t max_connections = 10000;
  size_t max_concurrent_requests = 256;
  size_t max_header_bytes = 16 << 10;
  size_t max_body_bytes = 16 << 20;
  // The bytes of request bodies being read at once, server-wide (bodies of
  // at least kDirectBodyBytes): at least max_body_bytes.
  size_t max_body_bytes_in_flight = 256 << 20;
  absl::Duration idle_timeout = absl::Seconds(60);
  absl::Duration header_timeout = absl::Seconds(10);
  absl::Duration body_timeout = absl::Seconds(60);
  absl::Duration write_timeout = absl::Seconds(60);
};

struct HttpRequest {
  std::string method;
  std::string path;  // the target without its query
  // What the route pattern's `*`s matched, in order, percent-decoded.
  std::vector<std::string> captures;
  // Header fields, names in lower case, in the order received.
  std::vector<std::pair<std::string, std::string>> headers;
  std::string body;  // handlers may take it
  // For kWorker routes: whether the client has closed its connection (or
  // it failed) while the handler runs; handlers of long requests ask it,
  // from any thread, to stop early. Always false for kInline routes.
  bool ClientGone() const;
  // ClientGone as a run's stop check (run_limits.h's StopCheck): CANCELLED
  // "the client closed the connection" once it is gone, else OK.
  absl::Status ClientGoneStatus() const;
  // Set by the front end (ClientGone reads them): the worker path's watch
  // of the connection, or the socket of a request run inline, peeked.
  std::shared_ptr<std::atomic<bool>> client_gone;
  int peek_socket = -1;

  // The first field named `name` (lower case), or null.
  const std::string* Header(std::string_view name) const {
    for (const auto& [field, value] : headers) {
      if (field == name) return &value;
    }
    return nullptr;
  }
};

struct HttpResponse {
  int status = 200;
  std::string content_type = "application/json";
  std::string body;
  std::vector<std::pair<std::string, std::string>> headers;
  // What the body holds of a ByteBudget (an answer's bytes): given back once
  // the body is written, or the connection closed.
  ByteBudget::Reservation reservation;
};

enum class RouteWork {
  kInline,   // cheap: runs on the I/O thread (health, metadata)
  kWorker,   // runs programs: on a worker thread, counted against
             // max_concurrent_requests
  kOffload,  // builds a large answer without running a program (/metrics,
             // the repository index): on a thread of its own, never behind
             // runs or admitted against max_concurrent_requests, so the I/O
             // thread spends on it what it spends on a health check
};

struct Route {
  std::string method;  // "GET", "POST"
  // A path; each `*` matches one or more characters other than '/', e.g.
  // "/v1/functions/*:run".
  std::string pattern;
  RouteWork work = RouteWork::kInline;
  std::function<HttpResponse(HttpRequest&)> handler;
  // For requests with a body: media types taken (Content-Type before any
  // `;`, case-insensitive); empty: any. A request without Content-Type is
  // taken.
  std::vector<std::string> media_types = {"application/json"};
  // A POST or PUT of a route that takes a body needs Content-Length or
  // chunking (411 otherwise); one that takes none may omit both.
  bool takes_body = true;
  // kWorker routes: whether this request may run on the I/O thread, asked
  // once the whole request is read (null: never).
  std::function<bool(const HttpRequest&)> run_inline_when;
};

// The response the front end gives for what it refuses itself (status and a
// message for the client, e.g. 413 "the body is larger than 16777216 bytes";
// the request's path, "" when not read yet), so that each API answers in its
// own error form.
using ErrorResponder =
    std::function<HttpResponse(int status, std::string_view message, std::string_view path)>;

// Counters of the front end (for /metrics).
struct HttpServerCounters {
  uint64_t connections_open = 0;
  uint64_t connections_refused = 0;  // over max_connections
  uint64_t requests_refused = 0;     // 4xx/503 given by the front end
  uint64_t timeouts = 0;             // connections closed by a deadline
  uint64_t requests_inline = 0;      // kWorker requests run on an I/O thread
  uint64_t rescues = 0;  // times inline runs held every I/O thread (see above)
};

class HttpServer {
 public:
  HttpServer(HttpServerOptions options, std::vector<Route> routes,
             ErrorResponder error_responder);
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  // Binds and listens; returns the port.
  absl::StatusOr<int> Listen();
  // Serves until Shutdown; returns OK once drained, or DEADLINE_EXCEEDED
  // naming the requests still unanswered when the drain time ran out (their
  // worker or I/O threads are then still running: the caller exits the
  // process).
  absl::Status Run();
  void Shutdown(absl::Duration drain);

  HttpServerCounters counters() const;

  class Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_HTTP_SERVER_H_
