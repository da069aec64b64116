// render_verify_text / render_verify_html: one row per fix (what was applied, the prediction,
// the realised saving with its interval, the verdict) and why.
#include "reports/verify_render.h"

#include <fmt/format.h>

#include "reports/markup.h"

namespace npu::reports {

using nlohmann::json;

namespace {

std::string ms(const json& v) { return v.is_number() ? fmt::format("{:.3f} ms", v.get<double>() / 1e6) : "-"; }

std::string prediction_cell(const json& fix) {
  const json& p = fix.value("prediction", json());
  if (!p.is_object()) return "none";
  return fmt::format("{} ({}, {})", ms(p["saving_ns"]), p.value("method", ""), p.value("rule", ""));
}

std::string realised_cell(const json& fix) {
  const json& r = fix.value("realised", json());
  if (!r.is_object() || !r.contains("saving_ns")) return "-";
  if (!r.contains("ci_low_ns")) return ms(r["saving_ns"]);
  return fmt::format("{} [{:+.3f}, {:+.3f}]", ms(r["saving_ns"]), r["ci_low_ns"].get<double>() / 1e6,
                     r["ci_high_ns"].get<double>() / 1e6);
}

std::string run_line(const json& fix) {
  const json& run = fix.value("run", json());
  if (!run.is_object()) return "";
  return fmt::format("    run: {} ({}, exit code {}{})", run.value("dir", ""), run.value("status", ""),
                     run.value("exit_code", 0), run.value("timed_out", false) ? ", --timeout" : "");
}

}  // namespace

std::string render_verify_text(const json& doc) {
  const json& base = doc.value("baseline", json::object());
  std::string out = fmt::format("verify: baseline {}", base.value("path", ""));
  if (base.contains("median_step_ns")) out += fmt::format(" (median step {})", ms(base["median_step_ns"]));
  out += "\n";
  if (base.contains("run")) out += run_line(base) + "\n";
  out += fmt::format("  {:<34} {:<40} {:<34} {}\n", "fix", "predicted saving per step", "realised (95% CI, ms)",
                     "verdict");
  for (const json& fix : doc.value("fixes", json::array())) {
    std::string name = fix.value("name", "");
    if (name.size() > 34) name = name.substr(0, 31) + "...";
    out += fmt::format("  {:<34} {:<40} {:<34} {}\n", name, prediction_cell(fix), realised_cell(fix),
                       fix.value("verdict", "not compared"));
    if (fix.contains("why")) out += "    " + fix.value("why", std::string()) + "\n";
    const json& p = fix.value("prediction", json());
    if (p.is_object()) out += "    prediction: " + p.value("chosen", std::string()) + "; " + p.value("formula", "") + "\n";
    if (fix.contains("run")) out += run_line(fix) + "\n";
  }
  for (const json& n : doc.value("notes", json::array())) out += "  note: " + n.get<std::string>() + "\n";
  return out;
}

std::string render_verify_html(const json& doc) {
  std::string rows;
  for (const json& fix : doc.value("fixes", json::array()))
    rows += fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td><b>{}</b></td><td>{}</td></tr>\n",
                        markup_escape(fix.value("name", "")), markup_escape(prediction_cell(fix)),
                        markup_escape(realised_cell(fix)), markup_escape(fix.value("verdict", "not compared")),
                        markup_escape(fix.value("why", "")));
  const json& base = doc.value("baseline", json::object());
  return fmt::format(
      "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>npu-advisor verify</title></head><body>\n"
      "<section id=\"verify\"><h2>Verify: did the fixes save what was predicted?</h2>\n"
      "<p>Baseline: {}</p>\n<table border=\"1\" cellpadding=\"4\">\n"
      "<tr><th>fix</th><th>predicted saving per step</th><th>realised (95% CI, ms)</th><th>verdict</th>"
      "<th>why</th></tr>\n{}</table>\n</section>\n</body></html>\n",
      markup_escape(base.value("path", "")), rows);
}

}  // namespace npu::reports
