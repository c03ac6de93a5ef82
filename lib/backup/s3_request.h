// The pure parts of talking to S3, apart from curl so that they can be tested
// without a server: URLs in both addressing styles, the canonical query
// strings and headers libcurl 7.88's SigV4 signing needs from its caller,
// the XML S3 answers with, ETag and checksum arithmetic, part sizes and
// error texts.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "backup/s3_config.h"
#include "base/error.h"
#include "base/md5.h"

namespace backup {

// S3 limits: parts are at least 5 MiB (but the last) and at most 10000.
inline constexpr std::size_t kS3MinPartSize = 5u << 20;
inline constexpr std::size_t kS3MaxParts = 10000;
// The part buffer: the only memory an upload holds, whatever the object's size.
inline constexpr std::size_t kS3DefaultPartSize = 8u << 20;

struct S3Endpoint {
  std::string scheme;  // "https" or "http"
  std::string host;    // with ":port" when one was given
  std::string prefix;  // path before the bucket, no trailing slash; usually empty
};

// An error naming the endpoint when it is not an http(s) URL with a host.
base::Result<S3Endpoint> parse_s3_endpoint(std::string_view endpoint);

std::string s3_region(std::string_view region);      // empty -> us-east-1
std::string sigv4_param(std::string_view region);    // CURLOPT_AWS_SIGV4: aws:amz:<region>:s3

// RFC 3986 encoding as SigV4 wants it: everything but A-Z a-z 0-9 - _ . ~
// (and '/' when keep_slash) as %XX with upper-case hex.
std::string uri_encode(std::string_view s, bool keep_slash);

// libcurl 7.88 signs the query exactly as it appears in the URL, so it must
// already be canonical: sorted by name, every pair "name=value" (also
// "uploads="), names and values encoded.
using QueryParams = std::vector<std::pair<std::string, std::string>>;
std::string canonical_query(QueryParams params);

// scheme://host[/prefix]/bucket/key (path style) or
// scheme://bucket.host[/prefix]/key (virtual host), then "?" query if any.
std::string s3_object_url(const S3Endpoint& ep, const S3Location& loc, std::string_view key,
                          const QueryParams& query = {});
// "s3://bucket/key": how errors and results name an object.
std::string s3_uri(std::string_view bucket, std::string_view key);

// The payload hash S3 requires as x-amz-content-sha256 (libcurl 7.88 hashes
// the body for the signature but does not send the header).
std::string empty_payload_sha256();
inline constexpr const char* kUnsignedPayload = "UNSIGNED-PAYLOAD";
// Header lines of one request: x-amz-content-sha256, the session token,
// user metadata as x-amz-meta-<name>, then extra lines as given.
std::vector<std::string> s3_headers(std::string_view payload_sha256_hex, const S3Credentials& creds,
                                    const S3Metadata& metadata = {}, const std::vector<std::string>& extra = {});

// The text inside the first <tag>...</tag>, XML entities decoded; empty if absent.
std::string xml_value(std::string_view xml, std::string_view tag);
// The UploadIds of a ListMultipartUploadsResult whose Key is exactly `key`
// (a prefix listing also answers longer keys), in the order listed.
std::vector<std::string> pending_upload_ids(std::string_view list_xml, std::string_view key);
// The body of CompleteMultipartUpload for parts 1..N with these ETags and,
// for an upload created with a CRC32C checksum, each part's ChecksumCRC32C
// (as crc32c_base64 gives it; empty: none).
std::string complete_multipart_xml(const std::vector<std::string>& part_etags,
                                   const std::vector<std::string>& part_crc32c = {});

// S3 checksums (docs/rules.md#s3-part-checksums): x-amz-checksum-crc32c is
// the base64 of the CRC's four bytes, most significant first; a multipart
// upload checked by CRC32C reports the composite form, the checksum of the
// parts' checksums (their four bytes each, concatenated) then "-<parts>".
std::string crc32c_base64(std::uint32_t crc);
std::string composite_crc32c(const std::vector<std::uint32_t>& part_crcs);

// ETags as S3 computes them for unencrypted objects: a single PUT's is the
// hex MD5 of the body; a multipart upload's is the hex MD5 of the parts'
// binary MD5s concatenated, then "-<number of parts>".
std::string single_etag(const base::Md5Digest& body_md5);
std::string multipart_etag(const std::vector<base::Md5Digest>& part_md5s);
std::string unquote_etag(std::string_view etag);  // drops surrounding quotes, lower case

// The part size for an object of about `expected` bytes (0: unknown): the
// preferred size, grown in MiB steps when 10000 parts would not hold it.
std::size_t s3_part_size(std::uint64_t expected, std::size_t preferred = kS3DefaultPartSize);

// An S3 error answer (HTTP status, XML Code and Message) as a one-line error
// on the object, with what the user can do about it.
base::Error s3_error(std::string_view what, std::string_view object, int http_status, std::string_view code,
                    std::string_view message);
// The same read off the answer's XML body (Code, Message; Region named when
// the server says which one a malformed authorization needed).
base::Error s3_answer_error(std::string_view what, std::string_view object, int http_status,
                            std::string_view body);

}  // namespace backup
