#include "pipeline/whatif_run.h"

#include "facts/diagnostics/diagnostics.h"
#include "facts/whatif/whatif.h"

namespace npu::pipeline {

using nlohmann::json;

json whatif_run(const RunModel& m, const std::vector<std::string>& apply) {
  const DiagnosticContext ctx(m);
  const whatif::WhatIf w = whatif::prepare(ctx);
  json out = whatif::section(w);
  if (!apply.empty() && !w.base.step_ns.empty()) out["result"] = whatif::apply(w, apply);
  return out;
}

}  // namespace npu::pipeline
