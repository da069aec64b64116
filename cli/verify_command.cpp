// `npu-advisor verify -o DIR [fixes] -- CMD ARGS...`: capture the baseline, analyze it, run CMD
// again with each fix (the tool sets the environment; --after runs the user's changed command),
// each into its own folder (--runs N: N captures each, their steps pooled), and judge each
// against the baseline (docs/verify.md). Nothing but
// the environment and the command line changes: the user's files are never touched.
#include <cstdio>
#include <filesystem>

#include <fmt/format.h>

#include "base/load_error.h"
#include "cli/verify_internal.h"
#include "collector/command_line.h"
#include "compare/same_work.h"

namespace npu::cli {

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct Fix {
  std::string name, folder;
  std::vector<std::string> env;   // NAME=value set for the run
  std::vector<std::string> argv;  // the command (--after), else the baseline's
  std::optional<compare::Prediction> pred;
};

struct RunRecord {
  bool captured = false, failed = false, interrupted = false;
  json j;
};

std::string folder_name(const std::string& prefix, const std::string& s) {
  std::string out = prefix;
  for (char c : s) out += (std::isalnum(static_cast<unsigned char>(c)) || c == '=' || c == '.' || c == '-') ? c : '_';
  return out.substr(0, 80);
}

// Runs one capture; never throws: what went wrong is in the record.
RunRecord run_one(collector::CaptureOptions cap, const fs::path& dir, const std::vector<std::string>& env,
                  const std::vector<std::string>& argv) {
  cap.out_dir = dir.string();
  cap.env = env;
  cap.command = argv;
  RunRecord r;
  r.j = {{"dir", dir.string()}, {"command", collector::shell_join(argv)}, {"env", env}};
  collector::CaptureResult res;
  try {
    res = collector::capture(cap);
  } catch (const collector::CaptureError& e) {
    r.failed = true;
    r.j["status"] = "failed";
    r.j["message"] = e.what();
    return r;
  }
  r.captured = res.captured;
  r.interrupted = res.child.interrupted;
  r.j["exit_code"] = res.child.exit_code;
  r.j["seconds"] = res.child.seconds;
  r.j["timed_out"] = res.child.timed_out;
  r.j["interrupted"] = res.child.interrupted;
  r.j["recorded_steps"] = res.recorded_steps;
  if (!res.captured) r.j["message"] = res.message;
  r.failed = !res.captured || (res.child.exit_code != 0 && !res.child.timed_out && !res.child.interrupted);
  r.j["status"] = r.interrupted ? "interrupted" : r.failed ? "failed" : "ok";
  return r;
}

// --runs N: the same run captured N times, into DIR/run-1 ... DIR/run-N (one run: DIR itself).
RunRecord run_n(const collector::CaptureOptions& cap, const fs::path& dir, const std::vector<std::string>& env,
                const std::vector<std::string>& argv, int runs) {
  if (runs <= 1) return run_one(cap, dir, env, argv);
  RunRecord all;
  all.captured = true;
  all.j = {{"dir", dir.string()}, {"command", collector::shell_join(argv)}, {"env", env}, {"runs", json::array()}};
  for (int k = 1; k <= runs; ++k) {
    RunRecord r = run_one(cap, dir / fmt::format("run-{}", k), env, argv);
    all.j["runs"].push_back(r.j);
    all.captured = all.captured && r.captured;
    all.failed = all.failed || r.failed;
    all.interrupted = all.interrupted || r.interrupted;
    if (r.failed || r.interrupted) {  // the first run that went wrong names what went wrong
      all.j["message"] = r.j.value("message", "run " + std::to_string(k) + ": exit code " +
                                                  std::to_string(r.j.value("exit_code", 0)));
      all.j["exit_code"] = r.j.value("exit_code", 0);
      break;
    }
  }
  all.j["status"] = all.interrupted ? "interrupted" : all.failed ? "failed" : "ok";
  return all;
}

// The captures of one run pooled: the first one's facts and findings, with every capture's steps
// (each capture's warm-up step left out, as compare leaves out the first, unless --keep-warmup;
// capture k's step i is k x 1000000 + i, so two pooled runs pair their steps). Each capture after
// the first is checked to have done the first one's work (compare/same_work.h): what differs goes
// into `within`, named by its capture.
compare::CompareSide load_pooled(const fs::path& dir, int runs, const VerifyOptions& v, const CommonOptions& common,
                                 const RuleOptions& rules, json& within) {
  if (runs <= 1) return load_compare_side(dir.string(), common, rules);
  compare::CompareSide out = load_compare_side((dir / "run-1").string(), common, rules);
  json& doc = out.facts.doc;
  const char* key = doc.contains("steps") && doc["steps"].is_array() ? "steps" : "host_steps";
  json pooled = json::array();
  for (int k = 1; k <= runs; ++k) {
    const compare::CompareSide side =
        k == 1 ? compare::CompareSide{} : load_compare_side((dir / fmt::format("run-{}", k)).string(), common, rules);
    const json& d = k == 1 ? doc : side.facts.doc;
    if (k > 1)
      for (json diff : compare::same_work(out.facts, side.facts).value("differences", json::array())) {
        diff["text"] = fmt::format("run-{} against run-1 of {}: {}", k, dir.filename().string(), diff.value("text", ""));
        within.push_back(std::move(diff));
      }
    if (!d.contains(key) || !d[key].is_array()) continue;
    const json& steps = d[key];
    // Compare drops the pooled series' first step (the first capture's warm-up) itself.
    const size_t first = k > 1 && !v.keep_warmup && steps.size() >= 4 ? 1 : 0;
    for (size_t i = first; i < steps.size(); ++i) {
      json st = steps[i];
      if (st.contains("id") && st["id"].is_number_integer()) st["id"] = int64_t{k} * 1'000'000 + st["id"].get<int64_t>();
      pooled.push_back(std::move(st));
    }
  }
  doc[key] = std::move(pooled);
  return out;
}

// The fixes asked for, each with the prediction it is judged against.
std::vector<Fix> fixes_of(const VerifyOptions& v, const compare::CompareSide& base, const std::vector<std::string>& argv,
                          json& notes) {
  std::vector<Fix> out;
  for (const std::string& e : v.env) out.push_back({"--env " + e, folder_name("env-", e), {e}, argv,
                                                    compare::prediction_for_env(base.findings, e)});
  if (v.fixes == "auto") {
    auto autos = compare::env_fixes(base.findings);
    if (autos.empty()) notes.push_back("--fixes auto: no finding of the baseline sets an environment variable");
    Fix together{"--fixes auto (together)", "auto-together", {}, argv, compare::Prediction{}};
    together.pred->method = "sum of the findings' savings";
    together.pred->chosen = "every finding whose command sets an environment variable";
    for (auto& [a, p] : autos) {
      out.push_back({"--env " + a + " (auto)", folder_name("env-", a), {a}, argv, p});
      together.env.push_back(a);
      together.pred->saving_ns += p.saving_ns;
      together.pred->rule += (together.pred->rule.empty() ? "" : "+") + p.rule;
    }
    if (autos.size() > 1) out.push_back(together);
  }
  for (size_t i = 0; i < v.after.size(); ++i) {
    out.push_back({"--after " + v.after[i], v.after.size() == 1 ? "after" : fmt::format("after-{}", i + 1), {},
                   collector::split_shell_words(v.after[i]),
                   verify::changed_run_prediction(base, v, "--after " + v.after[i] + ": ", notes)});
  }
  return out;
}

bool folder_has_entries(const fs::path& p) {
  std::error_code ec;
  return fs::is_directory(p, ec) && fs::directory_iterator(p, ec) != fs::directory_iterator();
}

}  // namespace

