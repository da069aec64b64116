#include "reports/roofline_text.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "base/stats.h"
#include "reports/json_read.h"

namespace npu {

namespace {

// Below this share of the compute time modelled, the terminal gives no MFU figure.
constexpr double kMfuCoverage = 0.5;

// "; the most not modelled: REASON (N% of compute time)", from the coverage's largest reason (a
// facts file read back may hold anything: numbers that are not are skipped).
std::string largest_gap_in_coverage(const nlohmann::json& cov) {
  const auto list = cov.find("not_modelled");
  if (list == cov.end() || !list->is_array()) return "";
  const nlohmann::json* top = nullptr;
  for (const auto& r : *list)
    if (r.is_object() && r.contains("reason") && r["reason"].is_string() && json_number(r, "time_ns") > 0 &&
        (!top || json_number(r, "time_ns") > json_number(*top, "time_ns")))
      top = &r;
  const double compute = json_number(cov, "compute_ns");
  if (!top || compute <= 0) return "";
  return fmt::format("; the most not modelled: {} ({:.0f}% of compute time)", (*top)["reason"].get<std::string>(),
                     100 * json_number(*top, "time_ns") / compute);
}

}  // namespace

std::string roofline_lines(const nlohmann::json& facts) {
  const auto it = facts.find("roofline");
  if (it == facts.end() || !it->is_object()) return "";
  const nlohmann::json& r = *it;
  const nlohmann::json dev = r.value("device", nlohmann::json::object());
  std::vector<double> mfu;
  size_t above = 0;
  for (const auto& s : r.value("steps", nlohmann::json::array())) {
    if (s.value("mfu_bf16", nlohmann::json()).is_number()) mfu.push_back(s["mfu_bf16"].get<double>());
    if (s.value("above_peak", false)) ++above;
  }
  const nlohmann::json cov = r.value("coverage", nlohmann::json::object());
  const double share = json_number(cov, "share");
  std::string out;
  if (!dev.value("known", false)) {
    out = fmt::format("roofline: device limits unknown ({}); {:.0f}% of compute time modelled\n",
                      dev.value("why", std::string()), 100 * share);
  } else if (above > 0 && above >= mfu.size()) {
    out = fmt::format("MFU not shown: the modelled FLOPs of {} step{} need more than {}'s peaks allow (the peak or the "
                      "recorded shapes do not hold)\n",
                      above, above == 1 ? "" : "s", dev.value("name", std::string()));
  } else if (!mfu.empty() && share < kMfuCoverage) {
    // The FLOPs of a small part of the compute time are no MFU of the step: said as not known,
    // with what the rest lacks, never as a low figure.
    out = fmt::format("MFU not known: {:.0f}% of compute time has a FLOP model{}\n", 100 * share,
                      largest_gap_in_coverage(cov));
  } else if (!mfu.empty()) {
    out = fmt::format("MFU {:.1f}% of {}'s BF16 peak (hardware FLOPs, median step); {:.0f}% of compute time modelled\n",
                      100 * stats::median(mfu), dev.value("name", std::string()), 100 * share);
  }
  std::vector<const nlohmann::json*> gaps;
  const auto groups = r.find("groups");
  if (groups != r.end() && groups->is_array())
    for (const auto& g : *groups)
      if (g.value("gap_ns", 0) > 0) gaps.push_back(&g);
  std::sort(gaps.begin(), gaps.end(), [](auto* a, auto* b) { return (*a)["gap_ns"] > (*b)["gap_ns"]; });
  std::string top;
  for (size_t i = 0; i < gaps.size() && i < 3; ++i) {
    const nlohmann::json& g = *gaps[i];
    top += fmt::format("{}{} {} ({}, {:.2f} of its {} roof, {:.3f} ms)", i ? "; " : "", g.value("op", ""),
                       g.value("shapes", ""), g.value("precision", "").empty() ? "bytes only" : g.value("precision", ""),
                       g["fraction"].is_number() ? g["fraction"].get<double>() : 0.0,
                       g.value("bound", ""), g.value("gap_ns", 0) / 1e6);
  }
  if (!top.empty()) out += "  largest gaps to the roof: " + top + "\n";
  return out;
}

}  // namespace npu
