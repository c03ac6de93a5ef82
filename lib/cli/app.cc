#include "cli/app.h"

#include <cxxabi.h>
#include <openssl/crypto.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <typeinfo>

#include "cli/shared_flags.h"

namespace cli {

namespace {

std::string type_name(const std::type_info* t) {
  if (t == nullptr) return "an exception of unknown type";
  int status = 0;
  std::unique_ptr<char, void (*)(void*)> name(abi::__cxa_demangle(t->name(), nullptr, nullptr, &status), std::free);
  return status == 0 && name ? name.get() : t->name();
}

std::string internal_error_line(const std::string& what) {
  return base::fold_line("internal error: " + what + "; please report this with the command line");
}

[[noreturn]] void on_terminate() {
  std::string line = "error: " + internal_error_line(describe_exception(std::current_exception())) + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
  std::_Exit(1);
}

}  // namespace

void init_process() {
  OPENSSL_init_crypto(OPENSSL_INIT_NO_ATEXIT, nullptr);
  std::set_terminate(on_terminate);
}

std::string describe_exception(const std::exception_ptr& e) {
  if (!e) return "std::terminate without an exception";
  try {
    std::rethrow_exception(e);
  } catch (const std::exception& x) {
    return type_name(&typeid(x)) + ": " + x.what();
  } catch (...) {
    return type_name(abi::__cxa_current_exception_type());
  }
}

int run_guarded(Diag& diag, const std::function<int()>& body) {
  try {
    return body();
  } catch (...) {
    diag.error(internal_error_line(describe_exception(std::current_exception())));
    return 1;
  }
}

std::string display_name(std::string_view argv0) {
  auto slash = argv0.rfind('/');
  std::string base(slash == std::string_view::npos ? argv0 : argv0.substr(slash + 1));
  static constexpr std::string_view prefix = "kubectl-";
  if (base.rfind(prefix, 0) == 0 && base.size() > prefix.size()) {
    std::string rest = base.substr(prefix.size());
    // kubectl maps "_" in plugin file names to "-" in the command it shows.
    std::replace(rest.begin(), rest.end(), '_', '-');
    return "kubectl " + rest;
  }
  return base;
}

size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t sub = prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1);
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, sub});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::optional<std::string> closest(std::string_view name, const std::vector<std::string>& candidates) {
  std::optional<std::string> best;
  size_t best_distance = std::max<size_t>(2, name.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_distance) {
      best_distance = d;
      best = c;
    }
  }
  return best;
}

namespace {

// The deepest subcommand that was recognised before the error.
CLI::App* deepest_parsed(CLI::App& app) {
  CLI::App* cur = &app;
  for (;;) {
    auto subs = cur->get_subcommands();
    if (subs.empty()) return cur;
    cur = subs.front();
  }
}

std::vector<std::string> subcommand_names(CLI::App& app) {
  std::vector<std::string> names;
  for (const auto* sub : app.get_subcommands([](CLI::App*) { return true; })) {
    if (!sub->get_group().empty()) names.push_back(sub->get_name());
  }
  return names;
}

}  // namespace

std::optional<int> parse_args(CLI::App& app, int argc, const char* const* argv, std::ostream& out,
                              Diag& diag) {
  std::vector<std::string> words(argv + std::min(argc, 1), argv + argc);
  words = hoist_shared_flags(app, words);
  std::reverse(words.begin(), words.end());  // CLI11 reads the vector from its end
  try {
    app.parse(std::move(words));
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) {
      // --help, --help-all, --version: CLI11 prints them on the stream we give.
      app.exit(e, out, out);
      return 0;
    }
    CLI::App* where = deepest_parsed(app);
    std::string message = e.what();
    auto extras = where->remaining();
    if (!extras.empty() && !extras.front().empty() && extras.front()[0] != '-') {
      auto names = subcommand_names(*where);
      if (!names.empty()) {
        message = "unknown command \"" + extras.front() + "\" for \"" + where->get_name() + "\"";
        if (auto guess = closest(extras.front(), names)) message += " (did you mean \"" + *guess + "\"?)";
      }
    }
    base::Error err = base::make_error(base::ErrorKind::Usage, message, {},
                           "run '" + where->get_name() + " --help' for usage");
    diag.error(err);
    return base::exit_code(base::ErrorKind::Usage);
  }
  return std::nullopt;
}

}  // namespace cli
