// HttpSession: one connection of the HTTP/1.1 front end (http_server.h).
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/uio.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <optional>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "boost/asio/dispatch.hpp"
#include "boost/asio/post.hpp"
#include "boost/asio/write.hpp"
#include "boost/beast/http.hpp"
#include "tools/serving/http_server_internal.h"

namespace bef::serving {

namespace http = boost::beast::http;

namespace {

constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
// A body read directly (Session::ReadBodyDirectly) grows by at most as much
// as has arrived (at least kDirectReadMinimum), and at most
// kDirectReadBytes, per read.
constexpr size_t kDirectReadMinimum = 16 << 10;
constexpr size_t kDirectReadBytes = 256 << 10;
// How often the disconnect watch looks at a client whose unread bytes
// already fill the header buffer.
constexpr std::chrono::milliseconds kWatchPoll(50);

// Whether `text` has a control character (a percent-decoded NUL, a CR).
bool HasControlCharacter(std::string_view text) {
  return std::any_of(text.begin(), text.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 || c == 0x7f;
  });
}

}  // namespace

// One connection: waits for a request, reads its header, admits it, reads
// its body, runs its handler, writes the response, and again while the
// connection is kept alive. Every step runs on the connection's strand.
class HttpSession : public std::enable_shared_from_this<HttpSession> {
 public:
  HttpSession(HttpServer::Impl& server, StrandSocket socket)
      : server_(server),
        stream_(std::move(socket)),
        buffer_(server.options().max_header_bytes + 4096),
        watch_timer_(stream_.get_executor()),
        idle_timer_(stream_.get_executor()) {}
  ~HttpSession() { server_.Unregister(this); }

  void Start() {
    server_.Register(this, weak_from_this());
    net::dispatch(stream_.get_executor(),
                  [self = shared_from_this()] { self->WaitForRequest(); });
  }

  Strand executor() { return stream_.get_executor(); }

  // On the strand: Shutdown began.
  void OnDrain() {
    if (state_ == State::kIdle || state_ == State::kHeader) {
      Close();
    } else {
      close_after_response_ = true;
    }
  }

 private:
  enum class State { kIdle, kHeader, kBody, kHandling, kWriting, kClosed };

  void WaitForRequest() {
    if (server_.draining()) return Close();
    state_ = State::kIdle;
    skipped_line_bytes_ = 0;
    if (buffer_.size() > 0) return ReadHeader();  // pipelined bytes
    // The idle deadline moves with each request; its timer is armed only
    // when none is (a keep-alive client's next request costs no timer
    // operation): it fires at the deadline it was armed for and looks.
    idle_deadline_ = std::chrono::steady_clock::now() + ToChrono(server_.options().idle_timeout);
    if (!idle_timer_armed_) ArmIdleTimer();
    stream_.expires_never();
    stream_.async_read_some(
        buffer_.prepare(1024),
        [self = shared_from_this()](beast::error_code error, size_t bytes) {
          if (error) return self->OnReadError(error);
          self->buffer_.commit(bytes);
          self->ReadHeader();
        });
  }

  void ArmIdleTimer() {
    idle_timer_armed_ = true;
    idle_timer_.expires_at(idle_deadline_);
    idle_timer_.async_wait([self = shared_from_this()](beast::error_code error) {
      self->idle_timer_armed_ = false;
      if (error || self->state_ != State::kIdle) return;  // cancelled, or busy
      if (std::chrono::steady_clock::now() < self->idle_deadline_) return self->ArmIdleTimer();
      // Still waiting for a request at its deadline: the read ends.
      self->server_.CountTimeout();
      self->Close();
    });
  }

  void ReadHeader() {
    if (server_.draining()) return Close();
    state_ = State::kHeader;
    request_.path.clear();
    stream_.expires_after(ToChrono(server_.options().header_timeout));
    ParseHeader();
  }

  // Empty lines before a request line are skipped (RFC 9112 2.2), at most
  // max_header_bytes of them, within the header's deadline.
  bool SkipEmptyLines() {
    size_t skip = 0;
    auto bytes = static_cast<const char*>(buffer_.data().data());
    while (skip < buffer_.size() && (bytes[skip] == '\r' || bytes[skip] == '\n')) ++skip;
    buffer_.consume(skip);
    skipped_line_bytes_ += skip;
    return skip > 0;
  }

