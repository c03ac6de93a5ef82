#include "backup/s3_request.h"

#include <openssl/evp.h>

#include <algorithm>

#include "base/crc32c.h"
#include "base/sha256.h"

namespace backup {

base::Result<S3Endpoint> parse_s3_endpoint(std::string_view endpoint) {
  auto bad = [&](std::string why) {
    return base::make_error(base::ErrorKind::Usage, std::move(why), "S3 endpoint \"" + std::string(endpoint) + "\"",
                           "give a URL such as https://s3.eu-west-1.amazonaws.com or http://127.0.0.1:9000");
  };
  S3Endpoint ep;
  std::string_view rest = endpoint;
  if (auto p = rest.find("://"); p != std::string_view::npos) {
    ep.scheme = std::string(rest.substr(0, p));
    std::transform(ep.scheme.begin(), ep.scheme.end(), ep.scheme.begin(), ::tolower);
    rest.remove_prefix(p + 3);
  } else {
    ep.scheme = "https";
  }
  if (ep.scheme != "https" && ep.scheme != "http") return bad("has scheme \"" + ep.scheme + "\"; use https or http");
  auto slash = rest.find('/');
  ep.host = std::string(rest.substr(0, slash));
  if (ep.host.empty()) return bad("has no host");
  if (ep.host.find_first_of("@?# ") != std::string::npos) return bad("is not a plain host URL");
  if (slash != std::string_view::npos) {
    std::string_view path = rest.substr(slash);
    while (!path.empty() && path.back() == '/') path.remove_suffix(1);
    if (path.find_first_of("?#") != std::string_view::npos) return bad("has a query or fragment");
    ep.prefix = std::string(path);
  }
  return ep;
}

std::string s3_region(std::string_view region) { return region.empty() ? "us-east-1" : std::string(region); }

std::string sigv4_param(std::string_view region) { return "aws:amz:" + s3_region(region) + ":s3"; }

std::string uri_encode(std::string_view s, bool keep_slash) {
  static const char* hex = "0123456789ABCDEF";
  std::string out;
  out.reserve(s.size());
  for (unsigned char c : s) {
    bool plain = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '-' ||
                 c == '_' || c == '.' || c == '~' || (keep_slash && c == '/');
    if (plain) {
      out += static_cast<char>(c);
    } else {
      out += '%';
      out += hex[c >> 4];
      out += hex[c & 0xf];
    }
  }
  return out;
}

std::string canonical_query(QueryParams params) {
  for (auto& [k, v] : params) {
    k = uri_encode(k, false);
    v = uri_encode(v, false);
  }
  std::sort(params.begin(), params.end());
  std::string q;
  for (const auto& [k, v] : params) {
    if (!q.empty()) q += '&';
    q += k + "=" + v;
  }
  return q;
}

std::string s3_object_url(const S3Endpoint& ep, const S3Location& loc, std::string_view key,
                          const QueryParams& query) {
  std::string url = ep.scheme + "://";
  std::string path;
  if (loc.force_path_style) {
    url += ep.host + ep.prefix;
    path = "/" + uri_encode(loc.bucket, false);
    if (!key.empty()) path += "/" + uri_encode(key, true);
  } else {
    url += loc.bucket + "." + ep.host + ep.prefix;
    path = "/" + uri_encode(key, true);
  }
  url += path;
  if (!query.empty()) url += "?" + canonical_query(query);
  return url;
}

std::string s3_uri(std::string_view bucket, std::string_view key) {
  return "s3://" + std::string(bucket) + "/" + std::string(key);
}

std::string empty_payload_sha256() { return base::to_hex(base::sha256("")); }

std::vector<std::string> s3_headers(std::string_view payload_sha256_hex, const S3Credentials& creds,
                                    const S3Metadata& metadata, const std::vector<std::string>& extra) {
  std::vector<std::string> h;
  h.push_back("x-amz-content-sha256: " + std::string(payload_sha256_hex));
  if (!creds.session_token.empty()) h.push_back("x-amz-security-token: " + creds.session_token);
  for (const auto& [name, value] : metadata) h.push_back("x-amz-meta-" + name + ": " + value);
  h.insert(h.end(), extra.begin(), extra.end());
  return h;
}

namespace {

std::string xml_unescape(std::string_view s) {
  static const std::pair<std::string_view, char> entities[] = {
      {"&amp;", '&'}, {"&lt;", '<'}, {"&gt;", '>'}, {"&quot;", '"'}, {"&apos;", '\''}, {"&#34;", '"'}, {"&#39;", '\''}};
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    bool matched = false;
    if (s[i] == '&') {
      for (const auto& [ent, ch] : entities) {
        if (s.substr(i, ent.size()) == ent) {
          out += ch;
          i += ent.size();
          matched = true;
          break;
        }
      }
    }
    if (!matched) out += s[i++];
  }
  return out;
}

}  // namespace

std::string xml_value(std::string_view xml, std::string_view tag) {
  std::string open = "<" + std::string(tag) + ">";
  std::string close = "</" + std::string(tag) + ">";
  auto b = xml.find(open);
  if (b == std::string_view::npos) return {};
  b += open.size();
  auto e = xml.find(close, b);
  if (e == std::string_view::npos) return {};
  return xml_unescape(xml.substr(b, e - b));
}

std::vector<std::string> pending_upload_ids(std::string_view list_xml, std::string_view key) {
  std::vector<std::string> ids;
  constexpr std::string_view open = "<Upload>", close = "</Upload>";
  for (auto b = list_xml.find(open); b != std::string_view::npos; b = list_xml.find(open, b)) {
    b += open.size();
    auto e = list_xml.find(close, b);
    if (e == std::string_view::npos) break;
    std::string_view upload = list_xml.substr(b, e - b);
    std::string id = xml_value(upload, "UploadId");
    if (!id.empty() && xml_value(upload, "Key") == key) ids.push_back(std::move(id));
    b = e + close.size();
  }
  return ids;
}

