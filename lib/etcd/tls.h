// TLS credentials for gRPC channels, from files or in-memory PEM. The PEM is
// checked here (parses, key matches certificate) so that a bad Secret gives
// a clear error now rather than a vague handshake failure per call.
#pragma once

#include <memory>
#include <string>

#include "base/result.h"
#include "etcd/config.h"

namespace grpc {
class ChannelCredentials;
}

namespace etcd {

// The material after loading files; what channels are built from.
struct TlsMaterial {
  std::string ca_pem;    // empty: the system roots
  std::string cert_pem;  // empty: no client certificate
  std::string key_pem;
  std::string server_name;
  bool insecure_skip_verify = false;
};

// True when the config carries any TLS material or setting, meaning
// endpoints without a scheme are https.
bool tls_requested(const TlsConfig& cfg);

base::Result<TlsMaterial> load_tls(const TlsConfig& cfg);
std::shared_ptr<grpc::ChannelCredentials> channel_credentials(const TlsMaterial& m);

}  // namespace etcd
