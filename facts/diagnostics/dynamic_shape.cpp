// operator_health.dynamic_shape (row 6): static vs dynamic operators (OP State of
// kernel_details.csv).
#include <string>

#include "facts/diagnostics/operator_health.h"

namespace npu::operator_health {

void dynamic_shape(const RunModel& m, nlohmann::json& health, Facts& facts) {
  uint64_t dyn = 0, stat = 0, other = 0, none = 0;
  uint32_t first_static = kNone32, first_dynamic = kNone32;
  for (uint32_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    if (k.op_state == kEmptyStr) {
      ++none;
      continue;
    }
    std::string s = lower(m.str(k.op_state));
    if (s == "dynamic") {
      ++dyn;
      if (first_dynamic == kNone32) first_dynamic = i;
    } else if (s == "static") {
      ++stat;
      if (first_static == kNone32) first_static = i;
    } else {
      ++other;
    }
  }
  if (dyn + stat + other == 0) {
    facts.unavailable("operator_health.dynamic_shape",
                      std::string(role_name(Role::KernelDetails)) +
                          " has no OP State values (the column is absent in older exports)");
    return;
  }
  nlohmann::json ev = nlohmann::json::array();
  if (first_static != kNone32)
    ev.push_back(evidence_row(m, Role::KernelDetails, m.kernels[first_static].line, "first static operator"));
  if (first_dynamic != kNone32)
    ev.push_back(evidence_row(m, Role::KernelDetails, m.kernels[first_dynamic].line, "first dynamic operator"));
  health["dynamic_shape"] = {{"dynamic", dyn},
                             {"static", stat},
                             {"other", other},
                             {"no_state", none},
                             {"dynamic_ratio", static_cast<double>(dyn) / static_cast<double>(dyn + stat + other)},
                             {"all_dynamic", stat == 0},
                             {"evidence", ev}};
}

}  // namespace npu::operator_health
