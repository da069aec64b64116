#include "rules/rule_engine.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
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
#include "rules/replay_saving.h"
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

constexpr size_t kMaxObserved = 1200;  // characters of a finding's observed text

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

struct EmitContext {
  LuaSandbox* sb;
  RuleOutcome* outcome;
  double step_ns;
  const nlohmann::json* facts;
  const nlohmann::json* params;
  const nlohmann::json* verdicts;  // decided before the rules (rules/verdicts.h)
};

int lua_emit(lua_State* L);

// Runs inside lua_pcall: pushes the (trusted) facts and params, then calls check(). Doing
// the pushes under pcall turns an out-of-memory there into an ordinary rule failure. Both go
// in as lazy read-only views of the one C++ document (no copy per rule): what a view later
// converts, on the rule's reads, is charged to the rule's memory budget.
int lua_run_check(lua_State* L) {
  auto* ctx = static_cast<EmitContext*>(lua_touserdata(L, 1));
  lua_getglobal(L, "check");
  ctx->sb->begin_trusted();
  ctx->sb->push_view(*ctx->facts);
  ctx->sb->push_view(*ctx->params);
  set_verdicts_global(*ctx->sb, *ctx->verdicts);
  ctx->sb->end_trusted();
  lua_pushlightuserdata(L, ctx);
  lua_pushcclosure(L, lua_emit, 1);
  lua_call(L, 3, 0);
  return 0;
}

// A saving above this (~292 years) is no measurement: refuse it rather than wrap to INT64_MIN.
constexpr double kMaxSavingNs = 9.0e18;

// A number field of emit{}: `def` when absent; an error when present but not a finite number
// (math.huge and nan convert to null).
double number_field(const nlohmann::json& f, const char* key, double def, std::string& err) {
  auto it = f.find(key);
  if (it == f.end()) return def;
  if (it->is_number()) return it->get<double>();
  if (err.empty())
    err = std::string("emit{}: '") + key + "' must be a finite number, not " +
          (it->is_null() ? "inf/nan" : it->type_name());
  return def;
}

// Rule text goes to terminals: control characters (an ESC starts a terminal escape sequence)
// become U+FFFD; newlines and tabs stay.
std::string printable(std::string s) {
  std::string out;
  out.reserve(s.size());
  for (char c : s) {
    auto u = static_cast<unsigned char>(c);
    if ((u < 0x20 && c != '\n' && c != '\t') || u == 0x7f) out += "\xEF\xBF\xBD";
    else out += c;
  }
  return out;
}

