// libcurl is opened when the first apiserver or S3 client is made, not when
// the program starts. Loading it pulls in some thirty shared objects (GnuTLS,
// Kerberos, LDAP, RTMP, ...) whose loading and constructors cost more than
// the whole of `kubectl-etcd version`, and commands that talk only to etcd
// (`--endpoints`) never need it (bench/startup.sh).
//
// libcurl.cc defines the curl_* functions this library calls, each
// forwarding to the opened library, so the callers keep libcurl's own API
// and header. The programs are therefore not linked against libcurl.
#pragma once

#include <string>

#include "base/result.h"

namespace http {

// The library opened: libcurl's ABI has kept this soname since 7.16.
inline constexpr const char* kLibcurlSoname = "libcurl.so.4";

// Opens libcurl once per process and runs curl_global_init (which is not
// thread-safe: this is). Call it before any other curl_* function; until it
// has succeeded those fail (NULL handles, CURLE_FAILED_INIT). Thread-safe.
base::Status load_libcurl();

// The opening itself, for `soname`, without remembering the result: the
// explained error when it is missing or lacks a function this library needs.
// load_libcurl() uses the same opening with kLibcurlSoname; exposed for tests
// (the library is closed again on success).
base::Status probe_libcurl(const std::string& soname);

}  // namespace http
