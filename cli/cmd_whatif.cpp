// `npu-advisor whatif PATH [--apply a,b]`: the run's steps replayed with fixes applied
// (docs/whatif.md).
#include <algorithm>
#include <cstdio>

#include <fmt/format.h>

#include "cli/commands.h"
#include "pipeline/analysis.h"
#include "pipeline/whatif_run.h"

namespace npu::cli {

namespace {

std::string ms(const nlohmann::json& j, const char* key) { return fmt::format("{:.3f} ms", j.value(key, 0.0) / 1e6); }

std::string text_of(const nlohmann::json& r, const std::string& path) {
  std::string out = "what-if replay of " + path + "\n";
  if (!r.value("available", false)) return out + "  unavailable: " + r.value("why", std::string()) + "\n";
  out +=
      fmt::format("  the unmodified replay {} the measured steps (deviation {:+.2f}%){}\n",
                  r.value("reproduces", false) ? "reproduces" : "DOES NOT reproduce", 100 * r.value("deviation", 0.0),
                  r.value("reproduces", false) ? "" : ": its savings are not used by the rules");
  // A serving run's savings are of the iteration period: its window and the host's turn after it.
  const bool serving = r.contains("period") && r["period"].is_object();
  if (serving)
    out += fmt::format("  serving iterations: the period (window and the turn after it) {} measured, {} replayed\n",
                       ms(r["period"], "measured_ns"), ms(r["period"], "replayed_ns"));
  out += serving ? "  transformations (saving per iteration, of the period, each alone):\n"
                 : "  transformations (saving per step, each alone):\n";
  size_t width = 11;
  for (const auto& [name, t] : r["transforms"].items()) width = std::max(width, name.size());
  for (const auto& [name, t] : r["transforms"].items()) {
    const bool on = t.value("applicable", false);
    out += fmt::format("    {:<{}} {:>12}  {}\n", name, width, on ? ms(t, "saving_ns") : "-",
                       t.value(on ? "formula" : "why", std::string()));
  }
  if (!r.contains("result")) return out + "  apply some with --apply NAME[,NAME...]\n";
  const auto& x = r["result"];
  std::string names;
  for (const auto& n : x["transforms"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
  out += fmt::format("  with {} applied ({} steps):\n", names, x.value("steps", 0));
  const nlohmann::json& p = serving && x.contains("period") ? x["period"] : x;
  const char* what = serving ? "period" : "step  ";
  const double replayed = p.value(serving ? "replayed_ns" : "replayed_step_ns", 0.0);
  out += fmt::format(
      "    measured {}    {:>12}\n    replayed, as is    {:>12}\n    replayed, fixed    {:>12}  "
      "(saving {} per {}, {:.1f}%)\n",
      what, ms(p, serving ? "measured_ns" : "measured_step_ns"), ms(p, serving ? "replayed_ns" : "replayed_step_ns"),
      ms(p, serving ? "after_ns" : "step_ns"), ms(x, "saving_ns"), serving ? "iteration" : "step",
      replayed > 0 ? 100 * x.value("saving_ns", 0.0) / replayed : 0.0);
  out += fmt::format("    {:<14} {:>12} {:>12}\n", "split", "before", "after");
  for (const char* k : {"computing_ns", "communication_ns", "copies_ns", "idle_ns"})
    out += fmt::format("    {:<14} {:>12} {:>12}\n", std::string(k).substr(0, std::string(k).size() - 3),
                       ms(x["before"], k), ms(x["after"], k));
  for (const auto& n : x["not_applied"])
    out += "  not applied: " + n.get<std::string>() + " (unknown here, or nothing in the trace for it to change)\n";
  return out;
}

}  // namespace

int cmd_whatif(const std::string& path, const std::vector<std::string>& apply, const CommonOptions& common,
               const OutputOptions& out) {
  pipeline::AnalysisOptions opt;
  opt.stop = pipeline::StopAfter::Load;
  opt.load = load_settings(common);
  opt.summary = pipeline::Keep::Never;
  opt.keep_model = true;
  opt.if_cluster = "run `whatif` on one rank folder";
  const nlohmann::json r = pipeline::whatif_run(*pipeline::analyze(path, opt).model, apply);
  const bool json = out.format == "json" || (out.format.empty() && out.out_file.size() > 5 &&
                                             out.out_file.substr(out.out_file.size() - 5) == ".json");
  if (!write_output(out.out_file, json ? json_text(r) + "\n" : text_of(r, path))) return kBadInput;
  if (r.contains("result") && !r["result"]["not_applied"].empty()) return kBadInput;
  return kOk;
}

}  // namespace npu::cli
