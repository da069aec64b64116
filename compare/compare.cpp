// build_compare(): the facts delta of two runs. See docs/compare-gate.md for every key.
#include "compare/compare.h"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <optional>
#include <set>

#include "compare/stats.h"

namespace npu::compare {

using nlohmann::json;

std::string fmt_ms(double ns) { return fmt::format("{:.3f} ms", ns / 1e6); }
std::string fmt_signed_ms(double ns) { return fmt::format("{:+.3f} ms", ns / 1e6); }
std::string fmt_signed_pct(double r) { return std::isfinite(r) ? fmt::format("{:+.1f}%", r * 100.0) : "n/a"; }

namespace {

std::optional<double> num(const json& j, const char* key) {
  if (!j.is_object()) return std::nullopt;
  auto it = j.find(key);
  if (it == j.end() || !it->is_number()) return std::nullopt;
  return it->get<double>();
}

const json& section(const Facts& f, const char* name) {
  static const json empty = json::object();
  auto it = f.doc.find(name);
  return it != f.doc.end() && it->is_object() ? *it : empty;
}

std::string unavailable_reason(const Facts& f, const std::string& fact) {
  for (const auto& u : f.doc.value("unavailable", json::array()))
    if (u.is_object() && u.value("fact", "") == fact) return u.value("why", "");
  return "";
}

int64_t ns(double v) { return static_cast<int64_t>(std::llround(v)); }

json ratio_or_null(double delta, double base) { return base != 0 ? json(delta / base) : json(nullptr); }

// ---------------------------------------------------------------- per-step series

struct Series {
  std::vector<json> ids;
  std::vector<double> computing, cno, free, device, free_ratio, host, step_time;
  std::vector<json> evidence;
  bool host_complete = true;  // every used step has host_dur_ns > 0
  size_t total_steps = 0;
  bool dropped_warmup = false;
  json dropped_id = nullptr;
  std::string source;
  size_t size() const { return device.size(); }
};

Series read_series(const Facts& f, bool skip_warmup) {
  Series s;
  const json& steps = f.doc.contains("steps") && f.doc["steps"].is_array() ? f.doc["steps"] : json::array();
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
    double dev = c + n + fr;
    s.ids.push_back(st.value("id", json(nullptr)));
    s.computing.push_back(c);
    s.cno.push_back(n);
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

// ---------------------------------------------------------------- operators

struct OpAgg {
  std::string key;
  std::set<std::string> cores;
  double count = 0, total = 0, max = 0, best_total = -1;
  json evidence = json::array();
};

std::map<std::string, OpAgg> aggregate(const json& list, const char* key_field) {
  std::map<std::string, OpAgg> out;
  if (!list.is_array()) return out;
  for (const auto& e : list) {
    if (!e.is_object() || !e.contains(key_field) || !e[key_field].is_string()) continue;
    std::string k = e[key_field].get<std::string>();
    OpAgg& a = out[k];
    a.key = k;
    if (e.contains("accelerator_core") && e["accelerator_core"].is_string())
      a.cores.insert(e["accelerator_core"].get<std::string>());
    double t = num(e, "total_ns").value_or(0);
    a.count += num(e, "count").value_or(0);
    a.total += t;
    a.max = std::max(a.max, num(e, "max_ns").value_or(0));
    if (t > a.best_total) {
      a.best_total = t;
      a.evidence = e.value("evidence", json::array());
    }
  }
  return out;
}

std::string join(const std::set<std::string>& s, const char* sep) {
  std::string out;
  for (const auto& x : s) out += (out.empty() ? "" : sep) + x;
  return out;
}

json op_side(const OpAgg& a, double steps) {
  return {{"count", ns(a.count)},
          {"total_ns", ns(a.total)},
          {"per_step_ns", ns(a.total / steps)},
          {"calls_per_step", a.count / steps},
          {"mean_ns", a.count > 0 ? ns(a.total / a.count) : 0},
          {"max_ns", ns(a.max)},
          {"evidence", a.evidence}};
}

// Matches two top lists (by_type, by_name or communication) by key.
json op_table(const json& base_list, const json& new_list, const char* key_field, bool base_capped, bool new_capped,
              double base_steps, double new_steps) {
  auto b = aggregate(base_list, key_field);
  auto n = aggregate(new_list, key_field);
  std::set<std::string> keys;
  for (const auto& [k, v] : b) keys.insert(k);
  for (const auto& [k, v] : n) keys.insert(k);
  std::vector<json> rows;
  for (const auto& k : keys) {
    auto bi = b.find(k);
    auto ni = n.find(k);
    std::set<std::string> cores;
    if (bi != b.end()) cores.insert(bi->second.cores.begin(), bi->second.cores.end());
    if (ni != n.end()) cores.insert(ni->second.cores.begin(), ni->second.cores.end());
    json r = {{key_field, k}, {"accelerator_core", join(cores, "+")}};
    r["base"] = bi != b.end() ? op_side(bi->second, base_steps) : json(nullptr);
    r["new"] = ni != n.end() ? op_side(ni->second, new_steps) : json(nullptr);
    if (bi == b.end() && base_capped) {
      r["status"] = "unlisted";
      r["why"] = "below the base run's top-list cut";
    } else if (ni == n.end() && new_capped) {
      r["status"] = "unlisted";
      r["why"] = "below the new run's top-list cut";
    } else {
      double bt = bi != b.end() ? bi->second.total / base_steps : 0;
      double nt = ni != n.end() ? ni->second.total / new_steps : 0;
      double bc = bi != b.end() ? bi->second.count / base_steps : 0;
      double nc = ni != n.end() ? ni->second.count / new_steps : 0;
      r["delta_per_step_ns"] = ns(nt - bt);
      r["delta_ratio"] = ratio_or_null(nt - bt, bt);
      r["delta_calls_per_step"] = nc - bc;
      r["status"] = bi == b.end() ? "new" : ni == n.end() ? "vanished" : (nt == bt && nc == bc) ? "unchanged" : "changed";
    }
    rows.push_back(std::move(r));
  }
  std::stable_sort(rows.begin(), rows.end(), [](const json& x, const json& y) {
    auto mag = [](const json& r) {
      return r.contains("delta_per_step_ns") ? std::llabs(r["delta_per_step_ns"].get<int64_t>()) : -1LL;
    };
    auto size = [](const json& r) {
      double t = 0;
      for (const char* s : {"base", "new"})
        if (r[s].is_object()) t = std::max(t, r[s]["per_step_ns"].get<double>());
      return t;
    };
    if (mag(x) != mag(y)) return mag(x) > mag(y);
    return size(x) > size(y);
  });
  json out = json::array();
  for (auto& r : rows) out.push_back(std::move(r));
  return out;
}

bool capped(const json& ops, const char* list, const char* distinct_key) {
  const json& l = ops.value(list, json::array());
  auto d = num(ops.value("totals", json::object()), distinct_key);
  return d && l.is_array() && *d > static_cast<double>(l.size());
}

double steps_of(const Facts& f) {
  auto s = num(section(f, "overall"), "steps");
  if (s && *s >= 1) return *s;
  if (f.doc.contains("steps") && f.doc["steps"].is_array() && !f.doc["steps"].empty())
    return static_cast<double>(f.doc["steps"].size());
  return 1;
}

// ---------------------------------------------------------------- small metric rows

json metric_row(const char* key, const char* label, const char* unit, std::optional<double> b,
                std::optional<double> n) {
  json r = {{"key", key}, {"label", label}, {"unit", unit}};
  r["base"] = b ? json(*b) : json(nullptr);
  r["new"] = n ? json(*n) : json(nullptr);
  if (b && n) {
    r["delta"] = *n - *b;
    r["delta_ratio"] = ratio_or_null(*n - *b, *b);
  } else {
    r["delta"] = nullptr;
    r["delta_ratio"] = nullptr;
  }
  return r;
}

std::string finding_key(const json& f) { return f.value("rule", "") + "\x1f" + f.value("title", ""); }

json finding_brief(const json& f) {
  return {{"rule", f.value("rule", "")},
          {"title", f.value("title", "")},
          {"severity", f.value("severity", "")},
          {"category", f.value("category", "")},
          {"saving_ns", f.value("saving_ns", json(nullptr))},
          {"saving_ratio", f.value("saving_ratio", json(nullptr))},
          {"observed", f.value("observed", "")}};
}

const char* part_label(const std::string& p) {
  if (p == "computing") return "computing";
  if (p == "comm_not_overlapped") return "communication not overlapped";
  if (p == "free") return "free (device idle)";
  return "?";
}

}  // namespace

json noise_test(const std::vector<double>& base, const std::vector<double>& next, const CompareOptions& opt,
                bool paired) {
  if (base.size() < opt.min_steps_for_test || next.size() < opt.min_steps_for_test)
    return {{"possible", false},
            {"why", fmt::format("too few steps for a noise test ({} base, {} new; needs {} on each side): "
                                "only the plain difference is known",
                                base.size(), next.size(), opt.min_steps_for_test)}};
  json j = {{"possible", true}, {"confidence", opt.confidence}, {"resamples", opt.resamples}, {"seed", opt.seed}};
  BootstrapResult b;
  if (paired && base.size() == next.size()) {
    std::vector<double> d(base.size());
    for (size_t i = 0; i < d.size(); ++i) d[i] = next[i] - base[i];
    b = bootstrap_median(d, opt.confidence, opt.resamples, opt.seed);
    WilcoxonResult w = wilcoxon_signed_rank(d);
    j["pairing"] = "paired by step id";
    j["method"] = "bootstrap percentile interval of the median of the per-step differences (new - base)";
    j["median_paired_difference"] = median(d);
    j["test"] = {{"name", "Wilcoxon signed-rank"},
                 {"statistic", w.w_plus},
                 {"p_value", w.p_value},
                 {"method", w.exact ? "exact" : "normal approximation"}};
  } else {
    b = bootstrap_median_diff(base, next, opt.confidence, opt.resamples, opt.seed);
    MannWhitneyResult mw = mann_whitney(base, next);
    j["pairing"] = "unpaired";
    j["method"] = "bootstrap percentile interval of median(new) - median(base)";
    j["test"] = {{"name", "Mann-Whitney U"},
                 {"statistic", mw.u},
                 {"p_value", mw.p_value},
                 {"method", mw.exact ? "exact" : "normal approximation"}};
  }
  bool sig = b.low > 0 || b.high < 0;
  j["ci_low"] = b.low;
  j["ci_high"] = b.high;
  j["significant"] = sig;
  j["direction"] = !sig ? "none" : b.low > 0 ? "increase" : "decrease";
  return j;
}

json build_compare(const CompareSide& base, const CompareSide& next, const CompareOptions& opt) {
  json doc;
  doc["schema"] = kCompareSchema;
  doc["schema_version"] = kCompareSchemaVersion;
  json notes = json::array();
  const CompareSide* sides[2] = {&base, &next};
  const char* names[2] = {"base", "new"};

  for (int i = 0; i < 2; ++i) {
    const Facts& f = sides[i]->facts;
    const json& run = section(f, "run");
    json s = {{"path", sides[i]->path},
              {"kind", sides[i]->kind},
              {"description", sides[i]->description},
              {"framework", run.value("framework", json(nullptr))},
              {"rank", run.value("rank", json(nullptr))},
              {"steps", f.doc.contains("steps") && f.doc["steps"].is_array() ? f.doc["steps"].size() : 0},
              {"step_source", section(f, "overall").value("source", json(nullptr))},
              {"operators_source", section(f, "operators").value("source", json(nullptr))},
              {"findings", sides[i]->findings.is_array() ? sides[i]->findings.size() : 0}};
    doc[names[i]] = s;
  }
  if (doc["base"]["framework"] != doc["new"]["framework"])
    notes.push_back(fmt::format("the runs come from different frameworks ({} vs {})", doc["base"]["framework"].dump(),
                                doc["new"]["framework"].dump()));
  if (doc["base"]["step_source"] != doc["new"]["step_source"])
    notes.push_back(fmt::format("the step breakdowns have different sources ({} vs {}): small differences may be "
                                "method, not performance",
                                doc["base"]["step_source"].dump(), doc["new"]["step_source"].dump()));

  // ---- per-step series
  Series sb = read_series(base.facts, opt.skip_warmup), sn = read_series(next.facts, opt.skip_warmup);
  bool use_host = sb.host_complete && sn.host_complete;
  sb.step_time = use_host ? sb.host : sb.device;
  sn.step_time = use_host ? sn.host : sn.device;
  json warm = {{"rule", "the first step is dropped on a side with 4 or more steps"},
               {"enabled", opt.skip_warmup},
               {"base_dropped", sb.dropped_warmup ? json(sb.dropped_id) : json(nullptr)},
               {"new_dropped", sn.dropped_warmup ? json(sn.dropped_id) : json(nullptr)}};
  if (sb.dropped_warmup || sn.dropped_warmup) {
    std::string which = sb.dropped_warmup && sn.dropped_warmup ? "both runs"
                        : sb.dropped_warmup                   ? "the base run"
                                                              : "the new run";
    notes.push_back("warm-up skipped: the first step of " + which + " is left out of every step statistic "
                    "(it has 4 or more steps)");
  } else if (opt.skip_warmup) {
    notes.push_back("no warm-up step dropped: a side needs 4 or more steps for that");
  }

  // Same steps on both sides (ids and order): the noise tests pair them.
  bool paired = sb.size() > 0 && sb.ids == sn.ids &&
                std::none_of(sb.ids.begin(), sb.ids.end(), [](const json& id) { return id.is_null(); });
  json series;
  for (int i = 0; i < 2; ++i) {
    const Series& s = i == 0 ? sb : sn;
    series[names[i]] = {{"step_ids", s.ids},
                        {"step_time_ns", to_int_array(s.step_time)},
                        {"device_time_ns", to_int_array(s.device)},
                        {"computing_ns", to_int_array(s.computing)},
                        {"comm_not_overlapped_ns", to_int_array(s.cno)},
                        {"free_ns", to_int_array(s.free)},
                        {"free_ratio", s.free_ratio}};
  }
  series["step_time_basis"] = use_host ? "host" : "device";
  series["paired"] = paired;
  doc["series"] = series;

  bool have_steps = sb.size() > 0 && sn.size() > 0;
  double device_delta = 0;
  json step_time = {{"available", have_steps}};
  json device = {{"available", have_steps}};
  if (!have_steps) {
    for (int i = 0; i < 2; ++i)
      if ((i == 0 ? sb : sn).size() == 0) {
        std::string why = unavailable_reason(sides[i]->facts, "steps");
        notes.push_back(fmt::format("the {} run has no per-step breakdown{}: no step-time comparison", names[i],
                                    why.empty() ? "" : " (" + why + ")"));
      }
  } else {
    step_time["basis"] = use_host ? "host step span, ProfilerStep#N"
                                  : "device time per step = computing + comm not overlapped + free";
    if (!use_host)
      notes.push_back("step time is the per-step device time: at least one side has no host step spans "
                      "(no ProfilerStep#N in a trace)");
    step_time["warmup"] = warm;
    step_time["base"] = ns_stats(sb.step_time, sb.ids);
    step_time["new"] = ns_stats(sn.step_time, sn.ids);
    double d = median(sn.step_time) - median(sb.step_time);
    step_time["delta_ns"] = ns(d);
    step_time["delta_ratio"] = ratio_or_null(d, median(sb.step_time));
    step_time["p90_delta_ns"] = ns(quantile(sn.step_time, 0.9) - quantile(sb.step_time, 0.9));
    step_time["noise"] = noise_test(sb.step_time, sn.step_time, opt, paired);
    if (!step_time["noise"].value("possible", false)) notes.push_back(step_time["noise"]["why"]);

    device["definition"] = "computing + comm_not_overlapped + free of each step";
    device["base"] = ns_stats(sb.device, sb.ids);
    device["new"] = ns_stats(sn.device, sn.ids);
    device_delta = median(sn.device) - median(sb.device);
    device["delta_ns"] = ns(device_delta);
    device["delta_ratio"] = ratio_or_null(device_delta, median(sb.device));
    device["noise"] = noise_test(sb.device, sn.device, opt, paired);

    json parts = json::array();
    double sum = 0;
    struct P {
      const char* key;
      const std::vector<double>& b;
      const std::vector<double>& n;
    };
    P ps[3] = {{"computing", sb.computing, sn.computing}, {"comm_not_overlapped", sb.cno, sn.cno}, {"free", sb.free, sn.free}};
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
                       {"noise", noise_test(p.b, p.n, opt, paired)},
                       {"base_median_step", sb.ids[bi]},
                       {"new_median_step", sn.ids[ni]},
                       {"evidence", {{"base", sb.evidence[bi]}, {"new", sn.evidence[ni]}}}});
      double md = mean(p.n) - mean(p.b);
      mean_sum += md;
      mean_parts.push_back({{"part", p.key}, {"delta_ns", ns(md)}});
    }
    double mean_total = mean(sn.device) - mean(sb.device);
    device["decomposition"] = {
        {"method", "difference of the medians of the per-step values of each part"},
        {"parts", parts},
        {"sum_of_parts_ns", ns(sum)},
        {"total_delta_ns", ns(device_delta)},
        {"residual_ns", ns(device_delta) - ns(sum)},
        {"residual_note", "medians do not add up exactly (the median step of each part may differ); "
                          "sum_of_parts_ns + residual_ns = total_delta_ns"}};
    device["mean_decomposition"] = {{"method", "difference of the means (adds up exactly, outliers included)"},
                                    {"parts", mean_parts},
                                    {"sum_of_parts_ns", ns(mean_sum)},
                                    {"total_delta_ns", ns(mean_total)},
                                    {"residual_ns", ns(mean_total) - ns(mean_sum)}};
    device["free_ratio"] = {{"base_median", median(sb.free_ratio)},
                            {"new_median", median(sn.free_ratio)},
                            {"delta", median(sn.free_ratio) - median(sb.free_ratio)},
                            {"noise", noise_test(sb.free_ratio, sn.free_ratio, opt, paired)}};
  }
  doc["step_time"] = step_time;
  doc["device_time"] = device;

  // ---- operators
  const json& ob = section(base.facts, "operators");
  const json& on = section(next.facts, "operators");
  double steps_b = steps_of(base.facts), steps_n = steps_of(next.facts);
  json ops = {{"available", false}};
  bool ops_ok = ob.contains("by_name") && on.contains("by_name");
  if (!ops_ok) {
    std::string why;
    for (int i = 0; i < 2; ++i)
      if (!section(sides[i]->facts, "operators").contains("by_name")) {
        std::string r = unavailable_reason(sides[i]->facts, "operators");
        why += fmt::format("{}the {} run has no operator facts{}", why.empty() ? "" : "; ", names[i],
                           r.empty() ? "" : " (" + r + ")");
      }
    ops["note"] = why + ": no operator comparison";
    notes.push_back(ops["note"]);
  } else {
    ops["available"] = true;
    ops["per_step_basis"] = fmt::format("operator totals cover every profiled step (warm-up included) and are "
                                        "divided by the step count ({} base, {} new)",
                                        steps_b, steps_n);
    ops["base_source"] = ob.value("source", "");
    ops["new_source"] = on.value("source", "");
    bool types = ob.value("by_type", json::array()).size() > 0 || on.value("by_type", json::array()).size() > 0;
    if (types && (ob.value("by_type", json::array()).empty() || on.value("by_type", json::array()).empty())) {
      ops["note"] = "only one run has operator types (kernel_details.csv): types are not compared";
      notes.push_back(ops["note"]);
      types = false;
    }
    ops["by_type"] = types ? op_table(ob["by_type"], on["by_type"], "type", capped(ob, "by_type", "distinct_types"),
                                      capped(on, "by_type", "distinct_types"), steps_b, steps_n)
                           : json::array();
    ops["by_name"] = op_table(ob["by_name"], on["by_name"], "name", capped(ob, "by_name", "distinct_names"),
                              capped(on, "by_name", "distinct_names"), steps_b, steps_n);
    ops["communication"] =
        op_table(ob.value("communication", json::array()), on.value("communication", json::array()), "name", false,
                 false, steps_b, steps_n);
    json new_ops = json::array(), gone = json::array();
    const json& primary = types ? ops["by_type"] : ops["by_name"];
    const char* kf = types ? "type" : "name";
    for (const auto& r : primary) {
      if (r["status"] == "new") new_ops.push_back(r[kf]);
      if (r["status"] == "vanished") gone.push_back(r[kf]);
    }
    ops["new"] = new_ops;
    ops["vanished"] = gone;
    ops["matched_by"] = kf;
    const json tb = ob.value("totals", json::object()), tn = on.value("totals", json::object());
    ops["totals"] = json::array(
        {metric_row("compute_ns_per_step", "compute kernel time per step", "ns",
                    num(tb, "compute_ns") ? std::optional<double>(*num(tb, "compute_ns") / steps_b) : std::nullopt,
                    num(tn, "compute_ns") ? std::optional<double>(*num(tn, "compute_ns") / steps_n) : std::nullopt),
         metric_row("communication_ns_per_step", "communication op time per step", "ns",
                    num(tb, "communication_ns") ? std::optional<double>(*num(tb, "communication_ns") / steps_b)
                                                : std::nullopt,
                    num(tn, "communication_ns") ? std::optional<double>(*num(tn, "communication_ns") / steps_n)
                                                : std::nullopt),
         metric_row("kernels_per_step", "kernels per step", "count",
                    num(tb, "kernels") ? std::optional<double>(*num(tb, "kernels") / steps_b) : std::nullopt,
                    num(tn, "kernels") ? std::optional<double>(*num(tn, "kernels") / steps_n) : std::nullopt)});
  }
  // AI CPU (operator_health.ai_cpu): call counts matter even when the time is small.
  {
    const json& ab = section(base.facts, "operator_health").value("ai_cpu", json::object());
    const json& an = section(next.facts, "operator_health").value("ai_cpu", json::object());
    if (num(ab, "count") && num(an, "count")) {
      auto types_of = [](const json& a) {
        std::set<std::string> t;
        for (const auto& e : a.value("by_type", json::array())) t.insert(e.value("type", ""));
        for (const auto& e : a.value("by_name", json::array())) t.insert(e.value("name", ""));
        t.erase("");
        return t;
      };
      auto tb = types_of(ab), tn = types_of(an);
      json appeared = json::array();
      for (const auto& t : tn)
        if (!tb.count(t)) appeared.push_back(t);
      double cb = *num(ab, "count") / steps_b, cn = *num(an, "count") / steps_n;
      double nb = num(ab, "total_ns").value_or(0) / steps_b, nn = num(an, "total_ns").value_or(0) / steps_n;
      ops["ai_cpu"] = {{"base_calls_per_step", cb},      {"new_calls_per_step", cn},
                       {"delta_calls_per_step", cn - cb}, {"base_ns_per_step", ns(nb)},
                       {"new_ns_per_step", ns(nn)},        {"delta_ns_per_step", ns(nn - nb)},
                       {"new_types", appeared}};
    }
  }
  doc["operators"] = ops;

  // ---- dispatch
  {
    const json& db = section(base.facts, "dispatch").value("overall", json::object());
    const json& dn = section(next.facts, "dispatch").value("overall", json::object());
    json d = {{"available", !db.empty() && !dn.empty()}};
    if (db.empty() || dn.empty()) {
      d["note"] = std::string("dispatch facts missing on ") +
                  (db.empty() && dn.empty() ? "both sides" : db.empty() ? "the base side" : "the new side");
    } else {
      d["metrics"] = json::array({metric_row("lag_p50_ns", "launch lag p50", "ns", num(db, "lag_p50_ns"), num(dn, "lag_p50_ns")),
                                  metric_row("lag_p90_ns", "launch lag p90", "ns", num(db, "lag_p90_ns"), num(dn, "lag_p90_ns")),
                                  metric_row("vertical_share", "vertical launches", "ratio", num(db, "vertical_share"),
                                             num(dn, "vertical_share")),
                                  metric_row("free_ratio", "free ratio (device idle / device time)", "ratio",
                                             num(section(base.facts, "overall"), "free_ratio"),
                                             num(section(next.facts, "overall"), "free_ratio")),
                                  metric_row("host_bound_free_ratio", "host-caused idle / device time", "ratio",
                                             num(db, "host_bound_free_ratio"), num(dn, "host_bound_free_ratio")),
                                  metric_row("launches_per_ms", "launches per ms", "1/ms", num(db, "launches_per_ms"),
                                             num(dn, "launches_per_ms")),
                                  metric_row("sync_calls_per_step", "synchronize calls per step", "count",
                                             num(db, "sync_calls") ? std::optional<double>(*num(db, "sync_calls") / steps_b)
                                                                   : std::nullopt,
                                             num(dn, "sync_calls") ? std::optional<double>(*num(dn, "sync_calls") / steps_n)
                                                                   : std::nullopt)});
      d["classification"] = {{"base", db.value("classification", json(nullptr))},
                             {"new", dn.value("classification", json(nullptr))},
                             {"base_steps_by_class", db.value("steps_by_class", json::object())},
                             {"new_steps_by_class", dn.value("steps_by_class", json::object())}};
    }
    doc["dispatch"] = d;
  }

  // ---- host activity that leaves the device idle (operator_health)
  {
    json rows = json::array();
    const json& hb = section(base.facts, "operator_health");
    const json& hn = section(next.facts, "operator_health");
    struct H {
      const char* key;
      const char* label;
    };
    for (H h : {H{"dataloader", "dataloader calls"}, H{"compile", "online operator compile"},
                H{"sync", "synchronize calls"}, H{"gc", "Python GC"}}) {
      const json& b = hb.value(h.key, json::object());
      const json& n = hn.value(h.key, json::object());
      auto tb = num(b, "total_ns"), tn = num(n, "total_ns");
      if (!tb || !tn) continue;
      json r = metric_row(h.key, h.label, "ns", *tb / steps_b, *tn / steps_n);
      r["base_calls_per_step"] = num(b, "count").value_or(0) / steps_b;
      r["new_calls_per_step"] = num(n, "count").value_or(0) / steps_n;
      r["evidence"] = {{"base", b.value("evidence", json::array())}, {"new", n.value("evidence", json::array())}};
      rows.push_back(r);
    }
    doc["host_activity"] = {{"basis", "per profiled step (total divided by the step count)"}, {"metrics", rows}};
  }

  // ---- memory
  {
    const json& mb = section(base.facts, "memory");
    const json& mn = section(next.facts, "memory");
    json m = {{"available", num(mb, "peak_allocated_mb").has_value() && num(mn, "peak_allocated_mb").has_value()}};
    if (!m["available"].get<bool>()) {
      m["note"] = "memory facts (memory_record.csv) missing on at least one side";
    } else {
      m["metrics"] = json::array({metric_row("peak_allocated_mb", "peak allocated", "MB", num(mb, "peak_allocated_mb"),
                                             num(mn, "peak_allocated_mb")),
                                  metric_row("peak_reserved_mb", "peak reserved", "MB", num(mb, "peak_reserved_mb"),
                                             num(mn, "peak_reserved_mb"))});
      const json& pb = mb.value("overall", json::object()).value("peak_allocated", json::object());
      const json& pn = mn.value("overall", json::object()).value("peak_allocated", json::object());
      m["evidence"] = {{"base", pb.value("evidence", json::array())}, {"new", pn.value("evidence", json::array())}};
    }
    doc["memory"] = m;
  }

  // ---- findings
  {
    std::map<std::string, const json*> fb, fn;
    for (const auto& f : base.findings) fb.emplace(finding_key(f), &f);
    for (const auto& f : next.findings) fn.emplace(finding_key(f), &f);
    json appeared = json::array(), gone = json::array(), persisting = json::array(), all_new = json::array();
    for (const auto& f : next.findings) {
      all_new.push_back(finding_brief(f));
      auto it = fb.find(finding_key(f));
      if (it == fb.end()) {
        appeared.push_back(finding_brief(f));
      } else {
        json p = finding_brief(f);
        p["base_saving_ratio"] = it->second->value("saving_ratio", json(nullptr));
        p["base_saving_ns"] = it->second->value("saving_ns", json(nullptr));
        p["base_observed"] = it->second->value("observed", "");
        persisting.push_back(p);
      }
    }
    for (const auto& f : base.findings)
      if (!fn.count(finding_key(f))) gone.push_back(finding_brief(f));
    doc["findings"] = {{"appeared", appeared}, {"disappeared", gone}, {"persisting", persisting}, {"new_run", all_new}};
  }

  // ---- why: the contributors to the device-time delta, ranked
  {
    std::vector<json> cands;
    double total = device_delta;
    if (have_steps && total == 0) total = doc["step_time"].value("delta_ns", int64_t{0});
    double sign = total >= 0 ? 1.0 : -1.0;
    double base_dev = have_steps ? median(sb.device) : 0;
    double floor_ns = std::max(1000.0, 0.002 * base_dev);
    auto share = [&](double d) { return device_delta != 0 ? json(d / device_delta) : json(nullptr); };

    if (have_steps) {
      for (const auto& p : doc["device_time"]["decomposition"]["parts"]) {
        double d = p["delta_ns"].get<double>();
        std::string key = p["part"];
        json related = json::array();
        if (key == "free") {
          for (const auto& r : doc["host_activity"]["metrics"])
            if (!r["delta"].is_null() && r["delta"].get<double>() * sign > floor_ns)
              related.push_back(fmt::format("{}: {} per step ({} -> {})", r["label"].get<std::string>(),
                                            fmt_signed_ms(r["delta"].get<double>()), fmt_ms(r["base"].get<double>()),
                                            fmt_ms(r["new"].get<double>())));
          if (doc["dispatch"].value("available", false)) {
            for (const auto& r : doc["dispatch"]["metrics"]) {
              if (r["delta"].is_null()) continue;
              std::string k = r["key"];
              if (k == "host_bound_free_ratio" && std::fabs(r["delta"].get<double>()) >= 0.005)
                related.push_back(fmt::format("host-caused idle: {:.1f}% -> {:.1f}% of device time",
                                              r["base"].get<double>() * 100, r["new"].get<double>() * 100));
              if (k == "lag_p50_ns" && std::fabs(r["delta"].get<double>()) >= 0.1 * std::fabs(r["base"].get<double>()) &&
                  std::fabs(r["delta"].get<double>()) > 1000)
                related.push_back(fmt::format("launch lag p50: {} -> {}", fmt_ms(r["base"].get<double>()),
                                              fmt_ms(r["new"].get<double>())));
            }
            const json& c = doc["dispatch"]["classification"];
            if (c["base_steps_by_class"] != c["new_steps_by_class"])
              related.push_back("steps by dispatch class: " + c["base_steps_by_class"].dump() + " -> " +
                                c["new_steps_by_class"].dump());
          }
        } else if (key == "computing" && doc["operators"].contains("ai_cpu")) {
          const json& a = doc["operators"]["ai_cpu"];
          if (a["delta_calls_per_step"].get<double>() != 0 || !a["new_types"].empty())
            related.push_back(fmt::format("AI CPU calls per step: {:g} -> {:g}{}", a["base_calls_per_step"].get<double>(),
                                          a["new_calls_per_step"].get<double>(),
                                          a["new_types"].empty() ? "" : "; new AI CPU types " + a["new_types"].dump()));
        } else if (key == "comm_not_overlapped" && doc["operators"].value("available", false)) {
          for (const auto& r : doc["operators"]["totals"])
            if (r["key"] == "communication_ns_per_step" && !r["delta"].is_null())
              related.push_back(fmt::format("communication op time per step (overlapped or not): {} -> {}",
                                            fmt_ms(r["base"].get<double>()), fmt_ms(r["new"].get<double>())));
        }
        const json& nz = p["noise"];
        std::string noise_txt =
            nz.value("possible", false)
                ? fmt::format("; {} step-to-step noise ({:.0f}% CI {}..{})",
                              nz["significant"].get<bool>() ? "beyond" : "within", nz["confidence"].get<double>() * 100,
                              fmt_signed_ms(nz["ci_low"].get<double>()), fmt_signed_ms(nz["ci_high"].get<double>()))
                : "";
        json e = {{"kind", "part"},
                  {"subject", key},
                  {"label", p["label"]},
                  {"delta_ns", ns(d)},
                  {"share_of_delta", share(d)},
                  {"significant", nz.value("possible", false) ? nz["significant"] : json(nullptr)},
                  {"summary", fmt::format("{}: {} per step (median {} -> {}){}", p["label"].get<std::string>(),
                                          fmt_signed_ms(d), fmt_ms(p["base_median_ns"].get<double>()),
                                          fmt_ms(p["new_median_ns"].get<double>()), noise_txt)},
                  {"evidence",
                   {{"base", {{"median_ns", p["base_median_ns"]}, {"step", p["base_median_step"]}, {"evidence", p["evidence"]["base"]}}},
                    {"new", {{"median_ns", p["new_median_ns"]}, {"step", p["new_median_step"]}, {"evidence", p["evidence"]["new"]}}}}},
                  {"related", related}};
        cands.push_back(e);
      }
    }
    if (doc["operators"].value("available", false)) {
      const std::string kf = doc["operators"]["matched_by"];
      const json& table = kf == "type" ? doc["operators"]["by_type"] : doc["operators"]["by_name"];
      for (const auto& r : table) {
        if (!r.contains("delta_per_step_ns")) continue;
        double d = r["delta_per_step_ns"].get<double>();
        std::string subj = r[kf].get<std::string>();
        std::string core = r.value("accelerator_core", "");
        const json& b = r["base"];
        const json& n = r["new"];
        std::string detail;
        std::string status = r["status"];
        if (status == "new") {
          detail = fmt::format("new operator, {} per step over {:g} calls per step", fmt_ms(n["per_step_ns"].get<double>()),
                               n["calls_per_step"].get<double>());
        } else if (status == "vanished") {
          detail = fmt::format("gone, was {} per step over {:g} calls per step", fmt_ms(b["per_step_ns"].get<double>()),
                               b["calls_per_step"].get<double>());
        } else {
          double bc = b["calls_per_step"].get<double>(), nc = n["calls_per_step"].get<double>();
          double bm = b["mean_ns"].get<double>(), nm = n["mean_ns"].get<double>();
          std::string cause = std::fabs(nc - bc) > 1e-9 && std::fabs(nm - bm) <= 0.02 * bm   ? "more calls"
                              : std::fabs(nc - bc) <= 1e-9                                    ? "each call got slower"
                                                                                              : "calls and duration changed";
          if (d * sign < 0) cause = std::fabs(nc - bc) <= 1e-9 ? "each call got faster" : "fewer or faster calls";
          detail = fmt::format("{} -> {} per step ({}); mean per call {:.1f} -> {:.1f} us, calls per step {:g} -> {:g}: {}",
                               fmt_ms(b["per_step_ns"].get<double>()), fmt_ms(n["per_step_ns"].get<double>()),
                               fmt_signed_pct(r["delta_ratio"].is_null() ? NAN : r["delta_ratio"].get<double>()),
                               bm / 1e3, nm / 1e3, bc, nc, cause);
        }
        cands.push_back({{"kind", kf == "type" ? "operator_type" : "operator_name"},
                         {"subject", subj},
                         {"accelerator_core", core},
                         {"part", "computing"},
                         {"status", status},
                         {"delta_ns", ns(d)},
                         {"share_of_delta", share(d)},
                         {"significant", nullptr},
                         {"summary", fmt::format("{}{}: {} per step; {}", subj, core.empty() ? "" : " (" + core + ")",
                                                 fmt_signed_ms(d), detail)},
                         {"evidence",
                          {{"base", b.is_null() ? json(nullptr) : json{{"per_step_ns", b["per_step_ns"]}, {"evidence", b["evidence"]}}},
                           {"new", n.is_null() ? json(nullptr) : json{{"per_step_ns", n["per_step_ns"]}, {"evidence", n["evidence"]}}}}},
                         {"related", json::array()}});
      }
    }
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
    doc["why_basis"] = {{"total_delta_ns", ns(device_delta)},
                        {"significant", dn.is_object() && dn.value("possible", false) ? dn["significant"] : json(nullptr)},
                        {"direction", total > 0 ? "slower" : total < 0 ? "faster" : "unchanged"},
                        {"min_contribution_ns", ns(floor_ns)},
                        {"note", "contributors in the direction of the device-time delta, per step; operator entries "
                                 "are part of computing, so they overlap the computing entry"}};
  }
  doc["notes"] = notes;
  return doc;
}

}  // namespace npu::compare
