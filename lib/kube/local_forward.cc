#include "kube/local_forward.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace kube {

namespace {

base::Error sys_error(const std::string& what) {
  return base::make_error(base::ErrorKind::Failed, what + ": " + std::strerror(errno));
}

}  // namespace

base::Result<std::unique_ptr<LocalForward>> LocalForward::start(std::shared_ptr<Transport> transport, std::string ns,
                                                               std::string pod, std::uint16_t port,
                                                               std::chrono::milliseconds ready_timeout) {
  std::unique_ptr<LocalForward> f(new LocalForward());
  f->transport_ = std::move(transport);
  f->ns_ = std::move(ns);
  f->pod_ = std::move(pod);
  f->port_ = port;
  f->ready_timeout_ = ready_timeout;

  auto first = PortForward::open(*f->transport_, f->ns_, f->pod_, port, ready_timeout);
  if (!first) return std::move(first).error();
  f->spare_ = std::move(first.value());

  f->stop_fd_ = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (f->stop_fd_ < 0) return sys_error("eventfd");
  f->listen_fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (f->listen_fd_ < 0) return sys_error("socket");
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = 0;
  if (::bind(f->listen_fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) return sys_error("bind 127.0.0.1");
  if (::listen(f->listen_fd_, 16) != 0) return sys_error("listen");
  socklen_t len = sizeof addr;
  if (::getsockname(f->listen_fd_, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return sys_error("getsockname");
  f->local_port_ = ntohs(addr.sin_port);
  f->acceptor_ = std::thread([p = f.get()] { p->accept_loop(); });
  return f;
}

LocalForward::~LocalForward() {
  if (stop_fd_ >= 0) {
    std::uint64_t one = 1;
    (void)!::write(stop_fd_, &one, sizeof one);
  }
  if (acceptor_.joinable()) acceptor_.join();
  {
    std::lock_guard lock(mu_);
    // Unblocks a pump stuck writing to its local side.
    for (auto& c : conns_) ::shutdown(c.fd, SHUT_RDWR);
  }
  for (auto& c : conns_) {
    if (c.thread.joinable()) c.thread.join();
    ::close(c.fd);
  }
  conns_.clear();
  spare_.reset();
  if (listen_fd_ >= 0) ::close(listen_fd_);
  if (stop_fd_ >= 0) ::close(stop_fd_);
}

std::string LocalForward::address() const { return "127.0.0.1:" + std::to_string(local_port_); }

void LocalForward::accept_loop() {
  for (;;) {
    pollfd fds[2] = {{listen_fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    int rc = ::poll(fds, 2, -1);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return;
    }
    if (fds[1].revents != 0) return;
    if ((fds[0].revents & POLLIN) == 0) continue;
    int fd = ::accept4(listen_fd_, nullptr, nullptr, SOCK_CLOEXEC);
    if (fd < 0) continue;
    std::lock_guard lock(mu_);
    // Finished connections are reaped here, so a long run does not pile them up.
    for (auto it = conns_.begin(); it != conns_.end();) {
      if (it->done.load()) {
        it->thread.join();
        ::close(it->fd);
        it = conns_.erase(it);
      } else {
        ++it;
      }
    }
    Conn& c = conns_.emplace_back();
    c.fd = fd;
    std::unique_ptr<PortForward> spare = std::move(spare_);
    c.thread = std::thread([this, &c, spare = std::move(spare)]() mutable {
      serve(c.fd, std::move(spare));
      c.done.store(true);
    });
  }
}

void LocalForward::serve(int fd, std::unique_ptr<PortForward> forward) {
  if (!forward) {
    auto opened = PortForward::open(*transport_, ns_, pod_, port_, ready_timeout_);
    if (!opened) {
      // The dialler sees its connection closed; gRPC reports the member unreachable.
      ::shutdown(fd, SHUT_RDWR);
      return;
    }
    forward = std::move(opened.value());
  }
  (void)forward->pump(fd, stop_fd_);
  ::shutdown(fd, SHUT_RDWR);
}

base::Result<std::string> PortForwards::address(const std::string& ns, const std::string& pod, std::uint16_t port) {
  std::shared_ptr<Slot> slot;
  {
    std::lock_guard lock(mu_);
    auto& s = slots_[ns + "/" + pod + ":" + std::to_string(port)];
    if (!s) s = std::make_shared<Slot>();
    slot = s;
  }
  // One start per pod; callers for other pods go on meanwhile.
  std::lock_guard lock(slot->mu);
  if (!slot->forward) {
    auto f = LocalForward::start(transport_, ns, pod, port, ready_timeout_);
    if (!f) return std::move(f).error();
    slot->forward = std::move(f.value());
  }
  return slot->forward->address();
}

std::function<base::Result<std::string>(const std::string&)> PortForwards::dialer(
    std::shared_ptr<PortForwards> forwards, std::string ns, std::map<std::string, std::string> pod_by_url,
    std::uint16_t port) {
  return [forwards = std::move(forwards), ns = std::move(ns), pods = std::move(pod_by_url),
          port](const std::string& url) -> base::Result<std::string> {
    auto it = pods.find(url);
    if (it == pods.end()) {
      return base::make_error(base::ErrorKind::CannotConnect, "no pod behind this endpoint to port-forward to",
                             "endpoint \"" + url + "\"", "use --connect direct where pod IPs are reachable");
    }
    return forwards->address(ns, it->second, port);
  };
}

}  // namespace kube
