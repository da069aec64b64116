// The device's limits, the roofline's roofs (facts/roofline/peaks.json, docs/facts-roofline.md):
// a GPU looked up in the table by its trace's name, SM count and memory; an Ascend NPU's clock and
// AI core count inferred from the run's own counters, its Cube rates from them.
#pragma once
#include <map>
#include <string>

#include <nlohmann/json.hpp>

#include "model/model.h"

namespace npu::roofline {

struct DevicePeaks {
  bool known = false;          // false: no roofs (fractions unavailable, `why` says why)
  std::string why;             // why not known
  std::string id, name;        // table id ("nvidia-h200-sxm") or "ascend-inferred"
  std::string basis;           // "published" (table) or "inferred from the run's counters"
  std::string source, note;    // the table's source URL and notes
  double clock_mhz = 0;        // 0: not stated
  int cores = 0;               // Ascend AI cores (inferred), GPU SMs (from the trace)
  std::map<std::string, double> flops;  // dense peak FLOP/s by precision ("bf16", "tf32", "fp32", ...)
  double bytes_per_s = 0;      // HBM bandwidth
  double l2_bytes = 0;
  double peak(const std::string& precision) const {
    auto it = flops.find(precision);
    return it == flops.end() ? 0 : it->second;
  }
};

// The built-in table (embedded peaks.json).
const nlohmann::json& builtin_peaks();

// Ascend: the clock (cycles / (aicore_time x block dim)) and the AI core count (core time /
// (duration x cube utilisation)) as the median over cube kernels that record them.
struct AscendCounters {
  double clock_mhz = 0;
  int cores = 0;
  size_t kernels = 0;  // rows that gave both
};
AscendCounters ascend_counters(const RunModel& m);

// The run's device: Ascend from its counters, a GPU from the table (`table`: the built-in one or
// --peaks FILE's).
DevicePeaks device_peaks(const RunModel& m, const nlohmann::json& table);
// The same with the table of `peaks_path` (--peaks FILE; empty: the built-in one). A file that is
// not a peaks table: the built-in one, and `warning` says so.
DevicePeaks run_device_peaks(const RunModel& m, const std::string& peaks_path, std::string* warning);

}  // namespace npu::roofline
