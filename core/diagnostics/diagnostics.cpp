#include "core/diagnostics/diagnostics.h"

namespace npu {

Facts compute_facts(const RunModel& model) {
  Facts f;
  f.doc["schema"] = kFactsSchema;
  f.doc["schema_version"] = kFactsSchemaVersion;
  f.doc["unavailable"] = nlohmann::json::array();
  DiagnosticContext ctx(model);
  diagnose_run_context(ctx, f);
  diagnose_overlap(ctx, f);
  diagnose_dispatch(ctx, f);
  diagnose_operators(ctx, f);
  diagnose_operator_health(ctx, f);
  diagnose_gpu(ctx, f);
  diagnose_communication(ctx, f);
  return f;
}

}  // namespace npu
