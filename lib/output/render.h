// One result model, four renderings. A command builds its result as a JSON
// document (raw numbers, RFC 3339 times, 16-hex-digit IDs) and declares a View
// whose columns name fields of that document; the table is drawn from those
// same fields, so the table, json and yaml outputs cannot drift apart.
#pragma once

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "output/format.h"

namespace output {

// How a table cell shows a field's raw value.
enum class Cell {
  Text,     // strings as they are, numbers and bools printed, arrays comma-joined
  Bytes,    // integer bytes -> "25 MB" (SI units, as etcdctl prints sizes)
  Seconds,  // number of seconds -> "1.5s", "230ms"
  Age,      // RFC 3339 time -> "5m", "3h" relative to RenderOptions::now
};

struct Column {
  std::string header;
  std::string field;  // dotted path into a row, e.g. "status.dbSize"
  Cell cell = Cell::Text;
  bool wide_only = false;  // shown only with -o wide
};

struct View {
  std::vector<Column> columns;
  // Where the rows are: empty means the document itself (an array of rows, or
  // one object drawn as one row); otherwise the key of an array in it.
  std::string rows;
  // Printed instead of an empty table, e.g. "no alarms".
  std::string empty_message;
  // For results that read as prose rather than rows (a plan, a version line):
  // the table form drawn from the same document. Wide falls back to it too.
  std::function<std::string(const nlohmann::ordered_json&)> text;
};

struct RenderOptions {
  bool no_headers = false;
  std::optional<std::chrono::system_clock::time_point> now;  // for Age cells
};

std::string render(const nlohmann::ordered_json& doc, const View& view, Format format,
                   const RenderOptions& options = {});

// Cell formatters, exposed for tests and for commands that print prose.
std::string human_bytes(double bytes);
std::string human_seconds(double seconds);
std::string human_age(std::chrono::seconds age);
const nlohmann::ordered_json* lookup(const nlohmann::ordered_json& row, const std::string& path);

}  // namespace output
