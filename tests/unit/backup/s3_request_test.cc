#include "backup/s3_request.h"

#include <doctest/doctest.h>

#include <cstdlib>

#include "base/sha256.h"

using namespace backup;

TEST_CASE("endpoints: scheme, host with port, path prefix; no scheme means https") {
  auto ep = parse_s3_endpoint("http://127.0.0.1:9000");
  REQUIRE(ep.ok());
  CHECK(ep->scheme == "http");
  CHECK(ep->host == "127.0.0.1:9000");
  CHECK(ep->prefix.empty());
  ep = parse_s3_endpoint("s3.eu-west-1.amazonaws.com");
  REQUIRE(ep.ok());
  CHECK(ep->scheme == "https");
  CHECK(ep->host == "s3.eu-west-1.amazonaws.com");
  ep = parse_s3_endpoint("HTTPS://minio.example/s3/");
  REQUIRE(ep.ok());
  CHECK(ep->scheme == "https");
  CHECK(ep->prefix == "/s3");
}

TEST_CASE("endpoints that are not http(s) URLs with a host are usage errors naming the endpoint") {
  for (const char* bad : {"ftp://host", "https://", "https://user@host", "http://host/p?x=1"}) {
    CAPTURE(bad);
    auto ep = parse_s3_endpoint(bad);
    REQUIRE_FALSE(ep.ok());
    CHECK(ep.error().kind == base::ErrorKind::Usage);
    CHECK(ep.error().one_line().find(bad) != std::string::npos);
  }
}

TEST_CASE("region defaults to us-east-1 and goes into the SigV4 parameter with service s3") {
  CHECK(s3_region("") == "us-east-1");
  CHECK(sigv4_param("") == "aws:amz:us-east-1:s3");
  CHECK(sigv4_param("eu-central-1") == "aws:amz:eu-central-1:s3");
}

TEST_CASE("URI encoding keeps unreserved characters, upper-case hex for the rest, '/' only in keys") {
  CHECK(uri_encode("a-b_c.d~e/f g+h=", true) == "a-b_c.d~e/f%20g%2Bh%3D");
  CHECK(uri_encode("a/b", false) == "a%2Fb");
  CHECK(uri_encode("\xc3\xa9", true) == "%C3%A9");
}

TEST_CASE("query strings are canonical: sorted, every pair with '=', encoded") {
  CHECK(canonical_query({{"uploads", ""}}) == "uploads=");
  CHECK(canonical_query({{"uploadId", "a b/c"}, {"partNumber", "3"}}) == "partNumber=3&uploadId=a%20b%2Fc");
}

TEST_CASE("object URLs in path style and virtual-host style") {
  S3Endpoint ep{"http", "127.0.0.1:9000", ""};
  S3Location loc;
  loc.bucket = "backups";
  loc.force_path_style = true;
  CHECK(s3_object_url(ep, loc, "etcd/ns-c-migration.db") == "http://127.0.0.1:9000/backups/etcd/ns-c-migration.db");
  CHECK(s3_object_url(ep, loc, "k", {{"uploads", ""}}) == "http://127.0.0.1:9000/backups/k?uploads=");
  loc.force_path_style = false;
  S3Endpoint aws{"https", "s3.eu-west-1.amazonaws.com", ""};
  CHECK(s3_object_url(aws, loc, "a b") == "https://backups.s3.eu-west-1.amazonaws.com/a%20b");
  S3Endpoint prefixed{"https", "gw.example", "/s3"};
  loc.force_path_style = true;
  CHECK(s3_object_url(prefixed, loc, "k") == "https://gw.example/s3/backups/k");
  CHECK(s3_uri("backups", "etcd/x.db") == "s3://backups/etcd/x.db");
}

