// What a DELETE with a propagation policy leaves on the object until the
// garbage collector is done with it.
#pragma once

#include <nlohmann/json.hpp>

#include "kube/watch.h"

namespace kube {

// The finalizer the apiserver adds for `propagationPolicy: Orphan`.
inline constexpr const char* kOrphanFinalizer = "orphan";

// An orphan delete accepted: the object (nullptr: gone) carries a
// deletionTimestamp and the `orphan` finalizer, so the collector will orphan
// its dependents rather than delete them, or it is gone already.
bool orphan_delete_accepted(const nlohmann::json* object);

// The same as a wait predicate.
ObjectPredicate orphaning_or_gone();

}  // namespace kube
