// The why list of the compare document: every contributor to the device-time delta (the three
// parts of a step, then operators), kept when it moves in the delta's direction by more than a
// floor, ranked by size.
#include <algorithm>
#include <cmath>

#include <fmt/format.h>

#include "compare/compare_sections.h"
#include "compare/delta_text.h"
#include "compare/stats.h"

namespace npu::compare::sections {

namespace {

// What the facts say moved with the idle time: its causes, host activity, dispatch.
json free_time_related(const json& doc, double sign, double floor_ns) {
  json related = json::array();
  for (const char* section : {"idle_causes", "host_activity"})
    for (const auto& r : doc[section]["metrics"])
      if (!r["delta"].is_null() && r["delta"].get<double>() * sign > floor_ns)
        related.push_back(fmt::format("{}: {} per step ({} -> {})", r["label"].get<std::string>(),
                                      fmt_signed_ms(r["delta"].get<double>()), fmt_ms(r["base"].get<double>()),
                                      fmt_ms(r["new"].get<double>())));
  if (!doc["dispatch"].value("available", false)) return related;
  for (const auto& r : doc["dispatch"]["metrics"]) {
    if (r["delta"].is_null()) continue;
    std::string k = r["key"];
    if (k == "host_bound_free_ratio" && std::fabs(r["delta"].get<double>()) >= 0.005)
      related.push_back(fmt::format("host-caused idle: {:.1f}% -> {:.1f}% of device time",
                                    r["base"].get<double>() * 100, r["new"].get<double>() * 100));
    if (k == "lag_p50_ns" && std::fabs(r["delta"].get<double>()) >= 0.1 * std::fabs(r["base"].get<double>()) &&
        std::fabs(r["delta"].get<double>()) > 1000)
      related.push_back(
          fmt::format("launch lag p50: {} -> {}", fmt_ms(r["base"].get<double>()), fmt_ms(r["new"].get<double>())));
  }
  const json& c = doc["dispatch"]["classification"];
  if (c["base_steps_by_class"] != c["new_steps_by_class"])
    related.push_back("steps by dispatch class: " + c["base_steps_by_class"].dump() + " -> " +
                      c["new_steps_by_class"].dump());
  return related;
}

// Facts that moved with one part of the device time (shown under that part in the why list).
json part_related(const json& doc, const std::string& part, double sign, double floor_ns) {
  if (part == "free") return free_time_related(doc, sign, floor_ns);
  json related = json::array();
  if (part == "computing" && doc["operators"].contains("ai_cpu")) {
    const json& a = doc["operators"]["ai_cpu"];
    if (a["delta_calls_per_step"].get<double>() != 0 || !a["new_types"].empty())
      related.push_back(fmt::format("AI CPU calls per step: {:g} -> {:g}{}", a["base_calls_per_step"].get<double>(),
                                    a["new_calls_per_step"].get<double>(),
                                    a["new_types"].empty() ? "" : "; new AI CPU types " + a["new_types"].dump()));
  } else if (part == "comm_not_overlapped" && doc["operators"].value("available", false)) {
    for (const auto& r : doc["operators"]["totals"])
      if (r["key"] == "communication_ns_per_step" && !r["delta"].is_null())
        related.push_back(fmt::format("communication op time per step (overlapped or not): {} -> {}",
                                      fmt_ms(r["base"].get<double>()), fmt_ms(r["new"].get<double>())));
  }
  return related;
}

// One candidate per part of the device-time decomposition.
void part_candidates(const json& doc, double sign, double floor_ns, double device_delta, std::vector<json>& cands) {
  for (const auto& p : doc["device_time"]["decomposition"]["parts"]) {
    double d = p["delta_ns"].get<double>();
    std::string key = p["part"];
    const json& nz = p["noise"];
    std::string noise_txt =
        nz.value("possible", false)
            ? fmt::format("; {} step-to-step noise ({:.0f}% CI {}..{})",
                          nz["significant"].get<bool>() ? "beyond" : "within", nz["confidence"].get<double>() * 100,
                          fmt_signed_ms(nz["ci_low"].get<double>()), fmt_signed_ms(nz["ci_high"].get<double>()))
            : "";
    json e = {
        {"kind", "part"},
        {"subject", key},
        {"label", p["label"]},
        {"delta_ns", ns(d)},
        {"share_of_delta", ratio_or_null(d, device_delta)},
        {"significant", nz.value("possible", false) ? nz["significant"] : json(nullptr)},
        {"summary",
         fmt::format("{}: {} per step (median {} -> {}){}", p["label"].get<std::string>(), fmt_signed_ms(d),
                     fmt_ms(p["base_median_ns"].get<double>()), fmt_ms(p["new_median_ns"].get<double>()), noise_txt)},
        {"evidence",
         {{"base",
           {{"median_ns", p["base_median_ns"]}, {"step", p["base_median_step"]}, {"evidence", p["evidence"]["base"]}}},
          {"new",
           {{"median_ns", p["new_median_ns"]}, {"step", p["new_median_step"]}, {"evidence", p["evidence"]["new"]}}}}},
        {"related", part_related(doc, key, sign, floor_ns)}};
    cands.push_back(e);
  }
}

// What changed about an operator: new, gone, more calls or slower calls.
std::string operator_change(const json& r, double d, double sign) {
  const json& b = r["base"];
  const json& n = r["new"];
  std::string status = r["status"];
  if (status == "new")
    return fmt::format("new operator, {} per step over {} calls per step", fmt_ms(n["per_step_ns"].get<double>()),
                       fmt_count(n["calls_per_step"].get<double>()));
  if (status == "vanished")
    return fmt::format("gone, was {} per step over {} calls per step", fmt_ms(b["per_step_ns"].get<double>()),
                       fmt_count(b["calls_per_step"].get<double>()));
  double bc = b["calls_per_step"].get<double>(), nc = n["calls_per_step"].get<double>();
  double bm = b["mean_ns"].get<double>(), nm = n["mean_ns"].get<double>();
  std::string cause = std::fabs(nc - bc) > 1e-9 && std::fabs(nm - bm) <= 0.02 * bm ? "more calls"
                      : std::fabs(nc - bc) <= 1e-9                                 ? "each call got slower"
                                                                                   : "calls and duration changed";
  if (d * sign < 0) cause = std::fabs(nc - bc) <= 1e-9 ? "each call got faster" : "fewer or faster calls";
  return fmt::format("{} -> {} per step ({}); mean per call {:.1f} -> {:.1f} us, calls per step {} -> {}: {}",
                     fmt_ms(b["per_step_ns"].get<double>()), fmt_ms(n["per_step_ns"].get<double>()),
                     fmt_signed_pct(r["delta_ratio"].is_null() ? NAN : r["delta_ratio"].get<double>()), bm / 1e3,
                     nm / 1e3, fmt_count(bc), fmt_count(nc), cause);
}

// One candidate per operator row of the matched table (by type, else by name).
void operator_candidates(const json& doc, double sign, double device_delta, std::vector<json>& cands) {
  const std::string kf = doc["operators"]["matched_by"];
  const json& table = kf == "type" ? doc["operators"]["by_type"] : doc["operators"]["by_name"];
  for (const auto& r : table) {
    if (!r.contains("delta_per_step_ns")) continue;
    double d = r["delta_per_step_ns"].get<double>();
    std::string subj = r[kf].get<std::string>();
    std::string core = r.value("accelerator_core", "");
    const json& b = r["base"];
    const json& n = r["new"];
    std::string status = r["status"];
    std::string detail = operator_change(r, d, sign);
    cands.push_back(
        {{"kind", kf == "type" ? "operator_type" : "operator_name"},
         {"subject", subj},
         {"accelerator_core", core},
         {"part", "computing"},
         {"status", status},
         {"delta_ns", ns(d)},
         {"share_of_delta", ratio_or_null(d, device_delta)},
         {"significant", nullptr},
         {"summary",
          fmt::format("{}{}: {} per step; {}", subj, core.empty() ? "" : " (" + core + ")", fmt_signed_ms(d), detail)},
         {"evidence",
          {{"base", b.is_null() ? json(nullptr) : json{{"per_step_ns", b["per_step_ns"]}, {"evidence", b["evidence"]}}},
           {"new",
            n.is_null() ? json(nullptr) : json{{"per_step_ns", n["per_step_ns"]}, {"evidence", n["evidence"]}}}}},
         {"related", json::array()}});
  }
}

}  // namespace

void add_why(json& doc, const StepSeries& s, const CompareOptions& opt) {
  const bool have_steps = s.have_steps();
  const double device_delta = have_steps ? s.device_delta() : 0;
  double total = device_delta;
  if (have_steps && total == 0) total = doc["step_time"].value("delta_ns", int64_t{0});
  double sign = total >= 0 ? 1.0 : -1.0;
  double base_dev = have_steps ? median(s.base.device) : 0;
  double floor_ns = std::max(1000.0, 0.002 * base_dev);

  std::vector<json> cands;
  if (have_steps) part_candidates(doc, sign, floor_ns, device_delta, cands);
  if (doc["operators"].value("available", false)) operator_candidates(doc, sign, device_delta, cands);
  std::vector<json> kept;
  for (auto& c : cands)
    if (c["delta_ns"].get<double>() * sign >= floor_ns) kept.push_back(std::move(c));
  std::stable_sort(kept.begin(), kept.end(), [&](const json& a, const json& b) {
    return a["delta_ns"].get<double>() * sign > b["delta_ns"].get<double>() * sign;
  });
  json why = json::array();
  int rank = 1;
  for (auto& c : kept) {
    if (why.size() >= opt.why_limit) break;
    c["rank"] = rank++;
    why.push_back(std::move(c));
  }
  doc["why"] = why;
  json dn = have_steps ? doc["device_time"]["noise"] : json(nullptr);
  doc["why_basis"] = {
      {"total_delta_ns", ns(device_delta)},
      {"significant", dn.is_object() && dn.value("possible", false) ? dn["significant"] : json(nullptr)},
      {"direction", total > 0   ? "slower"
                    : total < 0 ? "faster"
                                : "unchanged"},
      {"min_contribution_ns", ns(floor_ns)},
      {"note",
       "contributors in the direction of the device-time delta, per step; operator entries "
       "are part of computing, so they overlap the computing entry"}};
}

}  // namespace npu::compare::sections
