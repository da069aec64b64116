// The launch-lag statistics of a step or the run (docs/facts-dispatch.md): percentiles, the
// vertical share and the least-squares line of lag against launch time.
#pragma once
#include <cstdint>
#include <vector>

#include "base/json_object.h"
#include "facts/frame/launch_flows.h"

namespace npu {

// Adds count, lag_{min,p10,p50,p90,max,mean}_ns, vertical_share (lag <= vertical_lag_ns),
// negative_lags, slope_ns_per_ms, intercept_ns and r2 over the launches `idx`; x = ms since `x0`.
void add_lag_stats(JsonObject& j, const std::vector<Launch>& launches, const std::vector<uint32_t>& idx, Ns x0,
                   Ns vertical_lag_ns);

}  // namespace npu
