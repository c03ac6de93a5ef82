// The text form of an adoption plan (adoption.md §10 with section 0's
// order): the gate, discovery and inspection lines, each plan with its
// verdicts, steps and manifests, the run-wide findings and the CRD notice.
// The generated root password is never part of it (D11).
#pragma once

#include <string>

#include "migrate/adoption_plan.h"

namespace migrate {

std::string plan_text(const AdoptionPlan& plan);

// §10.4.
std::string crd_notice();

}  // namespace migrate
