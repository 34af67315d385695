#include "serve/connections.h"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>

namespace focal {
namespace serve {
namespace {

using Clock = std::chrono::steady_clock;

thread_local bool close_requested = false;

int milliseconds_until(Clock::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left > 1000000 ? 1000000 : left);
}

// poll() for `events` until `deadline`: true when ready.
bool wait_for(int fd, short events, Clock::time_point deadline) {
  while (true) {
    pollfd p{fd, events, 0};
    const int ready = ::poll(&p, 1, milliseconds_until(deadline));
    if (ready > 0) return true;
    if (ready == 0 || errno != EINTR) return false;
  }
}

void address_of(int fd, bool peer, std::string& ip, int& port) {
  sockaddr_storage address{};
  socklen_t length = sizeof address;
  const int got = peer ? ::getpeername(fd, reinterpret_cast<sockaddr*>(&address), &length)
                       : ::getsockname(fd, reinterpret_cast<sockaddr*>(&address), &length);
  if (got != 0) return;
  char text[INET6_ADDRSTRLEN] = "";
  if (address.ss_family == AF_INET) {
    const auto* a = reinterpret_cast<const sockaddr_in*>(&address);
    ::inet_ntop(AF_INET, &a->sin_addr, text, sizeof text);
    port = ntohs(a->sin_port);
  } else if (address.ss_family == AF_INET6) {
    const auto* a = reinterpret_cast<const sockaddr_in6*>(&address);
    ::inet_ntop(AF_INET6, &a->sin6_addr, text, sizeof text);
    port = ntohs(a->sin6_port);
  }
  ip = text;
}

// One request's view of the connection: reads end at the request's deadline or once its
// byte budget is spent (httplib then answers 400 or stops); each write has its own timeout.
class BoundedStream final : public httplib::Stream {
 public:
  BoundedStream(int fd, Clock::time_point deadline, size_t budget, std::chrono::seconds write_timeout)
      : fd_(fd), deadline_(deadline), budget_(budget), write_timeout_(write_timeout) {}

  bool is_readable() const override { return wait_for(fd_, POLLIN, deadline_); }
  bool is_writable() const override { return wait_for(fd_, POLLOUT, Clock::now() + write_timeout_); }

  ssize_t read(char* ptr, size_t size) override {
    if (budget_ == 0 || !wait_for(fd_, POLLIN, deadline_)) return -1;
    if (size > budget_) size = budget_;
    ssize_t n;
    do n = ::recv(fd_, ptr, size, 0);
    while (n < 0 && errno == EINTR);
    if (n > 0) budget_ -= static_cast<size_t>(n);
    return n;
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    ssize_t n;
    do n = ::send(fd_, ptr, size, MSG_NOSIGNAL);
    while (n < 0 && errno == EINTR);
    return n;
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override { address_of(fd_, true, ip, port); }
  void get_local_ip_and_port(std::string& ip, int& port) const override { address_of(fd_, false, ip, port); }
  socket_t socket() const override { return fd_; }

 private:
  int fd_;
  Clock::time_point deadline_;
  size_t budget_;
  std::chrono::seconds write_timeout_;
};

// Closes after sending what was written, reading (and dropping) a little of what the
// client still sends, so the answer is not lost to a reset.
void close_gracefully(int fd) {
  ::shutdown(fd, SHUT_WR);
  char drop[4096];
  const auto until = Clock::now() + std::chrono::milliseconds(200);
  for (int i = 0; i < 16 && wait_for(fd, POLLIN, until); ++i) {
    if (::recv(fd, drop, sizeof drop, 0) <= 0) break;
  }
  ::close(fd);
}

}  // namespace

void HttpServer::close_after_answer() { close_requested = true; }

int HttpServer::bind(const std::string& host, int port) {
  if (port == 0) return bind_to_any_port(host);
  return bind_to_port(host, port) ? port : -1;
}

void HttpServer::serve(const ConnectionLimits& limits) {
  limits_ = limits;
  running_ = true;
  // httplib listened with its compiled-in backlog of 5: a burst of clients overflows it.
  ::listen(svr_sock_, static_cast<int>(limits_.pending < 4096 ? limits_.pending + limits_.threads : 4096));
  for (size_t i = 0; i < limits_.threads; ++i) threads_.emplace_back(&HttpServer::worker, this);
  accept_loop();
  {
    std::lock_guard<std::mutex> lock(mutex_);
    running_ = false;
  }
  arrived_.notify_all();
  for (std::thread& t : threads_) t.join();
  threads_.clear();
  for (int fd : pending_) refuse(fd);
  pending_.clear();
}

void HttpServer::halt() {
  running_ = false;
  const socket_t sock = svr_sock_.exchange(INVALID_SOCKET);
  if (sock != INVALID_SOCKET) {
    ::shutdown(sock, SHUT_RDWR);
    ::close(sock);
  }
  arrived_.notify_all();
}

void HttpServer::accept_loop() {
  while (running_) {
    const int listening = svr_sock_;
    if (listening == INVALID_SOCKET) break;
    pollfd p{listening, POLLIN, 0};
    if (::poll(&p, 1, 100) <= 0) continue;  // checks running_ ten times a second
    const int fd = ::accept4(listening, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EMFILE || errno == ENFILE) std::this_thread::sleep_for(std::chrono::milliseconds(10));
      continue;
    }
    const int on = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &on, sizeof on);  // head and body go as written
    std::unique_lock<std::mutex> lock(mutex_);
    if (pending_.size() >= limits_.pending) {
      lock.unlock();
      refuse(fd);
      continue;
    }
    pending_.push_back(fd);
    lock.unlock();
    arrived_.notify_one();
  }
}

void HttpServer::refuse(int fd) {
  if (refused_counter_ != nullptr) refused_counter_->fetch_add(1);
  static const std::string kBody =
      "{\"error\":{\"message\":\"every connection thread is busy and the connection queue is full\","
      "\"type\":\"server_busy\",\"code\":\"connections_full\"}}\n";
  static const std::string kBusy =
      "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nRetry-After: 1\r\n"
      "Connection: close\r\nContent-Length: " + std::to_string(kBody.size()) + "\r\n\r\n" + kBody;
  (void)!::send(fd, kBusy.data(), kBusy.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
  ::close(fd);
}

void HttpServer::worker() {
  while (true) {
    int fd = -1;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      arrived_.wait(lock, [&] { return !pending_.empty() || !running_; });
      if (pending_.empty()) return;
      fd = pending_.front();
      pending_.pop_front();
    }
    serve_connection(fd);
  }
}

bool HttpServer::wait_for_request(int fd) {
  const auto until = Clock::now() + limits_.keep_alive;
  while (running_ && Clock::now() < until) {  // in slices, so a stop closes idle connections at once
    if (wait_for(fd, POLLIN, std::min(until, Clock::now() + std::chrono::milliseconds(100)))) return true;
  }
  return false;
}

void HttpServer::serve_connection(int fd) {
  for (size_t n = 0; n < limits_.keep_alive_requests && running_; ++n) {
    if (n > 0 && !wait_for_request(fd)) break;  // idle past the keep-alive timeout, or stopping
    BoundedStream stream(fd, Clock::now() + limits_.request_timeout, limits_.max_request_bytes, limits_.write_timeout);
    bool closed = false;
    close_requested = false;
    const bool last = n + 1 == limits_.keep_alive_requests || !running_;
    if (!process_request(stream, last, closed, nullptr) || closed || close_requested) break;
  }
  close_gracefully(fd);
}

}  // namespace serve
}  // namespace focal
