#include "kube/port_forward.h"

#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include <nlohmann/json.hpp>

#include "base/json_at.h"
#include "kube/status_error.h"

namespace kube {

namespace {

using Clock = std::chrono::steady_clock;
using base::ErrorKind;

int remaining_ms(Clock::time_point deadline) {
  auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  return left <= 0 ? 0 : static_cast<int>(left);
}

bool wait_fd(int fd, short events, Clock::time_point deadline) {
  pollfd p{fd, events, 0};
  int rc;
  do {
    rc = ::poll(&p, 1, remaining_ms(deadline));
  } while (rc < 0 && errno == EINTR);
  return rc > 0;
}

bool send_all_local(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::send(fd, data.data(), data.size(), MSG_NOSIGNAL);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

}  // namespace

base::Error port_forward_error(int http_status, std::string_view body, const std::string& ns, const std::string& pod) {
  RequestContext ctx{"create", resources::pods, ns, pod, "portforward"};
  base::Error e = status_error(http_status, body, ctx);
  const std::string object = resources::pods.describe(ns, pod);
  // The apiserver answers with a Status; a kubelet's refusal comes through
  // as the kubelet wrote it (plain text).
  auto status = nlohmann::json::parse(body, nullptr, false);
  bool from_apiserver = status.is_object() && base::string_at(status, "/kind") == "Status";
  std::string message = from_apiserver ? base::string_at(status, "/message") : base::fold_line(body);
  while (!message.empty() && message.back() == ' ') message.pop_back();
  auto explained = [&](std::string what, std::string reason, std::string hint) {
    base::Error x = base::make_error(base::ErrorKind::CannotConnect, std::move(what), object, std::move(hint));
    x.reason = std::move(reason);
    x.status = http_status;
    return x;
  };
  if (http_status == 403) {
    // The upgrade is a GET, which the apiserver authorizes as "get" and,
    // since 1.35, as "create" too.
    e.hint = "the user needs RBAC \"create\" and \"get\" on \"pods/portforward\" in namespace \"" + ns +
             "\"; or use --connect direct where the pod IPs are reachable";
    return e;
  }
  if (message.find("does not have a host assigned") != std::string::npos) {
    return explained("cannot port-forward: the pod is not running (no node assigned)", "PodNotRunning",
                     "wait until the pod runs, or check why it is not scheduled");
  }
  if (http_status == 404 && from_apiserver) {
    e.kind = ErrorKind::NotFound;  // the pod itself is gone
    return e;
  }
  if (http_status == 404) {
    return explained("cannot port-forward: the pod's kubelet does not run it (" + message + ")", "PodNotRunning",
                     "check that the pod is running");
  }
  if (!from_apiserver && message.find("not running") != std::string::npos) {
    return explained("cannot port-forward: " + message, "PodNotRunning", "wait until the pod runs");
  }
  if (http_status >= 500) {
    return explained("cannot port-forward: the apiserver could not reach the pod's kubelet (HTTP " +
                         std::to_string(http_status) + "): " + message,
                     "KubeletUnreachable", "check the pod's node and its kubelet");
  }
  return e;
}

base::Result<std::unique_ptr<PortForward>> PortForward::open(Transport& transport, const std::string& ns,
                                                            const std::string& pod, std::uint16_t port,
                                                            std::chrono::milliseconds timeout) {
  const auto start = Clock::now();
  const auto deadline = start + timeout;
  const std::string object = resources::pods.describe(ns, pod);
  std::string path = resources::pods.path(ns, pod, "portforward") + "?ports=" + std::to_string(port);
  auto log = [&](int status, std::string error) {
    transport.log_request({"GET", path, status,
                           std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - start),
                           std::move(error)});
  };
  auto timed_out = [&](const char* what) {
    auto e = base::make_error(ErrorKind::CannotConnect,
                             std::string("port-forward not ready within ") + std::to_string(timeout.count() / 1000) +
                                 " s (" + what + ")",
                             object, "check the pod's kubelet, or use --connect direct where pod IPs are reachable");
    e.reason = "Timeout";
    log(0, e.message);
    return e;
  };

