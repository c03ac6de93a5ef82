// One forwarded connection to a pod's port through the apiserver's
// pods/portforward subresource: a WebSocket (subprotocol v4.channel.k8s.io,
// `GET .../pods/<pod>/portforward?ports=<port>`) over a RawConnection of the
// client's own Transport, so authentication, TLS, tls-server-name, the
// server URL's path prefix and the proxy are exactly those of every other
// request. The apiserver hands the stream to the pod's kubelet, which
// connects it to the port inside the pod.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "base/result.h"
#include "kube/channel_demux.h"
#include "kube/transport.h"
#include "kube/websocket.h"

namespace kube {

// A refused upgrade explained: 403 names the verb and resource (create
// pods/portforward), a pod without a node is "not running", a 5xx or a
// kubelet's refusal means the kubelet could not be reached or would not
// forward.
base::Error port_forward_error(int http_status, std::string_view body, const std::string& ns, const std::string& pod);

class PortForward {
 public:
  // Opens the forward and waits until it is up (the upgrade accepted and
  // both channels announced the port), at most `timeout`.
  static base::Result<std::unique_ptr<PortForward>> open(Transport& transport, const std::string& ns,
                                                        const std::string& pod, std::uint16_t port,
                                                        std::chrono::milliseconds timeout);

  // Moves bytes between the connected socket `local` and the pod until one
  // side closes (ok), the forward fails (its error, with what the kubelet
  // said on the error channel), or `stop_fd` becomes readable (ok).
  base::Status pump(int local, int stop_fd);

  const std::string& object() const { return object_; }

 private:
  PortForward(std::unique_ptr<RawConnection> conn, std::uint16_t port, std::string object)
      : conn_(std::move(conn)), demux_(port), object_(std::move(object)) {}
  // Reads what is there (never blocks); false when the server closed.
  base::Result<bool> read_available();
  // Queues a frame and sends what the socket takes now.
  base::Status queue(std::string frame);
  base::Status flush();
  base::Error kubelet_error(std::string text) const;

  std::unique_ptr<RawConnection> conn_;
  ws::Decoder decoder_;
  pf::Demux demux_;
  std::string object_;
  std::string out_;  // frames being taken by the socket
  std::size_t out_pos_ = 0;
  std::string later_;  // frames queued behind out_
  std::string to_local_;  // data-channel bytes for the local side
  std::string error_text_;
  bool closed_by_server_ = false;
};

}  // namespace kube
