#include "kube/websocket.h"

#include <openssl/rand.h>
#include <openssl/sha.h>

#include <cctype>

#include "base/text.h"
#include "kube/base64.h"

namespace kube::ws {

namespace {

base::Error protocol_error(std::string message) {
  auto e = base::make_error(base::ErrorKind::Failed, "WebSocket protocol error: " + std::move(message));
  e.reason = "WebSocketProtocol";
  return e;
}

bool has_token(std::string_view list, std::string_view token) {
  std::string l = base::to_lower(list);
  std::string t = base::to_lower(token);
  std::size_t start = 0;
  while (start <= l.size()) {
    std::size_t comma = l.find(',', start);
    if (comma == std::string::npos) comma = l.size();
    if (base::trim(std::string_view(l).substr(start, comma - start)) == t) return true;
    start = comma + 1;
  }
  return false;
}

}  // namespace

std::string accept_key(std::string_view key) {
  std::string s(key);
  s += "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";
  unsigned char digest[SHA_DIGEST_LENGTH];
  SHA1(reinterpret_cast<const unsigned char*>(s.data()), s.size(), digest);
  return base64_encode(std::string_view(reinterpret_cast<const char*>(digest), sizeof digest));
}

std::string new_key() {
  unsigned char raw[16];
  RAND_bytes(raw, sizeof raw);
  return base64_encode(std::string_view(reinterpret_cast<const char*>(raw), sizeof raw));
}

std::string upgrade_request(std::string_view host, std::string_view path, std::string_view key,
                            std::string_view protocol, const std::vector<std::string>& extra_headers) {
  std::string r;
  r.append("GET ").append(path).append(" HTTP/1.1\r\n");
  r.append("Host: ").append(host).append("\r\n");
  r.append("Upgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n");
  r.append("Sec-WebSocket-Key: ").append(key).append("\r\n");
  r.append("Sec-WebSocket-Protocol: ").append(protocol).append("\r\n");
  for (const auto& h : extra_headers) r.append(h).append("\r\n");
  r.append("\r\n");
  return r;
}

std::optional<base::Result<UpgradeResponse>> parse_upgrade_response(std::string_view data) {
  std::size_t end = data.find("\r\n\r\n");
  if (end == std::string_view::npos) {
    if (data.size() > 64 * 1024) return base::Result<UpgradeResponse>(protocol_error("answer headers too long"));
    return std::nullopt;
  }
  UpgradeResponse r;
  r.header_size = end + 4;
  std::string_view head = data.substr(0, end);
  std::size_t eol = head.find("\r\n");
  std::string_view status_line = head.substr(0, eol);
  if (status_line.substr(0, 7) != "HTTP/1." || status_line.size() < 12 || status_line[8] != ' ') {
    return base::Result<UpgradeResponse>(protocol_error("not an HTTP/1.1 answer"));
  }
  int code = 0;
  for (std::size_t i = 9; i < 12; ++i) {
    if (!std::isdigit(static_cast<unsigned char>(status_line[i]))) {
      return base::Result<UpgradeResponse>(protocol_error("bad HTTP status line"));
    }
    code = code * 10 + (status_line[i] - '0');
  }
  r.status = code;
  while (eol != std::string_view::npos) {
    std::size_t start = eol + 2;
    eol = head.find("\r\n", start);
    std::string_view line = head.substr(start, eol == std::string_view::npos ? std::string_view::npos : eol - start);
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) continue;
    std::string name = base::to_lower(base::trim(line.substr(0, colon)));
    std::string value = base::trim(line.substr(colon + 1));
    auto [it, inserted] = r.headers.emplace(name, value);
    if (!inserted) it->second += ", " + value;
  }
  return base::Result<UpgradeResponse>(std::move(r));
}

std::string check_upgrade(const UpgradeResponse& r, std::string_view key, std::string_view protocol) {
  auto get = [&](const char* name) {
    auto it = r.headers.find(name);
    return it == r.headers.end() ? std::string() : it->second;
  };
  if (r.status != 101) return "the server answered " + std::to_string(r.status) + " instead of 101";
  if (!has_token(get("upgrade"), "websocket")) return "the answer does not upgrade to websocket";
  if (!has_token(get("connection"), "upgrade")) return "the answer lacks Connection: Upgrade";
  if (get("sec-websocket-accept") != accept_key(key)) return "the answer's Sec-WebSocket-Accept does not match";
  if (get("sec-websocket-protocol") != protocol) {
    return "the server chose subprotocol \"" + get("sec-websocket-protocol") + "\", not \"" + std::string(protocol) +
           "\"";
  }
  return {};
}