std::string complete_multipart_xml(const std::vector<std::string>& part_etags,
                                   const std::vector<std::string>& part_crc32c) {
  std::string x = "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">";
  for (std::size_t i = 0; i < part_etags.size(); ++i) {
    x += "<Part><PartNumber>" + std::to_string(i + 1) + "</PartNumber><ETag>\"" + unquote_etag(part_etags[i]) +
         "\"</ETag>";
    // base64 has no character XML would need escaped.
    if (i < part_crc32c.size() && !part_crc32c[i].empty()) x += "<ChecksumCRC32C>" + part_crc32c[i] + "</ChecksumCRC32C>";
    x += "</Part>";
  }
  x += "</CompleteMultipartUpload>";
  return x;
}

namespace {

std::string be32_bytes(std::uint32_t v) {
  return {static_cast<char>(v >> 24), static_cast<char>(v >> 16), static_cast<char>(v >> 8), static_cast<char>(v)};
}

}  // namespace

std::string crc32c_base64(std::uint32_t crc) {
  std::string bytes = be32_bytes(crc);
  unsigned char out[9] = {};
  EVP_EncodeBlock(out, reinterpret_cast<const unsigned char*>(bytes.data()), 4);
  return reinterpret_cast<const char*>(out);
}

std::string composite_crc32c(const std::vector<std::uint32_t>& part_crcs) {
  base::Crc32c c;
  for (std::uint32_t p : part_crcs) c.update(be32_bytes(p));
  return crc32c_base64(c.finish()) + "-" + std::to_string(part_crcs.size());
}

std::string single_etag(const base::Md5Digest& body_md5) { return base::to_hex(body_md5); }

std::string multipart_etag(const std::vector<base::Md5Digest>& part_md5s) {
  base::Md5 h;
  for (const auto& d : part_md5s) h.update(std::string_view(reinterpret_cast<const char*>(d.data()), d.size()));
  return base::to_hex(h.finish()) + "-" + std::to_string(part_md5s.size());
}

std::string unquote_etag(std::string_view etag) {
  while (!etag.empty() && (etag.front() == '"' || etag.front() == ' ')) etag.remove_prefix(1);
  while (!etag.empty() && (etag.back() == '"' || etag.back() == ' ')) etag.remove_suffix(1);
  std::string s(etag);
  std::transform(s.begin(), s.end(), s.begin(), ::tolower);
  return s;
}

std::size_t s3_part_size(std::uint64_t expected, std::size_t preferred) {
  constexpr std::uint64_t mib = 1u << 20;
  std::uint64_t size = std::max<std::uint64_t>(preferred, kS3MinPartSize);
  // Room for a db that grows while it streams: aim at 9000 parts, not 10000.
  std::uint64_t needed = (expected + 8999) / 9000;
  if (needed > size) size = (needed + mib - 1) / mib * mib;
  return static_cast<std::size_t>(size);
}

base::Error s3_error(std::string_view what, std::string_view object, int http_status, std::string_view code,
                    std::string_view message) {
  using base::ErrorKind;
  base::Error e;
  e.object = std::string(object);
  e.status = http_status;
  e.reason = std::string(code);
  std::string answered = "S3 answered " + std::to_string(http_status) + (code.empty() ? "" : " " + std::string(code));
  std::string why;
  // versitygw says XAdminUserNotFound (404) where AWS says InvalidAccessKeyId.
  if (code == "InvalidAccessKeyId" || code == "XAdminUserNotFound") {
    e.kind = ErrorKind::PermissionDenied;
    why = "the access key ID is not known to the server";
    e.hint = "check AWS_ACCESS_KEY_ID of the S3 credentials";
  } else if (code == "SignatureDoesNotMatch") {
    e.kind = ErrorKind::PermissionDenied;
    why = "the request signature does not match";
    e.hint = "check AWS_SECRET_ACCESS_KEY of the S3 credentials and the region";
  } else if (code == "AccessDenied" || (code.empty() && http_status == 403)) {
    e.kind = ErrorKind::PermissionDenied;
    why = "access denied";
    e.hint = "give the credentials s3:PutObject, s3:GetObject and s3:AbortMultipartUpload on the bucket";
  } else if (code == "NoSuchBucket") {
    e.kind = ErrorKind::NotFound;
    why = "the bucket does not exist";
    e.hint = "create the bucket or correct its name";
  } else if (code == "AuthorizationHeaderMalformed") {
    e.kind = ErrorKind::Failed;
    why = "the request was signed for another region";
    e.hint = "check the S3 region";
  } else if (code == "PermanentRedirect" || http_status == 301) {
    e.kind = ErrorKind::Failed;
    why = "the bucket is served at another endpoint or region";
    e.hint = "check the S3 region and endpoint (and path-style addressing)";
  } else {
    e.kind = ErrorKind::Failed;
    // A server's own message is safe to show (it never echoes the secret)
    // and is all there is to go on for unusual errors.
    why = std::string(message);
  }
  e.message = std::string(what) + ": " + answered + (why.empty() ? "" : " (" + why + ")");
  return e;
}

base::Error s3_answer_error(std::string_view what, std::string_view object, int http_status,
                            std::string_view body) {
  std::string code = xml_value(body, "Code");
  auto e = s3_error(what, object, http_status, code, xml_value(body, "Message"));
  // A wrong region is worth naming precisely when the server says which one it wants.
  std::string region = xml_value(body, "Region");
  if (!region.empty() && code == "AuthorizationHeaderMalformed") {
    e.hint = "the server expects region \"" + region + "\"";
  }
  return e;
}

}  // namespace backup