  auto raw = transport.connect_raw(timeout);
  if (!raw) {
    log(0, raw.error().message);
    return std::move(raw).error();
  }
  std::unique_ptr<PortForward> f(new PortForward(std::move(raw.value()), port, object));
  RawConnection& conn = *f->conn_;

  const std::string key = ws::new_key();
  std::string request = ws::upgrade_request(conn.host(), conn.path_prefix() + path, key, pf::kProtocol, conn.headers());
  if (auto st = f->queue(std::move(request)); !st) return std::move(st).error();
  while (f->out_pos_ < f->out_.size() || !f->later_.empty()) {
    if (!wait_fd(conn.socket(), POLLOUT, deadline)) return timed_out("sending the upgrade");
    if (auto st = f->flush(); !st) return std::move(st).error();
  }
  // The request carried the token: do not keep it around.
  std::fill(f->out_.begin(), f->out_.end(), '\0');
  f->out_.clear();
  f->out_pos_ = 0;

  std::string head;
  std::optional<base::Result<ws::UpgradeResponse>> parsed;
  char buf[16384];
  while (!(parsed = ws::parse_upgrade_response(head))) {
    bool closed = false;
    auto n = conn.recv(buf, sizeof buf, &closed);
    if (!n) return std::move(n).error();
    if (closed) {
      auto e = base::make_error(ErrorKind::CannotConnect, "the apiserver closed the connection before answering", object);
      log(0, e.message);
      return e;
    }
    if (*n == 0) {
      if (!wait_fd(conn.socket(), POLLIN, deadline)) return timed_out("waiting for the upgrade answer");
      continue;
    }
    head.append(buf, *n);
  }
  if (!*parsed) return std::move(*parsed).error();
  ws::UpgradeResponse resp = std::move(parsed->value());
  if (resp.status != 101) {
    // The body of the refusal: up to Content-Length, or what comes before
    // the server closes, bounded by the deadline.
    std::string body = head.substr(resp.header_size);
    std::size_t want = std::string::npos;
    if (auto it = resp.headers.find("content-length"); it != resp.headers.end()) {
      want = static_cast<std::size_t>(std::strtoull(it->second.c_str(), nullptr, 10));
    }
    while (body.size() < want && body.size() < 64 * 1024) {
      bool closed = false;
      auto n = conn.recv(buf, sizeof buf, &closed);
      if (!n || closed) break;
      if (*n == 0) {
        if (!wait_fd(conn.socket(), POLLIN, deadline)) break;
        continue;
      }
      body.append(buf, *n);
    }
    log(resp.status, {});
    return port_forward_error(resp.status, body, ns, pod);
  }
  if (auto problem = ws::check_upgrade(resp, key, pf::kProtocol); !problem.empty()) {
    log(resp.status, problem);
    return base::make_error(ErrorKind::CannotConnect, "port-forward upgrade failed: " + problem, object);
  }
  log(resp.status, {});
  f->decoder_.feed(std::string_view(head).substr(resp.header_size));
  // Up once the kubelet announced the port on both channels.
  for (;;) {
    auto more = f->read_available();
    if (!more) return std::move(more).error();
    if (!f->error_text_.empty()) return f->kubelet_error(f->error_text_);
    if (f->demux_.ready()) break;
    if (!*more) {
      return base::make_error(ErrorKind::CannotConnect, "the port-forward closed before it was ready", object,
                             "check the pod's kubelet");
    }
    if (!wait_fd(conn.socket(), POLLIN, deadline)) return timed_out("waiting for the kubelet");
  }
  return f;
}

base::Error PortForward::kubelet_error(std::string text) const {
  auto e = base::make_error(ErrorKind::CannotConnect, "port-forward failed: " + base::fold_line(text), object_,
                           "check that the member listens on its client port");
  e.reason = "PortForwardFailed";
  return e;
}

base::Status PortForward::queue(std::string frame) {
  later_.append(frame);
  return flush();
}

// A write TLS could not finish must be retried with the same buffer, so
// out_ never changes while it is being sent; new frames wait in later_.
base::Status PortForward::flush() {
  for (;;) {
    if (out_pos_ == out_.size()) {
      if (later_.empty()) return {};
      out_.swap(later_);
      later_.clear();
      out_pos_ = 0;
    }
    auto n = conn_->send(std::string_view(out_).substr(out_pos_));
    if (!n) return std::move(n).error();
    if (*n == 0) return {};
    out_pos_ += *n;
  }
}

base::Result<bool> PortForward::read_available() {
  char buf[65536];
  for (;;) {
    bool closed = false;
    auto n = conn_->recv(buf, sizeof buf, &closed);
    if (!n) return std::move(n).error();
    if (closed) closed_by_server_ = true;
    if (*n > 0) decoder_.feed(std::string_view(buf, *n));
    while (auto frame = decoder_.next()) {
      if (!*frame) return std::move(*frame).error();
      ws::Frame& fr = frame->value();
      switch (fr.opcode) {
        case ws::Opcode::Binary: {
          auto d = demux_.take(fr.payload);
          if (!d) return std::move(d).error();
          if (d->channel == pf::kDataChannel) {
            to_local_.append(d->payload);
          } else {
            error_text_.append(d->payload);
          }
          break;
        }
        case ws::Opcode::Ping:
          if (auto st = queue(ws::encode_frame(ws::Opcode::Pong, fr.payload)); !st) return std::move(st).error();
          break;
        case ws::Opcode::Close:
          closed_by_server_ = true;
          break;
        default:
          break;  // text and pong: nothing in this protocol
      }
    }
    // Until curl says "again": TLS may hold decrypted bytes the socket's
    // readiness does not show.
    if (closed_by_server_) return false;
    if (*n == 0) return true;
  }
}

base::Status PortForward::pump(int local, int stop_fd) {
  bool local_open = true;
  char buf[32768];
  for (;;) {
    auto more = read_available();
    if (!more) return std::move(more).error();
    if (!to_local_.empty()) {
      if (!send_all_local(local, to_local_)) return {};  // the local side went away
      to_local_.clear();
    }
    if (!error_text_.empty()) return kubelet_error(error_text_);
    if (!*more) return {};
    if (auto st = flush(); !st) return std::move(st).error();
    bool pending = out_pos_ < out_.size() || !later_.empty();
    pollfd fds[3] = {{conn_->socket(), static_cast<short>(POLLIN | (pending ? POLLOUT : 0)), 0},
                     {local, static_cast<short>(local_open && !pending ? POLLIN : 0), 0},
                     {stop_fd, POLLIN, 0}};
    int rc = ::poll(fds, 3, -1);
    if (rc < 0) {
      if (errno == EINTR) continue;
      return base::make_error(ErrorKind::Failed, std::string("poll: ") + std::strerror(errno), object_);
    }
    if (fds[2].revents != 0) return {};
    if ((fds[1].revents & (POLLIN | POLLHUP | POLLERR)) != 0) {
      ssize_t n = ::recv(local, buf, sizeof buf, 0);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        // The local client is done: say goodbye; the kubelet closes the pod side.
        local_open = false;
        (void)queue(ws::encode_frame(ws::Opcode::Close, std::string("\x03\xe8", 2)));
        return {};
      }
      if (auto st = queue(ws::encode_frame(ws::Opcode::Binary, pf::data_message(std::string_view(buf, static_cast<std::size_t>(n)))));
          !st) {
        return std::move(st).error();
      }
    }
  }
}

}  // namespace kube
