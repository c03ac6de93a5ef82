// S3 answers' XML bodies (errors, InitiateMultipartUpload,
// CompleteMultipartUpload, ListMultipartUploads) as S3Client reads them,
// and ETag headers. The
// first two bytes pick the HTTP status.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "backup/s3_request.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  int status = 200 + ((data[0] << 8) | data[1]) % 400;
  std::string_view body(reinterpret_cast<const char*>(data + 2), size - 2);
  for (const char* tag : {"Code", "Message", "Region", "UploadId", "ETag", "Key", "Bucket"}) {
    (void)backup::xml_value(body, tag);
  }
  (void)backup::unquote_etag(body);
  (void)backup::unquote_etag(backup::xml_value(body, "ETag"));
  (void)backup::pending_upload_ids(body, "etcd/cluster.db");
  (void)backup::s3_answer_error("cannot upload", "s3://bucket/key", status, body).one_line();
  return 0;
}
