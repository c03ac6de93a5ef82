#include "admin/cr_run.h"

#include <algorithm>

#include "base/json_at.h"
#include "kube/client.h"
#include "kube/status_error.h"
#include "output/render.h"

namespace admin {

namespace {
using json = nlohmann::json;
}  // namespace

std::pair<std::string, std::string> last_condition(const json& cr) {
  std::pair<std::string, std::string> out;
  for (const auto& c : base::array_at(cr, "/status/conditions")) {
    out = {base::string_at(c, "/reason"), base::string_at(c, "/message")};
  }
  return out;
}

namespace {

using Clock = std::chrono::steady_clock;

std::string seconds_text(Clock::duration d) {
  return output::human_age(std::chrono::duration_cast<std::chrono::seconds>(d + std::chrono::milliseconds(500)));
}

// Follows one created object: what was last read of it, and waits in slices
// of kCrProgressEvery so that a quiet wait still says what it waits for.
class Follow {
 public:
  Follow(kube::Client& kube, const Target& t, const CrRun& run, const PhaseProgress& progress)
      : kube_(kube), t_(t), run_(run), progress_(progress), start_(Clock::now()),
        name_(base::string_at(run.object, "/metadata/name")),
        kind_(base::string_at(run.object, "/kind").empty() ? "object" : base::string_at(run.object, "/kind")) {}

  // Waits until `enough()` holds or `until` passes (false then).
  base::Result<bool> wait(Clock::time_point until, const std::function<bool()>& enough,
                          const std::function<std::string()>& quiet_line) {
    while (!enough()) {
      const auto now = Clock::now();
      if (now >= until) return false;
      const auto slice = std::min<Clock::duration>(until - now, kCrProgressEvery);
      auto r = kube_.wait_for(*run_.resource, t_.ns, name_,
                              [&](const json* o) {
                                observe(o);
                                return enough();
                              },
                              std::chrono::duration_cast<std::chrono::milliseconds>(slice));
      if (!r && r.error().kind != base::ErrorKind::Timeout) return std::move(r).error();
      if (!r && Clock::now() < until) say(quiet_line());
    }
    return true;
  }

  void say(const std::string& line) const {
    if (progress_) progress_(line);
  }

  bool gone() const { return gone_; }
  bool written() const { return !base::object_at(last_, "/status").empty(); }
  bool terminal() const { return phase_ == "Complete" || phase_ == "Failed"; }
  const std::string& phase() const { return phase_; }
  const json& last() const { return last_; }
  const std::string& name() const { return name_; }
  const std::string& kind() const { return kind_; }
  Clock::duration waited() const { return Clock::now() - start_; }
  Clock::time_point start() const { return start_; }

 private:
  void observe(const json* o) {
    if (o == nullptr) {
      gone_ = true;
      return;
    }
    gone_ = false;
    last_ = *o;
    const std::string phase = base::string_at(last_, "/status/phase");
    if (phase != phase_ && !phase.empty()) say(kind_ + " phase: " + phase);
    phase_ = phase;
  }

  kube::Client& kube_;
  const Target& t_;
  const CrRun& run_;
  const PhaseProgress& progress_;
  Clock::time_point start_;
  std::string name_, kind_, phase_;
  json last_;
  bool gone_ = false;
};

}  // namespace

base::Result<json> run_cr(kube::Client& kube, const Target& t, const CrRun& run, const PhaseProgress& progress) {
  const std::string name = base::string_at(run.object, "/metadata/name");
  const std::string what = run.resource->describe(t.ns, name);
  if (t.operator_state && !t.operator_state->active) {
    return base::make_error(base::ErrorKind::Refused, "the operator does not run: " + t.operator_state->reason, what,
                           run.nothing_would + "; " + run.instead);
  }
  if (base::int_at(t.cluster_object, "/status/observed/replicas", -1) == 0) {
    return base::make_error(base::ErrorKind::Refused, "the cluster is paused (observed replicas 0)", what,
                           run.nothing_would + " until a member runs; " + run.instead);
  }
  auto created = kube.create(*run.resource, t.ns, run.object);
  if (!created) return std::move(created).error();
  Follow f(kube, t, run, progress);
  const auto pickup = std::min<Clock::duration>(kCrPickup, run.timeout);
  const auto deadline = f.start() + run.timeout;
  f.say(f.kind() + " " + t.ns + "/" + name + " created; waiting for " + run.handler + " to pick it up");

  // A controller writes a status at once; none within the pickup time means
  // nothing handles the kind here (docs/rules.md#one-shot-request-pickup).
  auto picked = f.wait(
      f.start() + pickup, [&] { return f.gone() || f.written(); },
      [&] {
        return f.kind() + " " + t.ns + "/" + name + ": no status after " + seconds_text(f.waited()) +
               "; it is deleted if none is written within " + seconds_text(pickup);
      });
  if (!picked) return std::move(picked).error();
  if (!*picked) {
    // The precondition keeps a status written at this very moment: then the
    // delete fails with a conflict and the wait goes on.
    kube::DeleteOptions o;
    if (f.last().is_object()) {
      o.precondition_resource_version = base::string_at(f.last(), "/metadata/resourceVersion");
    }
    auto removed = kube.remove(*run.resource, t.ns, name, o);
    if (removed || kube::is_not_found(removed.error())) {
      return base::make_error(base::ErrorKind::Refused,
                             "nothing picked it up within " + seconds_text(pickup) + " (no status written): " +
                                 run.handler + " is missing or not running; the " + f.kind() + " was deleted",
                             what, run.instead);
    }
    if (!kube::is_conflict(removed.error())) {
      return base::make_error(base::ErrorKind::Refused,
                             "nothing picked it up within " + seconds_text(pickup) + " (no status written): " +
                                 run.handler + " is missing or not running; it stays, as deleting it failed: " +
                                 removed.error().one_line(),
                             what, "delete it, and " + run.instead);
    }
  }
  auto done = f.wait(deadline, [&] { return f.gone() || f.terminal(); }, [&] {
    return f.kind() + " " + t.ns + "/" + name + ": " + (f.phase().empty() ? std::string("no phase yet") : f.phase()) +
           " after " + seconds_text(f.waited()) + " (--timeout " + seconds_text(run.timeout) + ")";
  });
  if (!done) {
    auto e = std::move(done).error();
    if (e.object.empty()) e.object = what;
    return e;
  }
  if (f.gone()) return base::make_error(base::ErrorKind::Failed, "was deleted before it finished", what);
  if (!*done) {
    return base::make_error(base::ErrorKind::Timeout,
                           "timed out after " + seconds_text(run.timeout) + " waiting" +
                               (f.phase().empty() ? std::string() : " (phase " + f.phase() + ")"),
                           what, "the " + f.kind() + " stays; " + run.follow + " follows it");
  }
  return f.last();
}

}  // namespace admin
