#include "rules/finding_emit.h"

#include <algorithm>
#include <cstdio>
#include <string>

#include <lua.hpp>

#include "rules/attribution.h"
#include "rules/replay_saving.h"
#include "rules/rule_declaration.h"
#include "rules/verdicts.h"

namespace npu {
namespace {

using nlohmann::json;

constexpr size_t kMaxObserved = 1200;  // characters of a finding's observed text
// A saving above this (~292 years) is no measurement: refuse it rather than wrap to INT64_MIN.
constexpr double kMaxSavingNs = 9.0e18;

// A number field of emit{}: `def` when absent; an error when present but not a finite number
// (math.huge and nan convert to null).
double number_field(const json& f, const char* key, double def, std::string& err) {
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

// A finding is read, not parsed: a list that grows with the capture (one entry per step) is cut
// at an entry boundary; the facts keep everything.
std::string capped_observed(std::string t) {
  if (t.size() <= kMaxObserved) return t;
  size_t cut = t.rfind("; ", kMaxObserved);
  if (cut == std::string::npos || cut < kMaxObserved / 2) cut = kMaxObserved;
  return t.substr(0, cut) + "; ... (" + std::to_string(t.size() - cut) + " more characters: the facts hold every entry)";
}

// The words of a finding: title, observed, why, action and commands (the rule's own title and
// severity unless it gives others).
void add_text(const json& f, const RuleMeta& meta, json& out, std::string& err) {
  out["severity"] = printable(string_field(f, "severity", meta.severity, "emit{}", err));
  out["title"] = printable(string_field(f, "title", meta.title, "emit{}", err));
  out["observed"] = capped_observed(printable(f["observed"].get<std::string>()));
  out["why"] = printable(string_field(f, "why", "", "emit{}", err));
  out["action"] = printable(string_field(f, "action", "", "emit{}", err));
  out["commands"] = json::array();
  if (f.contains("commands") && f["commands"].is_array())
    for (const auto& c : f["commands"]) {
      if (!c.is_string()) {
        if (err.empty()) err = "emit{}: 'commands' must be a list of strings";
        break;
      }
      out["commands"].push_back(printable(c.get<std::string>()));
    }
}

// Evidence is where a number came from: each entry an object whose location fields have their
// types (a byte given as a word once ended the Markdown report with an internal error).
void add_evidence(const json& f, json& out, std::string& err) {
  out["evidence"] = f.contains("evidence") && f["evidence"].is_array() ? f["evidence"] : json::array();
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
}

// A finding may name its own pool and be a residual: cluster.rank_causes passes on the pool of
// the rank rule whose cause it reports (an online compile is idle time on the cluster as on the
// rank), and a rank's communication finding is what that rank sees of the time the cluster's own
// findings (slow rank, slow link, bubble) explain, so it is served after them.
void add_pool(const json& f, const RuleMeta& meta, json& out, std::string& err) {
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
}

// The replay's transformation whose saving replaces the rule's: the rule's, or this finding's
// (emit{ whatif = false } opts one finding out: its fix is not the rule's usual one).
std::string whatif_of(const json& f, const RuleMeta& meta, std::string& err) {
  std::string whatif = meta.whatif;
  if (f.contains("whatif")) {
    const auto& w = f["whatif"];
    if (w.is_boolean() && !w.get<bool>()) whatif.clear();
    else if (w.is_string() && is_whatif_transform(w.get<std::string>())) whatif = w.get<std::string>();
    else if (err.empty()) err = "emit{}: 'whatif' must be false or one of " + whatif_transform_list();
  }
  return whatif;
}

json saving_ratio(double saving, double step_ns) { return step_ns > 0 ? json(saving / step_ns) : json(nullptr); }

// Converts and checks one emit{} table into the outcome; returns an error text or "".
std::string emit_finding(EmitContext& ctx) {
  RuleOutcome& o = *ctx.outcome;
  if (o.findings.size() >= ctx.sb->limits().findings) {
    ++o.findings_dropped;  // counted, not kept: the report says how many
    return "";
  }
  json f;
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
  json out;
  out["rule"] = meta.id;
  out["category"] = meta.category;
  add_text(f, meta, out, err);
  add_evidence(f, out, err);
  out["saving_ns"] = static_cast<int64_t>(saving);
  out["saving_formula"] = printable(string_field(f, "saving_formula", "", "emit{}", err));
  out["saving_ratio"] = saving_ratio(saving, ctx.step_ns);
  out["confidence"] = confidence;
  out["score_ns"] = static_cast<int64_t>(saving * confidence);
  out["rule_file"] = meta.file;
  add_pool(f, meta, out, err);
  if (f.contains("data")) out["data"] = f["data"];
  const std::string whatif = whatif_of(f, meta, err);
  if (!err.empty()) return err;
  if (!whatif.empty()) {
    apply_replay_saving(out, *ctx.facts, whatif);
    out["saving_ratio"] = saving_ratio(out["saving_ns"].get<double>(), ctx.step_ns);
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

}  // namespace

// Both go in as lazy read-only views of the one C++ document (no copy per rule): what a view
// later converts, on the rule's reads, is charged to the rule's memory budget.
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

}  // namespace npu
