#include "kube/deletion.h"

namespace kube {

bool orphan_delete_accepted(const nlohmann::json* o) {
  if (o == nullptr) return true;
  const auto meta = o->find("metadata");
  if (meta == o->end() || !meta->is_object() || !meta->contains("deletionTimestamp")) return false;
  const auto fins = meta->find("finalizers");
  if (fins == meta->end() || !fins->is_array()) return false;
  for (const auto& f : *fins) {
    if (f.is_string() && f.get<std::string>() == kOrphanFinalizer) return true;
  }
  return false;
}

ObjectPredicate orphaning_or_gone() { return orphan_delete_accepted; }

}  // namespace kube
