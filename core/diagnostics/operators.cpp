// Placeholder until this diagnostic lands.
#include "core/diagnostics/diagnostics.h"

namespace npu {

void diagnose_operators(const DiagnosticContext& ctx, Facts& facts) { facts.unavailable("operators", "not implemented yet"); }

}  // namespace npu
