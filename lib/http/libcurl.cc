// This file defines curl_easy_setopt and friends itself: without this,
// curl.h turns those names into type-checking macros.
#define CURL_DISABLE_TYPECHECK
#include "http/libcurl.h"

#include <curl/curl.h>
#include <dlfcn.h>

#include <atomic>
#include <cstdarg>

namespace http {

namespace {

struct Api {
  void* handle = nullptr;
  decltype(&::curl_global_init) global_init = nullptr;
  decltype(&::curl_easy_init) easy_init = nullptr;
  decltype(&::curl_easy_setopt) easy_setopt = nullptr;
  decltype(&::curl_easy_getinfo) easy_getinfo = nullptr;
  decltype(&::curl_easy_perform) easy_perform = nullptr;
  decltype(&::curl_easy_reset) easy_reset = nullptr;
  decltype(&::curl_easy_cleanup) easy_cleanup = nullptr;
  decltype(&::curl_easy_send) easy_send = nullptr;
  decltype(&::curl_easy_recv) easy_recv = nullptr;
  decltype(&::curl_easy_strerror) easy_strerror = nullptr;
  decltype(&::curl_slist_append) slist_append = nullptr;
  decltype(&::curl_slist_free_all) slist_free_all = nullptr;
  decltype(&::curl_share_init) share_init = nullptr;
  decltype(&::curl_share_setopt) share_setopt = nullptr;
  decltype(&::curl_share_cleanup) share_cleanup = nullptr;
  decltype(&::curl_url) url = nullptr;
  decltype(&::curl_url_set) url_set = nullptr;
  decltype(&::curl_url_get) url_get = nullptr;
  decltype(&::curl_url_cleanup) url_cleanup = nullptr;
  decltype(&::curl_free) free = nullptr;
};

// Set once, by load_libcurl(), to a table that lives until exit; the
// forwarding functions below read it without a lock.
std::atomic<const Api*> g_api{nullptr};

base::Error load_error(const std::string& soname, std::string message) {
  auto e = base::make_error(base::ErrorKind::Failed, std::move(message), "library \"" + soname + "\"",
                           "install libcurl 7.88 or newer (Debian: apt install libcurl4)");
  e.reason = "LibraryMissing";
  return e;
}

template <typename F>
bool bind(void* lib, const char* name, F& fn, const char*& missing) {
  // POSIX guarantees that dlsym's object pointer converts to a function pointer.
  fn = reinterpret_cast<F>(::dlsym(lib, name));
  if (fn == nullptr) missing = name;
  return fn != nullptr;
}

base::Result<Api> open(const std::string& soname) {
  void* lib = ::dlopen(soname.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (lib == nullptr) {
    const char* why = ::dlerror();
    return load_error(soname, why != nullptr ? why : "cannot be loaded");
  }
  Api a;
  a.handle = lib;
  const char* missing = nullptr;
  bool ok = bind(lib, "curl_global_init", a.global_init, missing) &&
            bind(lib, "curl_easy_init", a.easy_init, missing) &&
            bind(lib, "curl_easy_setopt", a.easy_setopt, missing) &&
            bind(lib, "curl_easy_getinfo", a.easy_getinfo, missing) &&
            bind(lib, "curl_easy_perform", a.easy_perform, missing) &&
            bind(lib, "curl_easy_reset", a.easy_reset, missing) &&
            bind(lib, "curl_easy_cleanup", a.easy_cleanup, missing) &&
            bind(lib, "curl_easy_send", a.easy_send, missing) &&
            bind(lib, "curl_easy_recv", a.easy_recv, missing) &&
            bind(lib, "curl_easy_strerror", a.easy_strerror, missing) &&
            bind(lib, "curl_slist_append", a.slist_append, missing) &&
            bind(lib, "curl_slist_free_all", a.slist_free_all, missing) &&
            bind(lib, "curl_share_init", a.share_init, missing) &&
            bind(lib, "curl_share_setopt", a.share_setopt, missing) &&
            bind(lib, "curl_share_cleanup", a.share_cleanup, missing) &&
            bind(lib, "curl_url", a.url, missing) && bind(lib, "curl_url_set", a.url_set, missing) &&
            bind(lib, "curl_url_get", a.url_get, missing) &&
            bind(lib, "curl_url_cleanup", a.url_cleanup, missing) && bind(lib, "curl_free", a.free, missing);
  if (!ok) {
    ::dlclose(lib);
    return load_error(soname, std::string("has no function ") + missing);
  }
  // load_libcurl never closes it: handles made from it live as long as the
  // process.
  return a;
}

const Api* api() {
  if (const Api* a = g_api.load(std::memory_order_acquire)) return a;
  (void)load_libcurl();
  return g_api.load(std::memory_order_acquire);
}

}  // namespace

base::Status probe_libcurl(const std::string& soname) {
  auto a = open(soname);
  if (!a) return std::move(a).error();
  ::dlclose(a->handle);
  return {};
}

base::Status load_libcurl() {
  static const base::Status loaded = []() -> base::Status {
    auto a = open(kLibcurlSoname);
    if (!a) return std::move(a).error();
    static const Api table = *a;
    if (CURLcode rc = table.global_init(CURL_GLOBAL_DEFAULT); rc != CURLE_OK) {
      return load_error(kLibcurlSoname, std::string("curl_global_init failed: ") + table.easy_strerror(rc));
    }
    g_api.store(&table, std::memory_order_release);
    return {};
  }();
  return loaded;
}

}  // namespace http

// libcurl's entry points, forwarding to the opened library. Before it is
// open (or when it cannot be) they fail the way libcurl itself fails.
//
// Their signatures are curl/curl.h's, an enum before the "...": clang warns
// that va_start after an enum parameter is undefined in general (-Wvarargs).
// These enums' values fit an int, so their underlying type is int (or
// unsigned int), which promotion leaves as it is: va_start is well defined,
// as in libcurl's own definitions. Silenced for these definitions only.
#if defined(__clang__)
#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wvarargs"
#endif
extern "C" {

CURL* curl_easy_init(void) {
  const auto* a = http::api();
  return a != nullptr ? a->easy_init() : nullptr;
}

CURLcode curl_easy_setopt(CURL* curl, CURLoption option, ...) {
  const auto* a = http::api();
  if (a == nullptr) return CURLE_FAILED_INIT;
  // libcurl reads the one argument by the type its option number encodes
  // (CURLOPTTYPE_*); it is read the same way here and passed on. Callbacks
  // travel as a generic function pointer, as libcurl's own reading assumes.
  va_list ap;
  va_start(ap, option);
  CURLcode rc;
  if (option < CURLOPTTYPE_OBJECTPOINT) {
    rc = a->easy_setopt(curl, option, va_arg(ap, long));
  } else if (option < CURLOPTTYPE_FUNCTIONPOINT) {
    rc = a->easy_setopt(curl, option, va_arg(ap, void*));
  } else if (option < CURLOPTTYPE_OFF_T) {
    rc = a->easy_setopt(curl, option, va_arg(ap, void (*)()));
  } else if (option < CURLOPTTYPE_BLOB) {
    rc = a->easy_setopt(curl, option, va_arg(ap, curl_off_t));
  } else {
    rc = a->easy_setopt(curl, option, va_arg(ap, struct curl_blob*));
  }
  va_end(ap);
  return rc;
}

CURLcode curl_easy_getinfo(CURL* curl, CURLINFO info, ...) {
  const auto* a = http::api();
  if (a == nullptr) return CURLE_FAILED_INIT;
  // Every CURLINFO_* takes a pointer to where the answer goes.
  va_list ap;
  va_start(ap, info);
  CURLcode rc = a->easy_getinfo(curl, info, va_arg(ap, void*));
  va_end(ap);
  return rc;
}

CURLcode curl_easy_perform(CURL* curl) {
  const auto* a = http::api();
  return a != nullptr ? a->easy_perform(curl) : CURLE_FAILED_INIT;
}

void curl_easy_reset(CURL* curl) {
  if (const auto* a = http::api()) a->easy_reset(curl);
}

void curl_easy_cleanup(CURL* curl) {
  if (const auto* a = http::api()) a->easy_cleanup(curl);
}

CURLcode curl_easy_send(CURL* curl, const void* buffer, size_t buflen, size_t* n) {
  const auto* a = http::api();
  return a != nullptr ? a->easy_send(curl, buffer, buflen, n) : CURLE_FAILED_INIT;
}

CURLcode curl_easy_recv(CURL* curl, void* buffer, size_t buflen, size_t* n) {
  const auto* a = http::api();
  return a != nullptr ? a->easy_recv(curl, buffer, buflen, n) : CURLE_FAILED_INIT;
}

const char* curl_easy_strerror(CURLcode code) {
  const auto* a = http::api();
  return a != nullptr ? a->easy_strerror(code) : "libcurl could not be loaded";
}

struct curl_slist* curl_slist_append(struct curl_slist* list, const char* s) {
  const auto* a = http::api();
  return a != nullptr ? a->slist_append(list, s) : nullptr;
}

void curl_slist_free_all(struct curl_slist* list) {
  if (const auto* a = http::api()) a->slist_free_all(list);
}

CURLSH* curl_share_init(void) {
  const auto* a = http::api();
  return a != nullptr ? a->share_init() : nullptr;
}

CURLSHcode curl_share_setopt(CURLSH* share, CURLSHoption option, ...) {
  const auto* a = http::api();
  if (a == nullptr) return CURLSHE_NOT_BUILT_IN;
  va_list ap;
  va_start(ap, option);
  CURLSHcode rc;
  switch (option) {
    case CURLSHOPT_SHARE:
    case CURLSHOPT_UNSHARE:
      rc = a->share_setopt(share, option, va_arg(ap, int));  // a curl_lock_data, promoted
      break;
    case CURLSHOPT_LOCKFUNC:
    case CURLSHOPT_UNLOCKFUNC:
      rc = a->share_setopt(share, option, va_arg(ap, void (*)()));
      break;
    case CURLSHOPT_USERDATA:
      rc = a->share_setopt(share, option, va_arg(ap, void*));
      break;
    default:
      rc = CURLSHE_BAD_OPTION;
  }
  va_end(ap);
  return rc;
}

CURLSHcode curl_share_cleanup(CURLSH* share) {
  const auto* a = http::api();
  return a != nullptr ? a->share_cleanup(share) : CURLSHE_INVALID;
}

CURLU* curl_url(void) {
  const auto* a = http::api();
  return a != nullptr ? a->url() : nullptr;
}

CURLUcode curl_url_set(CURLU* handle, CURLUPart what, const char* part, unsigned int flags) {
  const auto* a = http::api();
  return a != nullptr ? a->url_set(handle, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}

CURLUcode curl_url_get(CURLU* handle, CURLUPart what, char** part, unsigned int flags) {
  const auto* a = http::api();
  return a != nullptr ? a->url_get(handle, what, part, flags) : CURLUE_OUT_OF_MEMORY;
}

void curl_url_cleanup(CURLU* handle) {
  if (const auto* a = http::api()) a->url_cleanup(handle);
}

void curl_free(void* p) {
  if (const auto* a = http::api()) a->free(p);
}

}  // extern "C"
#if defined(__clang__)
#pragma clang diagnostic pop
#endif
