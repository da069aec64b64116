// The Run section: what was analysed (input, framework, versions, load speed), the environment
// variables, the input files with their status, the profiler configuration and loader warnings.
#include <string>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/html/sections.h"

namespace npu::html {

std::string section_run(const json& r) {
  const json& facts = at(r, "facts");
  const json& summary = at(r, "summary");
  const json& run = at(facts, "run").is_object() ? at(facts, "run") : at(summary, "run");
  const json& input = at(r, "input");
  std::string out = "<section id=\"run\" class=\"card\">\n<h2>Run</h2>\n<dl class=\"meta-grid\">\n";
  auto item = [&](const char* label, const std::string& value) {
    if (!value.empty() && value != "-1") out += "<dt>" + esc(label) + "</dt><dd>" + esc(value) + "</dd>\n";
  };
  item("Input", str(input, "path"));
  item("Kind", str(input, "kind"));
  item("Framework", str(run, "framework"));
  item("Source format", str(run, "source_format"));
  item("Worker", str(run, "worker_name"));
  item("Rank", str(run, "rank"));
  item("Device", str(run, "device"));
  item("Profiler level", str(run, "profiler_level"));
  item("AI Core metrics", str(run, "aic_metrics"));
  if (auto v = num(run, "trace_events")) item("Trace events", count_str(*v));
  const json& versions = at(run, "versions");
  if (versions.is_object())
    for (auto it = versions.begin(); it != versions.end(); ++it)
      item(("Version: " + it.key()).c_str(), text(it.value()));
  const json& load = at(summary, "load");
  if (auto mbps = num(load, "trace_mb_per_s"); mbps && *mbps > 0)
    item("Trace load", fmt::format("{:.1f} MB in {:.3f} s", num(load, "trace_bytes").value_or(0) / 1e6,
                                   num(load, "trace_seconds").value_or(0)));
  out += "</dl>\n";

  const json& env = at(run, "env");
  out += "<h3>Environment variables</h3>\n";
  if (env.is_object() && !env.empty()) out += kv_table(env, "env", true);
  else {
    std::string why = why_unavailable(r, "run.env");
    out += not_available(why.empty() ? "no environment variables recorded" : why);
  }

  const json& inputs = at(run, "inputs").is_array() ? at(run, "inputs") : at(summary, "files");
  out += "<h3>Inputs</h3>\n";
  if (inputs.is_array() && !inputs.empty()) {
    // Paths relative to the input folder; the full path is in the cell's title.
    std::string base = str(input, "path");
    Table t("inputs",
            {{"file", false}, {"status", false}, {"records", true}, {"size", true}, {"note", false}, {"path", false}});
    for (const auto& f : inputs) {
      std::string st = str(f, "status");
      bool loaded = st == "loaded";
      t.row({tcell(str(f, "role"), "mono nowrap"),
             hcell("<span class=\"badge in-" + css_token(st) + "\">" + esc(st) + "</span>"),
             loaded ? count_cell(num(f, "records")) : count_cell(std::nullopt),
             loaded ? ncell(num(f, "bytes"), human_bytes) : count_cell(std::nullopt), tcell(str(f, "note")),
             path_cell(str(f, "path"), base)});
    }
    out += t.html();
  } else {
    out += not_available("no input list in this report");
  }
  const json& config = at(run, "config");
  if (config.is_object() && !config.empty())
    out += "<details><summary>Profiler configuration</summary>\n" + kv_table(config, "config", false) + "</details>\n";
  const json& dist = at(run, "distributed");
  if (dist.is_object() && !dist.empty())
    out += "<details><summary>Distributed setup</summary>\n" + kv_table(dist, "distributed", false) + "</details>\n";
  const json& warnings = list(run, "warnings").empty() ? list(summary, "warnings") : list(run, "warnings");
  if (!warnings.empty()) {
    out += "<h3>Loader warnings</h3>\n<ul class=\"warnings\">\n";
    for (const auto& w : warnings) out += "<li>" + esc(text(w)) + "</li>\n";
    out += "</ul>\n";
  }
  return out + "</section>\n";
}

}  // namespace npu::html
