// The credentials a request carries, as they are now: a bearer token (static,
// from a file that is re-read when it changes, e.g. a rotated projected
// service-account token, or from an exec plugin) and a client certificate
// (from the kubeconfig or an exec plugin). Thread-safe.
#pragma once

#include <ctime>
#include <memory>
#include <mutex>
#include <string>

#include "base/result.h"
#include "kube/config.h"
#include "kube/exec_credential.h"

namespace kube {

struct AuthMaterial {
  std::string bearer;    // empty: none
  std::string cert_pem;  // from an exec plugin (kubeconfig certificates are TLS config)
  std::string key_pem;
};

class Credentials {
 public:
  explicit Credentials(const RestConfig& config);
  base::Result<AuthMaterial> current();
  // After a 401: drop what may be stale. True when something can change
  // (a token file or a plugin), so that one more attempt makes sense.
  bool refresh_after_unauthorized();
  int exec_runs() const { return exec_ ? exec_->runs() : 0; }

 private:
  base::Result<std::string> read_token_file();

  std::string token_;
  std::string token_file_;
  std::unique_ptr<ExecProvider> exec_;
  std::mutex mu_;
  std::string file_token_;
  timespec file_mtime_{};
  off_t file_size_ = -1;
};

}  // namespace kube
