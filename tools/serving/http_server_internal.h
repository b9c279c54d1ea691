// The HTTP/1.1 front end's inside (http_server.h is its manual): the
// server's state (HttpServer::Impl: routes, limits, budgets, the I/O
// threads and the rescue thread) and what a connection (HttpSession,
// http_session.cc) needs of it. Included by http_server.cc and
// http_session.cc only.
#ifndef BEF_TOOLS_SERVING_HTTP_SERVER_INTERNAL_H_
#define BEF_TOOLS_SERVING_HTTP_SERVER_INTERNAL_H_

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "absl/container/inlined_vector.h"
#include "absl/time/time.h"
#include "bef/support/fifo_thread_pool.h"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/beast/core.hpp"
#include "tools/serving/http_server.h"

namespace bef::serving {

namespace beast = boost::beast;
namespace net = boost::asio;
using tcp = boost::asio::ip::tcp;

inline std::chrono::nanoseconds ToChrono(absl::Duration duration) {
  return absl::ToChronoNanoseconds(duration);
}

// A path's '/'-separated segments (most paths have a few: no heap).
using PathSegments = absl::InlinedVector<std::string_view, 8>;
PathSegments Segments(std::string_view path);
// `pattern` and `path` have the same number of '/'-separated segments; a
// pattern segment `prefix*suffix` matches a path segment that starts with
// `prefix`, ends with `suffix` and has at least one character between
// (captured, percent-decoded); other segments match exactly.
bool MatchPath(const PathSegments& want, const PathSegments& have,
               std::vector<std::string>* captures);

// What a look at a connected socket, without taking anything, says of the
// client: its end of stream (it closed, or shut down its sending side,
// which nginx takes as gone too) is gone even with bytes still unread
// before it (TCP's state is no longer ESTABLISHED: CLOSE_WAIT, or CLOSE
// after a reset); readable with nothing to read, or a failed socket, is
// gone too; bytes (a pipelined request, a stray CRLF) mean it is there,
// and so does nothing to read yet.
enum class PeerState { kThere, kGone, kNothingYet };
PeerState PeekPeer(int socket);

// A connection's strand, by its concrete type: operations on the socket
// then carry no type-erased executor (any_io_executor's copies and
// lookups were a few percent of a tiny request).
using Strand = net::strand<net::io_context::executor_type>;
using StrandSocket = net::basic_stream_socket<tcp, Strand>;
using StrandStream = beast::basic_stream<tcp, Strand, beast::unlimited_rate_policy>;

// How often the rescue thread looks whether inline runs hold every I/O thread.
inline constexpr std::chrono::milliseconds kRescuePoll(10);

class HttpSession;  // one connection (http_session.cc)

// A new connection's session, started (its first read posted).
void StartSession(HttpServer::Impl& server, StrandSocket socket);
// Tells a session, on its strand, that the server drains: it closes now if
// it waits for a request, else after its answer.
void DrainSession(std::shared_ptr<HttpSession> session);

class HttpServer::Impl {
 public:
  Impl(HttpServerOptions options, std::vector<Route> routes, ErrorResponder error_responder)
      : options_(std::move(options)),
        routes_(std::move(routes)),
        error_responder_(std::move(error_responder)),
        acceptor_(io_),
        retry_accept_(io_),
        workers_(options_.worker_threads),
        offload_thread_(1) {
    for (const Route& route : routes_) route_segments_.push_back(Segments(route.pattern));
  }

  absl::StatusOr<int> Listen();
  absl::Status Run();
  void Shutdown(absl::Duration drain);

