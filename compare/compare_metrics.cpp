// The one-value sections of the compare document: dispatch (launch lag, host-caused idle), host
// activity that leaves the device idle, and peak memory. Each row is a metric_row().
#include "compare/compare_sections.h"

namespace npu::compare::sections {

namespace {

// verdicts.dispatch.step_class.<keys> of one side, or `def`.
json step_class(const json& verdicts, std::initializer_list<const char*> keys, const json& def) {
  const json* at = &verdicts;
  for (const char* k : {"dispatch", "step_class"}) {
    if (!at->is_object() || !at->contains(k)) return def;
    at = &(*at)[k];
  }
  for (const char* k : keys) {
    if (!at->is_object() || !at->contains(k)) return def;
    at = &(*at)[k];
  }
  return *at;
}

}  // namespace

json dispatch_section(const Facts& base, const Facts& next, const json& base_verdicts, const json& next_verdicts) {
  const json& db = section(base, "dispatch").value("overall", json::object());
  const json& dn = section(next, "dispatch").value("overall", json::object());
  json d = {{"available", !db.empty() && !dn.empty()}};
  if (db.empty() || dn.empty()) {
    d["note"] = std::string("dispatch facts missing on ") + (db.empty() && dn.empty() ? "both sides"
                                                             : db.empty()             ? "the base side"
                                                                                      : "the new side");
    return d;
  }
  double steps_b = steps_of(base), steps_n = steps_of(next);
  d["metrics"] = json::array(
      {metric_row("lag_p50_ns", "launch lag p50", "ns", num(db, "lag_p50_ns"), num(dn, "lag_p50_ns")),
       metric_row("lag_p90_ns", "launch lag p90", "ns", num(db, "lag_p90_ns"), num(dn, "lag_p90_ns")),
       metric_row("vertical_share", "vertical launches", "ratio", num(db, "vertical_share"), num(dn, "vertical_share")),
       metric_row("free_ratio", "free ratio (device idle / device time)", "ratio",
                  num(section(base, "overall"), "free_ratio"), num(section(next, "overall"), "free_ratio")),
       metric_row("host_bound_free_ratio", "host-caused idle / device time", "ratio", num(db, "host_bound_free_ratio"),
                  num(dn, "host_bound_free_ratio")),
       metric_row("launches_per_ms", "launches per ms", "1/ms", num(db, "launches_per_ms"), num(dn, "launches_per_ms")),
       metric_row("sync_calls_per_step", "synchronize calls per step", "count",
                  per_step(num(db, "sync_calls"), steps_b), per_step(num(dn, "sync_calls"), steps_n))});
  const json none;
  d["classification"] = {{"base", step_class(base_verdicts, {"overall", "class"}, none)},
                         {"new", step_class(next_verdicts, {"overall", "class"}, none)},
                         {"base_steps_by_class", step_class(base_verdicts, {"steps_by_class"}, json::object())},
                         {"new_steps_by_class", step_class(next_verdicts, {"steps_by_class"}, json::object())}};
  return d;
}

// operator_health's host activities, per profiled step.
json host_activity_section(const Facts& base, const Facts& next) {
  json rows = json::array();
  const json& hb = section(base, "operator_health");
  const json& hn = section(next, "operator_health");
  double steps_b = steps_of(base), steps_n = steps_of(next);
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
  return {{"basis", "per profiled step (total divided by the step count)"}, {"metrics", rows}};
}

// Idle time per step by cause (facts.idle_attribution): which cause of device idle time moved.
json idle_causes_section(const Facts& base, const Facts& next) {
  const json& ab = section(base, "idle_attribution");
  const json& an = section(next, "idle_attribution");
  json out = {{"available", !ab.empty() && !an.empty()},
              {"basis", "idle time per step given to each cause (docs/facts-idle.md)"}};
  if (ab.empty() || an.empty()) {
    out["note"] = std::string("idle_attribution missing on ") + (ab.empty() && an.empty() ? "both sides"
                                                                 : ab.empty()             ? "the base side"
                                                                                          : "the new side");
    out["metrics"] = json::array();
    return out;
  }
  json rows = json::array();
  const json& cb = ab.value("causes", json::object());
  const json& cn = an.value("causes", json::object());
  for (const auto& [cause, b] : cb.items()) {
    if (!cn.contains(cause)) continue;
    const json& n = cn[cause];
    if (num(b, "ns").value_or(0) == 0 && num(n, "ns").value_or(0) == 0) continue;  // no time on either side
    const std::string label = "idle: " + cause;
    json r = metric_row(cause.c_str(), label.c_str(), "ns", num(b, "per_step_ns"), num(n, "per_step_ns"));
    r["evidence"] = {{"base", b.value("longest", json::array())}, {"new", n.value("longest", json::array())}};
    rows.push_back(std::move(r));
  }
  out["metrics"] = std::move(rows);
  return out;
}

json memory_section(const Facts& base, const Facts& next) {
  const json& mb = section(base, "memory");
  const json& mn = section(next, "memory");
  json m = {{"available", num(mb, "peak_allocated_mb").has_value() && num(mn, "peak_allocated_mb").has_value()}};
  if (!m["available"].get<bool>()) {
    m["note"] = "memory facts (memory_record.csv) missing on at least one side";
    return m;
  }
  m["metrics"] = json::array({metric_row("peak_allocated_mb", "peak allocated", "MB", num(mb, "peak_allocated_mb"),
                                         num(mn, "peak_allocated_mb")),
                              metric_row("peak_reserved_mb", "peak reserved", "MB", num(mb, "peak_reserved_mb"),
                                         num(mn, "peak_reserved_mb"))});
  const json& pb = mb.value("overall", json::object()).value("peak_allocated", json::object());
  const json& pn = mn.value("overall", json::object()).value("peak_allocated", json::object());
  m["evidence"] = {{"base", pb.value("evidence", json::array())}, {"new", pn.value("evidence", json::array())}};
  return m;
}

}  // namespace npu::compare::sections
