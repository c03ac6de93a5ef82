// Reading an object's metadata by a key of names.h: a label, an annotation,
// the controller reference. Keys contain '/', which JSON pointers would need
// escaped; these look the key up as a map key instead.
#pragma once

#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace op {

// "" when the object has no such label / annotation, or it is not a string.
std::string label(const nlohmann::json& object, std::string_view key);
std::string annotation(const nlohmann::json& object, std::string_view key);

// Whether an EtcdMember carries the consent to its deletion, and the merge
// patch that gives it (docs/operator-contract.md#deleting-an-etcdmember).
bool allows_deletion(const nlohmann::json& member);
nlohmann::json allow_deletion_patch();

// The ownerReference with controller: true, or nullptr.
const nlohmann::json* controller_of(const nlohmann::json& object);

}  // namespace op
