// The one-shot request objects the operator drives through status.phase to
// Complete or Failed (EtcdSnapshot, EtcdDefrag; docs/operator-contract.md#one-shot-requests):
// refused while nothing would act on one, created, then followed to its end.
#pragma once

#include <chrono>
#include <functional>
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "admin/target.h"
#include "base/result.h"

namespace kube {
class Client;
struct Resource;
}  // namespace kube

namespace admin {

// How long a controller has to write a first status into a new object
// before the run stops waiting for it (docs/rules.md#one-shot-request-pickup).
inline constexpr std::chrono::minutes kCrPickup{1};
// A progress line this often while nothing changes.
inline constexpr std::chrono::seconds kCrProgressEvery{10};

struct CrRun {
  const kube::Resource* resource = nullptr;
  nlohmann::json object;      // the object to create (its name and namespace set)
  std::string nothing_would;  // the refusal's consequence, e.g. "nothing would ever take the snapshot"
  std::string instead;        // what to do instead when refused
  std::string follow;         // the command that follows the object after a timeout
  std::string handler;        // what acts on it, e.g. "the EtcdDefrag controller of the ... operator"
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
};

// Progress lines for stderr: the object created, each new status.phase
// ("EtcdDefrag phase: Running"), and every kCrProgressEvery what is awaited.
using PhaseProgress = std::function<void(const std::string& line)>;

// Refused (3) when the operator does not run or the cluster is paused
// (observed replicas 0); otherwise creates the object and waits until its
// status.phase is Complete or Failed (4 after `timeout`; the object stays).
// When no status at all is written within kCrPickup (or `timeout`, when
// shorter), nothing handles the kind: the object is deleted (unless a status
// arrived meanwhile) and the run refused (3), naming `handler`
// (docs/rules.md#one-shot-request-pickup).
// Answers the object as last read; a Failed phase is the caller's to judge.
base::Result<nlohmann::json> run_cr(kube::Client& kube, const Target& t, const CrRun& run,
                                    const PhaseProgress& progress = {});

// The reason and message of the last condition in status.conditions.
std::pair<std::string, std::string> last_condition(const nlohmann::json& cr);

}  // namespace admin
