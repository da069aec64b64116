// `npu-advisor verify BASE NEW`: the baseline's prediction against what the new run realised,
// and the verify document's output (docs/verify.md). The command mode (verify -o DIR -- CMD) is in
// cli/verify_command.cpp.
#include <algorithm>
#include <cstdio>
#include <filesystem>

#include "cli/commands.h"
#include "cli/verify_internal.h"
#include "compare/same_work.h"
#include "reports/verify_render.h"

namespace npu::cli {

namespace verify {

using nlohmann::json;

json new_document(const std::string& mode) {
  return {{"schema", compare::kVerifySchema},
          {"schema_version", compare::kVerifySchemaVersion},
          {"mode", mode},
          {"band", {{"low", compare::VerifyBand{}.low}, {"high", compare::VerifyBand{}.high}}},
          {"baseline", json::object()},
          {"fixes", json::array()},
          {"notes", json::array()}};
}

// The baseline's part of the document: its findings' predictions, its median step.
void describe_baseline(json& doc, const compare::CompareSide& base) {
  json& b = doc["baseline"];
  b["path"] = base.path;
  json preds = json::array();
  for (const json& f : base.findings) {
    if (preds.size() == 5) break;
    preds.push_back({{"rule", f.value("rule", "")},
                     {"saving_ns", f.value("saving_ns", json(nullptr))},
                     {"method", f.value("saving_method", "formula")},
                     {"commands", f.value("commands", json::array())}});
  }
  b["findings"] = preds;
}

std::optional<compare::Prediction> changed_run_prediction(const compare::CompareSide& base, const VerifyOptions& v,
                                                          const std::string& label, json& notes) {
  std::string why;
  std::optional<compare::Prediction> p = compare::prediction_of(base.findings, v.fix_rule, &why);
  if (!p && v.whatif.empty()) {
    notes.push_back(label + "no prediction: " + why);
    return p;
  }
  if (!v.whatif.empty()) {
    p = compare::prediction_of_whatif(base.facts.doc, p, v.whatif, &why);
    if (!p) notes.push_back(label + "no prediction: " + why);
  } else if (const std::string note = compare::alternatives_note(base.findings, *p); !note.empty()) {
    notes.push_back(label + note);
  }
  return p;
}

compare::CompareOptions compare_options(const VerifyOptions& v) {
  compare::CompareOptions opt;
  opt.skip_warmup = !v.keep_warmup;
  return opt;
}

// One fix: its compare document against the baseline, and its verdict.
json judge(const compare::CompareSide& base, const compare::CompareSide& fixed, const VerifyOptions& v,
           const std::optional<compare::Prediction>& pred) {
  const json cmp = compare::build_compare(base, fixed, compare_options(v));
  json out = compare::verify_fix(cmp, pred);
  if (const std::string why = compare::period_unverifiable(base.facts.doc); !why.empty() && pred) {
    out["verdict"] = compare::kInconclusive;
    out["why"] = why;
  }
  out["same_work"] = cmp["same_work"];
  if (cmp["step_time"].value("available", false)) out["baseline_median_ns"] = cmp["step_time"]["base"]["median_ns"];
  return out;
}

bool verdict_allowed(const std::string& verdict, const std::vector<std::string>& require) {
  return require.empty() || std::find(require.begin(), require.end(), verdict) != require.end();
}

int finish(json& doc, const VerifyOptions& v, const CommonOptions& common, int rc) {
  bool required = true;
  for (const json& fix : doc["fixes"])
    if (!verdict_allowed(fix.value("verdict", "not compared"), v.require)) required = false;
  doc["require"] = v.require;
  doc["required_met"] = required;
  for (const json& fix : doc["fixes"])
    if (fix.contains("verdict") && fix.contains("baseline_median_ns") && !doc["baseline"].contains("median_step_ns"))
      doc["baseline"]["median_step_ns"] = fix["baseline_median_ns"];
  const std::string text = reports::render_verify_text(doc);
  if (!v.out_dir.empty()) {
    std::error_code ec;
    std::filesystem::create_directories(v.out_dir, ec);
    if (!write_output((std::filesystem::path(v.out_dir) / "verify.json").string(), json_text(doc) + "\n") ||
        !write_output((std::filesystem::path(v.out_dir) / "verify.html").string(), reports::render_verify_html(doc)))
      return kBadInput;
    if (!common.quiet) std::fprintf(stderr, "npu-advisor: verdicts written to %s/verify.json\n", v.out_dir.c_str());
  }
  const std::string& f = v.format;
  write_output("", f == "json" ? json_text(doc) + "\n" : f == "html" ? reports::render_verify_html(doc) : text);
  if (rc != kOk) return rc;
  return required ? kOk : kGated;
}

}  // namespace verify

namespace {

int verify_runs(const VerifyOptions& v, const CommonOptions& common, const RuleOptions& rules) {
  using nlohmann::json;
  compare::CompareSide base = load_compare_side(v.base, common, rules);
  compare::CompareSide next = load_compare_side(v.next, common, rules);
  json doc = verify::new_document("runs");
  verify::describe_baseline(doc, base);
  const std::optional<compare::Prediction> pred = verify::changed_run_prediction(base, v, "", doc["notes"]);
  json fix = verify::judge(base, next, v, pred);
  fix["name"] = v.next;
  fix["kind"] = "run";
  const bool different = !fix["same_work"].value("same", true);
  doc["fixes"].push_back(fix);
  if (different && !v.allow_different_work) {
    std::fprintf(stderr, "error: %s and %s did different work: %s (--allow-different-work compares them anyway)\n",
                 v.base.c_str(), v.next.c_str(), compare::describe_differences(fix["same_work"], 8).c_str());
    verify::finish(doc, v, common, kBadInput);
    return kBadInput;
  }
  return verify::finish(doc, v, common, kOk);
}

}  // namespace

int cmd_verify(const VerifyOptions& v, collector::CaptureOptions cap, const CommonOptions& common,
               const RuleOptions& rules) {
  if (!v.base.empty() && !v.next.empty()) {
    if (!cap.command.empty()) {
      std::fprintf(stderr, "error: verify takes BASE NEW or -o DIR -- CMD, not both\n");
      return kBadInput;
    }
    if (v.runs > 1) {
      std::fprintf(stderr, "error: --runs N captures the runs itself: it takes -o DIR -- CMD, not BASE NEW\n");
      return kBadInput;
    }
    return verify_runs(v, common, rules);
  }
  if (cap.command.empty() || v.out_dir.empty() || !v.next.empty()) {
    std::fprintf(stderr, "error: verify needs BASE NEW (two captured runs) or -o DIR [fixes] -- CMD ARGS...\n");
    return kBadInput;
  }
  return verify_command(v, std::move(cap), common, rules);
}

}  // namespace npu::cli
