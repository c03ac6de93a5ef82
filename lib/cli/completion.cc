#include "cli/completion.h"


#include "base/text.h"
#include "cli/shared_flags.h"

namespace cli {

namespace {

bool hidden(const CLI::App* app) { return app->get_group().empty(); }

// "-c", "--cluster" (without "=value").
const CLI::Option* find_option(const CLI::App& app, const std::string& word) {
  std::string name = word.substr(0, word.find('='));
  for (const auto* o : app.get_options([](const CLI::Option* o) { return !o->get_positional(); })) {
    for (const auto& s : o->get_snames()) {
      if (name == "-" + s) return o;
    }
    for (const auto& l : o->get_lnames()) {
      if (name == "--" + l) return o;
    }
  }
  return nullptr;
}

std::string long_name(const CLI::Option* o) {
  return o->get_lnames().empty() ? std::string() : "--" + o->get_lnames().front();
}

// "{a,b,c}" in the option's type name: the values IsMember allows.
std::vector<std::string> fixed_values(const CLI::Option* o) {
  std::vector<std::string> out;
  std::string type = o->get_type_name();
  auto open = type.find('{');
  auto close = type.find('}', open == std::string::npos ? 0 : open);
  if (open == std::string::npos || close == std::string::npos) return out;
  return base::split(std::string_view(type).substr(open + 1, close - open - 1), ',');
}

void record_scope(CompletionScope& scope, const CLI::Option* o, const std::string& value) {
  std::string name = long_name(o);
  if (name == "--kubeconfig") scope.kubeconfig = value;
  if (name == "--context") scope.context = value;
  if (name == "--namespace") scope.ns = value;
  if (name == "--cluster") scope.cluster = value;
}

void add_if(std::vector<Candidate>& out, const std::string& prefix, std::string value, std::string description) {
  if (value.starts_with(prefix)) out.push_back({std::move(value), std::move(description)});
}

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

}  // namespace

ValueKind value_kind(const std::string& binary, const std::string& command_path, const std::string& name) {
  if (name == "--kubeconfig" || name == "--cacert" || name == "--cert" || name == "--key" || name == "--file") {
    return ValueKind::File;
  }
  if (name == "--context") return ValueKind::Context;
  if (name == "--namespace") return ValueKind::Namespace;
  if (binary == "kubectl-etcd") {
    if (name == "--cluster") return ValueKind::Cluster;
    if (name == "--pod") return ValueKind::Pod;
    if (name == "--member") return ValueKind::Member;
    if (command_path == "move-leader" && name == "target") return ValueKind::Member;
    if (command_path == "snapshot status" && name == "name") return ValueKind::Snapshot;
    if (name == "path") return ValueKind::File;
    if (command_path == "report" && name == "--dir") return ValueKind::Directory;
  }
  if (binary == "etcd-migrate") {
    if (name == "--backup-dir") return ValueKind::Directory;
    // verify names an adopted cluster: an EtcdCluster of the new API.
    if (command_path == "verify" && name == "name") return ValueKind::Cluster;
  }
  return ValueKind::None;
}

Completion complete(const CLI::App& root, const std::string& binary, const std::vector<std::string>& words) {
  Completion result;
  const CLI::App* app = &root;
  std::string path;
  size_t positionals_seen = 0;
  bool only_positionals = false;
  std::string cur = words.empty() ? std::string() : words.back();
  const CLI::Option* pending = nullptr;  // the option whose value is `cur`

  for (size_t i = 0; i + 1 < words.size(); ++i) {
    const std::string& w = words[i];
    if (!only_positionals && w == "--") {
      only_positionals = true;
      continue;
    }
    if (!only_positionals && w.size() > 1 && w[0] == '-') {
      // Shared flags may stand before the command they belong to.
      const CLI::Option* o = find_option(*app, w);
      if (!o) o = find_shared_flag(*app, w.substr(0, w.find('=')));
      if (!o || !takes_value(o)) continue;
      auto eq = w.find('=');
      if (eq != std::string::npos) {
        record_scope(result.scope, o, w.substr(eq + 1));
      } else if (i + 2 < words.size()) {
        record_scope(result.scope, o, words[++i]);
      } else {
        ++i;
        pending = o;
      }
      continue;
    }
    if (const CLI::App* sub = find_subcommand(*app, w); sub && positionals_seen == 0) {
      app = sub;
      path += (path.empty() ? "" : " ") + w;
      continue;
    }
    ++positionals_seen;
  }

  const CLI::Option* value_of = pending;
  std::string value_prefix = cur;
  if (!value_of && !only_positionals && cur.starts_with("--") && cur.find('=') != std::string::npos) {
    value_of = find_option(*app, cur);
    if (!value_of) value_of = find_shared_flag(*app, cur.substr(0, cur.find('=')));
    if (value_of) {
      result.insert_prefix = cur.substr(0, cur.find('=') + 1);
      value_prefix = cur.substr(cur.find('=') + 1);
    }
  }
  if (value_of) {
    for (const auto& v : fixed_values(value_of)) {
      if (v.starts_with(value_prefix)) result.candidates.push_back({result.insert_prefix + v, ""});
    }
    if (result.candidates.empty()) result.lookup = value_kind(binary, path, long_name(value_of));
    result.prefix = value_prefix;
    return result;
  }

  if (!only_positionals && !cur.empty() && cur[0] == '-') {
    for (const auto* o : app->get_options([](const CLI::Option* o) { return !o->get_positional(); })) {
      if (o->get_group().empty()) continue;
      std::string desc = first_line(o->get_description());
      for (const auto& l : o->get_lnames()) add_if(result.candidates, cur, "--" + l, desc);
      for (const auto& s : o->get_snames()) add_if(result.candidates, cur, "-" + s, desc);
    }
    if (positionals_seen == 0) {
      for (const auto* o : shared_flags_below(*app)) {
        if (find_option(*app, long_name(o))) continue;  // offered above
        std::string desc = first_line(o->get_description());
        for (const auto& l : o->get_lnames()) add_if(result.candidates, cur, "--" + l, desc);
        for (const auto& s : o->get_snames()) add_if(result.candidates, cur, "-" + s, desc);
      }
    }
    return result;
  }

  if (positionals_seen == 0) {
    for (const auto* sub : app->get_subcommands([](const CLI::App* s) { return !hidden(s); })) {
      add_if(result.candidates, cur, sub->get_name(), first_line(sub->get_description()));
    }
  }
  auto positionals = app->get_options([](const CLI::Option* o) { return o->get_positional(); });
  if (positionals_seen < positionals.size()) {
    result.lookup = value_kind(binary, path, positionals[positionals_seen]->get_name());
    result.prefix = cur;
  }
  return result;
}

std::string format_candidates(const std::vector<Candidate>& candidates, ValueKind kind) {
  if (candidates.empty() && kind == ValueKind::File) return ":files\n";
  if (candidates.empty() && kind == ValueKind::Directory) return ":dirs\n";
  std::string out;
  for (const auto& c : candidates) {
    out += c.value;
    out += '\t';
    for (char ch : c.description) out += (ch == '\t' || ch == '\n') ? ' ' : ch;
    out += '\n';
  }
  return out;
}

namespace {

std::string fill(std::string text, const std::string& binary) {
  std::string fn = binary;
  for (auto& c : fn) {
    if (c == '-') c = '_';
  }
  for (auto [key, value] : {std::pair<std::string, std::string>{"@BIN@", binary}, {"@FN@", fn}}) {
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

constexpr const char* kBash = R"(# bash completion for @BIN@ (generated by `@BIN@ __completion bash`; needs bash-completion)
_@FN@_complete() {
  local cur prev words cword
  _init_completion -n =: || return
  local out
  out=$(@BIN@ __complete "${words[@]:1:cword}" 2>/dev/null) || return
  case "$out" in
    :files) _filedir; return ;;
    :dirs) _filedir -d; return ;;
  esac
  local pre=
  if [[ $cur == -*=* ]]; then
    pre=${cur%%=*}=
    cur=${cur#*=}
  fi
  local IFS=$'\n' line values=()
  for line in $out; do
    line=${line%%$'\t'*}
    values+=("${line#"$pre"}")
  done
  COMPREPLY=($(compgen -W "${values[*]}" -- "$cur"))
}
complete -F _@FN@_complete @BIN@
)";

constexpr const char* kZsh = R"(#compdef @BIN@
# zsh completion for @BIN@ (generated by `@BIN@ __completion zsh`)
_@FN@_complete() {
  local -a candidates
  local line out
  out=$(@BIN@ __complete "${(@)words[2,CURRENT]}" 2>/dev/null) || return 1
  case $out in
    :files) _files; return ;;
    :dirs) _files -/; return ;;
  esac
  for line in "${(@f)out}"; do
    [[ -n $line ]] || continue
    candidates+=("${${line%%$'\t'*}//:/\\:}:${line#*$'\t'}")
  done
  _describe -t values @BIN@ candidates
}
if [[ $funcstack[1] == _@BIN@ ]]; then
  _@FN@_complete "$@"
