// Counts requests, new connections (= TLS handshakes) and HTTP/2 use of
// lib/kube for N GETs of one object, sequentially and over T threads.
// usage: kube_connections KUBECONFIG NAMESPACE NAME [N] [THREADS]
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#include "kube/client.h"

int main(int argc, char** argv) {
  if (argc < 4) {
    std::fprintf(stderr, "usage: %s KUBECONFIG NAMESPACE NAME [N] [THREADS]\n", argv[0]);
    return 128;
  }
  int n = argc > 4 ? std::atoi(argv[4]) : 100;
  int threads = argc > 5 ? std::atoi(argv[5]) : 4;
  kube::ConfigOptions o;
  o.kubeconfig = argv[1];
  auto cfg = kube::load_config(o);
  if (!cfg) {
    std::fprintf(stderr, "error: %s\n", cfg.error().one_line().c_str());
    return 1;
  }
  auto run = [&](int workers) -> int {
    auto c = kube::Client::create(*cfg);
    if (!c) {
      std::fprintf(stderr, "error: %s\n", c.error().one_line().c_str());
      return 1;
    }
    auto& client = **c;
    int failures = 0;
    auto start = std::chrono::steady_clock::now();
    std::vector<std::thread> ts;
    for (int w = 0; w < workers; ++w) {
      ts.emplace_back([&, w] {
        for (int i = w; i < n; i += workers) {
          auto r = client.get(kube::resources::configmaps, argv[2], argv[3]);
          if (!r) {
            std::fprintf(stderr, "error: %s\n", r.error().one_line().c_str());
            ++failures;
          }
        }
      });
    }
    for (auto& t : ts) t.join();
    auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - start).count();
    auto s = client.stats();
    std::printf("threads=%d gets=%d requests=%llu connections(tls handshakes)=%llu http2=%llu ms=%lld failures=%d\n",
                workers, n, static_cast<unsigned long long>(s.requests), static_cast<unsigned long long>(s.connections),
                static_cast<unsigned long long>(s.http2), static_cast<long long>(ms), failures);
    if (failures > 0) return 1;
    // One connection per concurrent worker at most: never a handshake per request.
    return s.connections <= static_cast<unsigned long long>(workers) ? 0 : 1;
  };
  int rc = run(1);
  rc |= run(threads);
  return rc;
}
