#include "kube/credentials.h"

#include <sys/stat.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

namespace kube {

Credentials::Credentials(const RestConfig& config) : token_(config.token), token_file_(config.token_file) {
  if (config.exec) {
    ExecClusterInfo info{config.server, config.tls_server_name, config.insecure_skip_tls_verify, config.ca_pem};
    exec_ = std::make_unique<ExecProvider>(*config.exec, info);
  }
}

base::Result<std::string> Credentials::read_token_file() {
  std::lock_guard lock(mu_);
  struct stat st {};
  if (stat(token_file_.c_str(), &st) != 0) {
    int e = errno;
    if (!file_token_.empty()) return file_token_;  // keep the last good token across a rotation's rename
    return base::make_error(base::ErrorKind::PermissionDenied, std::string("cannot read: ") + std::strerror(e),
                           "token file \"" + token_file_ + "\"");
  }
  // Re-read only when the file changed: a stat per request is cheap, a read is not needed.
  if (!file_token_.empty() && st.st_mtim.tv_sec == file_mtime_.tv_sec &&
      st.st_mtim.tv_nsec == file_mtime_.tv_nsec && st.st_size == file_size_) {
    return file_token_;
  }
  std::ifstream f(token_file_, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  std::string t = ss.str();
  while (!t.empty() && (t.back() == '\n' || t.back() == '\r' || t.back() == ' ')) t.pop_back();
  if (t.empty()) {
    if (!file_token_.empty()) return file_token_;
    return base::make_error(base::ErrorKind::PermissionDenied, "is empty", "token file \"" + token_file_ + "\"");
  }
  file_token_ = t;
  file_mtime_ = st.st_mtim;
  file_size_ = st.st_size;
  return file_token_;
}

base::Result<AuthMaterial> Credentials::current() {
  AuthMaterial m;
  if (exec_) {
    auto c = exec_->get();
    if (!c) return std::move(c).error();
    m.bearer = c->token;
    m.cert_pem = c->client_certificate_pem;
    m.key_pem = c->client_key_pem;
    return m;
  }
  if (!token_file_.empty()) {
    auto t = read_token_file();
    if (!t) return std::move(t).error();
    m.bearer = *t;
    return m;
  }
  m.bearer = token_;
  return m;
}

bool Credentials::refresh_after_unauthorized() {
  if (exec_) {
    exec_->invalidate();
    return true;
  }
  if (!token_file_.empty()) {
    std::lock_guard lock(mu_);
    file_token_.clear();
    file_size_ = -1;
    return true;
  }
  return false;
}

}  // namespace kube
