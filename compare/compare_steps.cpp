// The per-step sections of the compare document: the series, step time, and device time with
// its decomposition into computing, communication not overlapped and free.
#include <algorithm>

#include <fmt/format.h>

#include "compare/compare_sections.h"
#include "compare/stats.h"
#include "model/engine_patterns.h"

namespace npu::compare::sections {

namespace {

Series read_series(const Facts& f, bool skip_warmup) {
  Series s;
  // A CPU-only run has no device breakdown, only its host step spans (facts.host_steps).
  static const json none = json::array();
  const char* key = f.doc.contains("steps") && f.doc["steps"].is_array() ? "steps" : "host_steps";
  const json& steps = f.doc.contains(key) && f.doc[key].is_array() ? f.doc[key] : none;
  s.total_steps = steps.size();
  size_t first = 0;
  if (skip_warmup && steps.size() >= 4) {
    first = 1;
    s.dropped_warmup = true;
    s.dropped_id = steps[0].value("id", json(nullptr));
  }
  for (size_t i = first; i < steps.size(); ++i) {
    const json& st = steps[i];
    double c = num(st, "computing_ns").value_or(0), n = num(st, "comm_not_overlapped_ns").value_or(0),
           fr = num(st, "free_ns").value_or(0);
    const std::optional<double> cp = num(st, "copies_ns");
    if (cp) s.has_copies = true;
    double dev = c + n + cp.value_or(0) + fr;
    s.ids.push_back(st.value("id", json(nullptr)));
    s.computing.push_back(c);
    s.cno.push_back(n);
    s.copies.push_back(cp.value_or(0));
    s.free.push_back(fr);
    s.device.push_back(dev);
    s.free_ratio.push_back(dev > 0 ? fr / dev : 0.0);
    auto h = num(st, "host_dur_ns");
    s.host.push_back(h.value_or(0));
    if (!h || *h <= 0) s.host_complete = false;
    s.evidence.push_back(st.value("evidence", json::array()));
    if (s.source.empty()) s.source = st.value("source", "");
  }
  if (s.size() == 0) s.host_complete = false;
  const json& overall = section(f, "overall");
  const std::string rule = overall.is_object() ? overall.value("step_time_rule", "") : "";
  s.launched_work = rule == "launched_work";
  s.iteration_window = rule == "iteration_window";
  return s;
}

json to_int_array(const std::vector<double>& v) {
  json a = json::array();
  for (double x : v) a.push_back(ns(x));
  return a;
}

json ns_stats(const std::vector<double>& v, const std::vector<json>& ids) {
  json j = {{"steps_used", v.size()}, {"step_ids", ids}};
  if (v.empty()) return j;
  double m = median(v);
  j["median_ns"] = ns(m);
  j["p90_ns"] = ns(quantile(v, 0.9));
  j["min_ns"] = ns(*std::min_element(v.begin(), v.end()));
  j["max_ns"] = ns(*std::max_element(v.begin(), v.end()));
  j["mean_ns"] = ns(mean(v));
  j["mad_ns"] = ns(mad(v));
  j["spread_ratio"] = m != 0 ? mad(v) / m : 0.0;
  return j;
}

// The step whose value is the median (first such), for evidence.
size_t median_index(const std::vector<double>& v) {
  double m = median(v);
  for (size_t i = 0; i < v.size(); ++i)
    if (v[i] == m) return i;
  return 0;
}

const char* part_label(const std::string& p) {
  if (p == "computing") return "computing";
  if (p == "comm_not_overlapped") return "communication not overlapped";
  if (p == "copies") return "copies (memcpy/memset)";
  if (p == "free") return "free (device idle)";
  return "?";
}

json warmup_rule(const StepSeries& s) {
  return {{"rule", "the first step is dropped on a side with 4 or more steps"},
          {"enabled", s.skip_warmup},
          {"base_dropped", s.base.dropped_warmup ? json(s.base.dropped_id) : json(nullptr)},
          {"new_dropped", s.next.dropped_warmup ? json(s.next.dropped_id) : json(nullptr)}};
}

// Device time per step split into its three parts, by medians and by means.
void add_decomposition(json& device, const StepSeries& s, const CompareOptions& opt) {
  const Series& sb = s.base;
  const Series& sn = s.next;
  const double device_delta = s.device_delta();
  json parts = json::array();
  double sum = 0;
  struct P {
    const char* key;
    const std::vector<double>& b;
    const std::vector<double>& n;
  };
  std::vector<P> ps = {{"computing", sb.computing, sn.computing}, {"comm_not_overlapped", sb.cno, sn.cno}};
  if (sb.has_copies || sn.has_copies) ps.push_back({"copies", sb.copies, sn.copies});
  ps.push_back({"free", sb.free, sn.free});
  json mean_parts = json::array();
  double mean_sum = 0;
  for (const auto& p : ps) {
    double bm = median(p.b), nm = median(p.n), d2 = nm - bm;
    sum += ns(d2);
    size_t bi = median_index(p.b), ni = median_index(p.n);
    parts.push_back({{"part", p.key},
                     {"label", part_label(p.key)},
                     {"base_median_ns", ns(bm)},
                     {"new_median_ns", ns(nm)},
                     {"delta_ns", ns(d2)},
                     {"share_of_delta", ratio_or_null(ns(d2), ns(device_delta))},
                     {"noise", noise_test(p.b, p.n, opt, s.paired)},
                     {"base_median_step", sb.ids[bi]},
                     {"new_median_step", sn.ids[ni]},
                     {"evidence", {{"base", sb.evidence[bi]}, {"new", sn.evidence[ni]}}}});
    double md = mean(p.n) - mean(p.b);
    mean_sum += md;
    mean_parts.push_back({{"part", p.key}, {"delta_ns", ns(md)}});
  }
  double mean_total = mean(sn.device) - mean(sb.device);
  device["decomposition"] = {{"method", "difference of the medians of the per-step values of each part"},
                             {"parts", parts},
                             {"sum_of_parts_ns", ns(sum)},
                             {"total_delta_ns", ns(device_delta)},
                             {"residual_ns", ns(device_delta) - ns(sum)},
                             {"residual_note",
                              "medians do not add up exactly (the median step of each part may differ); "
                              "sum_of_parts_ns + residual_ns = total_delta_ns"}};
  device["mean_decomposition"] = {{"method", "difference of the means (adds up exactly, outliers included)"},
                                  {"parts", mean_parts},
                                  {"sum_of_parts_ns", ns(mean_sum)},
                                  {"total_delta_ns", ns(mean_total)},
                                  {"residual_ns", ns(mean_total) - ns(mean_sum)}};
}

}  // namespace

namespace {

std::string step_source_of(const Facts& f) { return section(f, "run").value("step_source", std::string()); }

}  // namespace

double StepSeries::device_delta() const { return median(next.device) - median(base.device); }

StepSeries read_step_series(const Facts& base, const Facts& next, const CompareOptions& opt, json& notes) {
  StepSeries s;
  s.skip_warmup = opt.skip_warmup;
  s.base = read_series(base, opt.skip_warmup);
  s.next = read_series(next, opt.skip_warmup);
  s.use_host = s.base.host_complete && s.next.host_complete && !s.base.launched_work && !s.next.launched_work &&
               !s.base.iteration_window && !s.next.iteration_window;
  s.base.step_time = s.use_host ? s.base.host : s.base.device;
  s.next.step_time = s.use_host ? s.next.host : s.next.device;
  const bool b = s.base.dropped_warmup, n = s.next.dropped_warmup;
  if (b || n) {
    std::string which = b && n ? "both runs" : b ? "the base run" : "the new run";
    notes.push_back("warm-up skipped: the first step of " + which +
                    " is left out of every step statistic "
                    "(it has 4 or more steps)");
  } else if (opt.skip_warmup) {
    notes.push_back("no warm-up step dropped: a side needs 4 or more steps for that");
  }
  // Same steps on both sides (ids and order): the noise tests pair them. An engine's iterations
  // are numbered in the order they ran, not by what they ran: iteration i of one run is not
  // iteration i of the other (the inference section matches them by phase and batch size).
  const bool iterations = step_source_of(base) == kEngineIterationSource || step_source_of(next) == kEngineIterationSource;
  s.paired = !iterations && s.base.size() > 0 && s.base.ids == s.next.ids &&
             std::none_of(s.base.ids.begin(), s.base.ids.end(), [](const json& id) { return id.is_null(); });
  if (iterations)
    notes.push_back(
        "the steps are engine iterations: compared unpaired (iteration i of one run did not run what iteration i of "
        "the other did); the inference section matches them by phase and batch size");
  return s;
}

json series_section(const StepSeries& s) {
  json series;
  for (const Series* side : {&s.base, &s.next})
    series[side == &s.base ? "base" : "new"] = {{"step_ids", side->ids},
                                                {"step_time_ns", to_int_array(side->step_time)},
                                                {"device_time_ns", to_int_array(side->device)},
                                                {"computing_ns", to_int_array(side->computing)},
                                                {"comm_not_overlapped_ns", to_int_array(side->cno)},
                                                {"free_ns", to_int_array(side->free)},
                                                {"free_ratio", side->free_ratio}};
  if (s.base.has_copies || s.next.has_copies) {
    series["base"]["copies_ns"] = to_int_array(s.base.copies);
    series["new"]["copies_ns"] = to_int_array(s.next.copies);
  }
  series["step_time_basis"] = s.use_host ? "host" : "device";
  series["paired"] = s.paired;
  return series;
}

json step_time_section(const StepSeries& s, const CompareSide& base, const CompareSide& next, const CompareOptions& opt,
                       json& notes) {
  json step_time = {{"available", s.have_steps()}};
  if (!s.have_steps()) {
    const CompareSide* sides[2] = {&base, &next};
    const Series* series[2] = {&s.base, &s.next};
    for (int i = 0; i < 2; ++i)
      if (series[i]->size() == 0) {
        std::string why = unavailable_reason(sides[i]->facts, "steps");
        notes.push_back(fmt::format("the {} run has no per-step breakdown{}: no step-time comparison",
                                    i == 0 ? "base" : "new", why.empty() ? "" : " (" + why + ")"));
      }
    return step_time;
  }
  const Series& sb = s.base;
  const Series& sn = s.next;
  const bool gpu = sb.launched_work || sn.launched_work;
  const bool iterations = sb.iteration_window && sn.iteration_window;
  step_time["basis"] = s.use_host   ? "host step span, ProfilerStep#N"
                       : gpu        ? "device step: until the device work the step launched ends (GPU; "
                                      "computing + comm not overlapped + copies + free)"
                       : iterations ? "device step: each engine iteration's own window (Ascend; computing + comm "
                                      "not overlapped + free)"
                                    : "device time per step = computing + comm not overlapped + free";
  if (sb.launched_work != sn.launched_work)
    notes.push_back(
        "one side is a GPU run and the other is not: their steps are measured by different profilers' rules, "
        "so the step times compare different things");
  if (!s.use_host && !gpu && !iterations)
    notes.push_back(
        "step time is the per-step device time: at least one side has no host step spans "
        "(no ProfilerStep#N in a trace)");
  step_time["warmup"] = warmup_rule(s);
  step_time["base"] = ns_stats(sb.step_time, sb.ids);
  step_time["new"] = ns_stats(sn.step_time, sn.ids);
  double d = median(sn.step_time) - median(sb.step_time);
  step_time["delta_ns"] = ns(d);
  step_time["delta_ratio"] = ratio_or_null(d, median(sb.step_time));
  step_time["p90_delta_ns"] = ns(quantile(sn.step_time, 0.9) - quantile(sb.step_time, 0.9));
  step_time["noise"] = noise_test(sb.step_time, sn.step_time, opt, s.paired);
  if (!step_time["noise"].value("possible", false)) notes.push_back(step_time["noise"]["why"]);
  return step_time;
}

json device_time_section(const StepSeries& s, const CompareOptions& opt) {
  json device = {{"available", s.have_steps()}};
  if (!s.have_steps()) return device;
  const Series& sb = s.base;
  const Series& sn = s.next;
  const double device_delta = s.device_delta();
  device["definition"] = sb.has_copies || sn.has_copies ? "computing + comm_not_overlapped + copies + free of each step"
                                                        : "computing + comm_not_overlapped + free of each step";
  device["base"] = ns_stats(sb.device, sb.ids);
  device["new"] = ns_stats(sn.device, sn.ids);
  device["delta_ns"] = ns(device_delta);
  device["delta_ratio"] = ratio_or_null(device_delta, median(sb.device));
  device["noise"] = noise_test(sb.device, sn.device, opt, s.paired);
  add_decomposition(device, s, opt);
  device["free_ratio"] = {{"base_median", median(sb.free_ratio)},
                          {"new_median", median(sn.free_ratio)},
                          {"delta", median(sn.free_ratio) - median(sb.free_ratio)},
                          {"noise", noise_test(sb.free_ratio, sn.free_ratio, opt, s.paired)}};
  return device;
}

}  // namespace npu::compare::sections