TEST_CASE("headers carry the payload hash libcurl does not add, the session token and user metadata") {
  S3Credentials creds{"AKID", "SECRET", ""};
  auto h = s3_headers(empty_payload_sha256(), creds, {{"etcd-snapshot-uid", "u-1"}}, {"Content-MD5: x"});
  REQUIRE(h.size() == 3);
  CHECK(h[0] == "x-amz-content-sha256: e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  CHECK(h[1] == "x-amz-meta-etcd-snapshot-uid: u-1");
  CHECK(h[2] == "Content-MD5: x");
  creds.session_token = "TOKEN";
  h = s3_headers("UNSIGNED-PAYLOAD", creds);
  REQUIRE(h.size() == 2);
  CHECK(h[1] == "x-amz-security-token: TOKEN");
}

TEST_CASE("the secret key never appears in any header") {
  S3Credentials creds{"AKID", "s3cr3t-value", "tok"};
  for (const auto& line : s3_headers("x", creds, {{"a", "b"}})) CHECK(line.find("s3cr3t-value") == std::string::npos);
}

TEST_CASE("XML answers: first value of a tag, entities decoded, empty when absent") {
  std::string err = R"(<?xml version="1.0"?><Error><Code>NoSuchBucket</Code>)"
                    R"(<Message>The &#39;bucket&#39; &amp; &quot;more&quot;</Message></Error>)";
  CHECK(xml_value(err, "Code") == "NoSuchBucket");
  CHECK(xml_value(err, "Message") == "The 'bucket' & \"more\"");
  CHECK(xml_value(err, "Region").empty());
  CHECK(xml_value("<UploadId>abc-1</UploadId>", "UploadId") == "abc-1");
  CHECK(xml_value("<ETag>&#34;d41d-2&#34;</ETag>", "ETag") == "\"d41d-2\"");
}

TEST_CASE("pending uploads: the UploadIds listed under exactly the key, longer keys of the prefix left out") {
  std::string list = R"(<?xml version="1.0" encoding="UTF-8"?>)"
                     R"(<ListMultipartUploadsResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">)"
                     R"(<Bucket>b</Bucket><Prefix>etcd/ns-c-migration.db</Prefix>)"
                     R"(<Upload><Key>etcd/ns-c-migration.db</Key><UploadId>id-1</UploadId>)"
                     R"(<Initiated>2026-01-01T00:00:00Z</Initiated></Upload>)"
                     R"(<Upload><Key>etcd/ns-c-migration.db.old</Key><UploadId>id-other</UploadId></Upload>)"
                     R"(<Upload><UploadId>id-2</UploadId><Key>etcd/ns-c-migration.db</Key></Upload>)"
                     R"(</ListMultipartUploadsResult>)";
  CHECK(pending_upload_ids(list, "etcd/ns-c-migration.db") == std::vector<std::string>{"id-1", "id-2"});
  CHECK(pending_upload_ids(list, "etcd/other.db").empty());
  CHECK(pending_upload_ids("<ListMultipartUploadsResult></ListMultipartUploadsResult>", "k").empty());
  // Keys are XML-escaped in the answer.
  CHECK(pending_upload_ids("<Upload><Key>a&amp;b</Key><UploadId>x</UploadId></Upload>", "a&b") ==
        std::vector<std::string>{"x"});
  // A cut-off answer yields what is complete.
  CHECK(pending_upload_ids("<Upload><Key>k</Key><UploadId>x</UploadId></Upload><Upload><Key>k</Key>", "k") ==
        std::vector<std::string>{"x"});
}

TEST_CASE("CompleteMultipartUpload lists parts from 1 with quoted ETags") {
  CHECK(complete_multipart_xml({"\"aa\"", "BB"}) ==
        "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Part><PartNumber>1</PartNumber><ETag>\"aa\"</ETag></Part>"
        "<Part><PartNumber>2</PartNumber><ETag>\"bb\"</ETag></Part></CompleteMultipartUpload>");
}

TEST_CASE("CompleteMultipartUpload of a CRC32C upload names each part's checksum") {
  CHECK(complete_multipart_xml({"aa", "bb"}, {"//50eQ==", "jmVPPw=="}) ==
        "<CompleteMultipartUpload xmlns=\"http://s3.amazonaws.com/doc/2006-03-01/\">"
        "<Part><PartNumber>1</PartNumber><ETag>\"aa\"</ETag><ChecksumCRC32C>//50eQ==</ChecksumCRC32C></Part>"
        "<Part><PartNumber>2</PartNumber><ETag>\"bb\"</ETag><ChecksumCRC32C>jmVPPw==</ChecksumCRC32C></Part>"
        "</CompleteMultipartUpload>");
}

TEST_CASE("a CRC32C checksum is the base64 of its big-endian bytes; a multipart one is the composite form") {
  CHECK(crc32c_base64(0xE3069283u) == "4waSgw==");
  CHECK(crc32c_base64(0) == "AAAAAA==");
  // What versitygw answered for a 5 MiB part and a 1000-byte part
  // (x-amz-checksum-crc32c of each UploadPart, then the completed object's).
  CHECK(crc32c_base64(0xFFFE7479u) == "//50eQ==");
  CHECK(composite_crc32c({0xFFFE7479u, 0x8E654F3Fu}) == "KgpP/g==-2");
  CHECK(composite_crc32c({0xE3069283u}).substr(8) == "-1");
}

TEST_CASE("single-part ETag is the MD5 of the body") {
  CHECK(single_etag(base::md5("hello\n")) == "b1946ac92492d2347c6235b4d2611184");
  CHECK(base::to_hex(base::md5("")) == "d41d8cd98f00b204e9800998ecf8427e");
}

TEST_CASE("multipart ETag is the MD5 of the parts' binary MD5s, then -N") {
  // Two parts, known answer from Python: md5(md5(b"a" * 5 MiB) + md5(b"b")).
  std::string p1(5u << 20, 'a');
  CHECK(multipart_etag({base::md5(p1), base::md5("b")}) == "e5a8c5272b26fc10581a21089559b006-2");
  // One part: still the multipart form, which differs from the single-part ETag.
  CHECK(multipart_etag({base::md5("x")}) != single_etag(base::md5("x")));
  CHECK(multipart_etag({base::md5("x")}).substr(32) == "-1");
  // Known answer from Python: hashlib.md5(hashlib.md5(b"abc").digest()).hexdigest() + "-1".
  CHECK(multipart_etag({base::md5("abc")}) == "af5da9f45af7a300e3aded972f8ff687-1");
}

