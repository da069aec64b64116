// same_work(): step count, the modelled FLOPs per step (the recorded shapes), device kernels and
// backward operators per step, calls per step of each operator both sides list (compare/same_work.h).
#include "compare/same_work.h"

#include <cmath>

#include <fmt/format.h>

#include "base/stats.h"
#include "compare/compare_sections.h"

namespace npu::compare {

namespace {

using nlohmann::json;
using sections::num;
using sections::section;
using sections::steps_of;

// Counts per step that differ by more than this share (and more than half a call) are different work.
constexpr double kTolerance = 0.05;

bool differ(double a, double b) { return std::fabs(a - b) > std::max(0.5, kTolerance * std::max(a, b)); }

void check(json& out, const std::string& what, std::optional<double> b, std::optional<double> n, const char* unit) {
  if (!b || !n) {
    out["not_checked"].push_back(what + ": not in both runs' facts");
    return;
  }
  out["checked"].push_back(what);
  if (!differ(*b, *n)) return;
  out["differences"].push_back(
      {{"what", what}, {"base", *b}, {"new", *n}, {"text", fmt::format("{}: {:.4g} -> {:.4g}{}", what, *b, *n, unit)}});
}

const json& sub(const json& j, const char* key) {
  static const json empty = json::object();
  return j.is_object() && j.contains(key) && j[key].is_object() ? j[key] : empty;
}

std::optional<double> per(std::optional<double> total, double steps) {
  return total ? std::optional<double>(*total / steps) : std::nullopt;
}

// Backward operators per optimizer step (facts.job): the model's autograd graph, which a batch of
// the same shape or a faster loader leaves alone and another model changes.
std::optional<double> backward_per_step(const Facts& f) {
  const json& job = section(f, "job");
  auto ops = num(job, "backward_ops"), steps = num(job, "optimizer_steps");
  if (!ops || !steps || *steps <= 0) return std::nullopt;
  return *ops / *steps;
}

// Device operators both sides list (by type where both have types, else by name).
void check_operators(json& out, const Facts& base, const Facts& next) {
  const json &ob = section(base, "operators"), &on = section(next, "operators");
  const char* key = ob.value("by_type", json::array()).empty() || on.value("by_type", json::array()).empty()
                        ? "by_name"
                        : "by_type";
  const json &lb = ob.value(key, json::array()), &ln = on.value(key, json::array());
  if (lb.empty() || ln.empty()) return;
  const char* name_key = std::string(key) == "by_type" ? "type" : "name";
  const double sb = steps_of(base), sn = steps_of(next);
  size_t compared = 0;
  for (const json& b : lb) {
    for (const json& n : ln) {
      if (b.value(name_key, "") != n.value(name_key, "") || b.value(name_key, "").empty()) continue;
      ++compared;
      const double cb = b.value("count", 0.0) / sb, cn = n.value("count", 0.0) / sn;
      if (differ(cb, cn))
        out["differences"].push_back({{"what", "calls per step of " + b.value(name_key, std::string())},
                                      {"base", cb},
                                      {"new", cn},
                                      {"text", fmt::format("{} calls per step: {:.4g} -> {:.4g}",
                                                           b.value(name_key, std::string()).substr(0, 60), cb, cn)}});
    }
  }
  out["checked"].push_back(fmt::format("calls per step of the {} device operators both runs list ({})", compared, key));
}

// The median step's FLOPs modelled from the recorded shapes (facts.roofline.steps[].flops): the
// model's arithmetic at its batch, which a change of precision, fusion or kernel choice leaves alone.
std::optional<double> flops_per_step(const Facts& f) {
  const json& steps = section(f, "roofline").value("steps", json::array());
  std::vector<double> v;
  for (const json& s : steps)
    if (s.is_object() && s.value("flops", 0.0) > 0) v.push_back(s.value("flops", 0.0));
  if (v.empty()) return std::nullopt;
  return stats::median(v);
}

// With the same FLOPs from shapes, kernel and operator counts that differ are how the fix ran the
// same arithmetic (autocast's casts, fused or compiled kernels): said, not counted as other work.
void explain_counts(json& out, size_t first_count_difference) {
  json& diffs = out["differences"];
  if (diffs.size() <= first_count_difference) return;
  for (size_t i = first_count_difference; i < diffs.size(); ++i) out["count_changes"].push_back(diffs[i]);
  diffs.erase(diffs.begin() + static_cast<std::ptrdiff_t>(first_count_difference), diffs.end());
  out["checked"].push_back(
      "kernel and operator counts differ with the same FLOPs from shapes: the same arithmetic run by other kernels "
      "(a precision, fusion or compile fix), not other work");
}

}  // namespace

json same_work(const Facts& base, const Facts& next) {
  json out = {{"checked", json::array()}, {"differences", json::array()}, {"not_checked", json::array()}};
  const double sb = steps_of(base), sn = steps_of(next);
  check(out, "profiled steps", sb, sn, "");
  const auto fb = flops_per_step(base), fn = flops_per_step(next);
  check(out, "modelled FLOPs per step (recorded shapes)", fb, fn, "");
  const bool same_shapes = fb && fn && out["differences"].empty();
  const size_t counts_from = out["differences"].size();
  const json &tb = sub(section(base, "operators"), "totals"), &tn = sub(section(next, "operators"), "totals");
  check(out, "device kernels per step", per(num(tb, "kernels"), sb), per(num(tn, "kernels"), sn), "");
  check(out, "backward operators per optimizer step", backward_per_step(base), backward_per_step(next), "");
  check_operators(out, base, next);
  if (same_shapes) explain_counts(out, counts_from);
  out["same"] = out["differences"].empty();
  return out;
}

std::string describe_differences(const json& same, size_t limit) {
  if (same.value("same", true)) return "";
  std::string s;
  size_t i = 0;
  for (const json& d : same["differences"]) {
    if (i++ == limit) {
      s += fmt::format("; and {} more", same["differences"].size() - limit);
      break;
    }
    s += (s.empty() ? "" : "; ") + d.value("text", std::string());
  }
  return s;
}

}  // namespace npu::compare
