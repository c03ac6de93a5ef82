// What the operator would write for a member, rendered the same way when
// break-glass surgery must write it itself (docs/rules.md#member-pod-and-pvc):
// the new EtcdMember, its initialCluster, its PVC and Pod, and the image.
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "etcd/types.h"

namespace admin {

// `--initial-cluster` from a membership: name=first peer URL (name = etcd
// name, else the first DNS label of the URL host), sorted, comma-joined.
std::string initial_cluster(const std::vector<etcd::Member>& members);
// The EtcdMember body of add step 3 (generateName <c>-, finalizer, owner).
nlohmann::json new_member(const nlohmann::json& cluster);
// The TLS Secret names a member of this cluster mounts (server, peer).
std::vector<std::string> member_secrets(const nlohmann::json& cluster);
// Image repository: the operator Deployment's ETCD_IMAGE_REPOSITORY env or
// --etcd-image-repository arg, else a sibling Pod's image without its tag,
// else quay.io/coreos/etcd.
std::string image_repository(const nlohmann::json& deployment, const nlohmann::json& pods);
// The PVC and Pod the operator would render for a wired member (break-glass add step 7).
nlohmann::json render_pvc(const nlohmann::json& member);
nlohmann::json render_pod(const nlohmann::json& cluster, const nlohmann::json& member, const std::string& repo,
                          const std::string& rendered_by);

}  // namespace admin