  // --- used by sessions ---
  const HttpServerOptions& options() const { return options_; }
  const std::vector<Route>& routes() const { return routes_; }
  // Each route's pattern split into segments once (views of routes_).
  const std::vector<PathSegments>& route_segments() const { return route_segments_; }
  HttpResponse Error(int status, std::string_view message, std::string_view path) {
    counters_.requests_refused.fetch_add(1, std::memory_order_relaxed);
    return error_responder_(status, message, path);
  }
  bool draining() const { return draining_.load(std::memory_order_acquire); }
  ByteBudget& body_budget() { return body_budget_; }
  // Admits one worker request, or returns false (503).
  bool AdmitWorkerRequest() {
    size_t in_flight = worker_requests_.fetch_add(1, std::memory_order_acq_rel);
    if (in_flight < options_.max_concurrent_requests) return true;
    worker_requests_.fetch_sub(1, std::memory_order_acq_rel);
    return false;
  }
  void FinishWorkerRequest() { worker_requests_.fetch_sub(1, std::memory_order_acq_rel); }
  // Lets this thread run a known-short request inline (every I/O thread
  // may; the rescue thread never does: it is there for the sockets).
  bool EnterInline() {
    if (on_rescue_thread) return false;
    inline_requests_.fetch_add(1, std::memory_order_acq_rel);
    counters_.requests_inline.fetch_add(1, std::memory_order_relaxed);
    return true;
  }
  void LeaveInline() {
    inline_finished_.fetch_add(1, std::memory_order_acq_rel);
    inline_requests_.fetch_sub(1, std::memory_order_acq_rel);
  }
  void RunOnWorker(UniqueFunction<void()> task) { workers_.Add(std::move(task)); }
  // RouteWork::kOffload answers: on a thread of their own, never behind runs.
  void RunOffloaded(UniqueFunction<void()> task) { offload_thread_.Add(std::move(task)); }
  void CountTimeout() { counters_.timeouts.fetch_add(1, std::memory_order_relaxed); }
  void Register(HttpSession* session, std::weak_ptr<HttpSession> weak);
  void Unregister(HttpSession* session);

  HttpServerCounters counters() const {
    HttpServerCounters result;
    {
      std::lock_guard<std::mutex> lock(sessions_mutex_);
      result.connections_open = sessions_.size();
    }
    result.connections_refused = counters_.connections_refused.load();
    result.requests_refused = counters_.requests_refused.load();
    result.timeouts = counters_.timeouts.load();
    result.requests_inline = counters_.requests_inline.load();
    result.rescues = counters_.rescues.load();
    return result;
  }

 private:
  void Accept();
  void OnAccept(beast::error_code error, StrandSocket socket);
  void RescueLoop();
  void RefuseConnection(StrandSocket& socket);

  HttpServerOptions options_;
  std::vector<Route> routes_;
  std::vector<PathSegments> route_segments_;
  ErrorResponder error_responder_;
  // Declared before io_: handlers io_ still holds when it is destroyed may
  // own sessions, whose destructors unregister here.
  mutable std::mutex sessions_mutex_;
  std::condition_variable sessions_changed_;
  std::unordered_map<HttpSession*, std::weak_ptr<HttpSession>> sessions_;
  bool shutdown_requested_ = false;  // guarded by sessions_mutex_
  std::chrono::steady_clock::time_point drain_deadline_;
  net::io_context io_;
  tcp::acceptor acceptor_;
  net::steady_timer retry_accept_;
  FifoThreadPool workers_;
  FifoThreadPool offload_thread_;
  std::vector<std::thread> io_threads_;
  const size_t io_thread_count_ = static_cast<size_t>(std::max(1, options_.io_threads));

  std::atomic<bool> draining_{false};
  std::atomic<size_t> worker_requests_{0};
  ByteBudget body_budget_{std::max(options_.max_body_bytes_in_flight, options_.max_body_bytes)};
  // Inline runs in progress, and how many have ended (see RescueLoop).
  std::atomic<size_t> inline_requests_{0};
  std::atomic<uint64_t> inline_finished_{0};
  static thread_local bool on_rescue_thread;
  std::mutex rescue_mutex_;
  std::condition_variable rescue_wake_;
  bool rescue_stop_ = false;  // guarded by rescue_mutex_
  std::thread rescue_thread_;
  struct {
    std::atomic<uint64_t> connections_refused{0};
    std::atomic<uint64_t> requests_refused{0};
    std::atomic<uint64_t> timeouts{0};
    std::atomic<uint64_t> requests_inline{0};
    std::atomic<uint64_t> rescues{0};
  } counters_;

};

}  // namespace bef::serving

#endif  // BEF_TOOLS_SERVING_HTTP_SERVER_INTERNAL_H_