// Converts and checks one emit{} table into the outcome; returns an error text or "".
std::string emit_finding(EmitContext& ctx) {
  RuleOutcome& o = *ctx.outcome;
  if (o.findings.size() >= ctx.sb->limits().findings) {
    ++o.findings_dropped;  // counted, not kept: the report says how many
    return "";
  }
  nlohmann::json f;
  if (!ctx.sb->to_json(1, f)) return "emit{}: " + ctx.sb->error();
  const RuleMeta& meta = o.meta;
  if (!f.contains("observed") || !f["observed"].is_string())
    return "emit{}: 'observed' (what was seen, with numbers) is required";
  std::string err;
  double saving = number_field(f, "saving_ns", 0.0, err);
  double confidence = std::clamp(number_field(f, "confidence", 0.5, err), 0.0, 1.0);
  if (saving > kMaxSavingNs && err.empty()) err = "emit{}: 'saving_ns' is out of range (above 9e18 ns)";
  if (!err.empty()) return err;  // before saving is cast to int64 below (UB out of range: fuzz_rule)
  if (saving < 0) saving = 0;
  nlohmann::json out;
  out["rule"] = meta.id;
  out["category"] = meta.category;
  out["severity"] = printable(string_field(f, "severity", meta.severity, "emit{}", err));
  out["title"] = printable(string_field(f, "title", meta.title, "emit{}", err));
  out["observed"] = printable(f["observed"].get<std::string>());
  // A finding is read, not parsed: a list that grows with the capture (one entry per step) is
  // cut at an entry boundary; the facts keep everything.
  if (const auto& ob = out["observed"]; ob.is_string() && ob.get_ref<const std::string&>().size() > kMaxObserved) {
    const std::string& t = ob.get_ref<const std::string&>();
    size_t cut = t.rfind("; ", kMaxObserved);
    if (cut == std::string::npos || cut < kMaxObserved / 2) cut = kMaxObserved;
    out["observed"] =
        t.substr(0, cut) + "; ... (" + std::to_string(t.size() - cut) + " more characters: the facts hold every entry)";
  }
  out["why"] = printable(string_field(f, "why", "", "emit{}", err));
  out["action"] = printable(string_field(f, "action", "", "emit{}", err));
  out["commands"] = nlohmann::json::array();
  if (f.contains("commands") && f["commands"].is_array())
    for (const auto& c : f["commands"]) {
      if (!c.is_string()) {
        if (err.empty()) err = "emit{}: 'commands' must be a list of strings";
        break;
      }
      out["commands"].push_back(printable(c.get<std::string>()));
    }
  out["evidence"] = f.contains("evidence") && f["evidence"].is_array() ? f["evidence"] : nlohmann::json::array();
  // Evidence is where a number came from: each entry an object whose location fields have their
  // types (a byte given as a word once ended the Markdown report with an internal error).
  for (const auto& e : out["evidence"]) {
    if (!err.empty()) break;
    if (!e.is_object()) {
      err = "emit{}: each evidence entry must be a table ({file = ..., byte = ..., what = ...})";
      break;
    }
    for (const char* k : {"byte", "line", "rowid"})
      if (e.contains(k) && !e[k].is_number_integer() && !e[k].is_number_unsigned())
        err = std::string("emit{}: evidence '") + k + "' must be an integer, not " + e[k].type_name();
    for (const char* k : {"file", "table", "what", "fact"})
      if (e.contains(k) && !e[k].is_string()) err = std::string("emit{}: evidence '") + k + "' must be a string";
  }
  out["saving_ns"] = static_cast<int64_t>(saving);
  out["saving_formula"] = printable(string_field(f, "saving_formula", "", "emit{}", err));
  out["saving_ratio"] = ctx.step_ns > 0 ? nlohmann::json(saving / ctx.step_ns) : nlohmann::json(nullptr);
  out["confidence"] = confidence;
  out["score_ns"] = static_cast<int64_t>(saving * confidence);
  out["rule_file"] = meta.file;
  // A finding may name its own pool and be a residual: cluster.rank_causes passes on the pool of
  // the rank rule whose cause it reports (an online compile is idle time on the cluster as on the
  // rank), and a rank's communication finding is what that rank sees of the time the cluster's
  // own findings (slow rank, slow link, bubble) explain, so it is served after them.
  out["pool"] = meta.pool;
  if (f.contains("pool")) {
    if (f["pool"].is_string() && is_split_pool(f["pool"].get<std::string>()))
      out["pool"] = f["pool"].get<std::string>();
    else if (err.empty())
      err = f["pool"].is_string() ? "emit{}: " + pool_problem(printable(f["pool"].get<std::string>()))
                                  : "emit{}: 'pool' must be a non-empty string";
  }
  if (meta.residual || (f.contains("residual") && f["residual"].is_boolean() && f["residual"].get<bool>()))
    out["residual"] = true;
  if (f.contains("data")) out["data"] = f["data"];
  // The saving from the replay when the rule or this finding names its transformation
  // (emit{ whatif = false } opts one finding out: its fix is not the rule's usual one).
  std::string whatif = meta.whatif;
  if (f.contains("whatif")) {
    const auto& w = f["whatif"];
    if (w.is_boolean() && !w.get<bool>()) whatif.clear();
    else if (w.is_string() && is_whatif_transform(w.get<std::string>())) whatif = w.get<std::string>();
    else if (err.empty()) err = "emit{}: 'whatif' must be false or one of " + whatif_transform_list();
  }
  if (!err.empty()) return err;
  if (!whatif.empty()) {
    apply_replay_saving(out, *ctx.facts, whatif);
    out["saving_ratio"] =
        ctx.step_ns > 0 ? nlohmann::json(out["saving_ns"].get<double>() / ctx.step_ns) : nlohmann::json(nullptr);
  }
  o.findings.push_back(std::move(out));
  return "";
}

