#include "cli/manpage.h"

#include <algorithm>
#include <sstream>

#include "cli/shared_flags.h"

namespace cli {

std::string roff_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size() + 8);
  for (char c : text) {
    if (c == '\\') {
      out += "\\e";
    } else if (c == '-') {
      out += "\\-";
    } else {
      out += c;
    }
  }
  // A line starting with '.' or '\'' would be read as a request.
  if (!out.empty() && (out[0] == '.' || out[0] == '\'')) out.insert(0, "\\&");
  return out;
}

namespace {

bool visible(const CLI::App* app) { return !app->get_group().empty(); }

std::vector<const CLI::App*> visible_subcommands(const CLI::App& app) {
  return app.get_subcommands([](const CLI::App* s) { return visible(s); });
}

// Each line of a free text as its own roff line: the text is already laid
// out in lines (footers), and an empty line becomes a paragraph break.
void write_text(std::ostream& out, const std::string& text) {
  std::istringstream in(text);
  std::string line;
  bool pending_break = false;
  bool first = true;
  while (std::getline(in, line)) {
    if (line.find_first_not_of(" \t") == std::string::npos) {
      pending_break = !first;
      continue;
    }
    if (pending_break) out << ".PP\n";
    pending_break = false;
    first = false;
    auto start = line.find_first_not_of(" \t");
    out << roff_escape(line.substr(start)) << "\n";
  }
}

// "TEXT:{a,b}" -> "a|b"; "TEXT" -> "TEXT"; the metavariable of an option.
std::string metavar(const CLI::Option* opt) {
  std::string type = opt->get_type_name();
  auto brace = type.find('{');
  if (brace != std::string::npos) {
    auto end = type.find('}', brace);
    std::string set = type.substr(brace + 1, end == std::string::npos ? std::string::npos : end - brace - 1);
    std::replace(set.begin(), set.end(), ',', '|');
    return set;
  }
  auto colon = type.find(':');
  if (colon != std::string::npos) type = type.substr(0, colon);
  return type.empty() ? "VALUE" : type;
}

void write_option(std::ostream& out, const CLI::Option* opt) {
  out << ".TP\n";
  std::vector<std::string> names;
  for (const auto& s : opt->get_snames()) names.push_back("\\fB" + roff_escape("-" + s) + "\\fR");
  for (const auto& l : opt->get_lnames()) names.push_back("\\fB" + roff_escape("--" + l) + "\\fR");
  for (size_t i = 0; i < names.size(); ++i) out << (i ? ", " : "") << names[i];
  if (opt->get_items_expected_min() > 0) out << " \\fI" << roff_escape(metavar(opt)) << "\\fR";
  out << "\n";
  std::string desc = opt->get_description();
  if (!opt->get_default_str().empty()) desc += " (default: " + opt->get_default_str() + ")";
  write_text(out, desc.empty() ? "(no description)" : desc);
}

void write_options(std::ostream& out, const CLI::App& app, const char* heading) {
  auto positionals = app.get_options([](const CLI::Option* o) { return o->get_positional(); });
  if (!positionals.empty()) {
    out << heading << " ARGUMENTS\n";
    for (const auto* p : positionals) {
      out << ".TP\n\\fI" << roff_escape(p->get_name()) << "\\fR\n";
      write_text(out, p->get_description());
    }
  }
  auto options = app.get_options(
      [](const CLI::Option* o) { return !o->get_positional() && !o->get_group().empty(); });
  if (options.empty()) return;
  // One heading per option group, in the order --help shows them.
  std::vector<std::string> groups;
  for (const auto* o : options) {
    if (std::find(groups.begin(), groups.end(), o->get_group()) == groups.end()) groups.push_back(o->get_group());
  }
  for (const auto& g : groups) {
    std::string title = g == "Options" || g == "OPTIONS" ? std::string("OPTIONS") : g;
    std::transform(title.begin(), title.end(), title.begin(), [](unsigned char c) { return std::toupper(c); });
    out << heading << " " << roff_escape(title) << "\n";
    for (const auto* o : options) {
      if (o->get_group() == g) write_option(out, o);
    }
  }
}

std::string synopsis_tail(const CLI::App& app) {
  std::string s;
  if (!visible_subcommands(app).empty()) s += " \\fIcommand\\fR";
  s += " [\\fIoptions\\fR]";
  for (const auto* p : app.get_options([](const CLI::Option* o) { return o->get_positional(); })) {
    s += " [\\fI" + roff_escape(p->get_name()) + "\\fR]";
  }
  return s;
}

std::string upper(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::toupper(c); });
  return s;
}

