// The text form of an adoption plan (adoption.md §10 with section 0's
// order): each plan with its verdicts, steps and manifests, the run-wide
// findings and the CRD notice. The gate, discovery and inspection lines are
// progress of the planning (stderr, as the run goes), not part of it. The
// generated root password is never part of it.
#pragma once

#include <string>
#include <vector>

#include "migrate/adoption_plan.h"

namespace migrate {

std::string plan_text(const AdoptionPlan& plan);

// The progress lines of planning, for stderr: the controller check (and its
// notes), the discovery count, one line per inspected cluster.
std::vector<std::string> gate_lines(const AdoptionPlan& plan);
std::string discovery_line(const AdoptionPlan& plan);
std::string inspection_line(const InspectionLine& line);

// §10.4.
std::string crd_notice();

}  // namespace migrate
