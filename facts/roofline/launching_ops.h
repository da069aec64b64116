// GPU: which host operator launched each kernel, by its runtime call: the innermost cpu_op around
// each runtime call of the host tracks (call slice -> op slice), joined to the kernels by the
// frame's correlation (LaunchedOp::call). Computed once per run (DiagnosticContext::ops_of_calls)
// for the roofline's operator runs and the precision what-if's fp32 groups.
#pragma once
#include <cstdint>
#include <unordered_map>

#include "model/model.h"

namespace npu::roofline {

std::unordered_map<uint32_t, uint32_t> ops_of_calls(const RunModel& m);

}  // namespace npu::roofline
