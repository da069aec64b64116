// Placeholder until this diagnostic lands.
#include "core/diagnostics/diagnostics.h"

namespace npu {

void diagnose_operator_health(const DiagnosticContext& ctx, Facts& facts) { facts.unavailable("operator_health", "not implemented yet"); }

}  // namespace npu