else
  compdef _@FN@_complete @BIN@
fi
)";

constexpr const char* kFish = R"(# fish completion for @BIN@ (generated by `@BIN@ __completion fish`)
function __@FN@_complete
    set -l words (commandline -opc)
    set -e words[1]
    set -l cur (commandline -ct)
    set -a words "$cur"
    set -l out (@BIN@ __complete $words 2>/dev/null)
    switch "$out"
        case ':files'
            __fish_complete_path "$cur"
            return
        case ':dirs'
            __fish_complete_directories "$cur"
            return
    end
    printf '%s\n' $out
end
complete -c @BIN@ -f -a '(__@FN@_complete)'
)";

// kubectl (>= 1.26) runs kubectl_complete-<plugin> ARGS... for `kubectl
// <plugin> ARGS<TAB>` and reads cobra's answer: candidates, then ":<directive>"
// (0 default: file names; 4 no file names; 16 directories only).
constexpr const char* kKubectlPlugin = R"(#!/bin/sh
# kubectl's completion of `kubectl @PLUGIN@ ...` (generated by `@BIN@ __completion kubectl`)
out=$(@BIN@ __complete "$@" 2>/dev/null)
case "$out" in
  :files) echo ":0" ;;
  :dirs) echo ":16" ;;
  *)
    [ -n "$out" ] && printf '%s\n' "$out"
    echo ":4"
    ;;
esac
)";

}  // namespace

std::optional<std::string> completion_script(const std::string& shell, const std::string& binary) {
  if (shell == "bash") return fill(kBash, binary);
  if (shell == "zsh") return fill(kZsh, binary);
  if (shell == "fish") return fill(kFish, binary);
  if (shell == "kubectl" && binary.rfind("kubectl-", 0) == 0) {
    std::string text = fill(kKubectlPlugin, binary);
    std::string plugin = binary.substr(8);
    for (size_t at = text.find("@PLUGIN@"); at != std::string::npos; at = text.find("@PLUGIN@", at + plugin.size())) {
      text.replace(at, 8, plugin);
    }
    return text;
  }
  return std::nullopt;
}

}  // namespace cli
