#include "cli/shared_flags.h"

#include <algorithm>

namespace cli {

namespace {

bool is_flag_word(const std::string& w) { return w.size() > 1 && w[0] == '-' && w != "--"; }

bool names(const CLI::Option* o, const std::string& name) {
  for (const auto& s : o->get_snames()) {
    if (name == "-" + s) return true;
  }
  for (const auto& l : o->get_lnames()) {
    if (name == "--" + l) return true;
  }
  return false;
}

const CLI::Option* own_option(const CLI::App& app, const std::string& name, bool shared_only) {
  for (const auto* o : app.get_options([](const CLI::Option* o) { return !o->get_positional(); })) {
    if (shared_only && o->get_group() != kSharedGroup) continue;
    if (names(o, name)) return o;
  }
  return nullptr;
}

struct FlagWord {
  bool known = false;
  bool shared = false;
  bool takes_next = false;  // its value is the next word
};

void lookup(const CLI::App& level, const std::string& name, FlagWord& out) {
  if (const auto* o = find_shared_flag(level, name)) {
    out.known = true;
    out.shared = true;
    out.takes_next = takes_value(o);
  } else if (const auto* own = own_option(level, name, false)) {
    out.known = true;
    out.takes_next = takes_value(own);
  }
}

// "--namespace=prod", "--namespace prod", "-nprod", "-n prod", "-qv".
FlagWord read_flag(const CLI::App& level, const std::string& w) {
  FlagWord f;
  if (w.starts_with("--")) {
    auto eq = w.find('=');
    lookup(level, w.substr(0, eq), f);
    if (eq != std::string::npos) f.takes_next = false;
    return f;
  }
  lookup(level, w.substr(0, 2), f);
  if (!f.known || w.size() == 2) return f;
  if (f.takes_next) {
    f.takes_next = false;  // the value is glued on
    return f;
  }
  // Several one-letter flags in one word: shared only when all of them are.
  for (size_t i = 2; i < w.size(); ++i) {
    FlagWord next;
    lookup(level, std::string("-") + w[i], next);
    if (!next.known || next.takes_next) return {};
    f.shared = f.shared && next.shared;
  }
  return f;
}

void collect_shared(const CLI::App& app, std::vector<const CLI::Option*>& out) {
  for (const auto* sub : app.get_subcommands([](const CLI::App* s) { return !s->get_group().empty(); })) {
    for (const auto* o : sub->get_options([](const CLI::Option* o) { return o->get_group() == kSharedGroup; })) {
      bool seen = std::any_of(out.begin(), out.end(), [o](const CLI::Option* x) {
        return x->get_lnames() == o->get_lnames() && x->get_snames() == o->get_snames();
      });
      if (!seen) out.push_back(o);
    }
    collect_shared(*sub, out);
  }
}

}  // namespace

bool takes_value(const CLI::Option* o) { return o->get_items_expected_min() > 0; }

const CLI::App* find_subcommand(const CLI::App& app, const std::string& name) {
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (sub->get_name() == name) return sub;
  }
  return nullptr;
}

const CLI::Option* find_shared_flag(const CLI::App& app, const std::string& name) {
  if (const auto* o = own_option(app, name, true)) return o;
  for (const auto* sub : app.get_subcommands([](const CLI::App*) { return true; })) {
    if (const auto* o = find_shared_flag(*sub, name)) return o;
  }
  return nullptr;
}

std::vector<const CLI::Option*> shared_flags_below(const CLI::App& app) {
  std::vector<const CLI::Option*> out;
  collect_shared(app, out);
  return out;
}

std::size_t command_position(const CLI::App& table, const std::vector<std::string>& words) {
  std::size_t i = 0;
  while (i < words.size()) {
    if (!is_flag_word(words[i])) return i;
    FlagWord f = read_flag(table, words[i]);
    if (!f.known || !f.shared) return i;
    i += f.takes_next ? 2 : 1;
  }
  return words.size();
}

std::vector<std::string> hoist_shared_flags(const CLI::App& root, const std::vector<std::string>& words) {
  const CLI::App* level = &root;
  std::vector<std::size_t> shared;  // indices of shared flags and their values
  std::size_t command_at = words.size();
  std::size_t i = 0;
  while (i < words.size()) {
    const std::string& w = words[i];
    if (w == "--") break;
    if (is_flag_word(w)) {
      FlagWord f = read_flag(*level, w);
      if (!f.known) break;
      std::size_t span = f.takes_next && i + 1 < words.size() ? 2 : 1;
      for (std::size_t k = 0; k < span; ++k) {
        if (f.shared) shared.push_back(i + k);
      }
      i += span;
      continue;
    }
    const CLI::App* sub = find_subcommand(*level, w);
    if (sub == nullptr) break;  // a positional argument: `level` is the command
    level = sub;
    command_at = i++;
    if (sub->get_prefix_command()) break;  // it reads the rest as it is
  }
  if (command_at == words.size()) return words;
  std::erase_if(shared, [command_at](std::size_t k) { return k > command_at; });
  if (shared.empty()) return words;

  std::vector<std::string> out;
  out.reserve(words.size());
  for (std::size_t k = 0; k <= command_at; ++k) {
    if (!std::binary_search(shared.begin(), shared.end(), k)) out.push_back(words[k]);
  }
  for (std::size_t k : shared) out.push_back(words[k]);
  for (std::size_t k = command_at + 1; k < words.size(); ++k) out.push_back(words[k]);
  return out;
}

}  // namespace cli
