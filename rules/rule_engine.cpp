#include "rules/rule_engine.h"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <stdexcept>
#include <string_view>
#include <tuple>

#include <lua.hpp>

#include "base/byte_source.h"
#include "base/load_error.h"
#include "base/text.h"
#include "facts/facts_schema.h"
#include "rules/attribution.h"
#include "rules/builtin_rules.h"
#include "rules/finding_emit.h"
#include "rules/rule_declaration.h"
#include "rules/verdicts.h"

namespace npu {
namespace fs = std::filesystem;

const char* to_string(RuleOutcome::Status s) {
  switch (s) {
    case RuleOutcome::Status::Fired: return "fired";
    case RuleOutcome::Status::Quiet: return "quiet";
    case RuleOutcome::Status::Skipped: return "skipped";
    case RuleOutcome::Status::NotApplicable: return "not applicable";
    case RuleOutcome::Status::Failed: return "failed";
  }
  return "?";
}

namespace {

// A rule may only need key paths of the facts schema (facts/schema/): a misspelled path would
// otherwise skip the rule on every run with "missing ...", and nobody would notice.
std::string unknown_need(const RuleMeta& meta) {
  for (const auto& need : meta.needs)
    if (!FactsSchema::builtin().has_need_path(need))
      return meta.file + ": rule " + meta.id + " needs \"" + need +
             "\", which is not a key path of the facts schema (docs/facts.md)";
  return "";
}

// Resolves "a.b.c" in the facts; null when absent.
const nlohmann::json* fact_at(const nlohmann::json& doc, const std::string& path) {
  const nlohmann::json* cur = &doc;
  size_t start = 0;
  while (start <= path.size()) {
    size_t dot = path.find('.', start);
    std::string key = path.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!cur->is_object() || !cur->contains(key)) return nullptr;
    cur = &(*cur)[key];
    if (dot == std::string::npos) break;
    start = dot + 1;
  }
  return cur;
}

// Whether the diagnostics declared `path` (or a section above it) unavailable: such a fact may
// still be present as an empty placeholder (run.env is {} without profiler_metadata.json), and
// a rule that needs it must say "skipped", never "quiet".
bool declared_unavailable(const nlohmann::json& doc, const std::string& path) {
  if (doc.contains("unavailable"))
    for (const auto& u : doc["unavailable"]) {
      std::string f = u.value("fact", "");
      if (!f.empty() && path.rfind(f, 0) == 0 && (path.size() == f.size() || path[f.size()] == '.')) return true;
    }
  return false;
}

// Why a fact is missing, from the facts' own "unavailable" list (longest matching prefix).
std::string missing_reason(const nlohmann::json& doc, const std::string& path) {
  std::string best;
  size_t best_len = 0;
  if (doc.contains("unavailable"))
    for (const auto& u : doc["unavailable"]) {
      std::string f = u.value("fact", "");
      bool related = path.rfind(f, 0) == 0 || f.rfind(path, 0) == 0;
      if (related && f.size() >= best_len) {
        best = u.value("why", "");
        best_len = f.size();
      }
    }
  return best;
}

double step_denominator(const nlohmann::json& doc) {
  // The split step (rules/attribution.h), so that percentages and "explained X of Y" agree.
  if (const double split = saving_denominator_ns(doc); split > 0) return split;
  if (const auto* m = fact_at(doc, "overall.step_time.median_ns"); m && m->is_number()) return m->get<double>();
  // A cluster: the median rank x step device time.
  if (const auto* m = fact_at(doc, "cluster.step_time.median_ns"); m && m->is_number()) return m->get<double>();
  const auto* dt = fact_at(doc, "overall.device_time_ns");
  const auto* n = fact_at(doc, "overall.steps");
  if (dt && n && dt->is_number() && n->is_number() && n->get<double>() > 0) return dt->get<double>() / n->get<double>();
  return 0;
}

}  // namespace

namespace {
std::string framework_display(const std::string& fw) {
  if (fw == "mindspore") return "MindSpore";
  if (fw == "pytorch") return "PyTorch";
  return fw;
}
}  // namespace