std::string encode_frame(Opcode op, std::string_view payload, std::array<std::uint8_t, 4> mask) {
  std::string f;
  f.reserve(payload.size() + 14);
  f.push_back(static_cast<char>(0x80 | static_cast<std::uint8_t>(op)));
  std::uint64_t n = payload.size();
  if (n < 126) {
    f.push_back(static_cast<char>(0x80 | n));
  } else if (n <= 0xFFFF) {
    f.push_back(static_cast<char>(0x80 | 126));
    f.push_back(static_cast<char>((n >> 8) & 0xFF));
    f.push_back(static_cast<char>(n & 0xFF));
  } else {
    f.push_back(static_cast<char>(0x80 | 127));
    for (int i = 7; i >= 0; --i) f.push_back(static_cast<char>((n >> (8 * i)) & 0xFF));
  }
  for (auto b : mask) f.push_back(static_cast<char>(b));
  std::size_t base = f.size();
  f.append(payload);
  for (std::size_t i = 0; i < payload.size(); ++i) f[base + i] = static_cast<char>(f[base + i] ^ mask[i % 4]);
  return f;
}

std::string encode_frame(Opcode op, std::string_view payload) {
  std::array<std::uint8_t, 4> mask{};
  RAND_bytes(mask.data(), static_cast<int>(mask.size()));
  return encode_frame(op, payload, mask);
}

std::optional<base::Result<Frame>> Decoder::next() {
  for (;;) {
    std::string_view b = std::string_view(buf_).substr(pos_);
    if (b.size() < 2) break;
    auto b0 = static_cast<std::uint8_t>(b[0]);
    auto b1 = static_cast<std::uint8_t>(b[1]);
    bool fin = (b0 & 0x80) != 0;
    auto op = static_cast<Opcode>(b0 & 0x0F);
    if ((b0 & 0x70) != 0) return base::Result<Frame>(protocol_error("reserved bits set"));
    if ((b1 & 0x80) != 0) return base::Result<Frame>(protocol_error("the server masked a frame"));
    std::uint64_t len = b1 & 0x7F;
    std::size_t head = 2;
    if (len == 126) {
      if (b.size() < 4) break;
      len = (static_cast<std::uint64_t>(static_cast<std::uint8_t>(b[2])) << 8) | static_cast<std::uint8_t>(b[3]);
      head = 4;
    } else if (len == 127) {
      if (b.size() < 10) break;
      len = 0;
      for (int i = 0; i < 8; ++i) len = (len << 8) | static_cast<std::uint8_t>(b[2 + i]);
      head = 10;
    }
    bool control = (static_cast<std::uint8_t>(op) & 0x08) != 0;
    if (control && (!fin || len > 125)) return base::Result<Frame>(protocol_error("bad control frame"));
    if (len > max_message_ || partial_.size() + len > max_message_) {
      return base::Result<Frame>(protocol_error("message larger than " + std::to_string(max_message_) + " bytes"));
    }
    if (b.size() < head + len) break;
    std::string_view payload = b.substr(head, static_cast<std::size_t>(len));
    pos_ += head + static_cast<std::size_t>(len);
    if (control) {
      Frame f{op, std::string(payload)};
      return base::Result<Frame>(std::move(f));
    }
    if (op == Opcode::Continuation) {
      if (!partial_op_) return base::Result<Frame>(protocol_error("continuation without a message"));
    } else if (op == Opcode::Text || op == Opcode::Binary) {
      if (partial_op_) return base::Result<Frame>(protocol_error("new message inside a fragmented one"));
      partial_op_ = op;
    } else {
      return base::Result<Frame>(protocol_error("unknown opcode " + std::to_string(static_cast<int>(op))));
    }
    partial_.append(payload);
    if (fin) {
      Frame f{*partial_op_, std::move(partial_)};
      partial_.clear();
      partial_op_.reset();
      return base::Result<Frame>(std::move(f));
    }
  }
  // Drop consumed bytes now and then so the buffer does not grow.
  if (pos_ > 0 && (pos_ == buf_.size() || pos_ > 64 * 1024)) {
    buf_.erase(0, pos_);
    pos_ = 0;
  }
  return std::nullopt;
}

}  // namespace kube::ws
