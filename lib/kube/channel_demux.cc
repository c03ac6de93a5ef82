#include "kube/channel_demux.h"

namespace kube::pf {

std::string data_message(std::string_view payload) {
  std::string m;
  m.reserve(payload.size() + 1);
  m.push_back(static_cast<char>(kDataChannel));
  m.append(payload);
  return m;
}

base::Result<Delivery> Demux::take(std::string_view message) {
  if (message.empty()) return Delivery{kDataChannel, {}};
  auto channel = static_cast<std::uint8_t>(message[0]);
  if (channel > kErrorChannel) {
    return base::make_error(base::ErrorKind::Failed,
                           "port-forward protocol error: message on unknown channel " + std::to_string(channel));
  }
  message.remove_prefix(1);
  // The prefix may in principle arrive split over messages.
  while (seen_[channel] < 2 && !message.empty()) {
    prefix_[channel][seen_[channel]++] = static_cast<std::uint8_t>(message[0]);
    message.remove_prefix(1);
    if (seen_[channel] == 2) {
      auto port = static_cast<std::uint16_t>(prefix_[channel][0] | (prefix_[channel][1] << 8));
      if (port != port_) {
        return base::make_error(base::ErrorKind::Failed, "port-forward protocol error: channel " +
                                                           std::to_string(channel) + " announced port " +
                                                           std::to_string(port) + ", not " + std::to_string(port_));
      }
    }
  }
  return Delivery{channel, message};
}

}  // namespace kube::pf