// emit{...}: an error is raised only once every C++ object here is gone (a Lua error is a
// longjmp: it unwinds no C++ frame, and pushing the message may itself raise one).
int lua_emit(lua_State* L) {
  auto* ctx = static_cast<EmitContext*>(lua_touserdata(L, lua_upvalueindex(1)));
  luaL_checktype(L, 1, LUA_TTABLE);
  char msg[512];
  {
    std::string err;
    try {
      err = emit_finding(*ctx);
    } catch (const std::exception& e) {
      err = std::string("emit{}: ") + e.what();
    }
    if (err.empty()) return 0;
    std::snprintf(msg, sizeof msg, "%s", err.c_str());
  }
  return luaL_error(L, "%s", msg);  // with the rule's line
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

RuleOutcome RuleEngine::run_rule(size_t i, const Facts& facts, const RuleRunOptions& opt, const RunInputs& in) {
  const std::string& platform = in.platform;
  const std::string& framework = in.framework;
  RuleOutcome o;
  o.meta = metas_[i];
  if (!load_errors_[i].empty()) {
    o.status = RuleOutcome::Status::Failed;
    o.reason = load_errors_[i];
    return o;
  }
  if (!o.meta.platforms.empty() &&
      std::find(o.meta.platforms.begin(), o.meta.platforms.end(), platform) == o.meta.platforms.end()) {
    o.status = RuleOutcome::Status::NotApplicable;
    // "Ascend-only (this run is gpu)" reads better than a list of one.
    static const std::map<std::string, std::string> kName = {{"ascend", "Ascend"}, {"gpu", "GPU"}, {"cpu", "CPU"}};
    auto nm = o.meta.platforms.size() == 1 ? kName.find(o.meta.platforms[0]) : kName.end();
    o.reason = nm != kName.end()
                   ? nm->second + "-only (this run is " + platform + ")"
                   : "applies to " + nlohmann::json(o.meta.platforms).dump() + ", this run is " + platform;
    return o;
  }
  if (!o.meta.frameworks.empty() && !framework.empty() &&
      std::find(o.meta.frameworks.begin(), o.meta.frameworks.end(), framework) == o.meta.frameworks.end()) {
    o.status = RuleOutcome::Status::NotApplicable;
    std::string list;
    for (const auto& f : o.meta.frameworks) list += (list.empty() ? "" : ", ") + framework_display(f);
    o.reason = "not applicable to " + framework_display(framework) + " (a " + list + " check)";
    return o;
  }
  // Cluster rules (needs under "cluster.") run on cluster facts, the others on one rank's.
  bool cluster_rule = std::any_of(o.meta.needs.begin(), o.meta.needs.end(),
                                  [](const std::string& n) { return n.rfind("cluster", 0) == 0; });
  if (cluster_rule != facts.doc.contains("cluster")) {
    o.status = RuleOutcome::Status::NotApplicable;
    o.reason = cluster_rule ? "cluster check: needs several ranks (analyze the parent folder of the rank folders)"
                            : in.single_rank_reason;
    return o;
  }
  std::string missing;
  for (const auto& need : o.meta.needs) {
    const nlohmann::json* v = fact_at(facts.doc, need);
    if (!v || v->is_null() || (v->is_array() && v->empty()) || declared_unavailable(facts.doc, need)) {
      std::string why = missing_reason(facts.doc, need);
      missing = "missing " + need + (why.empty() ? "" : " (" + why + ")");
      break;
    }
  }
  if (!missing.empty()) {
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
