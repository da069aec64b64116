// `npu-advisor whatif PATH [--apply a,b]`: the run's steps replayed with fixes applied
// (docs/whatif.md).
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
  out += "  transformations (saving per step, each alone):\n";
  for (const auto& [name, t] : r["transforms"].items()) {
    if (t.value("applicable", false))
      out += fmt::format("    {:<11} {:>12}  {}\n", name, ms(t, "saving_ns"), t.value("formula", std::string()));
    else out += fmt::format("    {:<11} {:>12}  {}\n", name, "-", t.value("why", std::string()));
  }
  if (!r.contains("result")) return out + "  apply some with --apply NAME[,NAME...]\n";
  const auto& x = r["result"];
  std::string names;
  for (const auto& n : x["transforms"]) names += (names.empty() ? "" : ", ") + n.get<std::string>();
  out += fmt::format("  with {} applied ({} steps):\n", names, x.value("steps", 0));
  out += fmt::format(
      "    measured step      {:>12}\n    replayed, as is    {:>12}\n    replayed, fixed    {:>12}  "
      "(saving {} per step, {:.1f}%)\n",
      ms(x, "measured_step_ns"), ms(x, "replayed_step_ns"), ms(x, "step_ns"), ms(x, "saving_ns"),
      x.value("replayed_step_ns", 0.0) > 0 ? 100 * x.value("saving_ns", 0.0) / x.value("replayed_step_ns", 1.0) : 0.0);
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
