#include "migrate/backup_target.h"

#include <map>

#include "base/json_at.h"
#include "kube/base64.h"
#include "operator/legacy_cluster.h"

namespace migrate {

backup::S3Location s3_location(const AdoptRequest& request) {
  backup::S3Location l;
  l.endpoint = request.s3_endpoint;
  l.bucket = request.s3_bucket;
  l.region = request.s3_region;
  l.force_path_style = request.s3_force_path_style;
  return l;
}

base::Result<backup::S3Destination> s3_destination(kube::Client& client, const std::string& ns,
                                                  const AdoptRequest& request) {
  backup::S3Destination d;
  d.location = s3_location(request);
  d.key_prefix = request.s3_key;
  if (request.s3_credentials_secret.empty()) {
    auto env = backup::s3_credentials_from_env();
    if (!env) return std::move(env).error();
    d.credentials = std::move(*env);
    return d;
  }
  const std::string object = "secret \"" + ns + "/" + request.s3_credentials_secret + "\"";
  auto secret = client.get(kube::resources::secrets, ns, request.s3_credentials_secret);
  if (!secret) {
    if (secret.error().kind == base::ErrorKind::NotFound) {
      return base::make_error(base::ErrorKind::NotFound, "does not exist", object,
                             "create it with the keys AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                             "(--backup-s3-credentials-secret)");
    }
    return std::move(secret).error();
  }
  std::map<std::string, std::string> data;
  if (const auto* d_json = base::find_at(*secret, "/data"); d_json != nullptr && d_json->is_object()) {
    for (const auto& [k, v] : d_json->items()) {
      if (!v.is_string()) continue;
      auto decoded = kube::base64_decode(v.get<std::string>());
      if (decoded) data[k] = std::move(*decoded);
    }
  }
  auto creds = backup::s3_credentials_from_secret(data, ns + "/" + request.s3_credentials_secret);
  if (!creds) return std::move(creds).error();
  d.credentials = std::move(*creds);
  return d;
}

}  // namespace migrate
