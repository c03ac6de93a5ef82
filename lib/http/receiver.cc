#include "http/receiver.h"

#include <curl/curl.h>

#include "base/text.h"

namespace http {

Receiver::Receiver(const DataReader* reader, std::size_t body_limit) : reader_(reader), body_limit_(body_limit) {}

void Receiver::attach(void* curl) {
  curl_ = curl;
  CURL* c = static_cast<CURL*>(curl);
  curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &Receiver::on_write);
  curl_easy_setopt(c, CURLOPT_WRITEDATA, this);
  curl_easy_setopt(c, CURLOPT_HEADERFUNCTION, &Receiver::on_header);
  curl_easy_setopt(c, CURLOPT_HEADERDATA, this);
}

const std::string& Receiver::header(const std::string& lower_name) const {
  static const std::string none;
  auto it = headers_.find(lower_name);
  return it == headers_.end() ? none : it->second;
}

std::size_t Receiver::on_write(char* data, std::size_t size, std::size_t n, void* self) {
  auto* r = static_cast<Receiver*>(self);
  long status = 0;
  if (r->reader_ != nullptr && *r->reader_ && !r->checked_) {
    curl_easy_getinfo(static_cast<CURL*>(r->curl_), CURLINFO_RESPONSE_CODE, &status);
  }
  return r->take_body(std::string_view(data, size * n), status);
}

std::size_t Receiver::on_header(char* data, std::size_t size, std::size_t n, void* self) {
  static_cast<Receiver*>(self)->take_header(std::string_view(data, size * n));
  return size * n;
}

std::size_t Receiver::take_body(std::string_view data, long status) {
  if (reader_ != nullptr && *reader_ && !checked_) {
    streaming_ = status >= 200 && status < 300;
    checked_ = true;
  }
  if (streaming_) {
    if (!(*reader_)(data)) {
      stopped_ = true;
      return 0;
    }
    return data.size();
  }
  if (body_.size() < body_limit_) body_.append(data.substr(0, body_limit_ - body_.size()));
  return data.size();
}

void Receiver::take_header(std::string_view line) {
  if (line.substr(0, 5) == "HTTP/") {
    headers_.clear();  // a new response: after a 100 Continue or a redirect
    return;
  }
  const auto colon = line.find(':');
  if (colon == std::string_view::npos) return;
  headers_[base::to_lower(line.substr(0, colon))] = base::trim(line.substr(colon + 1));
}

void set_method(void* curl, const std::string& method, std::string_view body, bool send_body) {
  CURL* c = static_cast<CURL*>(curl);
  if (method == "GET") {
    curl_easy_setopt(c, CURLOPT_HTTPGET, 1L);
  } else if (method == "HEAD") {
    curl_easy_setopt(c, CURLOPT_NOBODY, 1L);
  } else {
    curl_easy_setopt(c, CURLOPT_CUSTOMREQUEST, method.c_str());
    if (send_body) {
      curl_easy_setopt(c, CURLOPT_POSTFIELDS, body.empty() ? "" : body.data());
      curl_easy_setopt(c, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body.size()));
    }
  }
}

}  // namespace http
