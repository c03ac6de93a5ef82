// Which failed cluster calls etcd::Client sends on to the next endpoint, by
// what a repeat of the call would do.
#pragma once

#include "base/error.h"

namespace etcd {

enum class Resend {
  // Reads: any failure another member may not share, a timeout too.
  kRead,
  // Membership and auth writes: also after an answer that leaves it open
  // whether the write applied, because etcd refuses the repeat of an applied
  // one ("Peer URLs already exists", "user name already exists") and the
  // steps read the state back (docs/server-faults.md#lost-answers-to-etcds-writes).
  kRefusedRepeat,
  // Key writes: etcd would apply a repeat a second time, so only when the
  // first was refused before it was proposed, or never sent.
  kUnproposed,
};

bool resend(const base::Error& e, Resend policy);

// A key write's error after it may have been proposed, with a hint that says
// so: only reading the key tells whether it applied.
base::Error maybe_applied(base::Error e);

}  // namespace etcd
