// The launches the dispatch facts measure (docs/facts-dispatch.md): one arrow per device task
// from the host call that launched it, picked from the trace's flows (HostToDevice, else
// async_npu, else ac2g) or, on GPUs, joined by correlation id.
#pragma once
#include <optional>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/device_tasks.h"
#include "model/model.h"

namespace npu {

// One launch arrow: host launch -> device task start.
struct Launch {
  Ns launch = 0;  // flow start (host)
  Ns start = 0;   // device task start: the end slice's ts, else the flow's end ts
  Ns lag = 0;
  uint32_t flow = 0;
};

struct LaunchFlows {
  std::vector<Launch> launches;  // sorted by device start, then host launch
  std::optional<FlowKind> kind;  // the flow kind used (none on GPUs, joined by correlation)
  bool by_correlation = false;
  std::vector<Flow> correlated;  // GPU: the arrows made from correlation ids

  // The flows `Launch::flow` indexes.
  const std::vector<Flow>& flows(const RunModel& m) const { return by_correlation ? correlated : m.flows; }
  // "correlation", the flow kind's name, or null.
  nlohmann::json kind_json() const;
};

// Prefer HostToDevice (CANN launch -> task), else async_npu (Python op -> task), else Kineto
// ac2g (runtime launch -> kernel). GPU runs join by correlation id.
LaunchFlows pick_launches(const RunModel& m, const DeviceTimeline& d);

}  // namespace npu