void write_header(std::ostream& out, const std::string& page, const std::string& source) {
  out << ".TH " << roff_escape(upper(page)) << " 1 \"\" \"" << roff_escape(source) << "\" \"User Commands\"\n";
}

// The exit-code table sits in the program's footer; every page repeats it.
void write_exit_status(std::ostream& out, const CLI::App& root) {
  std::string footer = root.get_footer();
  if (footer.empty()) return;
  out << ".SH EXIT STATUS\n";
  write_text(out, footer);
}

// A command's own footer; CLI11 copies the program's (the exit codes) into
// every subcommand, and EXIT STATUS has that already.
void write_footer(std::ostream& out, const CLI::App& app, const CLI::App& root) {
  std::string footer = app.get_footer();
  if (footer.empty() || footer == root.get_footer()) return;
  out << ".PP\n";
  write_text(out, footer);
}

// The pages of a command tree below a top-level command: each subcommand a
// subsection, recursively.
void write_subcommands(std::ostream& out, const CLI::App& app, const std::string& path, const CLI::App& root) {
  for (const auto* sub : visible_subcommands(app)) {
    std::string sub_path = path + " " + sub->get_name();
    out << ".SH \"" << roff_escape(upper(sub_path)) << "\"\n";
    out << "\\fB" << roff_escape(sub_path) << "\\fR" << synopsis_tail(*sub) << "\n.PP\n";
    write_text(out, sub->get_description());
    write_footer(out, *sub, root);
    write_options(out, *sub, ".SS");
    write_subcommands(out, *sub, sub_path, root);
  }
}

}  // namespace

std::vector<ManPage> man_pages(const CLI::App& root, const std::string& binary, const std::string& display,
                               const std::string& source) {
  std::vector<ManPage> pages;
  auto commands = visible_subcommands(root);

  std::ostringstream top;
  write_header(top, binary, source);
  top << ".SH NAME\n" << roff_escape(binary) << " \\- " << roff_escape(root.get_description()) << "\n";
  top << ".SH SYNOPSIS\n\\fB" << roff_escape(display) << "\\fR" << synopsis_tail(root) << "\n";
  top << ".SH DESCRIPTION\n";
  write_text(top, root.get_description());
  top << ".SH COMMANDS\n";
  for (const auto* c : commands) {
    top << ".TP\n\\fB" << roff_escape(c->get_name()) << "\\fR\n";
    write_text(top, c->get_description());
    top << "See \\fB" << roff_escape(binary + "-" + c->get_name()) << "\\fR(1).\n";
  }
  write_options(top, root, ".SH");
  if (auto shared = shared_flags_below(root); !shared.empty()) {
    top << ".SH \"SHARED FLAGS\"\n";
    write_text(top, "The commands that take these flags accept them before or after the command name, and "
                    "between nested commands, with the same meaning (each command's page says what it takes):");
    for (const auto* o : shared) write_option(top, o);
  }
  write_exit_status(top, root);
  top << ".SH SEE ALSO\n";
  for (size_t i = 0; i < commands.size(); ++i) {
    top << ".BR " << roff_escape(binary + "-" + commands[i]->get_name()) << " (1)"
        << (i + 1 < commands.size() ? "," : "") << "\n";
  }
  pages.push_back({binary + ".1", top.str()});

  for (const auto* c : commands) {
    std::string page = binary + "-" + c->get_name();
    std::string path = display + " " + c->get_name();
    std::ostringstream out;
    write_header(out, page, source);
    out << ".SH NAME\n" << roff_escape(page) << " \\- " << roff_escape(c->get_description()) << "\n";
    out << ".SH SYNOPSIS\n\\fB" << roff_escape(path) << "\\fR" << synopsis_tail(*c) << "\n";
    out << ".SH DESCRIPTION\n";
    write_text(out, c->get_description());
    write_footer(out, *c, root);
    write_options(out, *c, ".SH");
    write_subcommands(out, *c, path, root);
    write_exit_status(out, root);
    out << ".SH SEE ALSO\n.BR " << roff_escape(binary) << " (1)\n";
    pages.push_back({page + ".1", out.str()});
  }
  return pages;
}

}  // namespace cli
