// An exec credential plugin's stdout (an ExecCredential), as any plugin
// writes it. The first byte picks the apiVersion the kubeconfig asked for.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "kube/exec_credential.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view api = (data[0] & 1) ? "client.authentication.k8s.io/v1beta1" : "client.authentication.k8s.io/v1";
  std::string_view json(reinterpret_cast<const char*>(data + 1), size - 1);
  (void)kube::parse_exec_credential(json, api);
  return 0;
}
