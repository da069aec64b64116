// The inference section of a compare document (compare/compare_inference.cpp) in text and
// Markdown: the iterations matched by phase and batch size, the decode time per token and the
// prefill time per 1k tokens, as the document says them.
#include <fmt/format.h>

#include "base/text.h"
#include "compare/delta_text.h"
#include "reports/compare_render.h"

namespace npu::reports {

using compare::fmt_ms;
using compare::fmt_signed_ms;
using compare::fmt_signed_pct;
using nlohmann::json;

namespace {

std::string batch_of(const json& g) {
  return g["requests"].is_number() ? std::to_string(g["requests"].get<int64_t>()) : "?";
}

// "2 x 10.450 ms" (iterations x median own window), "-" for a side without it.
std::string group_side(const json& side) {
  if (!side.is_object()) return "-";
  return fmt::format("{} x {}", side.value("iterations", 0), fmt_ms(side.value("own_window_median_ns", 0.0)));
}

std::string group_delta(const json& g) {
  const std::string status = g.value("status", "");
  if (status == "only_base") return "only in the baseline";
  if (status == "only_new") return "only in the new run";
  return fmt_signed_ms(g.value("delta_ns", 0.0)) +
         (g["delta_ratio"].is_number() ? " (" + fmt_signed_pct(g["delta_ratio"].get<double>()) + ")" : "");
}

// "decode time per token: 0.327 ms -> 0.359 ms (+0.033 ms, +10.0%), over batch sizes 30, 32";
// or why it is not compared.
std::string metric_line(const json& m, const char* label) {
  if (!m.value("available", false)) return fmt::format("{}: not compared: {}", label, m.value("why", ""));
  std::string sizes;
  for (const auto& b : m.value("batch_sizes", json::array()))
    sizes += (sizes.empty() ? "" : ", ") + batch_of(b);
  return fmt::format("{}: {} -> {} ({}{}){}", label, fmt_ms(m.value("base_ns", 0.0)), fmt_ms(m.value("new_ns", 0.0)),
                     fmt_signed_ms(m.value("delta_ns", 0.0)),
                     m["delta_ratio"].is_number() ? ", " + fmt_signed_pct(m["delta_ratio"].get<double>()) : "",
                     sizes.empty() ? "" : ", at batch sizes " + sizes + " (the baseline's mix)");
}

}  // namespace

std::string inference_compare_text(const json& doc) {
  const json& inf = doc.value("inference", json::object());
  if (!inf.value("available", false)) return "";
  std::string o =
      "\nInference: iterations matched by phase and batch size (iterations x median own window, each run's steady "
      "state)\n";
  o += fmt::format("  {:<8} {:>6} {:>18} {:>18}  {}\n", "phase", "batch", "base", "new", "delta");
  for (const auto& g : inf.value("groups", json::array()))
    o += fmt::format("  {:<8} {:>6} {:>18} {:>18}  {}\n", g.value("phase", ""), batch_of(g), group_side(g["base"]),
                     group_side(g["new"]), group_delta(g));
  o += "  " + metric_line(inf["decode_token"], "decode time per token") + "\n";
  o += "  " + metric_line(inf["prefill_1k_tokens"], "prefill time per 1k tokens") + "\n";
  return o;
}

std::string inference_compare_markdown(const json& doc) {
  const json& inf = doc.value("inference", json::object());
  if (!inf.value("available", false)) return "";
  std::string o =
      "\n## Inference\n\nIterations matched by phase and batch size, never by their order: iterations x median own "
      "window over each run's steady state.\n\n| phase | batch | base | new | delta |\n|---|---:|---:|---:|---:|\n";
  for (const auto& g : inf.value("groups", json::array()))
    o += fmt::format("| {} | {} | {} | {} | {} |\n", text::md_safe_cell(g.value("phase", "")), batch_of(g),
                     group_side(g["base"]), group_side(g["new"]), group_delta(g));
  o += "\n- " + text::md_prose(metric_line(inf["decode_token"], "Decode time per token")) + "\n";
  o += "- " + text::md_prose(metric_line(inf["prefill_1k_tokens"], "Prefill time per 1k tokens")) + "\n";
  return o;
}

}  // namespace npu::reports
