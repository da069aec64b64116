// The operators section of the compare document: the two runs' top operator lists matched by
// type (or name), the communication ops, the totals per step, and AI CPU calls.
#include <algorithm>
#include <map>
#include <set>

#include <fmt/format.h>

#include "compare/compare_sections.h"

namespace npu::compare::sections {

namespace {

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

// Largest change first, then the larger operator.
void sort_by_change(std::vector<json>& rows) {
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
      r["status"] = bi == b.end()            ? "new"
                    : ni == n.end()          ? "vanished"
                    : (nt == bt && nc == bc) ? "unchanged"
                                             : "changed";
    }
    rows.push_back(std::move(r));
  }
  sort_by_change(rows);
  json out = json::array();
  for (auto& r : rows) out.push_back(std::move(r));
  return out;
}

// The list holds fewer entries than the run has distinct keys: what is missing is below its cut.
bool capped(const json& ops, const char* list, const char* distinct_key) {
  const json& l = ops.value(list, json::array());
  auto d = num(ops.value("totals", json::object()), distinct_key);
  return d && l.is_array() && *d > static_cast<double>(l.size());
}

json operator_totals(const json& ob, const json& on, double steps_b, double steps_n) {
  const json tb = ob.value("totals", json::object()), tn = on.value("totals", json::object());
  return json::array(
      {metric_row("compute_ns_per_step", "compute kernel time per step", "ns", per_step(num(tb, "compute_ns"), steps_b),
                  per_step(num(tn, "compute_ns"), steps_n)),
       metric_row("communication_ns_per_step", "communication op time per step", "ns",
                  per_step(num(tb, "communication_ns"), steps_b), per_step(num(tn, "communication_ns"), steps_n)),
       metric_row("kernels_per_step", "kernels per step", "count", per_step(num(tb, "kernels"), steps_b),
                  per_step(num(tn, "kernels"), steps_n))});
}

// Why there is no operator comparison: which side lacks operator facts, and why it does.
std::string missing_operators(const Facts& base, const Facts& next) {
  std::string why;
  const Facts* sides[2] = {&base, &next};
  for (int i = 0; i < 2; ++i)
    if (!section(*sides[i], "operators").contains("by_name")) {
      std::string r = unavailable_reason(*sides[i], "operators");
      why += fmt::format("{}the {} run has no operator facts{}", why.empty() ? "" : "; ", i == 0 ? "base" : "new",
                         r.empty() ? "" : " (" + r + ")");
    }
  return why;
}

// AI CPU (operator_health.ai_cpu): call counts matter even when the time is small.
void add_ai_cpu(json& ops, const Facts& base, const Facts& next, double steps_b, double steps_n) {
  const json& ab = section(base, "operator_health").value("ai_cpu", json::object());
  const json& an = section(next, "operator_health").value("ai_cpu", json::object());
  if (!num(ab, "count") || !num(an, "count")) return;
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
  ops["ai_cpu"] = {{"base_calls_per_step", cb},  {"new_calls_per_step", cn},  {"delta_calls_per_step", cn - cb},
                   {"base_ns_per_step", ns(nb)}, {"new_ns_per_step", ns(nn)}, {"delta_ns_per_step", ns(nn - nb)},
                   {"new_types", appeared}};
}

}  // namespace

json operators_section(const Facts& base, const Facts& next, json& notes) {
  const json& ob = section(base, "operators");
  const json& on = section(next, "operators");
  double steps_b = steps_of(base), steps_n = steps_of(next);
  json ops = {{"available", false}};
  if (!ob.contains("by_name") || !on.contains("by_name")) {
    ops["note"] = missing_operators(base, next) + ": no operator comparison";
    notes.push_back(ops["note"]);
    add_ai_cpu(ops, base, next, steps_b, steps_n);
    return ops;
  }
  ops["available"] = true;
  ops["per_step_basis"] = fmt::format(
      "operator totals cover every profiled step (warm-up included) and are "
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
  ops["communication"] = op_table(ob.value("communication", json::array()), on.value("communication", json::array()),
                                  "name", false, false, steps_b, steps_n);
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
  ops["totals"] = operator_totals(ob, on, steps_b, steps_n);
  add_ai_cpu(ops, base, next, steps_b, steps_n);
  return ops;
}

}  // namespace npu::compare::sections
