#include "output/render.h"

#include <cmath>
#include <cstdio>
#include <ctime>

#include "base/rfc3339.h"
#include "output/table.h"
#include "output/yaml_emit.h"

namespace output {
namespace {

std::string printf_string(const char* fmt, double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, fmt, v);
  return buf;
}


std::string text_of(const nlohmann::ordered_json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) {
    const auto& s = v.get_ref<const std::string&>();
    return s.empty() ? "-" : s;
  }
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_array()) {
    if (v.empty()) return "-";
    std::string out;
    for (const auto& item : v) {
      if (!out.empty()) out += ",";
      out += text_of(item);
    }
    return out;
  }
  if (v.is_object()) return v.empty() ? "-" : v.dump();
  return v.dump();
}

std::string cell_text(const nlohmann::ordered_json* v, Cell cell, const RenderOptions& options) {
  if (v == nullptr || v->is_null()) return "-";
  switch (cell) {
    case Cell::Text:
      return text_of(*v);
    case Cell::Bytes:
      return v->is_number() ? human_bytes(v->get<double>()) : text_of(*v);
    case Cell::Seconds:
      return v->is_number() ? human_seconds(v->get<double>()) : text_of(*v);
    case Cell::Age: {
      if (!v->is_string()) return text_of(*v);
      auto t = base::parse_rfc3339(v->get<std::string>());
      if (!t) return text_of(*v);
      auto now = options.now.value_or(std::chrono::system_clock::now());
      return human_age(std::chrono::duration_cast<std::chrono::seconds>(now - *t));
    }
  }
  return text_of(*v);
}

std::string render_table(const nlohmann::ordered_json& doc, const View& view, bool wide,
                         const RenderOptions& options) {
  const nlohmann::ordered_json* rows = view.rows.empty() ? &doc : lookup(doc, view.rows);
  static const nlohmann::ordered_json empty_array = nlohmann::ordered_json::array();
  if (rows == nullptr || rows->is_null()) rows = &empty_array;
  std::vector<const nlohmann::ordered_json*> items;
  if (rows->is_array()) {
    for (const auto& r : *rows) items.push_back(&r);
  } else {
    items.push_back(rows);
  }
  if (items.empty() && !view.empty_message.empty()) return view.empty_message + "\n";
  TextTable t;
  std::vector<const Column*> cols;
  for (const auto& c : view.columns) {
    if (c.wide_only && !wide) continue;
    cols.push_back(&c);
    t.headers.push_back(c.header);
  }
  for (const auto* item : items) {
    std::vector<std::string> row;
    for (const auto* c : cols) row.push_back(cell_text(lookup(*item, c->field), c->cell, options));
    t.rows.push_back(std::move(row));
  }
  std::string out = t.str();
  if (options.no_headers) out.erase(0, out.find('\n') + 1);
  return out;
}

}  // namespace

const nlohmann::ordered_json* lookup(const nlohmann::ordered_json& row, const std::string& path) {
  const nlohmann::ordered_json* cur = &row;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object()) return nullptr;
    auto it = cur->find(key);
    if (it == cur->end()) return nullptr;
    cur = &*it;
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

std::string human_bytes(double bytes) {
  static const char* units[] = {"B", "kB", "MB", "GB", "TB", "PB", "EB"};
  if (bytes < 10) return printf_string("%.0f B", bytes);
  int e = static_cast<int>(std::floor(std::log10(bytes) / 3));
  if (e > 6) e = 6;
  double v = bytes / std::pow(1000.0, e);
  // One decimal below 10 units, none above, as etcdctl's humanized sizes.
  return printf_string(v < 10 ? "%.1f " : "%.0f ", v) + units[e];
}

std::string human_seconds(double seconds) {
  if (seconds < 0) seconds = 0;
  if (seconds < 0.001) return printf_string("%.0fµs", seconds * 1e6);
  if (seconds < 1) return printf_string("%.0fms", seconds * 1e3);
  if (seconds < 60) return printf_string("%.2fs", seconds);
  return human_age(std::chrono::seconds(static_cast<long long>(seconds)));
}

std::string human_age(std::chrono::seconds age) {
  long long s = age.count();
  if (s < 0) s = 0;
  if (s < 120) return std::to_string(s) + "s";
  if (s < 3600) return std::to_string(s / 60) + "m";
  if (s < 48 * 3600) return std::to_string(s / 3600) + "h";
  return std::to_string(s / 86400) + "d";
}

std::string render(const nlohmann::ordered_json& doc, const View& view, Format format,
                   const RenderOptions& options) {
  switch (format) {
    case Format::Json:
      return doc.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
    case Format::Yaml:
      return to_yaml(doc);
    case Format::Table:
    case Format::Wide:
      if (view.text) return view.text(doc);
      return render_table(doc, view, format == Format::Wide, options);
  }
  return {};
}

}  // namespace output
