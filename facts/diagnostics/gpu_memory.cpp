#include "facts/diagnostics/gpu_memory.h"

namespace npu {

using nlohmann::json;

// Peaks of the caching allocator's totals from Kineto "[memory]" events (profile_memory=True),
// which the loader turns into counters "[memory] Total Allocated, device N" (bytes).
nlohmann::json gpu_allocator_peaks(const RunFrame& frame, int32_t device, Facts& facts) {
  const RunModel& m = frame.model();
  const std::string suffix = ", device " + std::to_string(device);
  const StrId alloc = m.strings.find("[memory] Total Allocated" + suffix);
  const StrId reserved = m.strings.find("[memory] Total Reserved" + suffix);
  const CounterSample* peak[2] = {nullptr, nullptr};
  uint64_t samples = 0;
  for (const auto& c : m.counters) {
    int k = c.name == alloc ? 0 : c.name == reserved ? 1 : -1;
    if (k < 0 || (alloc == kNone32 && reserved == kNone32)) continue;
    ++samples;
    if (!peak[k] || c.value > peak[k]->value) peak[k] = &c;
  }
  if (samples == 0) {
    facts.unavailable("gpu.memory", "no [memory] events with allocator totals for GPU " + std::to_string(device) +
                                        " (captured without profile_memory=True, or an older PyTorch)");
    return nullptr;
  }
  constexpr double kMiB = 1024.0 * 1024.0;
  json j = {{"samples", samples}};
  json ev = json::array();
  const char* keys[2] = {"peak_allocated_mb", "peak_reserved_mb"};
  const char* what[2] = {"allocator total at its allocated peak", "allocator total at its reserved peak"};
  for (int k = 0; k < 2; ++k) {
    j[keys[k]] = peak[k] ? json(peak[k]->value / kMiB) : json(nullptr);
    if (peak[k]) ev.push_back(evidence_event(m, peak[k]->loc, what[k]));
  }
  if (peak[0]) {
    j["peak_allocated_ts_ns"] = peak[0]->ts;
    j["peak_allocated_step"] = step_json(frame.step_id_of_host(peak[0]->ts));
  }
  j["evidence"] = std::move(ev);
  return j;
}

}  // namespace npu
