// How a program asks for its Kubernetes connection: the values of the
// connection flags both programs share (lib/cli/kube_flags.h adds the flags
// and turns these into a client). A value here, so that request values of
// the library (lib/migrate/request.h) can carry them without knowing CLI11.
#pragma once

#include <string>

namespace kube {

struct ConnectOptions {
  std::string kubeconfig;
  std::string context;
  std::string ns;
  std::string request_timeout = "0";  // kubectl syntax: 0 = the client's default
  int verbose = 0;
  bool quiet = false;
};

}  // namespace kube
