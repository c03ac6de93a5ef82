#include <doctest/doctest.h>

#include "kube/deletion.h"

TEST_CASE("an orphan delete is accepted with a deletionTimestamp and the orphan finalizer, or once gone") {
  CHECK(kube::orphan_delete_accepted(nullptr));
  nlohmann::json live = {{"metadata", {{"name", "c"}, {"finalizers", {"orphan"}}}}};
  CHECK_FALSE(kube::orphan_delete_accepted(&live));  // a finalizer alone: not being deleted
  nlohmann::json deleting = {
      {"metadata", {{"deletionTimestamp", "2026-12-05T00:00:00Z"}, {"finalizers", {"foregroundDeletion"}}}}};
  CHECK_FALSE(kube::orphan_delete_accepted(&deleting));  // its dependents would be deleted, not orphaned
  deleting["metadata"]["finalizers"].push_back("orphan");
  CHECK(kube::orphan_delete_accepted(&deleting));
  CHECK(kube::orphaning_or_gone()(&deleting));
  nlohmann::json status = {{"kind", "Status"}, {"status", "Success"}};
  CHECK_FALSE(kube::orphan_delete_accepted(&status));  // the answer of a delete that took effect at once: read again
}
