// Where a stream-mode safety backup goes (docs/rules.md#safety-backup): the S3 location
// from the --backup-s3-* flags and the credentials from the Secret named by
// --backup-s3-credentials-secret in the cluster's namespace, or from the
// standard AWS_* environment when no Secret is named.
#pragma once

#include <string>

#include "backup/stream_backup.h"
#include "base/result.h"
#include "kube/client.h"
#include "migrate/request.h"

namespace migrate {

// The location the flags describe; pure.
backup::S3Location s3_location(const AdoptRequest& request);

// The destination of one namespace's backup. Errors name the Secret or the
// variable and the fix, never a value.
base::Result<backup::S3Destination> s3_destination(kube::Client& client, const std::string& ns,
                                                  const AdoptRequest& request);

}  // namespace migrate
