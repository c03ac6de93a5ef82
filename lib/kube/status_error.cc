#include "kube/status_error.h"

#include <nlohmann/json.hpp>

#include "kube/redact.h"

namespace kube {

namespace {

std::string str(const nlohmann::json& j, const char* key) {
  auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string reason_for_code(int code) {
  switch (code) {
    case 400: return "BadRequest";
    case 401: return "Unauthorized";
    case 403: return "Forbidden";
    case 404: return "NotFound";
    case 405: return "MethodNotAllowed";
    case 406: return "NotAcceptable";
    case 409: return "Conflict";
    case 410: return "Expired";
    case 413: return "RequestEntityTooLarge";
    case 415: return "UnsupportedMediaType";
    case 422: return "Invalid";
    case 429: return "TooManyRequests";
    case 500: return "InternalError";
    case 503: return "ServiceUnavailable";
    case 504: return "Timeout";
    default: return "Unknown";
  }
}

std::string truncate(std::string s, size_t n) {
  if (s.size() > n) {
    s.resize(n);
    s += "...";
  }
  return s;
}

}  // namespace

std::string describe_request(const RequestContext& ctx) {
  // Discovery asks for a group/version, not a resource: name the API.
  const auto& r = ctx.resource;
  std::string s = ctx.verb + " " +
                  (r.plural.empty() ? "API " + (r.group.empty() ? r.version : r.group + "/" + r.version)
                                    : r.group_resource());
  if (!ctx.subresource.empty()) s += "/" + ctx.subresource;
  if (!ctx.name.empty()) s += " \"" + ctx.name + "\"";
  if (ctx.resource.namespaced && !ctx.ns.empty()) s += " in namespace \"" + ctx.ns + "\"";
  return s;
}

base::Error status_error(int http_status, std::string_view body, const RequestContext& ctx) {
  base::Error e;
  e.status = http_status;
  nlohmann::json st = nlohmann::json::parse(body, nullptr, false);
  bool is_status = st.is_object() && str(st, "kind") == "Status";
  std::string message = is_status ? str(st, "message") : std::string();
  e.reason = is_status ? str(st, "reason") : std::string();
  if (e.reason.empty()) e.reason = reason_for_code(http_status);
  if (!is_status) message = truncate(base::fold_line(body), 200);
  const bool secret = ctx.resource.plural == "secrets" && ctx.resource.group.empty();
  if (secret) message = redact_invalid_values(message);

  nlohmann::json details = is_status && st.contains("details") && st["details"].is_object()
                               ? st["details"] : nlohmann::json::object();
  if (details.contains("causes") && details["causes"].is_array()) {
    for (const auto& c : details["causes"]) {
      if (!c.is_object()) continue;
      std::string field = str(c, "field");
      std::string msg = str(c, "message");
      if (secret) msg = redact_invalid_values(msg);
      if (msg.empty()) msg = str(c, "reason");
      e.causes.push_back(base::fold_line(field.empty() ? msg : field + ": " + msg));
    }
  }
  if (!ctx.name.empty()) e.object = ctx.resource.describe(ctx.ns, ctx.name);

  switch (http_status) {
    case 401:
      e.kind = base::ErrorKind::PermissionDenied;
      e.object.clear();
      e.message = "unauthorized: cannot " + describe_request(ctx) +
                  (message.empty() ? std::string() : ": " + message);
      e.hint = "the server refused the credentials; check the user of the kubeconfig context";
      return e;
    case 403:
      e.kind = base::ErrorKind::PermissionDenied;
      e.object.clear();
      e.message = "cannot " + describe_request(ctx) +
                  (message.empty() ? std::string() : ": " + message);
      return e;
    case 404: {
      // Both "no such object" and "no such API" are 404s; only the first
      // names an object in its details. A missing namespace names the
      // namespace, so it is reported as that object.
      std::string dname = str(details, "name");
      std::string dkind = str(details, "kind");
      if (!dname.empty()) {
        e.kind = base::ErrorKind::NotFound;
        e.reason = "NotFound";
        if (dkind == "namespaces" && dname != ctx.name) {
          e.object = "namespaces \"" + dname + "\"";
        } else if (e.object.empty()) {
          e.object = ctx.resource.describe(ctx.ns, dname);
        }
        e.message = "not found";
        return e;
      }
      e.kind = base::ErrorKind::Failed;
      e.reason = kReasonNotServed;
      e.object.clear();
      e.message = "cannot " + describe_request(ctx) + ": the server does not serve " +
                  ctx.resource.group_resource() + " (" + ctx.resource.api_version() + ")";
      e.hint = "is the API installed (its CustomResourceDefinition) and that version served?";
      return e;
    }
    default:
      break;
  }
  e.kind = base::ErrorKind::Failed;
  std::string what = e.object.empty() ? "cannot " + describe_request(ctx) : "cannot " + ctx.verb;
  if (!e.object.empty() && !ctx.subresource.empty()) what += " " + ctx.subresource;
  if (e.reason == kReasonAlreadyExists) {
    e.message = "already exists";
  } else if (e.reason == kReasonInvalid && !e.causes.empty()) {
    e.message = what + ": invalid";
  } else {
    e.message = what + (message.empty() ? std::string() : ": " + message);
  }
  if (e.reason == kReasonConflict) e.hint = "the object changed since it was read; read it again and retry";
  if (e.reason == kReasonExpired || http_status == 410) {
    e.hint = ctx.verb == "watch" ? "the resourceVersion is too old; list again and watch from there"
                                 : "the list continue token expired; start the list again";
  }
  return e;
}

bool is_not_found(const base::Error& e) { return e.kind == base::ErrorKind::NotFound; }
bool is_conflict(const base::Error& e) { return e.status == 409 && e.reason != kReasonAlreadyExists; }
bool is_already_exists(const base::Error& e) { return e.reason == kReasonAlreadyExists; }
bool is_expired(const base::Error& e) { return e.reason == kReasonExpired || e.status == 410; }
bool is_not_served(const base::Error& e) { return e.reason == kReasonNotServed; }

}  // namespace kube
