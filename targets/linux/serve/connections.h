// focal serve's own connection loop around cpp-httplib's request processing. httplib
// 0.11.4 (Debian's) reads a request with a timeout per read only, so a client sending a
// byte every few seconds holds a connection thread forever (slowloris), and it bounds
// neither the number of header lines nor a header line before it is read whole. Here
// every connection is a Stream of ours: a request must arrive whole within the request
// timeout and within a byte budget (head + the body limit), whatever its pace. Accepted
// connections wait in a bounded list for a fixed set of connection threads; one more is
// answered 503 and closed at once. The routes stay httplib's (Server::process_request).
#pragma once

#include <httplib.h>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

namespace focal {
namespace serve {

struct ConnectionLimits {
  size_t threads = 8;          // connections served at once
  size_t pending = 64;         // accepted connections waiting for a thread; more: 503
  std::chrono::seconds request_timeout{10};  // a whole request (line, headers, body) arrives within it
  std::chrono::seconds write_timeout{10};    // each write of an answer
  std::chrono::seconds keep_alive{5};        // idle wait for a connection's next request
  size_t keep_alive_requests = 100;          // requests on one connection at most
  size_t max_request_bytes = (1 << 20) + (64 << 10);  // head and body of one request
};

// Bytes of a request's line and headers at most (the body has its own limit).
constexpr size_t kMaxRequestHeadBytes = 64 << 10;

class HttpServer : public httplib::Server {
 public:
  // Binds `host`:`port` (0: any free port). The port bound, or -1.
  int bind(const std::string& host, int port);
  // Serves until halt(): returns once every connection thread is done.
  void serve(const ConnectionLimits& limits);
  // From any thread (the signal thread): stops accepting, closes idle connections.
  void halt();

  // Connections answered 503 because the list was full are counted there too.
  void count_refusals_in(std::atomic<uint64_t>* counter) { refused_counter_ = counter; }
  // Marks the connection of the request being answered on this thread for closing after
  // the answer (a refusal that leaves the body unread).
  static void close_after_answer();

 private:
  void accept_loop();
  void worker();
  void serve_connection(int fd);
  bool wait_for_request(int fd);
  void refuse(int fd);

  ConnectionLimits limits_;
  std::atomic<bool> running_{false};
  std::atomic<uint64_t>* refused_counter_ = nullptr;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<int> pending_;
  std::vector<std::thread> threads_;
};

}  // namespace serve
}  // namespace focal
