#include "backup/s3_config.h"

#include <cstdlib>

namespace backup {

base::Result<S3Credentials> s3_credentials_from_env() {
  auto get = [](const char* name) {
    const char* v = std::getenv(name);
    return std::string(v != nullptr ? v : "");
  };
  S3Credentials c{get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY"), get("AWS_SESSION_TOKEN")};
  for (const auto& [name, value] : {std::pair{"AWS_ACCESS_KEY_ID", &c.access_key_id},
                                    std::pair{"AWS_SECRET_ACCESS_KEY", &c.secret_access_key}}) {
    if (value->empty()) {
      return base::make_error(base::ErrorKind::Usage, std::string(name) + " is not set", "S3 credentials",
                             "set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY, or name a credentials Secret");
    }
  }
  return c;
}

base::Result<S3Credentials> s3_credentials_from_secret(const std::map<std::string, std::string>& data,
                                                      const std::string& secret) {
  auto get = [&](const char* key) {
    auto it = data.find(key);
    return it == data.end() ? std::string() : it->second;
  };
  S3Credentials c{get("AWS_ACCESS_KEY_ID"), get("AWS_SECRET_ACCESS_KEY"), get("AWS_SESSION_TOKEN")};
  for (const auto& [key, value] : {std::pair{"AWS_ACCESS_KEY_ID", &c.access_key_id},
                                   std::pair{"AWS_SECRET_ACCESS_KEY", &c.secret_access_key}}) {
    if (value->empty()) {
      return base::make_error(base::ErrorKind::Refused, std::string("has no key ") + key + " (or it is empty)",
                             "secret \"" + secret + "\"",
                             "add AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY to the S3 credentials Secret");
    }
  }
  return c;
}

}  // namespace backup
