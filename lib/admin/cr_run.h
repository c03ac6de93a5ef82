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

struct CrRun {
  const kube::Resource* resource = nullptr;
  nlohmann::json object;      // the object to create (its name and namespace set)
  std::string nothing_would;  // the refusal's consequence, e.g. "nothing would ever take the snapshot"
  std::string instead;        // what to do instead when refused
  std::string follow;         // the command that follows the object after a timeout
  std::chrono::milliseconds timeout{std::chrono::minutes(30)};
};

using PhaseProgress = std::function<void(const std::string& phase)>;

// Refused (3) when the operator does not run or the cluster is paused
// (observed replicas 0); otherwise creates the object and waits until its
// status.phase is Complete or Failed (4 after `timeout`; the object stays).
// Answers the object as last read; a Failed phase is the caller's to judge.
base::Result<nlohmann::json> run_cr(kube::Client& kube, const Target& t, const CrRun& run,
                                    const PhaseProgress& progress = {});

// The reason and message of the last condition in status.conditions.
std::pair<std::string, std::string> last_condition(const nlohmann::json& cr);

}  // namespace admin
