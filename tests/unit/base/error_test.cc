#include "base/error.h"

#include <iterator>
#include <set>
#include <string>

#include <doctest/doctest.h>

#include <string>

using base::ErrorKind;

TEST_CASE("every error kind maps to the exit code of docs/exit-codes.md") {
  CHECK(base::exit_code(ErrorKind::Failed) == 1);
  CHECK(base::exit_code(ErrorKind::Unhealthy) == 1);
  CHECK(base::exit_code(ErrorKind::CannotConnect) == 2);
  CHECK(base::exit_code(ErrorKind::Refused) == 3);
  CHECK(base::exit_code(ErrorKind::Timeout) == 4);
  CHECK(base::exit_code(ErrorKind::Partial) == 5);
  CHECK(base::exit_code(ErrorKind::NotFound) == 6);
  CHECK(base::exit_code(ErrorKind::PermissionDenied) == 7);
  CHECK(base::exit_code(ErrorKind::Inconsistent) == 8);
  CHECK(std::string(base::kind_name(ErrorKind::Inconsistent)) == "Inconsistent");
  CHECK(base::exit_code(ErrorKind::Usage) == 128);
  CHECK(base::exit_code(ErrorKind::Interrupted) == 130);
  CHECK(base::exit_code(ErrorKind::Terminated) == 143);
}

TEST_CASE("kErrorKinds lists every kind once, each with its own name") {
  std::set<std::string> names;
  for (auto kind : base::kErrorKinds) names.insert(base::kind_name(kind));
  CHECK(names.size() == std::size(base::kErrorKinds));
  CHECK(names.size() == static_cast<size_t>(ErrorKind::Terminated) + 1);
}

TEST_CASE("one_line names the object, what failed and what to do") {
  auto e = base::make_error(ErrorKind::NotFound, "not found", "etcdcluster \"ns/c\"",
                           "list them with 'kubectl get etcdclusters -A'");
  CHECK(e.one_line() == "etcdcluster \"ns/c\": not found; list them with 'kubectl get etcdclusters -A'");
}

TEST_CASE("one_line without object or hint is just the message") {
  CHECK(base::make_error(ErrorKind::Failed, "boom").one_line() == "boom");
}

TEST_CASE("one_line lists causes after the message") {
  auto e = base::make_error(ErrorKind::Failed, "invalid", "etcdcluster \"a/b\"");
  e.causes = {"spec.replicas: must be odd", "spec.options: bad"};
  CHECK(e.one_line() == "etcdcluster \"a/b\": invalid: spec.replicas: must be odd, spec.options: bad");
}

TEST_CASE("one_line folds server text with newlines onto one line") {
  auto e = base::make_error(ErrorKind::Failed, "line one\nline two\r\n\tthree\n");
  CHECK(e.one_line() == "line one line two three");
}

TEST_CASE("an empty message falls back to the kind's name") {
  base::Error e;
  e.kind = ErrorKind::Timeout;
  CHECK(e.one_line() == "Timeout");
}

TEST_CASE("on() and with_hint() chain on temporaries") {
  auto e = base::make_error(ErrorKind::Refused, "would lose quorum").on("member \"c-1\"").with_hint("add a member first");
  CHECK(e.object == "member \"c-1\"");
  CHECK(e.hint == "add a member first");
}
