// "communication": the rank's communication.json (per operator: elapse / transit / wait /
// synchronisation time and bandwidth per transport) and communication_matrix.json (per link).
// Kept as records, not aggregated: the cluster analysis (facts/cluster) compares the same
// operator across ranks, which needs each rank's per-operator numbers.
#include "facts/diagnostics/diagnostics.h"

namespace npu {

void diagnose_communication(const DiagnosticContext& ctx, Facts& facts) {
  const RunModel::Communication& in = ctx.model.communication;
  if (in.ops.is_null() && in.links.is_null()) {
    facts.unavailable("communication",
                      "no communication.json / communication_matrix.json (profiler_level Level1 or Level2, "
                      "several cards, text export)");
    return;
  }
  nlohmann::json c;
  c["rank"] = ctx.model.meta.rank;
  // The framework's name of each record's group (parallel_group_info), where known.
  auto name_groups = [&](nlohmann::json& records) {
    if (ctx.model.meta.parallel_groups.empty() || !records.is_array()) return;
    for (auto& r : records)
      if (const auto* g = find_parallel_group(ctx.model.meta.parallel_groups, r.value("group", "")))
        r["group_name"] = g->name;
  };
  if (!in.ops.is_null()) {
    c["ops"] = in.ops;
    name_groups(c["ops"]);
    c["ops_source"] = in.ops_source;
  } else {
    facts.unavailable("communication.ops", "no communication.json: wait/transit times and bandwidth per operator");
  }
  if (!in.links.is_null()) {
    c["links"] = in.links;
    name_groups(c["links"]);
    c["links_source"] = in.links_source;
  } else {
    facts.unavailable("communication.links", in.ops_source.find("(table") != std::string::npos
                                                 ? "analysis.db has no CommAnalyzerMatrix rows: bandwidth per link"
                                                 : "no communication_matrix.json: bandwidth per link");
  }
  facts.doc["communication"] = std::move(c);
}

}  // namespace npu