TEST_CASE("ETags are compared unquoted and in lower case") {
  CHECK(unquote_etag("\"ABC-2\"") == "abc-2");
  CHECK(unquote_etag("abc") == "abc");
}

TEST_CASE("part size: the preferred size, at least 5 MiB, grown in MiB steps beyond 9000 parts") {
  CHECK(s3_part_size(0) == kS3DefaultPartSize);
  CHECK(s3_part_size(64u << 20) == kS3DefaultPartSize);
  CHECK(s3_part_size(0, 1024) == kS3MinPartSize);
  std::uint64_t big = 100ull << 30;  // 100 GiB
  auto size = s3_part_size(big);
  CHECK(size % (1u << 20) == 0);
  CHECK((big + size - 1) / size <= 9000);
  CHECK(size < kS3DefaultPartSize * 2);
  CHECK(s3_part_size(8ull << 30) == kS3DefaultPartSize);  // etcd's largest db: 1024 parts
}

TEST_CASE("S3 errors: one line naming the object, the cause and what to do") {
  auto e = s3_error("cannot use the bucket", "s3://b/k", 403, "SignatureDoesNotMatch", "long server text");
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  CHECK(e.one_line() ==
        "s3://b/k: cannot use the bucket: S3 answered 403 SignatureDoesNotMatch (the request signature does not "
        "match); check AWS_SECRET_ACCESS_KEY of the S3 credentials and the region");
  e = s3_error("x", "s3://b/k", 403, "InvalidAccessKeyId", "");
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  CHECK(e.hint.find("AWS_ACCESS_KEY_ID") != std::string::npos);
  e = s3_error("x", "s3://b/k", 404, "XAdminUserNotFound", "");
  CHECK(e.kind == base::ErrorKind::PermissionDenied);
  e = s3_error("x", "s3://nope/k", 404, "NoSuchBucket", "");
  CHECK(e.kind == base::ErrorKind::NotFound);
  CHECK(e.one_line().find("the bucket does not exist") != std::string::npos);
  CHECK(e.reason == "NoSuchBucket");
  CHECK(e.status == 404);
  e = s3_error("x", "s3://b/k", 500, "InternalError", "We encountered an internal error.\nPlease retry.");
  CHECK(e.kind == base::ErrorKind::Failed);
  CHECK(e.one_line().find('\n') == std::string::npos);
  CHECK(e.one_line().find("internal error") != std::string::npos);
}

TEST_CASE("S3 error answers are read off the XML body; the wanted region is named") {
  auto e = s3_answer_error("cannot upload", "s3://b/k", 400,
      "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>AuthorizationHeaderMalformed</Code>"
      "<Message>the region &apos;us-east-1&apos; is wrong</Message><Region>eu-west-1</Region></Error>");
  CHECK(e.reason == "AuthorizationHeaderMalformed");
  CHECK(e.hint == "the server expects region \"eu-west-1\"");
  e = s3_answer_error("cannot upload", "s3://b/k", 404,
      "<Error><Code>NoSuchBucket</Code><Message>The specified bucket does not exist</Message></Error>");
  CHECK(e.kind == base::ErrorKind::NotFound);
  e = s3_answer_error("cannot upload", "s3://b/k", 502, "<html>bad gateway</html>");
  CHECK(e.status == 502);
  CHECK(e.one_line().find("s3://b/k") == 0);
}

TEST_CASE("credentials from a Secret's data; a missing key names the Secret, never a value") {
  auto c = s3_credentials_from_secret({{"AWS_ACCESS_KEY_ID", "AK"}, {"AWS_SECRET_ACCESS_KEY", "SK"}}, "creds");
  REQUIRE(c.ok());
  CHECK(c->access_key_id == "AK");
  CHECK(c->secret_access_key == "SK");
  CHECK(c->session_token.empty());
  auto bad = s3_credentials_from_secret({{"AWS_ACCESS_KEY_ID", "AK"}, {"AWS_SECRET", "hidden-value"}}, "creds");
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().one_line() ==
        "secret \"creds\": has no key AWS_SECRET_ACCESS_KEY (or it is empty); add AWS_ACCESS_KEY_ID and "
        "AWS_SECRET_ACCESS_KEY to the S3 credentials Secret");
}

TEST_CASE("credentials from the standard AWS_* environment") {
  ::setenv("AWS_ACCESS_KEY_ID", "AKENV", 1);
  ::setenv("AWS_SECRET_ACCESS_KEY", "SKENV", 1);
  ::setenv("AWS_SESSION_TOKEN", "TOK", 1);
  auto c = s3_credentials_from_env();
  REQUIRE(c.ok());
  CHECK(c->access_key_id == "AKENV");
  CHECK(c->secret_access_key == "SKENV");
  CHECK(c->session_token == "TOK");
  ::unsetenv("AWS_SECRET_ACCESS_KEY");
  auto bad = s3_credentials_from_env();
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.error().one_line().find("AWS_SECRET_ACCESS_KEY is not set") != std::string::npos);
  ::unsetenv("AWS_ACCESS_KEY_ID");
  ::unsetenv("AWS_SESSION_TOKEN");
}
