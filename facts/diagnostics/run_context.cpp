// "run": what was profiled, how, with which inputs and environment.
#include "facts/diagnostics/diagnostics.h"

namespace npu {

void diagnose_run_context(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel& m = ctx.model;
  nlohmann::json run = run_metadata_json(m);
  nlohmann::json inputs = nlohmann::json::array();
  for (const auto& f : m.files)
    inputs.push_back({{"role", f.role},
                      {"status", to_string(f.status)},
                      {"path", f.path},
                      {"bytes", f.bytes},
                      {"records", f.records},
                      {"note", f.note}});
  run["inputs"] = inputs;
  run["warnings"] = m.stats.warnings;
  run["rejected"] = m.stats.rejected;
  run["trace_events"] = m.stats.trace_events;
  facts.doc["run"] = run;
  if (m.meta.env.empty())
    facts.unavailable("run.env", std::string(role_name(Role::RunEnvironment)) + " is missing or has no ENV_VARIABLES");
}

}  // namespace npu