std::string facts_platform(const Facts& facts) {
  if (const auto* p = fact_at(facts.doc, "run.platform"); p && p->is_string()) return p->get<std::string>();
  std::string fw;
  if (const auto* f = fact_at(facts.doc, "run.framework"); f && f->is_string()) fw = f->get<std::string>();
  if (fw == "torch_npu" || fw == "mindspore" || fw.empty()) return "ascend";
  return "cpu";
}

namespace {
// rules/lua/lib/: the rule library (rules/lua_library.h), embedded with the rules but no rule.
constexpr std::string_view kLibraryDir = "lib/";
}  // namespace

void RuleEngine::add_builtin_rules() {
  for (const auto& r : builtin_rules())
    if (r.path.rfind(kLibraryDir, 0) != 0 && !is_verdict_path(r.path))
      add_rule_source({"builtin:" + std::string(r.path), std::string(r.code)}, true);
}

std::vector<std::string> rule_files(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec)) throw LoadError::whole_file(dir, "rule folder not found");
  std::vector<std::string> files;
  // A folder that cannot be read (its permissions) is the error of that folder, named: rules
  // left out silently would be a report without them.
  auto unreadable = [](const fs::path& p, const std::error_code& e) {
    return LoadError::whole_file(p.string(), "cannot read the rule folder: " + e.message());
  };
  fs::recursive_directory_iterator it(dir, ec);
  if (ec) throw unreadable(dir, ec);
  for (const fs::recursive_directory_iterator end; it != end;) {
    const fs::directory_entry e = *it;
    if (e.is_regular_file(ec) && e.path().extension() == ".lua") {
      std::string rel = e.path().lexically_relative(dir).generic_string();
      if (rel.rfind(kLibraryDir, 0) != 0 && !is_verdict_path(rel)) files.push_back(e.path().string());
    }
    it.increment(ec);  // descends into `e` when it is a folder: an error here is that folder's
    if (std::error_code type; ec) throw unreadable(e.is_directory(type) ? e.path() : e.path().parent_path(), ec);
  }
  std::sort(files.begin(), files.end());
  return files;
}

void RuleEngine::add_rule_dir(const std::string& dir) {
  for (const auto& f : rule_files(dir)) add_rule_source({f, read_small_file(f)}, false);
}

void RuleEngine::add_rule_source(RuleSource src, bool builtin) {
  sources_.push_back(std::move(src));
  builtin_.push_back(builtin);
  loaded_ = false;
}

void RuleEngine::load_meta() {
  if (loaded_) return;
  metas_.clear();
  load_errors_.clear();
  for (size_t i = 0; i < sources_.size(); ++i) {
    LuaSandbox sb;
    RuleMeta meta;
    std::string err = load_declaration(sb, sources_[i], "rule", "check", meta);
    meta.builtin = builtin_[i];
    if (meta.id.empty()) meta.id = fs::path(sources_[i].path).stem().string();
    meta.file = sources_[i].path;
    if (err.empty()) err = unknown_need(meta);
    // A rule id names one rule: a user rule may not take a built-in's (or an earlier rule's)
    // id, which would replace its findings in reports, baselines and --set.
    if (err.empty())
      for (const auto& m : metas_)
        if (m.id == meta.id) {
          err = sources_[i].path + ": rule id " + meta.id + " is already taken by " + m.file;
          break;
        }
    metas_.push_back(meta);
    load_errors_.push_back(err);
  }
  verdict_sources_ = builtin_verdict_sources();
  verdict_metas_.assign(verdict_sources_.size(), RuleMeta{});
  verdict_errors_.clear();
  for (size_t i = 0; i < verdict_sources_.size(); ++i)
    verdict_errors_.push_back(load_verdict(verdict_sources_[i], verdict_metas_[i]));
  loaded_ = true;
}

const std::vector<RuleMeta>& RuleEngine::verdicts() {
  load_meta();
  return verdict_metas_;
}

std::string RuleEngine::check_overrides(const std::map<std::string, std::string>& overrides) {
  load_meta();
  for (const auto& [key, value] : overrides) {
    // The owner is the rule or verdict whose id is the longest prefix ending at a dot.
    const RuleMeta* owner = nullptr;
    for (const auto* list : {&metas_, &verdict_metas_})
      for (const auto& m : *list)
        if (key.rfind(m.id + ".", 0) == 0 && (!owner || m.id.size() > owner->id.size())) owner = &m;
    if (!owner) return key + ": no rule or verdict with that id (see `npu-advisor rules list`)";
    nlohmann::json scratch = owner->params;
    std::map<std::string, std::string> one{{key, value}};
    if (std::string err = apply_param_overrides(owner->id, owner->param_specs, one, scratch); !err.empty()) return err;
  }
  return "";
}

