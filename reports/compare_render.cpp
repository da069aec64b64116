// Text and Markdown renderings of a compare document (they read only the document).
#include "reports/compare_render.h"

#include <cmath>

#include <fmt/format.h>

#include "base/text.h"
#include "compare/delta_text.h"
#include "reports/json_read.h"

namespace npu::reports {

using compare::fmt_ms;
using compare::fmt_signed_ms;
using compare::fmt_signed_pct;
using nlohmann::json;

namespace {

double d(const json& j, const char* k, double def = 0) { return json_number(j, k, def); }

std::string ratio_pct(const json& v) { return v.is_number() ? fmt_signed_pct(v.get<double>()) : "n/a"; }

std::string noise_line(const json& nz) {
  if (!nz.is_object()) return "";
  if (!nz.value("possible", false)) return "noise test not possible: " + nz.value("why", std::string());
  const json& mw = nz["test"];
  return fmt::format("{:.0f}% bootstrap CI of the median difference [{}, {}] ({}), {} p = {:.3g} ({}): {}",
                     d(nz, "confidence") * 100, fmt_signed_ms(d(nz, "ci_low")), fmt_signed_ms(d(nz, "ci_high")),
                     nz.value("pairing", ""), mw.value("name", ""), d(mw, "p_value"), mw.value("method", ""),
                     nz.value("significant", false) ? "beyond step-to-step noise" : "within step-to-step noise");
}

std::string ratio_noise_line(const json& nz) {
  if (!nz.is_object() || !nz.value("possible", false)) return "";
  return fmt::format("{:.0f}% CI [{:+.2f}, {:+.2f}] points, {}", d(nz, "confidence") * 100, d(nz, "ci_low") * 100,
                     d(nz, "ci_high") * 100, nz.value("significant", false) ? "beyond noise" : "within noise");
}

// The module rows both renderings show: "A -> A/B" where the change first shows, then the rows.
std::string first_place(const json& mods) {
  std::string out;
  for (const auto& c : mods.value("first_place", json::array()))
    out += (out.empty() ? "" : " -> ") + c.value("path", std::string()) + " " + fmt_signed_ms(d(c, "delta_device_ns"));
  return out;
}

std::string module_side(const json& side) { return side.is_null() ? "-" : fmt_ms(d(side, "device_ns")); }

std::string metric_value(const json& v, const std::string& unit) {
  if (!v.is_number()) return "-";
  double x = v.get<double>();
  if (unit == "ns") return fmt_ms(x);
  if (unit == "ratio") return fmt::format("{:.1f}%", x * 100);
  if (unit == "MB") return fmt::format("{:.1f} MB", x);
  return fmt::format("{:.3g}", x);
}

std::string metric_delta(const json& r) {
  if (!r["delta"].is_number()) return "-";
  double x = r["delta"].get<double>();
  std::string unit = r.value("unit", "");
  if (unit == "ns") return fmt_signed_ms(x);
  if (unit == "ratio") return fmt::format("{:+.1f} pts", x * 100);
  if (unit == "MB") return fmt::format("{:+.1f} MB", x);
  return fmt::format("{:+.3g}", x);
}

std::string side_line(const json& s) {
  int n = s.value("steps", 0);
  return fmt::format("{} ({}; {} step{}{})", s.value("path", ""), s.value("kind", ""), n, n == 1 ? "" : "s",
                     s["framework"].is_string() ? ", " + s["framework"].get<std::string>() : "");
}

// What the device time of a step is made of, in words (GPU runs have copies).
std::string device_definition(const json& device_time) {
  return device_time.value("definition", "").find("copies") != std::string::npos
             ? "computing + comm not overlapped + copies + free"
             : "computing + comm not overlapped + free";
}

std::string why_noise(const json& basis) {
  const json& s = basis["significant"];
  if (!s.is_boolean()) return "";
  return s.get<bool>() ? "; beyond step-to-step noise" : "; within step-to-step noise";
}

// The median step time of each side, its spread and whether the difference is beyond noise.
std::string step_time_text(const json& st) {
  std::string o;
  const json& b = st["base"];
  const json& n = st["new"];
  o += fmt::format("\nStep time: {}; median of {} base / {} new steps\n", st.value("basis", ""), d(b, "steps_used"),
                   d(n, "steps_used"));
  o += fmt::format("  base {}  new {}  delta {} ({})\n", fmt_ms(d(b, "median_ns")), fmt_ms(d(n, "median_ns")),
                   fmt_signed_ms(d(st, "delta_ns")), ratio_pct(st["delta_ratio"]));
  o += fmt::format("  spread (MAD): base {}  new {};  p90: base {}  new {}\n", fmt_ms(d(b, "mad_ns")),
                   fmt_ms(d(n, "mad_ns")), fmt_ms(d(b, "p90_ns")), fmt_ms(d(n, "p90_ns")));
  o += "  " + noise_line(st["noise"]) + "\n";
  return o;
}

// The device time per step, part by part, and how the free ratio moved.
std::string device_time_text(const json& dv) {
  std::string o;
  const json& dec = dv["decomposition"];
  o += fmt::format("\nDevice time per step = {} (medians of per-step values)\n", device_definition(dv));
  o += fmt::format("  {:<32} {:>12} {:>12} {:>12}  {}\n", "part", "base", "new", "delta", "noise");
  for (const auto& p : dec["parts"]) {
    const json& nz = p["noise"];
    std::string nt = !nz.value("possible", false)     ? "-"
                     : nz.value("significant", false) ? "beyond noise"
                                                      : "within noise";
    o += fmt::format("  {:<32} {:>12} {:>12} {:>12}  {}\n", p.value("label", ""), fmt_ms(d(p, "base_median_ns")),
                     fmt_ms(d(p, "new_median_ns")), fmt_signed_ms(d(p, "delta_ns")), nt);
  }
  o += fmt::format("  {:<32} {:>12} {:>12} {:>12}\n", "sum of the parts", "", "",
                   fmt_signed_ms(d(dec, "sum_of_parts_ns")));
  o += fmt::format("  {:<32} {:>12} {:>12} {:>12}\n", "residual (medians do not add up)", "", "",
                   fmt_signed_ms(d(dec, "residual_ns")));
  o += fmt::format("  {:<32} {:>12} {:>12} {:>12}  ({})\n", "device time", fmt_ms(d(dv["base"], "median_ns")),
                   fmt_ms(d(dv["new"], "median_ns")), fmt_signed_ms(d(dv, "delta_ns")), ratio_pct(dv["delta_ratio"]));
  const json& fr = dv["free_ratio"];
  o += fmt::format("  free ratio: {:.1f}% -> {:.1f}% ({:+.1f} pts){}\n", d(fr, "base_median") * 100,
                   d(fr, "new_median") * 100, d(fr, "delta") * 100,
                   ratio_noise_line(fr["noise"]).empty() ? "" : "; " + ratio_noise_line(fr["noise"]));
  return o;
}

// The contributors to the change, largest first, each with what relates to it.
std::string why_text(const json& doc) {
  std::string o;
  const json& why = doc["why"];
  o += fmt::format("\nWhy ({} by {} of device time per step{})\n", doc["why_basis"].value("direction", ""),
                   fmt_signed_ms(d(doc["why_basis"], "total_delta_ns")), why_noise(doc["why_basis"]));
  if (why.empty()) o += "  no contributor above the reporting floor\n";
  for (const auto& w : why) {
    std::string share = w["share_of_delta"].is_number()
                            ? fmt::format(" [{:.0f}% of the delta]", w["share_of_delta"].get<double>() * 100)
                            : "";
    o += fmt::format("  {}. {}{}\n", w.value("rank", 0), w.value("summary", ""), share);
    for (const auto& r : w.value("related", json::array())) o += "       - " + r.get<std::string>() + "\n";
  }
  return o;
}

// The operators that changed most (at most 8), what is new and what vanished.
std::string operators_text(const json& ops) {
  std::string o;
  if (ops.value("available", false)) {
    std::string kf = ops.value("matched_by", "type");
    const json& table = kf == "type" ? ops["by_type"] : ops["by_name"];
    o += fmt::format("\nOperators by {} (per step; top changes)\n", kf);
    o += fmt::format("  {:<40} {:>11} {:>11} {:>11} {:>8}  {}\n", kf, "base", "new", "delta", "calls", "status");
    int shown = 0;
    for (const auto& r : table) {
      if (shown++ >= 8) break;
      std::string calls =
          r.contains("delta_calls_per_step") ? fmt::format("{:+g}", r["delta_calls_per_step"].get<double>()) : "-";
      o += fmt::format("  {:<40} {:>11} {:>11} {:>11} {:>8}  {}\n", r.value(kf, "").substr(0, 40),
                       r["base"].is_null() ? "-" : fmt_ms(d(r["base"], "per_step_ns")),
                       r["new"].is_null() ? "-" : fmt_ms(d(r["new"], "per_step_ns")),
                       r.contains("delta_per_step_ns") ? fmt_signed_ms(d(r, "delta_per_step_ns")) : "-", calls,
                       r.value("status", ""));
    }
    if (!ops["new"].empty()) o += "  new: " + ops["new"].dump() + "\n";
    if (!ops["vanished"].empty()) o += "  vanished: " + ops["vanished"].dump() + "\n";
    if (ops.contains("ai_cpu"))
      o += fmt::format("  AI CPU calls per step: {:g} -> {:g}\n", d(ops["ai_cpu"], "base_calls_per_step"),
                       d(ops["ai_cpu"], "new_calls_per_step"));
  }
  return o;
}

// The modules that changed most (at most 8) and where the change first shows.
std::string module_rows_text(const json& mods) {
  std::string o;
  if (mods.value("available", false)) {
    o += "\nModules (device time per step; top changes)\n";
    if (!first_place(mods).empty()) o += "  first shows in: " + first_place(mods) + "\n";
    int shown = 0;
    for (const auto& r : mods["rows"]) {
      if (shown++ >= 8) break;
      std::string path = r.value("path", "");
      if (path.size() > 48) path = "..." + path.substr(path.size() - 45);
      o += fmt::format("  {:<48} {:>11} {:>11} {:>11}  {}\n", path, module_side(r["base"]), module_side(r["new"]),
                       fmt_signed_ms(d(r, "delta_device_ns")), r.value("status", ""));
    }
  }
  return o;
}

// The metric tables: dispatch, idle time by cause, host activity and memory.
std::string metrics_text(const json& doc) {
  std::string o;
  if (doc["dispatch"].value("available", false)) {
    o += "\nDispatch\n";
    for (const auto& r : doc["dispatch"]["metrics"])
      if (!r["base"].is_null() || !r["new"].is_null())
        o += fmt::format("  {:<40} {:>12} {:>12} {:>12}\n", r.value("label", ""), metric_value(r["base"], r["unit"]),
                         metric_value(r["new"], r["unit"]), metric_delta(r));
  }
  if (!doc["idle_causes"]["metrics"].empty()) {
    o += "\nIdle time per step by cause\n";
    for (const auto& r : doc["idle_causes"]["metrics"])
      o += fmt::format("  {:<40} {:>12} {:>12} {:>12}\n", r.value("label", ""), metric_value(r["base"], "ns"),
                       metric_value(r["new"], "ns"), metric_delta(r));
  }
  if (!doc["host_activity"]["metrics"].empty()) {
    o += "\nHost activity per step\n";
    for (const auto& r : doc["host_activity"]["metrics"])
      o += fmt::format("  {:<40} {:>12} {:>12} {:>12}\n", r.value("label", ""), metric_value(r["base"], "ns"),
                       metric_value(r["new"], "ns"), metric_delta(r));
  }
  if (doc["memory"].value("available", false)) {
    o += "\nMemory\n";
    for (const auto& r : doc["memory"]["metrics"])
      o += fmt::format("  {:<40} {:>12} {:>12} {:>12}\n", r.value("label", ""), metric_value(r["base"], "MB"),
                       metric_value(r["new"], "MB"), metric_delta(r));
  }
  return o;
}

// The findings that appeared and disappeared, then the notes.
std::string findings_text(const json& doc) {
  std::string o;
  const json& f = doc["findings"];
  o += fmt::format("\nFindings: {} appeared, {} disappeared, {} in both\n", f["appeared"].size(),
                   f["disappeared"].size(), f["persisting"].size());
  for (const auto& x : f["appeared"])
    o += fmt::format("  + {} ({}): {}\n", x.value("title", ""), x.value("rule", ""), x.value("observed", ""));
  for (const auto& x : f["disappeared"]) o += fmt::format("  - {} ({})\n", x.value("title", ""), x.value("rule", ""));
  if (!doc["notes"].empty()) {
    o += "\nNotes\n";
    for (const auto& n : doc["notes"]) o += "  - " + n.get<std::string>() + "\n";
  }
  return o;
}

// The Markdown sections below show what the text ones above do, as tables, with more rows.

// The title and the two sides: path, kind and steps.
std::string sides_markdown(const json& doc) {
  std::string o = "# npu-advisor compare\n\n";
  o += "| | path | kind | steps |\n|---|---|---|---:|\n";
  for (const char* s : {"base", "new"})
    o += fmt::format("| **{}** | `{}` | {} | {} |\n", s, text::md_safe_cell(doc[s].value("path", "")),
                     text::md_safe_cell(doc[s].value("kind", "")), doc[s].value("steps", 0));
  return o;
}

std::string step_time_markdown(const json& st) {
  std::string o;
  o += fmt::format("\n## Step time\n\n{}; median over {} base / {} new steps.\n\n", st.value("basis", ""),
                   d(st["base"], "steps_used"), d(st["new"], "steps_used"));
  o += "| | base | new | delta |\n|---|---:|---:|---:|\n";
  o += fmt::format("| median | {} | {} | **{}** ({}) |\n", fmt_ms(d(st["base"], "median_ns")),
                   fmt_ms(d(st["new"], "median_ns")), fmt_signed_ms(d(st, "delta_ns")), ratio_pct(st["delta_ratio"]));
  o += fmt::format("| p90 | {} | {} | {} |\n", fmt_ms(d(st["base"], "p90_ns")), fmt_ms(d(st["new"], "p90_ns")),
                   fmt_signed_ms(d(st, "p90_delta_ns")));
  o += fmt::format("| spread (MAD) | {} | {} | |\n", fmt_ms(d(st["base"], "mad_ns")), fmt_ms(d(st["new"], "mad_ns")));
  o += "\n" + noise_line(st["noise"]) + "\n";
  return o;
}

std::string device_time_markdown(const json& dv) {
  std::string o;
  const json& dec = dv["decomposition"];
  o += fmt::format("\n## Device time decomposition\n\nMedians of per-step values; device time = {}.\n\n",
                   device_definition(dv));
  o += "| part | base | new | delta | share | noise |\n|---|---:|---:|---:|---:|---|\n";
  for (const auto& p : dec["parts"]) {
    const json& nz = p["noise"];
    o += fmt::format(
        "| {} | {} | {} | {} | {} | {} |\n", p.value("label", ""), fmt_ms(d(p, "base_median_ns")),
        fmt_ms(d(p, "new_median_ns")), fmt_signed_ms(d(p, "delta_ns")),
        p["share_of_delta"].is_number() ? fmt::format("{:.0f}%", p["share_of_delta"].get<double>() * 100) : "-",
        !nz.value("possible", false)     ? "-"
        : nz.value("significant", false) ? "beyond noise"
                                         : "within noise");
  }
  o += fmt::format("| sum of the parts | | | {} | | |\n", fmt_signed_ms(d(dec, "sum_of_parts_ns")));
  o += fmt::format("| residual | | | {} | | |\n", fmt_signed_ms(d(dec, "residual_ns")));
  o += fmt::format("| **device time** | {} | {} | **{}** | | |\n", fmt_ms(d(dv["base"], "median_ns")),
                   fmt_ms(d(dv["new"], "median_ns")), fmt_signed_ms(d(dv, "delta_ns")));
  return o;
}

std::string why_markdown(const json& doc) {
  std::string o;
  o += fmt::format("\n## Why ({} by {} of device time per step{})\n\n", doc["why_basis"].value("direction", ""),
                   fmt_signed_ms(d(doc["why_basis"], "total_delta_ns")), why_noise(doc["why_basis"]));
  if (doc["why"].empty()) o += "No contributor above the reporting floor.\n";
  for (const auto& w : doc["why"]) {
    std::string share = w["share_of_delta"].is_number()
                            ? fmt::format(" *({:.0f}% of the delta)*", w["share_of_delta"].get<double>() * 100)
                            : "";
    o += fmt::format("{}. {}{}\n", w.value("rank", 0), text::md_safe_cell(w.value("summary", "")), share);
    for (const auto& r : w.value("related", json::array()))
      o += "   - " + text::md_safe_cell(r.get<std::string>()) + "\n";
  }
  return o;
}

// The operators that changed most (at most 12).
std::string operators_markdown(const json& ops) {
  std::string o;
  if (ops.value("available", false)) {
    std::string kf = ops.value("matched_by", "type");
    const json& table = kf == "type" ? ops["by_type"] : ops["by_name"];
    o += fmt::format(
        "\n## Operators by {} (per step)\n\n| {} | core | base | new | delta | calls/step | status |\n"
        "|---|---|---:|---:|---:|---:|---|\n",
        kf, kf);
    int shown = 0;
    for (const auto& r : table) {
      if (shown++ >= 12) break;
      std::string st = r.value("status", "");
      std::string calls = st == "unlisted"
                              ? "-"
                              : fmt::format("{:g} → {:g}", r["base"].is_null() ? 0.0 : d(r["base"], "calls_per_step"),
                                            r["new"].is_null() ? 0.0 : d(r["new"], "calls_per_step"));
      o += fmt::format("| `{}` | {} | {} | {} | {} | {} | {} |\n", text::md_safe_cell(r.value(kf, "")),
                       r.value("accelerator_core", ""), r["base"].is_null() ? "-" : fmt_ms(d(r["base"], "per_step_ns")),
                       r["new"].is_null() ? "-" : fmt_ms(d(r["new"], "per_step_ns")),
                       r.contains("delta_per_step_ns") ? fmt_signed_ms(d(r, "delta_per_step_ns")) : "-", calls,
                       r.value("status", ""));
    }
  }
  return o;
}

// The modules that changed most (at most 12) and where the change first shows.
std::string module_rows_markdown(const json& mods) {
  std::string o;
  if (mods.value("available", false)) {
    o += "\n## Modules (device time per step)\n\n";
    if (!first_place(mods).empty()) o += "The change first shows in " + text::md_safe_cell(first_place(mods)) + ".\n\n";
    o += "| module | base | new | delta | status |\n|---|---:|---:|---:|---|\n";
    int shown = 0;
    for (const auto& r : mods["rows"]) {
      if (shown++ >= 12) break;
      o +=
          fmt::format("| `{}` | {} | {} | {} | {} |\n", text::md_safe_cell(r.value("path", "")), module_side(r["base"]),
                      module_side(r["new"]), fmt_signed_ms(d(r, "delta_device_ns")), r.value("status", ""));
    }
  }
  return o;
}

// A table of metrics, the rows with a value on either side; nothing without rows.
std::string metric_table_markdown(const char* title, const json& rows) {
  std::string o;
  if (rows.empty()) return o;
  o += fmt::format("\n## {}\n\n| metric | base | new | delta |\n|---|---:|---:|---:|\n", title);
  for (const auto& r : rows)
    if (!r["base"].is_null() || !r["new"].is_null())
      o += fmt::format("| {} | {} | {} | {} |\n", r.value("label", ""), metric_value(r["base"], r.value("unit", "")),
                       metric_value(r["new"], r.value("unit", "")), metric_delta(r));
  return o;
}

std::string findings_markdown(const json& doc) {
  std::string o;
  const json& f = doc["findings"];
  o += fmt::format("\n## Findings\n\n{} appeared, {} disappeared, {} in both.\n\n", f["appeared"].size(),
                   f["disappeared"].size(), f["persisting"].size());
  for (const auto& x : f["appeared"])
    o += fmt::format("- **new:** {} ({}): {}\n", text::md_safe_cell(x.value("title", "")),
                     text::md_code(x.value("rule", "")), text::md_safe_cell(x.value("observed", "")));
  for (const auto& x : f["disappeared"])
    o += fmt::format("- **gone:** {} ({})\n", text::md_safe_cell(x.value("title", "")),
                     text::md_code(x.value("rule", "")));
  if (!doc["notes"].empty()) {
    o += "\n## Notes\n\n";
    for (const auto& n : doc["notes"]) o += "- " + text::md_safe_cell(n.get<std::string>()) + "\n";
  }
  return o;
}

}  // namespace

std::string render_compare_text(const json& doc) {
  std::string o;
  o += "npu-advisor compare\n";
  o += "  base: " + side_line(doc["base"]) + "\n";
  o += "  new:  " + side_line(doc["new"]) + "\n";

  const json& st = doc["step_time"];
  if (st.value("available", false)) {
    o += step_time_text(st);
    o += device_time_text(doc["device_time"]);
  }
  o += inference_compare_text(doc);
  o += why_text(doc);
  o += operators_text(doc["operators"]);
  o += module_rows_text(doc["modules"]);
  o += metrics_text(doc);
  o += findings_text(doc);
  return o;
}

std::string render_compare_markdown(const json& doc) {
  std::string o = sides_markdown(doc);
  const json& st = doc["step_time"];
  if (st.value("available", false)) {
    o += step_time_markdown(st);
    o += device_time_markdown(doc["device_time"]);
  }
  o += inference_compare_markdown(doc);
  o += why_markdown(doc);
  o += operators_markdown(doc["operators"]);
  o += module_rows_markdown(doc["modules"]);
  if (doc["dispatch"].value("available", false)) o += metric_table_markdown("Dispatch", doc["dispatch"]["metrics"]);
  o += metric_table_markdown("Idle time per step by cause", doc["idle_causes"]["metrics"]);
  o += metric_table_markdown("Host activity per step", doc["host_activity"]["metrics"]);
  if (doc["memory"].value("available", false)) o += metric_table_markdown("Memory", doc["memory"]["metrics"]);
  o += findings_markdown(doc);
  return o;
}

}  // namespace npu::reports
