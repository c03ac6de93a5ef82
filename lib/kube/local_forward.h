// Port-forward as a local address a gRPC channel can dial: a listener on
// 127.0.0.1 (a port the kernel picks) per pod, each accepted connection
// forwarded through its own PortForward. One thread accepts; one thread per
// connection pumps. Destruction stops everything: the listener is closed,
// every connection is shut down, every thread joined.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <thread>

#include "base/result.h"
#include "kube/port_forward.h"
#include "kube/transport.h"

namespace kube {

class LocalForward {
 public:
  // Listens and proves the forward with a first PortForward (kept for the
  // first connection) within `ready_timeout`, or answers why it cannot.
  static base::Result<std::unique_ptr<LocalForward>> start(std::shared_ptr<Transport> transport, std::string ns,
                                                         std::string pod, std::uint16_t port,
                                                         std::chrono::milliseconds ready_timeout);
  ~LocalForward();
  LocalForward(const LocalForward&) = delete;
  LocalForward& operator=(const LocalForward&) = delete;

  // "127.0.0.1:PORT".
  std::string address() const;

 private:
  LocalForward() = default;
  void accept_loop();
  void serve(int fd, std::unique_ptr<PortForward> forward);

  struct Conn {
    int fd = -1;
    std::thread thread;
    std::atomic<bool> done{false};
  };

  std::shared_ptr<Transport> transport_;
  std::string ns_, pod_;
  std::uint16_t port_ = 0;
  std::chrono::milliseconds ready_timeout_{10000};
  int listen_fd_ = -1;
  int stop_fd_ = -1;  // eventfd: readable once stopping
  std::uint16_t local_port_ = 0;
  std::thread acceptor_;
  std::mutex mu_;
  std::unique_ptr<PortForward> spare_;  // the proven first forward
  std::list<Conn> conns_;
};

// The forwards of one run, one per pod and port, started on first use and
// kept until the set is destroyed. Thread-safe.
class PortForwards {
 public:
  explicit PortForwards(std::shared_ptr<Transport> transport,
                        std::chrono::milliseconds ready_timeout = std::chrono::seconds(10))
      : transport_(std::move(transport)), ready_timeout_(ready_timeout) {}

  // The local address forwarding to ns/pod:port.
  base::Result<std::string> address(const std::string& ns, const std::string& pod, std::uint16_t port);

  // A function from an endpoint URL to the local address to dial instead,
  // for the endpoints of `pod_by_url` (URL -> pod name in `ns`).
  static std::function<base::Result<std::string>(const std::string&)> dialer(
      std::shared_ptr<PortForwards> forwards, std::string ns, std::map<std::string, std::string> pod_by_url,
      std::uint16_t port);

 private:
  struct Slot {
    std::mutex mu;
    std::unique_ptr<LocalForward> forward;
  };
  std::shared_ptr<Transport> transport_;
  std::chrono::milliseconds ready_timeout_;
  std::mutex mu_;
  std::map<std::string, std::shared_ptr<Slot>> slots_;
};

}  // namespace kube
