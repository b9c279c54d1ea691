#include "tools/serving/http_server.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <mutex>
#include <optional>
#include <thread>
#include <unordered_map>

#include "absl/container/inlined_vector.h"
#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "bef/support/fifo_thread_pool.h"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/io_context.hpp"
#include "boost/asio/ip/tcp.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/steady_timer.hpp"
#include "boost/asio/strand.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/core.hpp"
#include "boost/beast/http.hpp"
#include "tools/serving/http_server_internal.h"

namespace bef::serving {
namespace {

// A path segment with its %XX escapes decoded (a `%` not followed by two
// hex digits stays as it is).
std::string PercentDecode(std::string_view text) {
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  std::string decoded;
  decoded.reserve(text.size());
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '%' && i + 2 < text.size() && hex(text[i + 1]) >= 0 &&
        hex(text[i + 2]) >= 0) {
      decoded.push_back(static_cast<char>(hex(text[i + 1]) * 16 + hex(text[i + 2])));
      i += 2;
    } else {
      decoded.push_back(text[i]);
    }
  }
  return decoded;
}

}  // namespace

PathSegments Segments(std::string_view path) {
  PathSegments segments;
  size_t start = 0;
  while (true) {
    size_t slash = path.find('/', start);
    segments.push_back(path.substr(start, slash - start));
    if (slash == std::string_view::npos) return segments;
    start = slash + 1;
  }
}

bool MatchPath(const PathSegments& want, const PathSegments& have,
               std::vector<std::string>* captures) {
  captures->clear();
  if (want.size() != have.size()) return false;
  for (size_t i = 0; i < want.size(); ++i) {
    size_t star = want[i].find('*');
    if (star == std::string_view::npos) {
      if (want[i] != have[i]) return false;
      continue;
    }
    std::string_view prefix = want[i].substr(0, star), suffix = want[i].substr(star + 1);
    if (have[i].size() <= prefix.size() + suffix.size() ||
        !have[i].starts_with(prefix) || !have[i].ends_with(suffix)) {
      return false;
    }
    captures->push_back(PercentDecode(
        have[i].substr(prefix.size(), have[i].size() - prefix.size() - suffix.size())));
  }
  return true;
}

PeerState PeekPeer(int socket) {
  tcp_info info;
  socklen_t length = sizeof(info);
  if (::getsockopt(socket, IPPROTO_TCP, TCP_INFO, &info, &length) == 0 &&
      info.tcpi_state != TCP_ESTABLISHED) {
    return PeerState::kGone;
  }
  char byte;
  ssize_t received = ::recv(socket, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
  if (received > 0) return PeerState::kThere;
  if (received == 0) return PeerState::kGone;
  if (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR) return PeerState::kNothingYet;
  return PeerState::kGone;
}

bool HttpRequest::ClientGone() const {
  if (client_gone != nullptr && client_gone->load(std::memory_order_acquire)) return true;
  if (peek_socket < 0) return false;
  return PeekPeer(peek_socket) == PeerState::kGone;
}

absl::Status HttpRequest::ClientGoneStatus() const {
  if (ClientGone()) return absl::CancelledError("the client closed the connection");
  return absl::OkStatus();
}

void HttpServer::Impl::Register(HttpSession* session, std::weak_ptr<HttpSession> weak) {
  std::lock_guard<std::mutex> lock(sessions_mutex_);
  sessions_.emplace(session, std::move(weak));
}

void HttpServer::Impl::Unregister(HttpSession* session) {
  std::lock_guard<std::mutex> lock(sessions_mutex_);
  sessions_.erase(session);
  if (sessions_.empty() && shutdown_requested_) sessions_changed_.notify_all();
}

absl::StatusOr<int> HttpServer::Impl::Listen() {
  // Idle connections are cheap here; let the process hold as many as the
  // system allows (as nginx's worker_rlimit_nofile does).
  rlimit files;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0 && files.rlim_cur < files.rlim_max) {
    files.rlim_cur = files.rlim_max;
    setrlimit(RLIMIT_NOFILE, &files);
  }
  beast::error_code error;
  net::ip::address address = net::ip::make_address(options_.host, error);
  if (error) {
    return absl::InvalidArgumentError(
        absl::StrCat("bad --host '", options_.host, "': ", error.message()));
  }
  tcp::endpoint endpoint(address, static_cast<unsigned short>(options_.port));
  acceptor_.open(endpoint.protocol(), error);
  if (!error) acceptor_.set_option(net::socket_base::reuse_address(true), error);
  if (!error) acceptor_.bind(endpoint, error);
  if (!error) acceptor_.listen(net::socket_base::max_listen_connections, error);
  if (error) {
    return absl::UnavailableError(absl::StrCat("cannot listen on ", options_.host, ":",
                                               options_.port, ": ", error.message()));
  }
  return static_cast<int>(acceptor_.local_endpoint().port());
}

void HttpServer::Impl::Accept() {
  acceptor_.async_accept(net::make_strand(io_),
                         [this](beast::error_code error, StrandSocket socket) {
                           OnAccept(error, std::move(socket));
                         });
}

void HttpServer::Impl::OnAccept(beast::error_code error, StrandSocket socket) {
  if (error == net::error::operation_aborted || !acceptor_.is_open()) return;
  if (error) {
    // Out of descriptors (EMFILE/ENFILE) or a connection reset before it
    // was taken: try again shortly rather than spin.
    retry_accept_.expires_after(std::chrono::milliseconds(50));
    retry_accept_.async_wait([this](beast::error_code wait_error) {
      if (!wait_error) Accept();
    });
    return;
  }
  if (draining()) {
    beast::error_code ignored;
    socket.close(ignored);
    return;
  }
  size_t open;
  {
    std::lock_guard<std::mutex> lock(sessions_mutex_);
    open = sessions_.size();
  }
  if (open >= options_.max_connections) {
    RefuseConnection(socket);
  } else {
    beast::error_code ignored;
    socket.set_option(tcp::no_delay(true), ignored);
    StartSession(*this, std::move(socket));
  }
  Accept();
}

