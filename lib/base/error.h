// The one error type of the suite: what failed, on which object, what to do.
// Library code returns it (inside Result<T>); only a program's main turns it
// into stderr text and an exit code, through exit_code().
#pragma once

#include <string>
#include <vector>

namespace base {

// Each kind maps to exactly one exit code of docs/exit-codes.md (see exit_code()).
enum class ErrorKind {
  Failed,            // 1: an API or RPC error, a failed step
  Unhealthy,         // 1: a health check judged a member unhealthy
  CannotConnect,     // 2: the Kubernetes API or every etcd endpoint unreachable
  Refused,           // 3: a blocker, safety rule or precondition; nothing changed
  Timeout,           // 4: timed out while waiting; a re-run resumes
  Partial,           // 5: some targets succeeded, some failed
  NotFound,          // 6: the named cluster, member, context or object is absent
  PermissionDenied,  // 7: 401/403
  Inconsistent,      // 8: members answered different data at one revision (HashKV)
  Usage,             // 128: bad arguments
  Interrupted,       // 130: SIGINT after a clean stop
  Terminated,        // 143: SIGTERM after a clean stop
};

// Every kind, in the table's order: for the programs' `__exit-codes`, which
// the tests compare with the tables in README.md and docs/exit-codes.md.
inline constexpr ErrorKind kErrorKinds[] = {
    ErrorKind::Failed,   ErrorKind::Unhealthy, ErrorKind::CannotConnect,    ErrorKind::Refused,
    ErrorKind::Timeout,  ErrorKind::Partial,   ErrorKind::NotFound,         ErrorKind::PermissionDenied,
    ErrorKind::Inconsistent, ErrorKind::Usage, ErrorKind::Interrupted,      ErrorKind::Terminated,
};

struct Error {
  ErrorKind kind = ErrorKind::Failed;
  std::string message;  // what failed, e.g. "cannot list pods"
  std::string object;   // on which object, e.g. "etcdcluster \"ns/c\"" (may be empty)
  std::string hint;     // what the user can do (may be empty)

  // Machine-readable detail for callers that must tell errors apart
  // (Kubernetes Status reason such as "AlreadyExists", or an etcd error name).
  std::string reason;
  int status = 0;  // HTTP status or gRPC status code, 0 when none
  std::vector<std::string> causes;  // field causes (e.g. a CEL rule), already readable

  // "<object>: <message>: <causes>; <hint>" on one line, control characters folded.
  std::string one_line() const;

  Error& on(std::string obj) & { object = std::move(obj); return *this; }
  Error&& on(std::string obj) && { object = std::move(obj); return std::move(*this); }
  Error& with_hint(std::string h) & { hint = std::move(h); return *this; }
  Error&& with_hint(std::string h) && { hint = std::move(h); return std::move(*this); }
};

Error make_error(ErrorKind kind, std::string message, std::string object = {},
                 std::string hint = {});

int exit_code(ErrorKind kind);
const char* kind_name(ErrorKind kind);

// Folds newlines, tabs and other control characters to single spaces so that
// an error stays on one line whatever a server put in its message.
std::string fold_line(std::string_view text);

}  // namespace base
