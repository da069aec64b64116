#include "pipeline/whatif_run.h"

#include "facts/diagnostics/diagnostics.h"
#include "facts/whatif/whatif.h"

namespace npu::pipeline {

using nlohmann::json;

json whatif_run(const RunModel& m, const std::vector<std::string>& apply) {
  const DiagnosticContext ctx(m);
  const whatif::WhatIf w = whatif::prepare(ctx);
  json out = {{"available", !w.base.step_ns.empty()}, {"reproduces", w.usable}};
  if (!w.why_not.empty()) out["why"] = w.why_not;
  if (w.base.step_ns.empty()) return out;
  out["deviation"] = w.measured_total > 0 ? static_cast<double>(w.base.total_ns - w.measured_total) /
                                                static_cast<double>(w.measured_total)
                                          : 0.0;
  const whatif::Replay base = w.base;
  json known = json::object();
  const double n = static_cast<double>(base.step_ns.size());
  for (const whatif::Transform& t : w.transforms) {
    json j = {{"applicable", t.applicable}};
    if (!t.applicable) {
      j["why"] = t.why;
    } else {
      const whatif::Replay r = whatif::simulate(w.graph, &t.edit);
      j["formula"] = t.formula;
      j["saving_ns"] = static_cast<Ns>(static_cast<double>(base.total_ns - r.total_ns) / n);
    }
    known[t.name] = std::move(j);
  }
  out["transforms"] = std::move(known);
  if (!apply.empty()) out["result"] = whatif::apply(w, apply);
  return out;
}

}  // namespace npu::pipeline