const std::vector<RuleMeta>& RuleEngine::rules() {
  load_meta();
  return metas_;
}

struct RuleEngine::RunInputs {
  std::string platform, framework;
  double step_ns = 0;
  std::string single_rank_reason;
  nlohmann::json verdicts;
};

std::vector<RuleOutcome> RuleEngine::run(const Facts& facts, const RuleRunOptions& opt) {
  load_meta();
  std::vector<RuleOutcome> decided;  // the verdicts, decided before the rules
  for (size_t i = 0; i < verdict_sources_.size(); ++i) {
    RuleOutcome o;
    o.meta = verdict_metas_[i];
    o.status = RuleOutcome::Status::Failed;
    o.reason = verdict_errors_[i];
    nlohmann::json params = o.meta.params;
    if (o.reason.empty()) o.reason = apply_param_overrides(o.meta.id, o.meta.param_specs, opt.overrides, params);
    if (o.reason.empty()) decide_verdict(verdict_sources_[i], facts.doc, params, opt.limits, o);
    decided.push_back(std::move(o));
  }
  RunInputs in;
  in.verdicts = verdict_document(decided);
  in.platform = facts_platform(facts);
  if (const auto* f = fact_at(facts.doc, "run.framework"); f && f->is_string()) in.framework = f->get<std::string>();
  in.step_ns = step_denominator(facts.doc);
  // On a cluster, a single-rank rule says where to run it: a real rank folder, not a placeholder.
  in.single_rank_reason = "single-rank check: run `npu-advisor analyze` on a rank's folder";
  if (const auto* ranks = fact_at(facts.doc, "cluster.ranks"); ranks && ranks->is_array() && !ranks->empty())
    if (std::string dir = (*ranks)[0].value("path", ""); !dir.empty())
      in.single_rank_reason = "single-rank check: run `npu-advisor analyze " + text::shell_word(dir) + "` on a rank";
  std::vector<RuleOutcome> outcomes;
  for (size_t i = 0; i < sources_.size(); ++i) outcomes.push_back(run_rule(i, facts, opt, in));
  for (auto& o : decided) outcomes.push_back(std::move(o));
  return outcomes;
}

namespace {

// Why the rule does not apply to this run (its platform, framework, or cluster vs one rank), or "".
std::string not_applicable_reason(const RuleMeta& meta, const Facts& facts, const std::string& platform,
                                  const std::string& framework, const std::string& single_rank_reason) {
  if (!meta.platforms.empty() &&
      std::find(meta.platforms.begin(), meta.platforms.end(), platform) == meta.platforms.end()) {
    // "Ascend-only (this run is gpu)" reads better than a list of one.
    static const std::map<std::string, std::string> kName = {{"ascend", "Ascend"}, {"gpu", "GPU"}, {"cpu", "CPU"}};
    auto nm = meta.platforms.size() == 1 ? kName.find(meta.platforms[0]) : kName.end();
    return nm != kName.end() ? nm->second + "-only (this run is " + platform + ")"
                             : "applies to " + nlohmann::json(meta.platforms).dump() + ", this run is " + platform;
  }
  if (!meta.frameworks.empty() && !framework.empty() &&
      std::find(meta.frameworks.begin(), meta.frameworks.end(), framework) == meta.frameworks.end()) {
    std::string list;
    for (const auto& f : meta.frameworks) list += (list.empty() ? "" : ", ") + framework_display(f);
    return "not applicable to " + framework_display(framework) + " (a " + list + " check)";
  }
  // Cluster rules (needs under "cluster.") run on cluster facts, the others on one rank's.
  bool cluster_rule =
      std::any_of(meta.needs.begin(), meta.needs.end(), [](const std::string& n) { return n.rfind("cluster", 0) == 0; });
  if (cluster_rule != facts.doc.contains("cluster"))
    return cluster_rule ? "cluster check: needs several ranks (analyze the parent folder of the rank folders)"
                        : single_rank_reason;
  return "";
}

// "missing NEED (why)" for the first fact the rule needs that the facts lack, or "".
std::string missing_need(const RuleMeta& meta, const Facts& facts) {
  for (const auto& need : meta.needs) {
    const nlohmann::json* v = fact_at(facts.doc, need);
    if (!v || v->is_null() || (v->is_array() && v->empty()) || declared_unavailable(facts.doc, need)) {
      std::string why = missing_reason(facts.doc, need);
      return "missing " + need + (why.empty() ? "" : " (" + why + ")");
    }
  }
  return "";
}

}  // namespace

