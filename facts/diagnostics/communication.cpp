// "communication": the rank's communication.json (per operator: elapse / transit / wait /
// synchronisation time and bandwidth per transport) and communication_matrix.json (per link).
// Kept as records, not aggregated: the cluster analysis (facts/cluster) compares the same
// operator across ranks, which needs each rank's per-operator numbers.
#include "facts/communication_records.h"
#include "facts/diagnostics/diagnostics.h"

namespace npu {

void diagnose_communication(const DiagnosticContext& ctx, Facts& facts) {
  const RunCommunication& in = ctx.model.communication;
  if (!in.ops && !in.links) {
    facts.unavailable("communication", "no " + std::string(role_name(Role::Communication)) + " / " +
                                           role_name(Role::CommunicationMatrix) +
                                           " (profiler_level Level1 or Level2, several cards, text export)");
    return;
  }
  nlohmann::json c;
  c["rank"] = ctx.model.meta.rank;
  // The framework's name of each record's group (parallel_group_info), where known.
  const std::vector<ParallelGroup>& groups = ctx.model.meta.parallel_groups;
  if (in.ops) {
    c["ops"] = comm_ops_json(*in.ops, groups);
    c["ops_source"] = in.ops_source;
  } else {
    facts.unavailable("communication.ops", "no " + std::string(role_name(Role::Communication)) +
                                               ": wait/transit times and bandwidth per operator");
  }
  if (in.links) {
    c["links"] = comm_links_json(*in.links, groups);
    c["links_source"] = in.links_source;
  } else {
    facts.unavailable("communication.links",
                      in.ops_source.find("(table") != std::string::npos
                          ? "analysis.db has no CommAnalyzerMatrix rows: bandwidth per link"
                          : "no " + std::string(role_name(Role::CommunicationMatrix)) + ": bandwidth per link");
  }
  facts.doc["communication"] = std::move(c);
}

}  // namespace npu
