#include "kube/watch.h"

#include "kube/conditions.h"

namespace kube {

bool WatchDecoder::feed(std::string_view bytes, const std::function<bool(WatchEvent&&)>& on_event) {
  buffer_.append(bytes);
  size_t start = 0;
  while (true) {
    auto nl = buffer_.find('\n', start);
    if (nl == std::string::npos) break;
    std::string_view line(buffer_.data() + start, nl - start);
    start = nl + 1;
    if (line.find_first_not_of(" \r\t") == std::string_view::npos) continue;
    auto j = nlohmann::json::parse(line, nullptr, false);
    if (!j.is_object() || !j.contains("type") || !j["type"].is_string()) {
      error_ = "the watch stream sent a line that is not an event";
      buffer_.erase(0, start);
      return false;
    }
    WatchEvent ev{j["type"].get<std::string>(), j.contains("object") ? std::move(j["object"]) : nlohmann::json()};
    if (!on_event(std::move(ev))) {
      buffer_.erase(0, start);
      return false;
    }
  }
  buffer_.erase(0, start);
  return true;
}

ObjectPredicate is_gone() {
  return [](const nlohmann::json* o) { return o == nullptr; };
}

ObjectPredicate exists() {
  return [](const nlohmann::json* o) { return o != nullptr; };
}

ObjectPredicate condition_is(std::string type, std::string status) {
  return [type = std::move(type), status = std::move(status)](const nlohmann::json* o) {
    return o != nullptr && condition_status(*o, type) == status;
  };
}

ObjectPredicate field_differs(std::string pointer, nlohmann::json before) {
  return [ptr = nlohmann::json::json_pointer(pointer), before = std::move(before)](const nlohmann::json* o) {
    if (o == nullptr) return false;
    nlohmann::json now = o->contains(ptr) ? (*o)[ptr] : nlohmann::json();
    return now != before;
  };
}

ObjectPredicate field_equals(std::string pointer, nlohmann::json value) {
  return [ptr = nlohmann::json::json_pointer(pointer), value = std::move(value)](const nlohmann::json* o) {
    return o != nullptr && o->contains(ptr) && (*o)[ptr] == value;
  };
}

}  // namespace kube
