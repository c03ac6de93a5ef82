#include "http/libcurl.h"

#include <curl/curl.h>
#include <doctest/doctest.h>
#include <unistd.h>

#include <cstdlib>
#include <string>

namespace {

size_t collect(char* data, size_t size, size_t n, void* out) {
  static_cast<std::string*>(out)->append(data, size * n);
  return size * n;
}

}  // namespace

TEST_CASE("libcurl opened on demand: options of every argument type reach it") {
  REQUIRE(http::load_libcurl());
  char path[] = "/tmp/libcurl-test.XXXXXX";
  int fd = ::mkstemp(path);
  REQUIRE(fd >= 0);
  const std::string body = "0123456789abcdef";
  REQUIRE(::write(fd, body.data(), body.size()) == static_cast<ssize_t>(body.size()));
  ::close(fd);

  CURL* c = curl_easy_init();
  REQUIRE(c != nullptr);
  std::string got;
  const std::string url = std::string("file://") + path;
  CHECK(curl_easy_setopt(c, CURLOPT_URL, url.c_str()) == CURLE_OK);
  CHECK(curl_easy_setopt(c, CURLOPT_WRITEFUNCTION, &collect) == CURLE_OK);
  CHECK(curl_easy_setopt(c, CURLOPT_WRITEDATA, &got) == CURLE_OK);
  CHECK(curl_easy_setopt(c, CURLOPT_NOSIGNAL, 1L) == CURLE_OK);
  // A curl_off_t travels differently from a long on 32-bit ABIs: it must
  // arrive whole for the transfer to skip exactly four bytes.
  CHECK(curl_easy_setopt(c, CURLOPT_RESUME_FROM_LARGE, curl_off_t{4}) == CURLE_OK);
  char cert[] = "not a certificate";
  curl_blob blob{cert, sizeof cert - 1, CURL_BLOB_COPY};
  CHECK(curl_easy_setopt(c, CURLOPT_CAINFO_BLOB, &blob) == CURLE_OK);
  CHECK(curl_easy_perform(c) == CURLE_OK);
  CHECK(got == "456789abcdef");
  curl_off_t size = 0;
  CHECK(curl_easy_getinfo(c, CURLINFO_SIZE_DOWNLOAD_T, &size) == CURLE_OK);
  CHECK(size == 12);
  // A long option with a value libcurl refuses comes back refused.
  CHECK(curl_easy_setopt(c, CURLOPT_HTTP_VERSION, 999L) != CURLE_OK);
  curl_easy_cleanup(c);
  ::unlink(path);

  CHECK(std::string(curl_easy_strerror(CURLE_COULDNT_CONNECT)) == "Couldn't connect to server");

  CURLSH* sh = curl_share_init();
  REQUIRE(sh != nullptr);
  CHECK(curl_share_setopt(sh, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS) == CURLSHE_OK);
  CHECK(curl_share_setopt(sh, CURLSHOPT_USERDATA, &got) == CURLSHE_OK);
  CHECK(curl_share_setopt(sh, static_cast<CURLSHoption>(99), 0L) == CURLSHE_BAD_OPTION);
  CHECK(curl_share_cleanup(sh) == CURLSHE_OK);

  CURLU* u = curl_url();
  REQUIRE(u != nullptr);
  CHECK(curl_url_set(u, CURLUPART_URL, "https://example.test:6443/base", 0) == CURLUE_OK);
  char* host = nullptr;
  CHECK(curl_url_get(u, CURLUPART_HOST, &host, 0) == CURLUE_OK);
  REQUIRE(host != nullptr);
  CHECK(std::string(host) == "example.test");
  curl_free(host);
  curl_url_cleanup(u);

  curl_slist* list = curl_slist_append(nullptr, "Accept: application/json");
  REQUIRE(list != nullptr);
  CHECK(std::string(list->data) == "Accept: application/json");
  curl_slist_free_all(list);
}

TEST_CASE("libcurl missing or not libcurl: the error names the library and the package") {
  auto missing = http::probe_libcurl("libcurl-absent-for-test.so.9");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().kind == base::ErrorKind::Failed);
  CHECK(missing.error().object == "library \"libcurl-absent-for-test.so.9\"");
  CHECK(missing.error().message.find("libcurl-absent-for-test.so.9") != std::string::npos);
  CHECK(missing.error().hint.find("libcurl4") != std::string::npos);

  auto other = http::probe_libcurl("libm.so.6");
  REQUIRE_FALSE(other);
  CHECK(other.error().message == "has no function curl_global_init");
}
