// Reading fields of outside JSON (Kubernetes objects, annotations a person
// can edit) by JSON pointer without throwing. Two forms
// (docs/rules.md#typed-reads):
//   - string_at/find_at/bool_at/int_at: an absent field or one of another
//     type reads as nothing ("" / nullptr / false / `absent`). For fields
//     whose wrong type changes nothing a program decides.
//   - *_field: absent (or null) is the default, another type is an Error
//     naming the field ("spec.replicas: expected an integer, found a
//     string"); the caller adds the object with Error::on().
// nlohmann's value(), get<>() and operator[] throw on a field of another
// type; lib/ does not call them on outside JSON (tests/docs/typed_reads_test.sh).
#pragma once

#include <climits>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace base {

// The string at a JSON pointer, "" when absent or not a string.
std::string string_at(const nlohmann::json& j, std::string_view pointer);
// The JSON at a pointer, or nullptr when absent (or JSON null, or a step
// goes through a value that is not an object or array).
const nlohmann::json* find_at(const nlohmann::json& j, std::string_view pointer);
// The boolean at a pointer; false when absent or not a boolean.
bool bool_at(const nlohmann::json& j, std::string_view pointer);
// The integer at a pointer; `absent` when absent, not an integer or beyond
// a long long.
long long int_at(const nlohmann::json& j, std::string_view pointer, long long absent = 0);
// The object (array) at a pointer; an empty one when absent or of another
// type, so that a loop over it reads nothing.
const nlohmann::json& object_at(const nlohmann::json& j, std::string_view pointer);
const nlohmann::json& array_at(const nlohmann::json& j, std::string_view pointer);

// The checked forms. `pointer` is an RFC 6901 JSON pointer ("/a/b"); a step
// through a value that is not an object is an error naming that step.
Result<std::string> string_field(const nlohmann::json& j, std::string_view pointer, std::string absent = {});
Result<bool> bool_field(const nlohmann::json& j, std::string_view pointer, bool absent = false);
// An integer in [min, max]; a float, a string of digits or a number out of
// range is an error.
Result<long long> int_field(const nlohmann::json& j, std::string_view pointer, long long absent = 0,
                            long long min = LLONG_MIN, long long max = LLONG_MAX);
// The object or array at the pointer, nullptr when absent or null.
Result<const nlohmann::json*> object_field(const nlohmann::json& j, std::string_view pointer);
Result<const nlohmann::json*> array_field(const nlohmann::json& j, std::string_view pointer);

// One reference token of a pointer, escaped ("a/b" -> "a~1b"), for keys
// that come from data (member names).
std::string pointer_token(std::string_view key);
// A pointer as people read it: "/metadata/labels/a~1b" -> "metadata.labels.a/b".
std::string field_name(std::string_view pointer);
// "a string", "a number", "an object", ... for "expected X, found Y".
std::string json_type_name(const nlohmann::json& v);

// The error of a field of the wrong type: "FIELD: expected WHAT, found TYPE".
Error field_error(std::string_view pointer, std::string_view expected, const nlohmann::json& found);

}  // namespace base
