// What both programs' main() share around CLI11: the name users type, parse
// errors mapped onto exit code 128 with one line on stderr, and "did you
// mean" for a mistyped subcommand.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include <CLI/CLI.hpp>

#include "cli/diag.h"

namespace cli {

// The first thing main() does, before any library call: OpenSSL without its
// cleanup at exit. gRPC's executor threads may still be starting or failing
// a TLS handshake when main returns (e.g. --tls-server-name wrong.example);
// OpenSSL's atexit cleanup then freed the locks they use, a crash seen under
// ASan as SEGV in CRYPTO_THREAD_write_lock (docs/fuzzing.md,
// e2e-admin-tls_failure_loop). It has to be OpenSSL's first initialisation
// in the process to count. It also makes std::terminate (an exception
// escaping a worker thread) print one `error:` line naming the exception and
// exit 1 instead of aborting with 134 (docs/exit-codes.md#special-cases).
void init_process();

// Runs a program's body. The library returns errors and does not throw; an
// exception that still escapes is a bug, said in one line on diag naming it
// (its type and text), and the program exits 1, never aborts.
int run_guarded(Diag& diag, const std::function<int()>& body);
// "TYPE: what()" of an exception, for that line.
std::string describe_exception(const std::exception_ptr& e);

// "kubectl-etcd" (or a path to it) reads "kubectl etcd", as kubectl shows
// plugins; other names are kept as they are.
std::string display_name(std::string_view argv0);

// Parses, after moving the shared flags written before a command behind it
// (cli/shared_flags.h); returns std::nullopt when the program should go on, otherwise the
// exit code: 0 after --help or --version (printed on `out`), 128 after a
// usage error (one line on diag).
std::optional<int> parse_args(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                              Diag& diag);

size_t edit_distance(std::string_view a, std::string_view b);
// The candidate closest to `name` within a small distance, if any.
std::optional<std::string> closest(std::string_view name, const std::vector<std::string>& candidates);

}  // namespace cli