  void ParseHeader() {
    if (SkipEmptyLines() && buffer_.size() == 0) {
      if (skipped_line_bytes_ > server_.options().max_header_bytes) {
        return RespondAndClose(ErrorFor(400, "too many empty lines before the request line"));
      }
      stream_.async_read_some(buffer_.prepare(1024),
                              [self = shared_from_this()](beast::error_code error, size_t bytes) {
                                if (error) return self->OnReadError(error);
                                self->buffer_.commit(bytes);
                                self->ParseHeader();
                              });
      return;
    }
    parser_.emplace();
    parser_->header_limit(static_cast<uint32_t>(server_.options().max_header_bytes));
    parser_->body_limit(server_.options().max_body_bytes);
    if (buffer_.size() > 0) {
      // A whole header already read (a keep-alive client's usual request)
      // is parsed here, as the read below would, without its round trip.
      beast::error_code error;
      buffer_.consume(parser_->put(buffer_.data(), error));
      if (!error && parser_->is_header_done()) return OnHeader();
      if (error && error != http::error::need_more) return OnReadError(error);
    }
    http::async_read_header(
        stream_, buffer_, *parser_,
        [self = shared_from_this()](beast::error_code error, size_t) {
          if (error) return self->OnReadError(error);
          self->OnHeader();
        });
  }

  // The front end's answer for what it refuses itself; `path` is empty
  // before the request line is read.
  HttpResponse ErrorFor(int status, std::string_view message) {
    return server_.Error(status, message, request_.path);
  }

  void OnReadError(beast::error_code error) {
    if (error == beast::error::timeout) {
      server_.CountTimeout();
      return Close();
    }
    if (error == http::error::header_limit || error == http::error::buffer_overflow) {
      return RespondAndClose(ErrorFor(
          431, absl::StrCat("the request header is larger than ",
                            server_.options().max_header_bytes, " bytes")));
    }
    if (error == http::error::body_limit) {
      return RespondAndClose(ErrorFor(
          413, absl::StrCat("the body is larger than ", server_.options().max_body_bytes,
                            " bytes")));
    }
    if (error == http::error::bad_content_length) {
      return RespondAndClose(ErrorFor(400, "bad or conflicting Content-Length"));
    }
    if (error == http::error::end_of_stream || error == net::error::eof ||
        error == net::error::operation_aborted || error == net::error::connection_reset ||
        error == http::error::partial_message) {
      return Close();
    }
    if (error.category() == http::make_error_code(http::error::bad_target).category()) {
      return RespondAndClose(ErrorFor(400, absl::StrCat("malformed HTTP request (",
                                                             error.message(), ")")));
    }
    Close();
  }