void HttpServer::Impl::Shutdown(absl::Duration drain) {
  {
    std::lock_guard<std::mutex> lock(sessions_mutex_);
    if (shutdown_requested_) return;
    shutdown_requested_ = true;
    drain_deadline_ = std::chrono::steady_clock::now() + ToChrono(drain);
  }
  draining_.store(true, std::memory_order_release);
  net::post(io_, [this] {
    beast::error_code ignored;
    acceptor_.close(ignored);
    retry_accept_.cancel();
    std::vector<std::shared_ptr<HttpSession>> sessions;
    {
      std::lock_guard<std::mutex> lock(sessions_mutex_);
      for (auto& [unused, weak] : sessions_) {
        if (std::shared_ptr<HttpSession> session = weak.lock()) sessions.push_back(session);
      }
    }
    for (std::shared_ptr<HttpSession>& session : sessions) DrainSession(std::move(session));
  });
  sessions_changed_.notify_all();
}

void HttpServer::Impl::RefuseConnection(StrandSocket& socket) {
  counters_.connections_refused.fetch_add(1, std::memory_order_relaxed);
  HttpResponse response = error_responder_(
      503, absl::StrCat("the server is at its limit of ", options_.max_connections,
                        " connections; try again"),
      "");
  std::string text = absl::StrCat(
      "HTTP/1.1 503 Service Unavailable\r\nServer: bef_serve\r\nContent-Type: ",
      response.content_type, "\r\nContent-Length: ", response.body.size(),
      "\r\nRetry-After: 1\r\nConnection: close\r\n\r\n", response.body);
  // Small enough for the socket's send buffer: never blocks.
  ::send(socket.native_handle(), text.data(), text.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  beast::error_code ignored;
  socket.shutdown(tcp::socket::shutdown_both, ignored);
  socket.close(ignored);
}

absl::Status HttpServer::Impl::Run() {
  Accept();
  auto guard = net::make_work_guard(io_);
  for (size_t i = 0; i < io_thread_count_; ++i) {
    io_threads_.emplace_back([this] { io_.run(); });
  }
  rescue_thread_ = std::thread([this] { RescueLoop(); });
  bool drained;
  size_t left;
  {
    std::unique_lock<std::mutex> lock(sessions_mutex_);
    sessions_changed_.wait(lock, [this] { return shutdown_requested_; });
    drained = sessions_changed_.wait_until(lock, drain_deadline_,
                                           [this] { return sessions_.empty(); });
    left = sessions_.size();
  }
  guard.reset();
  io_.stop();
  {
    std::lock_guard<std::mutex> lock(rescue_mutex_);
    rescue_stop_ = true;
  }
  rescue_wake_.notify_all();
  rescue_thread_.join();
  if (!drained) {
    // An I/O thread may be inside an inline run that never ends (a kernel
    // that blocks for good ignores cancellation), as a worker may: both are
    // left running; the caller exits the process.
    for (std::thread& thread : io_threads_) thread.detach();
    workers_.Abandon();
    offload_thread_.Abandon();
    return absl::DeadlineExceededError(absl::StrCat(
        left, " connections were still open when the drain time ran out"));
  }
  for (std::thread& thread : io_threads_) thread.join();
  workers_.Stop();
  offload_thread_.Stop();
  return absl::OkStatus();
}

thread_local bool HttpServer::Impl::on_rescue_thread = false;

void HttpServer::Impl::RescueLoop() {
  // Every kRescuePoll: when every I/O thread is inside an inline run and
  // none of those runs ended since the last look (a known-short version
  // that turned long), this thread serves the sockets (io_.run_for, never
  // an inline run itself) until an I/O thread is free again.
  on_rescue_thread = true;
  const size_t io_threads = io_thread_count_;
  auto stuck = [&] {
    return inline_requests_.load(std::memory_order_acquire) >= io_threads;
  };
  uint64_t finished_before = inline_finished_.load(std::memory_order_acquire);
  std::unique_lock<std::mutex> lock(rescue_mutex_);
  while (!rescue_stop_) {
    rescue_wake_.wait_for(lock, kRescuePoll);
    if (rescue_stop_) break;
    const uint64_t finished = inline_finished_.load(std::memory_order_acquire);
    const bool rescue = stuck() && finished == finished_before;
    finished_before = finished;
    if (!rescue) continue;
    counters_.rescues.fetch_add(1, std::memory_order_relaxed);
    lock.unlock();
    while (stuck() && !io_.stopped()) io_.run_for(kRescuePoll);
    lock.lock();
    finished_before = inline_finished_.load(std::memory_order_acquire);
  }
}

HttpServer::HttpServer(HttpServerOptions options, std::vector<Route> routes,
                       ErrorResponder error_responder)
    : impl_(std::make_unique<Impl>(std::move(options), std::move(routes),
                                   std::move(error_responder))) {}
HttpServer::~HttpServer() = default;
absl::StatusOr<int> HttpServer::Listen() { return impl_->Listen(); }
absl::Status HttpServer::Run() { return impl_->Run(); }
void HttpServer::Shutdown(absl::Duration drain) { impl_->Shutdown(drain); }
HttpServerCounters HttpServer::counters() const { return impl_->counters(); }

}  // namespace bef::serving

