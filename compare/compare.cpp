// build_compare(): the facts delta of two runs, one section at a time. See docs/compare-gate.md
// for every key.
#include "compare/compare.h"

#include <cmath>

#include <fmt/format.h>

#include "compare/compare_sections.h"
#include "compare/gate.h"
#include "compare/same_work.h"

namespace npu::compare {

namespace sections {

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

double steps_of(const Facts& f) {
  auto s = num(section(f, "overall"), "steps");
  if (s && *s >= 1) return *s;
  for (const char* key : {"steps", "host_steps"})  // host_steps: a CPU-only run
    if (f.doc.contains(key) && f.doc[key].is_array() && !f.doc[key].empty())
      return static_cast<double>(f.doc[key].size());
  return 1;
}

std::optional<double> per_step(std::optional<double> total, double steps) {
  return total ? std::optional<double>(*total / steps) : std::nullopt;
}

int64_t ns(double v) { return static_cast<int64_t>(std::llround(v)); }

json ratio_or_null(double delta, double base) { return base != 0 ? json(delta / base) : json(nullptr); }

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

}  // namespace sections

namespace {

using nlohmann::json;
using sections::section;

json describe_side(const CompareSide& side) {
  const Facts& f = side.facts;
  const json& run = section(f, "run");
  return {{"path", side.path},
          {"kind", side.kind},
          {"description", side.description},
          {"framework", run.value("framework", json(nullptr))},
          {"rank", run.value("rank", json(nullptr))},
          // overall.steps: the list holds at most kMaxStepDetail of them
          {"steps", section(f, "overall").contains("steps")                ? section(f, "overall")["steps"]
                    : f.doc.contains("steps") && f.doc["steps"].is_array() ? json(f.doc["steps"].size())
                                                                           : json(0)},
          {"step_source", section(f, "overall").value("source", json(nullptr))},
          {"operators_source", section(f, "operators").value("source", json(nullptr))},
          {"findings", side.findings.is_array() ? side.findings.size() : 0}};
}

// Differences between the runs that are method, not performance.
void note_side_differences(const json& doc, json& notes, const CompareSide& base, const CompareSide& next) {
  if (auto mismatch = platform_mismatch(base, next)) notes.push_back(*mismatch);
  if (doc["base"]["framework"] != doc["new"]["framework"])
    notes.push_back(fmt::format("the runs come from different frameworks ({} vs {})", doc["base"]["framework"].dump(),
                                doc["new"]["framework"].dump()));
  if (doc["base"]["step_source"] != doc["new"]["step_source"])
    notes.push_back(
        fmt::format("the step breakdowns have different sources ({} vs {}): small differences may be "
                    "method, not performance",
                    doc["base"]["step_source"].dump(), doc["new"]["step_source"].dump()));
}

}  // namespace

json build_compare(const CompareSide& base, const CompareSide& next, const CompareOptions& opt) {
  namespace s = sections;
  json doc;
  doc["schema"] = kCompareSchema;
  doc["schema_version"] = kCompareSchemaVersion;
  json notes = json::array();
  doc["base"] = describe_side(base);
  doc["new"] = describe_side(next);
  note_side_differences(doc, notes, base, next);
  doc["same_work"] = same_work(base.facts, next.facts);
  if (!doc["same_work"]["same"].get<bool>())
    notes.push_back("the runs did different work (" + describe_differences(doc["same_work"]) +
                    "): a difference in time may be the work, not performance");

  const s::StepSeries steps = s::read_step_series(base.facts, next.facts, opt, notes);
  doc["series"] = s::series_section(steps);
  doc["step_time"] = s::step_time_section(steps, base, next, opt, notes);
  doc["device_time"] = s::device_time_section(steps, opt);
  doc["operators"] = s::operators_section(base.facts, next.facts, notes);
  doc["modules"] = s::modules_section(base.facts, next.facts, notes);
  doc["dispatch"] = s::dispatch_section(base.facts, next.facts, base.verdicts, next.verdicts);
  doc["host_activity"] = s::host_activity_section(base.facts, next.facts);
  doc["idle_causes"] = s::idle_causes_section(base.facts, next.facts);
  doc["memory"] = s::memory_section(base.facts, next.facts);
  doc["inference"] = s::inference_section(base.facts, next.facts, notes);
  doc["findings"] = s::findings_section(base.findings, next.findings);
  s::add_why(doc, steps, opt);  // reads the sections above
  doc["notes"] = notes;
  return doc;
}

}  // namespace npu::compare
