// The receiving half of one curl transfer, the same for the Kubernetes and
// the S3 client: where the body goes, which headers are kept, and how a
// reader stops a stream.
#pragma once

#include <cstddef>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <string_view>

namespace http {

using DataReader = std::function<bool(std::string_view)>;

class Receiver {
 public:
  // With a reader, a 2xx body is handed to it piece by piece (false from it
  // ends the transfer: curl then reports a write error, which `stopped`
  // explains); any other answer, and every answer without a reader, is
  // collected in body(), of which at most `body_limit` bytes are kept.
  explicit Receiver(const DataReader* reader = nullptr,
                    std::size_t body_limit = std::numeric_limits<std::size_t>::max());

  // Points the curl handle's write and header callbacks at this object,
  // which must outlive the transfer.
  void attach(void* curl);

  std::string& body() { return body_; }
  // The headers of the last response (a 100 Continue or a redirect before it
  // is forgotten), by lower-case name; "" when absent.
  const std::string& header(const std::string& lower_name) const;
  std::map<std::string, std::string>& headers() { return headers_; }
  bool streaming() const { return streaming_; }  // the answer went to the reader
  bool stopped() const { return stopped_; }      // the reader said stop

  // What the curl callbacks do, without curl: one header line as received
  // (CRLF included), and a piece of body of an answer with HTTP `status`
  // (read only for the first piece). take_body returns the bytes taken, 0
  // when the reader said stop.
  void take_header(std::string_view line);
  std::size_t take_body(std::string_view data, long status);

 private:
  static std::size_t on_write(char* data, std::size_t size, std::size_t n, void* self);
  static std::size_t on_header(char* data, std::size_t size, std::size_t n, void* self);

  const DataReader* reader_;
  std::size_t body_limit_;
  void* curl_ = nullptr;
  bool checked_ = false;
  bool streaming_ = false;
  bool stopped_ = false;
  std::string body_;
  std::map<std::string, std::string> headers_;
};

// Sets the request method; with send_body, the body too (not copied: it must
// outlive the transfer).
void set_method(void* curl, const std::string& method, std::string_view body, bool send_body);

}  // namespace http
