// Watch streams: newline-delimited JSON events, parsed incrementally as the
// bytes arrive, and the predicates waits are built from.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "base/result.h"

namespace kube {

struct WatchEvent {
  std::string type;  // ADDED, MODIFIED, DELETED, BOOKMARK, ERROR
  nlohmann::json object;
};

// Splits a byte stream into lines and each line into a WatchEvent.
class WatchDecoder {
 public:
  // Feeds bytes; calls `on_event` per complete event; stops (returns false)
  // when on_event returns false or a line is not an event.
  bool feed(std::string_view bytes, const std::function<bool(WatchEvent&&)>& on_event);
  const std::string& error() const { return error_; }

 private:
  std::string buffer_;
  std::string error_;
};

// What a wait checks on the current object (nullptr: it does not exist).
using ObjectPredicate = std::function<bool(const nlohmann::json* object)>;

// Predicates for the usual waits.
ObjectPredicate is_gone();
ObjectPredicate exists();
// status.conditions[type == `type`].status == `status`.
ObjectPredicate condition_is(std::string type, std::string status = "True");
// The value at a JSON pointer ("/status/phase") differs from `before`.
ObjectPredicate field_differs(std::string pointer, nlohmann::json before);
// The value at a JSON pointer equals `value`.
ObjectPredicate field_equals(std::string pointer, nlohmann::json value);

}  // namespace kube
