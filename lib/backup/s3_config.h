// Where an S3 upload goes and with which credentials: plain values built by
// the caller from flags and a Kubernetes Secret (AWS_ACCESS_KEY_ID,
// AWS_SECRET_ACCESS_KEY) or from the standard AWS_* environment.
#pragma once

#include <map>
#include <string>

#include "base/result.h"

namespace backup {

struct S3Credentials {
  std::string access_key_id;
  std::string secret_access_key;  // never printed, logged or put in an error
  std::string session_token;      // temporary credentials (STS); may be empty
};

// AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_SESSION_TOKEN; an error
// naming the missing variable when either of the first two is unset or empty.
base::Result<S3Credentials> s3_credentials_from_env();

// From a credentials Secret's data, already base64-decoded: the keys
// AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN if
// present); an error naming the Secret and the missing key.
base::Result<S3Credentials> s3_credentials_from_secret(const std::map<std::string, std::string>& data,
                                                      const std::string& secret);

struct S3Location {
  // "https://s3.eu-west-1.amazonaws.com", "http://127.0.0.1:9000"; without a
  // scheme https is meant. A path after the host is kept as a prefix.
  std::string endpoint;
  std::string bucket;
  std::string region;  // empty: us-east-1 (what S3 itself assumes)
  // Path style (endpoint/bucket/key) for MinIO, Ceph and IP endpoints;
  // otherwise virtual-host style (bucket.endpoint/key), as AWS prefers.
  bool force_path_style = false;
  // https: verified against the system's CAs, or against this bundle.
  std::string ca_file;
};

// User metadata (x-amz-meta-<name>), names in lower case.
using S3Metadata = std::map<std::string, std::string>;

}  // namespace backup
