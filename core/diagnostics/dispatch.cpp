// Placeholder until this diagnostic lands.
#include "core/diagnostics/diagnostics.h"

namespace npu {

void diagnose_dispatch(const DiagnosticContext& ctx, Facts& facts) { facts.unavailable("dispatch", "not implemented yet"); }

}  // namespace npu