RuleOutcome RuleEngine::run_rule(size_t i, const Facts& facts, const RuleRunOptions& opt, const RunInputs& in) {
  RuleOutcome o;
  o.meta = metas_[i];
  if (!load_errors_[i].empty()) {
    o.status = RuleOutcome::Status::Failed;
    o.reason = load_errors_[i];
    return o;
  }
  if (std::string why = not_applicable_reason(o.meta, facts, in.platform, in.framework, in.single_rank_reason);
      !why.empty()) {
    o.status = RuleOutcome::Status::NotApplicable;
    o.reason = why;
    return o;
  }
  if (std::string missing = missing_need(o.meta, facts); !missing.empty()) {
    o.status = RuleOutcome::Status::Skipped;
    o.reason = missing;
    return o;
  }
  // Parameters: declared defaults, then overrides.
  nlohmann::json params = o.meta.params;
  if (std::string err = apply_param_overrides(o.meta.id, o.meta.param_specs, opt.overrides, params); !err.empty()) {
    o.status = RuleOutcome::Status::Failed;
    o.reason = err;
    return o;
  }

  LuaSandbox sb(opt.limits);
  RuleMeta ignored;
  std::string err = load_declaration(sb, sources_[i], "rule", "check", ignored);
  if (err.empty()) {
    sb.reset_budget();
    EmitContext ctx{&sb, &o, in.step_ns, &facts.doc, &params, &in.verdicts};
    lua_State* L = sb.L();
    lua_pushcfunction(L, lua_run_check);
    lua_pushlightuserdata(L, &ctx);
    if (!sb.call(1, 0)) err = sb.error();
  }
  if (!err.empty()) {
    o.status = RuleOutcome::Status::Failed;
    o.reason = err;
    o.findings.clear();
  } else {
    o.status = o.findings.empty() ? RuleOutcome::Status::Quiet : RuleOutcome::Status::Fired;
    if (o.findings_dropped > 0)
      o.reason = "kept the first " + std::to_string(o.findings.size()) + " findings, " +
                 std::to_string(o.findings_dropped) + " more were dropped (limit per rule)";
  }
  return o;
}

nlohmann::json ranked_findings(const std::vector<RuleOutcome>& outcomes) {
  std::vector<nlohmann::json> all;
  for (const auto& o : outcomes)
    for (const auto& f : o.findings) all.push_back(f);
  std::stable_sort(all.begin(), all.end(), [](const nlohmann::json& a, const nlohmann::json& b) {
    return a["score_ns"].get<int64_t>() > b["score_ns"].get<int64_t>();
  });
  nlohmann::json out = nlohmann::json::array();
  int rank = 1;
  for (auto& f : all) {
    f["rank"] = rank++;
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json rule_status_list(const std::vector<RuleOutcome>& outcomes) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& o : outcomes) {
    // A verdict is listed only when it could not be decided (rules/verdicts.h).
    if (o.meta.verdict && o.status != RuleOutcome::Status::Failed) continue;
    out.push_back({{"rule", o.meta.id},
                   {"title", o.meta.title},
                   {"category", o.meta.category},
                   {"status", to_string(o.status)},
                   {"reason", o.reason},
                   {"findings", o.findings.size()},
                   {"file", o.meta.file}});
  }
  return out;
}

void parse_override(const std::string& text, std::map<std::string, std::string>& out) {
  auto eq = text.find('=');
  auto dot = text.find('.');
  if (eq == std::string::npos || dot == std::string::npos || dot > eq || dot == 0 || eq == dot + 1)
    throw std::invalid_argument("expected RULE_ID.PARAM=VALUE, got \"" + text + "\"");
  out[text.substr(0, eq)] = text.substr(eq + 1);
}

}  // namespace npu