int verify_command(const VerifyOptions& v, collector::CaptureOptions cap, const CommonOptions& common,
                   const RuleOptions& rules) {
  const fs::path dir = v.out_dir;
  if (folder_has_entries(dir)) {
    std::fprintf(stderr, "error: %s is not empty: give a new folder (it will hold every capture)\n", dir.c_str());
    return kBadInput;
  }
  for (const std::string& a : v.after)
    if (collector::split_shell_words(a).empty()) {
      std::fprintf(stderr, "error: --after: an empty command\n");
      return kBadInput;
    }
  cap.quiet = common.quiet;
  json doc = verify::new_document("command");
  doc["interrupted"] = false;
  const std::vector<std::string> argv = cap.command;
  if (!common.quiet) std::fprintf(stderr, "npu-advisor: verify: the baseline into %s/baseline\n", dir.c_str());
  RunRecord base_run = run_n(cap, dir / "baseline", {}, argv, v.runs);
  doc["baseline"]["run"] = base_run.j;
  doc["baseline"]["path"] = (dir / "baseline").string();
  if (base_run.failed || base_run.interrupted) {
    std::fprintf(stderr, "error: the baseline run %s: %s\n", base_run.interrupted ? "was interrupted" : "failed",
                 base_run.j.value("message", "exit code " + std::to_string(base_run.j.value("exit_code", 0))).c_str());
    verify::finish(doc, v, common, kBadInput);
    return kBadInput;
  }
  json base_within = json::array();
  compare::CompareSide base = load_pooled(dir / "baseline", v.runs, v, common, rules, base_within);
  verify::describe_baseline(doc, base);
  doc["baseline"]["run"] = base_run.j;
  std::vector<Fix> fixes = fixes_of(v, base, argv, doc["notes"]);
  if (fixes.empty()) {
    std::fprintf(stderr, "error: no fix to verify: give --env K=V, --after 'CMD' or --fixes auto\n");
    verify::finish(doc, v, common, kBadInput);
    return kBadInput;
  }
  int rc = kOk;
  for (size_t i = 0; i < fixes.size(); ++i) {
    const Fix& f = fixes[i];
    json fix = {{"name", f.name}, {"kind", f.env.empty() ? "after" : "env"}, {"env", f.env}};
    if (rc == kVerifyPartial && doc["interrupted"].get<bool>()) {
      fix["verdict"] = "not run";
      fix["why"] = "the verify was interrupted before this run";
      doc["fixes"].push_back(fix);
      continue;
    }
    if (!common.quiet)
      std::fprintf(stderr, "npu-advisor: verify: run %zu of %zu: %s into %s\n", i + 1, fixes.size(), f.name.c_str(),
                   (dir / f.folder).c_str());
    RunRecord r = run_n(cap, dir / f.folder, f.env, f.argv, v.runs);
    fix["run"] = r.j;
    if (r.failed || r.interrupted) {
      rc = kVerifyPartial;
      doc["interrupted"] = r.interrupted;
      fix["verdict"] = "not compared";
      fix["why"] = r.interrupted ? "the run was interrupted" : "the run failed: " + r.j.value("message", "exit code " +
                                                                   std::to_string(r.j.value("exit_code", 0)));
      doc["fixes"].push_back(fix);
      continue;
    }
    try {
      json within = base_within;
      compare::CompareSide side = load_pooled(dir / f.folder, v.runs, v, common, rules, within);
      fix.update(verify::judge(base, side, v, f.pred));
      if (!within.empty()) {  // a capture of either run did other work than its first: not pooled as one
        json& same = fix["same_work"];
        same["same"] = false;
        for (const json& d : within) same["differences"].push_back(d);
        fix["verdict"] = compare::kInconclusive;
        fix["why"] = "the runs did different work: " + compare::describe_differences(same);
      }
    } catch (const LoadError& e) {  // what it wrote cannot be read: named, not compared
      rc = kVerifyPartial;
      fix["verdict"] = "not compared";
      fix["why"] = std::string("its capture cannot be read: ") + e.what();
    }
    doc["fixes"].push_back(fix);
  }
  return verify::finish(doc, v, common, rc);
}

}  // namespace npu::cli
