// certs: the certificates of a cluster, judged (docs/certificates.md).
#include <chrono>

#include "admin/certs.h"
#include "commands.h"
#include "flags.h"

namespace kubectl_etcd {

void setup_certs(CLI::App& sub, cli::Action& action, cli::Program& program) {
  auto f = options<CommonFlags>();
  cli::add_kube_flags(sub, f->kube, "Namespace of the cluster (default: the context's)");
  add_cluster_flag(sub, f->cluster, "The EtcdCluster (v1alpha2, or a legacy etcd.aenix.io one)");
  sub.get_option("--cluster")->required();
  cli::add_output_flag(sub, f->output);
  sub.footer("Per certificate of the server, peer and client Secrets: subject, DNS names, issuer, end of validity,\n"
             "whether it verifies against the CA the members trust, and whether its names cover today's members\n"
             "and the <cluster>-<random>.<cluster>.<ns>.svc names the operator gives members it creates later.\n"
             "Never reads tls.key. Exit 0 no problem, 1 any problem, 6 no such EtcdCluster.\n"
             "-o wide adds ISSUER and DNS NAMES.");
  sub.callback([&action, &program, f] {
    action = [&program, f] {
      auto format = output::parse_format(f->output);
      if (!format) return fail(program, format.error());
      auto k = open_kube(*f, program);
      if (!k) return fail(program, k.error());
      admin::CertsRequest r;
      r.ns = k->ns;
      r.cluster = f->cluster;
      r.now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
      auto report = admin::certificate_report(*k->kube, r);
      if (!report) return fail(program, report.error());
      return print(program, admin::render_certs(admin::certs_document(*report), *format),
                   admin::certs_exit_code(*report));
    };
  });
}

}  // namespace kubectl_etcd
