// The v4.channel.k8s.io framing of a port-forward (one port): every binary
// WebSocket message starts with a channel byte (0 data, 1 error for the
// first port); the first two bytes the server sends on each channel are the
// port number (little endian), everything after is payload. What the client
// sends on channel 0 goes to the pod as it is.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "base/result.h"

namespace kube::pf {

inline constexpr const char* kProtocol = "v4.channel.k8s.io";
inline constexpr std::uint8_t kDataChannel = 0;
inline constexpr std::uint8_t kErrorChannel = 1;

// The payload of one client message on the data channel.
std::string data_message(std::string_view payload);

// What one server message carried, after the port prefix was taken off.
struct Delivery {
  std::uint8_t channel = 0;
  std::string_view payload;  // into the message; may be empty
};

class Demux {
 public:
  explicit Demux(std::uint16_t port) : port_(port) {}
  // An error for a message on an unknown channel or a port prefix naming
  // another port.
  base::Result<Delivery> take(std::string_view message);
  // Both channels have announced their port: the forward is up.
  bool ready() const { return seen_[0] == 2 && seen_[1] == 2; }

 private:
  std::uint16_t port_;
  std::uint8_t seen_[2] = {0, 0};  // prefix bytes seen per channel
  std::uint8_t prefix_[2][2] = {{0, 0}, {0, 0}};
};

}  // namespace kube::pf