  void OnHeader() {
    http::request<http::string_body>& request = parser_->get();
    std::string_view target(request.target().data(), request.target().size());
    request_.method = std::string(request.method_string());
    request_.path = std::string(target.substr(0, target.find('?')));
    request_.body.clear();
    request_.headers.clear();
    for (const auto& field : request) {
      request_.headers.emplace_back(absl::AsciiStrToLower(std::string(field.name_string())),
                                    std::string(field.value()));
    }

    route_ = nullptr;
    std::vector<std::string> allowed;
    std::vector<std::string> captures;
    // HEAD is GET without the body (health probes, monitoring).
    head_ = request_.method == "HEAD";
    const std::string& method = head_ ? kGet : request_.method;
    const PathSegments path = Segments(request_.path);
    for (size_t r = 0; r < server_.routes().size(); ++r) {
      const Route& route = server_.routes()[r];
      if (!MatchPath(server_.route_segments()[r], path, &captures)) continue;
      if (route.method == method) {
        route_ = &route;
        request_.captures = std::move(captures);
        break;
      }
      if (std::find(allowed.begin(), allowed.end(), route.method) == allowed.end()) {
        allowed.push_back(route.method);
      }
    }
    if (route_ == nullptr && !allowed.empty()) {
      HttpResponse response = ErrorFor(
          405, absl::StrCat("method ", request_.method, " is not allowed on ", request_.path));
      response.headers.emplace_back("Allow", absl::StrJoin(allowed, ", "));
      return RespondAndClose(std::move(response));
    }
    if (route_ == nullptr) {
      return RespondAndClose(ErrorFor(404, absl::StrCat("no such endpoint: ", request_.path)));
    }
    for (const std::string& capture : request_.captures) {
      if (HasControlCharacter(capture)) {
        return RespondAndClose(
            ErrorFor(400, "a name in the path has a control character (a NUL, a CR, ...)"));
      }
    }
    // Framing by RFC 9112: what a server and a proxy in front of it could
    // read differently is refused, and the connection closed.
    size_t hosts = 0, transfer_codings = 0, content_codings = 0;
    bool only_chunked = true;
    absl::string_view content_coding;
    for (const auto& [name, value] : request_.headers) {
      if (name == "host") {
        ++hosts;
      } else if (name == "transfer-encoding") {
        for (absl::string_view coding : absl::StrSplit(value, ',')) {
          ++transfer_codings;
          only_chunked &= absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(coding), "chunked");
        }
      } else if (name == "content-encoding") {
        ++content_codings;
        content_coding = value;
      }
    }
    const bool http11 = request.version() >= 11;
    if (transfer_codings > 0) {
      if (!only_chunked || transfer_codings > 1) {
        return RespondAndClose(ErrorFor(
            501, "unsupported Transfer-Encoding (only one final 'chunked' is taken)"));
      }
      if (!http11 || parser_->content_length().has_value()) {
        return RespondAndClose(ErrorFor(
            400, http11 ? "Transfer-Encoding and Content-Length together"
                        : "Transfer-Encoding in an HTTP/1.0 request"));
      }
    }
    if (http11 && hosts != 1) {
      return RespondAndClose(
          ErrorFor(400, "an HTTP/1.1 request needs exactly one Host header"));
    }
    if (hosts > 1) return RespondAndClose(ErrorFor(400, "Host given more than once"));
    // Bodies are taken as sent: a coded one (gzip, ...) is refused, never
    // parsed as if it were plain.
    if (content_codings > 1 ||
        (content_codings == 1 &&
         !absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(content_coding), "identity"))) {
      return RespondAndClose(ErrorFor(
          415, content_codings > 1
                   ? std::string("Content-Encoding given more than once (send the body uncoded)")
                   : absl::StrCat("unsupported Content-Encoding '", std::string(content_coding.data(), content_coding.size()),
                                  "' (send the body uncoded)")));
    }
    bool has_body = parser_->chunked() || parser_->content_length().has_value();
    // A route that takes no body reads at most a little of one.
    const bool takes_body = route_->takes_body && method != kGet;
    if (!takes_body) {
      if (parser_->content_length().value_or(0) > kMaxIgnoredBodyBytes) {
        return RespondAndClose(ErrorFor(
            413, absl::StrCat(request_.method, " ", request_.path, " takes no body (at most ",
                              kMaxIgnoredBodyBytes, " bytes of one)")));
      }
      parser_->body_limit(kMaxIgnoredBodyBytes);
    }
    if ((request_.method == "POST" || request_.method == "PUT") && route_->takes_body) {
      if (!has_body) {
        return RespondAndClose(
            ErrorFor(411, "a request body needs Content-Length or chunked encoding"));
      }
    }
    if (has_body) {
      auto content_type = request.find(http::field::content_type);
      if (content_type != request.end() && !route_->media_types.empty()) {
        std::string media_type(content_type->value().data(), content_type->value().size());
        media_type = media_type.substr(0, media_type.find(';'));
        media_type = absl::AsciiStrToLower(absl::StripAsciiWhitespace(media_type));
        const std::vector<std::string>& taken = route_->media_types;
        if (std::find(taken.begin(), taken.end(), media_type) == taken.end()) {
          return RespondAndClose(ErrorFor(
              415, absl::StrCat("unsupported media type '", media_type, "' (takes ",
                                absl::StrJoin(taken, ", "), ")")));
        }
      }
    }
    keep_alive_ = request.keep_alive();

    // 100-continue is HTTP/1.1's: an HTTP/1.0 client's Expect is ignored.
    auto expect = request.find(http::field::expect);
    if (http11 && expect != request.end() && beast::iequals(expect->value(), "100-continue") &&
        !parser_->is_done()) {
      state_ = State::kBody;
      stream_.expires_after(ToChrono(server_.options().write_timeout));
      net::async_write(stream_, net::buffer(kContinue.data(), kContinue.size()),
                       [self = shared_from_this()](beast::error_code error, size_t) {
                         if (error) return self->Abandon();
                         self->ReadBody();
                       });
      return;
    }
    ReadBody();
  }

  void ReadBody() {
    state_ = State::kBody;
    if (parser_->is_done()) return OnParsedRequest();
    // A body of known length at least kDirectBodyBytes long is read
    // straight into the request's string: not through the header buffer
    // (whose size bounds each of Beast's reads) and the parser's copy. Its
    // bytes hold the server's body budget as they arrive.
    auto length = parser_->content_length();  // boost::optional
    if (length && !parser_->chunked() && *length >= kDirectBodyBytes) {
      // (The header's bytes are consumed; what follows them is body.)
      size_t have = std::min<size_t>(buffer_.size(), *length);
      if (!body_reservation_.Grow(server_.body_budget(), have)) return RefuseBodyBytes();
      request_.body.assign(static_cast<const char*>(buffer_.data().data()), have);
      buffer_.consume(have);
      body_length_ = *length;
      stream_.expires_after(ToChrono(server_.options().body_timeout));
      return ReadBodyDirectly();
    }
    if (buffer_.size() > 0) {
      // The body (or its start) came with the header: parsed here.
      beast::error_code error;
      parser_->eager(true);
      buffer_.consume(parser_->put(buffer_.data(), error));
      if (error && error != http::error::need_more) return OnReadError(error);
      if (parser_->is_done()) return OnParsedRequest();
    }
    stream_.expires_after(ToChrono(server_.options().body_timeout));
    http::async_read(stream_, buffer_, *parser_,
                     [self = shared_from_this()](beast::error_code error, size_t) {
                       if (error) return self->OnReadError(error);
                       self->OnParsedRequest();
                     });
  }

  // The body budget is spent: 503 at once (the request is dropped).
  void RefuseBodyBytes() {
    body_reservation_.Release();
    request_.body = std::string();
    HttpResponse response = ErrorFor(
        503, absl::StrCat("the server holds its limit of ", server_.body_budget().limit(),
                          " bytes of request bodies being read; try again"));
    response.headers.emplace_back("Retry-After", "1");
    RespondAndClose(std::move(response));
  }

  // Reads the rest of a body of body_length_ bytes into request_.body, a
  // socket read at a time; the string grows by at most as much as has
  // arrived (kDirectReadMinimum at first, kDirectReadBytes at most) ahead
  // of what arrived, and each growth holds the body budget first: a client
  // that announces a large body and sends little holds little.
  void ReadBodyDirectly() {
    std::string& body = request_.body;
    if (body.size() == body_length_) {
      parser_.reset();
      return OnRequest();
    }
    size_t start = body.size();
    size_t room = std::min({body_length_ - start, kDirectReadBytes,
                            std::max(kDirectReadMinimum, start)});
    if (start + room > body_reservation_.bytes() &&
        !body_reservation_.Grow(server_.body_budget(), start + room - body_reservation_.bytes())) {
      return RefuseBodyBytes();
    }
    body.resize(start + room);
    stream_.async_read_some(
        net::buffer(body.data() + start, room),
        [self = shared_from_this(), start](beast::error_code error, size_t bytes) {
          self->request_.body.resize(start + bytes);
          if (error) {
            self->request_.body = std::string();
            self->body_reservation_.Release();
            // A client gone before the end sent a partial message.
            return self->OnReadError(error == net::error::eof
                                         ? beast::error_code(http::error::partial_message)
                                         : error);
          }
          self->ReadBodyDirectly();
        });
  }

  // The parser read the whole request: its body is the request's.
  void OnParsedRequest() {
    request_.body = std::move(parser_->get().body());
    parser_.reset();
    OnRequest();
  }

  void OnRequest() {
    state_ = State::kHandling;
    if (route_->work == RouteWork::kInline) {
      HttpResponse response = route_->handler(request_);
      ReleaseBody();
      return Respond(std::move(response));
    }
    if (route_->work == RouteWork::kOffload) {
      server_.RunOffloaded([self = shared_from_this()] {
        HttpResponse response = self->route_->handler(self->request_);
        net::post(self->stream_.get_executor(),
                  [self, response = std::move(response)]() mutable {
                    self->ReleaseBody();
                    self->Respond(std::move(response));
                  });
      });
      return;
    }
    // Admitted once the whole body is here (a body still arriving holds no
    // slot), until the answer is written (a slow reader holds its own).
    if (!server_.AdmitWorkerRequest()) {
      ReleaseBody();
      HttpResponse response = ErrorFor(
          503, absl::StrCat("the server is at its limit of ",
                            server_.options().max_concurrent_requests,
                            " concurrent requests; try again"));
      response.headers.emplace_back("Retry-After", "1");
      return RespondAndClose(std::move(response));
    }
    admitted_ = true;
    // Only a small body: decoding a large one (and encoding its answer)
    // costs milliseconds however short the run, and would hold the I/O
    // thread that long.
    if (request_.body.size() <= kMaxInlineBodyBytes && route_->run_inline_when &&
        route_->run_inline_when(request_) && server_.EnterInline()) {
      // Known short: run here, on this I/O thread (the connection's strand),
      // without the two thread hand-offs of a worker. Nothing else runs on
      // the strand meanwhile, so the handler learns of a client that leaves
      // by looking at the socket (HttpRequest::ClientGone).
      stream_.expires_never();
      request_.peek_socket = stream_.socket().native_handle();
      HttpResponse response = route_->handler(request_);
      request_.peek_socket = -1;
      ReleaseBody();
      server_.LeaveInline();
      return Respond(std::move(response));
    }
    // A worker's run learns of a client that leaves from the I/O thread,
    // which keeps reading (WatchForDisconnect).
    request_.client_gone = std::make_shared<std::atomic<bool>>(false);
    server_.RunOnWorker([self = shared_from_this()] {
      HttpResponse response = self->route_->handler(self->request_);
      net::post(self->stream_.get_executor(),
                [self, response = std::move(response)]() mutable {
                  self->ReleaseBody();
                  self->Respond(std::move(response));
                });
    });
    WatchForDisconnect();
  }

  // The request's body is done with: its memory and budget go back.
  void ReleaseBody() {
    request_.body = std::string();
    body_reservation_.Release();
  }

  // While a worker handles the request, waits for the socket to become
  // readable, then looks (PeekPeer): the client's end of stream or a failed
  // socket sets client_gone; bytes to read (a pipelined request, a stray
  // CRLF) are read into the buffer for the next request and the watch goes
  // on, so a client that sends a byte and leaves is still seen to leave;
  // nothing to read after all (a readiness that was not, or no longer,
  // true) waits again. Once unread bytes fill the header buffer, the socket
  // is looked at every kWatchPoll instead.
  void WatchForDisconnect() {
    stream_.expires_never();
    watching_ = true;
    if (buffer_.size() >= server_.options().max_header_bytes) {
      watch_timer_.expires_after(kWatchPoll);
      watch_timer_.async_wait(
          [self = shared_from_this(), gone = request_.client_gone](beast::error_code error) {
            if (gone != self->request_.client_gone) return;
            self->watching_ = false;
            if (error || self->state_ != State::kHandling) return;
            if (PeekPeer(self->stream_.socket().native_handle()) == PeerState::kGone) {
              gone->store(true, std::memory_order_release);
              return;
            }
            self->WatchForDisconnect();
          });
      return;
    }
    stream_.socket().async_wait(
        tcp::socket::wait_read,
        [self = shared_from_this(), gone = request_.client_gone](beast::error_code error) {
          // A wait of an earlier request, ended late: not this request's.
          if (gone != self->request_.client_gone) return;
          self->watching_ = false;
          if (error == net::error::operation_aborted || self->state_ != State::kHandling) return;
          if (!error) {
            switch (PeekPeer(self->stream_.socket().native_handle())) {
              case PeerState::kThere:
                return self->ReadWhileWatching();
              case PeerState::kNothingYet:
                return self->WatchForDisconnect();
              case PeerState::kGone:
                break;
            }
          }
          gone->store(true, std::memory_order_release);
        });
  }

  // Reads what the client sent after its request into the buffer (through
  // watch_bytes_: the buffer's own room may be prepared by the next read).
  void ReadWhileWatching() {
    watching_ = true;
    const size_t room = server_.options().max_header_bytes - buffer_.size();
    stream_.socket().async_read_some(
        net::buffer(watch_bytes_.data(), std::min(room, watch_bytes_.size())),
        [self = shared_from_this(), gone = request_.client_gone](beast::error_code error,
                                                                 size_t bytes) {
          // The bytes are the next request's, whoever's watch this was.
          self->buffer_.commit(
              net::buffer_copy(self->buffer_.prepare(bytes), net::buffer(self->watch_bytes_, bytes)));
          if (gone != self->request_.client_gone) return;
          self->watching_ = false;
          if (error == net::error::operation_aborted || self->state_ != State::kHandling) return;
          if (error) {
            gone->store(true, std::memory_order_release);  // end of stream, or a reset
            return;
          }
          self->WatchForDisconnect();
        });
  }

  void ReleaseAdmission() {
    if (admitted_) server_.FinishWorkerRequest();
    admitted_ = false;
  }

  // For answers given before the request was read to its end: the rest of
  // what the client sends is read and dropped for a moment after the
  // response (a "lingering close", as nginx does), so that closing with
  // unread bytes does not reset the connection before the client has read
  // its answer.
  void RespondAndClose(HttpResponse response) {
    keep_alive_ = false;
    linger_ = true;
    Respond(std::move(response));
  }

  void LingeringClose() {
    if (state_ == State::kClosed) return;
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.expires_after(std::chrono::seconds(2));
    DropInput();
  }

  void DropInput() {
    buffer_.consume(buffer_.size());
    stream_.async_read_some(buffer_.prepare(16 << 10),
                            [self = shared_from_this()](beast::error_code error, size_t) {
                              if (error) return self->Close();
                              self->DropInput();
                            });
  }

  void Respond(HttpResponse answer) {
    if (state_ == State::kClosed) {
      ReleaseBody();
      ReleaseAdmission();
      return;  // (the answer's reservation goes with it)
    }
    state_ = State::kWriting;
    request_.client_gone.reset();
    // Nothing pending on the socket (no disconnect watch was cancelled
    // below): the answer may be written at once, without an operation.
    const bool socket_idle = !watching_;
    if (watching_) {
      // The disconnect watch is the only operation pending on the socket.
      beast::error_code ignored;
      stream_.socket().cancel(ignored);
      watch_timer_.cancel();
      watching_ = false;
    }
    ReleaseBody();
    response_reservation_ = std::move(answer.reservation);
    if (server_.draining()) close_after_response_ = true;
    bool keep_alive = keep_alive_ && !close_after_response_;
    // The status line and header as text, the body after it: one gather
    // write, no serializer (what Beast's would write, byte for byte).
    const auto standard_reason = http::obsolete_reason(static_cast<http::status>(answer.status));
    std::string_view reason = answer.status == 499
                                  ? std::string_view("Client Closed Request")
                                  : std::string_view(standard_reason.data(), standard_reason.size());
    response_header_.clear();
    absl::StrAppend(&response_header_, "HTTP/1.1 ", answer.status, " ");
    response_header_.append(reason);
    absl::StrAppend(&response_header_, "\r\nServer: bef_serve\r\nContent-Type: ",
                    answer.content_type, "\r\n");
    for (const auto& [name, value] : answer.headers) {
      absl::StrAppend(&response_header_, name, ": ", value, "\r\n");
    }
    if (!keep_alive) response_header_.append("Connection: close\r\n");
    // A HEAD answer has the GET answer's headers, Content-Length included,
    // without its body.
    absl::StrAppend(&response_header_, "Content-Length: ", answer.body.size(), "\r\n\r\n");
    response_body_ = head_ ? std::string() : std::move(answer.body);
    std::array<net::const_buffer, 2> buffers = {net::buffer(response_header_),
                                                net::buffer(response_body_)};
    size_t written = 0;
    if (socket_idle) {
      // What the socket's send buffer takes now (a small answer: all of
      // it), as nginx writes: no write operation, timer or hand-off
      // through the strand for an answer the kernel takes at once.
      iovec parts[2] = {{response_header_.data(), response_header_.size()},
                        {response_body_.data(), response_body_.size()}};
      msghdr message{};
      message.msg_iov = parts;
      message.msg_iovlen = response_body_.empty() ? 1 : 2;
      const ssize_t sent =
          ::sendmsg(stream_.socket().native_handle(), &message, MSG_DONTWAIT | MSG_NOSIGNAL);
      if (sent < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
        return Written(keep_alive, /*failed=*/true, /*timed_out=*/false);
      }
      written = sent > 0 ? static_cast<size_t>(sent) : 0;
      if (written == response_header_.size() + response_body_.size()) {
        return Written(keep_alive, /*failed=*/false, /*timed_out=*/false);
      }
    }
    // The rest when the socket takes it, within the write timeout.
    const size_t from_header = std::min(written, response_header_.size());
    buffers[0] += from_header;
    buffers[1] += written - from_header;
    stream_.expires_after(ToChrono(server_.options().write_timeout));
    net::async_write(stream_, buffers,
                     [self = shared_from_this(), keep_alive](beast::error_code error, size_t) {
                       self->Written(keep_alive, error.failed(), error == beast::error::timeout);
                     });
  }

  // The answer is written (or its write failed): the answer's bytes and
  // its slot go back; the connection waits for the next request, or closes.
  void Written(bool keep_alive, bool failed, bool timed_out) {
    response_body_ = std::string();
    response_reservation_.Release();
    ReleaseAdmission();
    if (failed) {
      if (timed_out) server_.CountTimeout();
      return Close();
    }
    if (!keep_alive) return linger_ ? LingeringClose() : Close();
    if (buffer_.size() > 0) {
      // A pipelined request: from the strand's queue, not deeper on this
      // stack (a client's pipeline of thousands would nest each one).
      net::post(stream_.get_executor(), [self = shared_from_this()] { self->WaitForRequest(); });
      return;
    }
    WaitForRequest();
  }

  // The peer went away mid-request.
  void Abandon() {
    ReleaseAdmission();
    Close();
  }

  void Close() {
    if (state_ == State::kClosed) return;
    const bool handling = state_ == State::kHandling;
    state_ = State::kClosed;
    // What a request held goes back with its connection -- unless a worker
    // still handles it: its Respond, coming to a closed session, does it.
    if (!handling) {
      ReleaseBody();
      response_body_ = std::string();
      response_reservation_.Release();
      ReleaseAdmission();
    }
    beast::error_code ignored;
    stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
    stream_.cancel();
    stream_.close();
    idle_timer_.cancel();  // (its handler holds the session)
  }

  HttpServer::Impl& server_;
  StrandStream stream_;
  beast::flat_buffer buffer_;
  net::steady_timer watch_timer_;  // the disconnect watch's polls
  // The wait for a request's deadline, and the timer that enforces it
  // (WaitForRequest, ArmIdleTimer).
  std::chrono::steady_clock::time_point idle_deadline_;
  net::steady_timer idle_timer_;
  bool idle_timer_armed_ = false;
  std::array<char, 4096> watch_bytes_;
  size_t skipped_line_bytes_ = 0;  // empty lines skipped before this request
  ByteBudget::Reservation body_reservation_;      // the body being read
  ByteBudget::Reservation response_reservation_;  // the answer being written
  std::optional<http::request_parser<http::string_body>> parser_;
  size_t body_length_ = 0;  // of a body read directly (ReadBodyDirectly)
  std::string response_header_;  // the response being written: status line and header
  std::string response_body_;    // and its body
  HttpRequest request_;
  const Route* route_ = nullptr;
  State state_ = State::kIdle;
  bool keep_alive_ = true;
  bool close_after_response_ = false;
  bool admitted_ = false;
  bool linger_ = false;
  bool watching_ = false;  // WatchForDisconnect's wait is pending
  bool head_ = false;      // the request is a HEAD
  static inline const std::string kGet = "GET";
};

void StartSession(HttpServer::Impl& server, StrandSocket socket) {
  std::make_shared<HttpSession>(server, std::move(socket))->Start();
}

void DrainSession(std::shared_ptr<HttpSession> session) {
  auto executor = session->executor();  // before the lambda takes `session`
  net::post(executor, [session = std::move(session)] { session->OnDrain(); });
}

}  // namespace bef::serving
