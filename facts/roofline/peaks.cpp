#include "facts/roofline/peaks.h"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <string_view>
#include <vector>

namespace npu {
std::string_view roofline_peaks_file(std::string_view name);  // generated/roofline_peaks.cpp
}

namespace npu::roofline {

const nlohmann::json& builtin_peaks() {
  static const nlohmann::json table = nlohmann::json::parse(roofline_peaks_file("peaks.json"));
  return table;
}

namespace {

double num(const nlohmann::json& o, const char* k) {
  auto it = o.find(k);
  return it != o.end() && it->is_number() ? it->get<double>() : 0;
}

std::string str(const nlohmann::json& o, const char* k) {
  auto it = o.find(k);
  return it != o.end() && it->is_string() ? it->get<std::string>() : std::string();
}

double median(std::vector<double> v) {
  if (v.empty()) return 0;
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
  return v[v.size() / 2];
}

bool matches(const nlohmann::json& match, const std::string& name, int sms, double mem_gib) {
  const nlohmann::json names = match.value("name_contains", nlohmann::json::array());
  for (const auto& s : names)
    if (!s.is_string() || name.find(s.get<std::string>()) == std::string::npos) return false;
  if (match.contains("sms") && sms > 0 && num(match, "sms") != sms) return false;
  if (match.contains("memory_gib_min") && mem_gib > 0 && mem_gib < num(match, "memory_gib_min")) return false;
  if (match.contains("memory_gib_max") && mem_gib > 0 && mem_gib > num(match, "memory_gib_max")) return false;
  return true;
}

DevicePeaks ascend_peaks(const RunModel& m, const nlohmann::json& table) {
  DevicePeaks p;
  const AscendCounters c = ascend_counters(m);
  const nlohmann::json a = table.value("ascend", nlohmann::json::object());
  if (c.kernels == 0 || c.cores <= 0 || c.clock_mhz <= 0) {
    p.why = "no kernel_details row records aic_total_cycles, aicore_time, Block Dim and cube_utilization "
            "(aic_metrics PipeUtilization): the clock and the AI core count are unknown";
    return p;
  }
  p.known = true;
  p.id = "ascend-inferred";
  p.name = "Ascend NPU, " + std::to_string(c.cores) + " AI cores";
  p.basis = "inferred from the run's counters (" + std::to_string(c.kernels) + " cube kernels)";
  p.clock_mhz = std::round(c.clock_mhz);
  p.cores = c.cores;
  const nlohmann::json rates = a.value("cube_flop_per_cycle_per_core", nlohmann::json::object());
  for (const auto& [prec, per_cycle] : rates.items())
    if (per_cycle.is_number()) p.flops[prec] = per_cycle.get<double>() * c.cores * p.clock_mhz * 1e6;
  p.bytes_per_s = num(a, "hbm_gbps") * 1e9;
  p.source = str(a, "source");
  p.note = str(a, "cube_note") + " " + str(a, "hbm_note");
  return p;
}

}  // namespace

AscendCounters ascend_counters(const RunModel& m) {
  AscendCounters out;
  const size_t w = m.pmu_columns.size();
  if (w == 0 || m.pmu_values.size() != m.kernels.size() * w) return out;
  int cyc = -1, time = -1, util = -1;
  for (size_t c = 0; c < w; ++c) {
    const std::string_view n = m.str(m.pmu_columns[c]);
    if (n == "aic_total_cycles") cyc = static_cast<int>(c);
    else if (n == "aicore_time(us)") time = static_cast<int>(c);
    else if (n == "cube_utilization(%)") util = static_cast<int>(c);
  }
  if (cyc < 0 || time < 0) return out;
  std::vector<double> clocks, cores;
  for (size_t i = 0; i < m.kernels.size(); ++i) {
    const Kernel& k = m.kernels[i];
    const double cycles = m.pmu_values[i * w + cyc], t_us = m.pmu_values[i * w + time];
    if (!(cycles > 0) || !(t_us > 0) || k.block_dim <= 0 || k.dur <= 0) continue;
    const double mhz = cycles / (t_us * k.block_dim);  // cycles per us per block
    clocks.push_back(mhz);
    const double u = util >= 0 ? m.pmu_values[i * w + util] : NAN;
    // cube_utilization = core time / (duration x cores): cores = cycles / clock / (duration x u).
    if (u > 1) cores.push_back(cycles / mhz / (static_cast<double>(k.dur) / 1000.0 * u / 100.0));
  }
  out.kernels = cores.size();
  out.clock_mhz = median(clocks);
  out.cores = static_cast<int>(std::lround(median(cores)));
  return out;
}

DevicePeaks device_peaks(const RunModel& m, const nlohmann::json& table) {
  if (run_platform(m) == "ascend") return ascend_peaks(m, table);
  DevicePeaks p;
  auto cfg = [&](const char* k) {
    auto it = m.meta.config.find(k);
    return it == m.meta.config.end() ? std::string() : it->second;
  };
  const std::string name = cfg("gpu_name");
  const int sms = std::atoi(cfg("gpu_sms").c_str());
  const double mem_gib = std::atof(cfg("gpu_memory_bytes").c_str()) / (1024.0 * 1024 * 1024);
  if (name.empty()) {
    p.why = "the trace names no device (no deviceProperties)";
    return p;
  }
  const nlohmann::json devices = table.value("devices", nlohmann::json::array());
  for (const auto& d : devices) {
    if (!d.is_object() || !matches(d.value("match", nlohmann::json::object()), name, sms, mem_gib)) continue;
    p.known = true;
    p.id = str(d, "id");
    p.name = str(d, "name");
    p.basis = "published";
    p.source = str(d, "source");
    p.note = str(d, "clock_note");
    p.clock_mhz = num(d, "clock_mhz");
    p.cores = sms;
    const nlohmann::json rates = d.value("tflops", nlohmann::json::object());
    for (const auto& [prec, tf] : rates.items())
      if (tf.is_number()) p.flops[prec] = tf.get<double>() * 1e12;
    p.bytes_per_s = num(d, "hbm_gbps") * 1e9;
    p.l2_bytes = num(d, "l2_mib") * 1024 * 1024;
    return p;
  }
  p.why = "device '" + name + "' (" + std::to_string(sms) + " SMs) is not in the peaks table: give its peaks with --peaks FILE";
  return p;
}

DevicePeaks run_device_peaks(const RunModel& m, const std::string& peaks_path, std::string* warning) {
  if (peaks_path.empty()) return device_peaks(m, builtin_peaks());
  std::ifstream in(peaks_path);
  std::stringstream ss;
  ss << in.rdbuf();
  const nlohmann::json own = nlohmann::json::parse(ss.str(), nullptr, false);
  if (in && own.is_object() && own.contains("devices")) return device_peaks(m, own);
  if (warning) *warning = peaks_path + ": not a peaks table (a JSON object with \"devices\"); the built-in table is used";
  return device_peaks(m, builtin_peaks());
}

}  // namespace npu::roofline
