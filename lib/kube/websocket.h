// The pure part of RFC 6455 WebSocket as a client speaks it: the HTTP/1.1
// upgrade request and the check of the server's answer, frames encoded
// (client frames are always masked) and decoded incrementally. No I/O here:
// the port-forward stream (port_forward.h) moves the bytes.
//
// Why by hand: libcurl 7.88 (Debian 12) has no WebSocket support, and the
// connection must be the very one lib/kube already configures (CA, client
// certificate or token, tls-server-name, proxy, path prefix). libcurl's
// CONNECT_ONLY mode gives exactly that connection, TLS done, and the few
// parts of RFC 6455 a port-forward needs fit in this small unit; a second
// stack (Boost.Beast over Asio) would have to be configured from the
// kubeconfig all over again.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kube::ws {

enum class Opcode : std::uint8_t {
  Continuation = 0x0,
  Text = 0x1,
  Binary = 0x2,
  Close = 0x8,
  Ping = 0x9,
  Pong = 0xA,
};

struct Frame {
  Opcode opcode = Opcode::Binary;
  std::string payload;
};

// The Sec-WebSocket-Accept value the server must answer for `key`.
std::string accept_key(std::string_view key);
// A fresh random Sec-WebSocket-Key (16 random bytes, base64).
std::string new_key();

// "GET <path> HTTP/1.1" with Host, the upgrade headers, the subprotocol and
// `extra_headers` (each "Name: value", CRLF added).
std::string upgrade_request(std::string_view host, std::string_view path, std::string_view key,
                            std::string_view protocol, const std::vector<std::string>& extra_headers);

struct UpgradeResponse {
  int status = 0;
  std::map<std::string, std::string> headers;  // names lowercased
  std::size_t header_size = 0;  // bytes of the status line and headers, blank line included
};

// nullopt while the header block is incomplete; an error for something that
// is not an HTTP/1.x answer.
std::optional<base::Result<UpgradeResponse>> parse_upgrade_response(std::string_view data);

// For a 101 answer: Upgrade/Connection, the accept key and the subprotocol
// are as asked; "" when they are, else what is wrong.
std::string check_upgrade(const UpgradeResponse& r, std::string_view key, std::string_view protocol);

// One unfragmented client frame, masked with `mask`.
std::string encode_frame(Opcode op, std::string_view payload, std::array<std::uint8_t, 4> mask);
// The same with a random mask.
std::string encode_frame(Opcode op, std::string_view payload);

// Frames from the server in the order they arrive, fragmented data
// messages put back together; control frames come out as they arrive.
class Decoder {
 public:
  explicit Decoder(std::size_t max_message = 64u << 20) : max_message_(max_message) {}
  void feed(std::string_view data) { buf_.append(data); }
  // nullopt: more bytes needed. An error: the stream is not valid WebSocket
  // (a masked server frame, an oversized message, a bad continuation).
  std::optional<base::Result<Frame>> next();

 private:
  std::string buf_;
  std::size_t pos_ = 0;
  std::size_t max_message_;
  std::optional<Opcode> partial_op_;
  std::string partial_;
};

}  // namespace kube::ws
