#include "rules/verdicts.h"

#include <lua.hpp>

#include "rules/builtin_rules.h"
#include "rules/rule_declaration.h"

namespace npu {
namespace {

constexpr std::string_view kVerdictDir = "verdicts/";

struct DecideContext {
  LuaSandbox* sb;
  const nlohmann::json* facts;
  const nlohmann::json* params;
};

// Runs inside lua_pcall: pushes the (trusted) facts and params as views and calls decide().
int lua_run_decide(lua_State* L) {
  auto* ctx = static_cast<DecideContext*>(lua_touserdata(L, 1));
  lua_settop(L, 0);
  lua_getglobal(L, "decide");
  ctx->sb->begin_trusted();
  ctx->sb->push_view(*ctx->facts);
  ctx->sb->push_view(*ctx->params);
  ctx->sb->end_trusted();
  lua_call(L, 2, 1);
  return 1;
}

// An empty Lua table converts to {}: a list of steps stays a list.
void lists_stay_lists(nlohmann::json& j) {
  if (!j.is_object()) return;
  for (auto& [k, v] : j.items()) {
    if (k == "steps" && v.is_object() && v.empty()) v = nlohmann::json::array();
    else lists_stay_lists(v);
  }
}

}  // namespace

bool is_verdict_path(std::string_view rel) { return rel.rfind(kVerdictDir, 0) == 0; }

std::vector<RuleSource> builtin_verdict_sources() {
  std::vector<RuleSource> out;
  for (const auto& r : builtin_rules())
    if (is_verdict_path(r.path)) out.push_back({"builtin:" + std::string(r.path), std::string(r.code)});
  return out;
}

std::string load_verdict(const RuleSource& src, RuleMeta& meta) {
  LuaSandbox sb;
  meta.verdict = true;
  meta.builtin = true;
  std::string err = load_declaration(sb, src, "verdict", "decide", meta);
  meta.category = "verdict";
  return err;
}

void decide_verdict(const RuleSource& src, const nlohmann::json& facts, const nlohmann::json& params,
                    const SandboxLimits& limits, RuleOutcome& o) {
  LuaSandbox sb(limits);
  RuleMeta ignored;
  std::string err = load_declaration(sb, src, "verdict", "decide", ignored);
  if (err.empty()) {
    sb.reset_budget();
    DecideContext ctx{&sb, &facts, &params};
    lua_State* L = sb.L();
    lua_pushcfunction(L, lua_run_decide);
    lua_pushlightuserdata(L, &ctx);
    if (!sb.call(1, 1)) err = sb.error();
    else if (!sb.to_json(-1, o.decided)) err = src.path + ": decide(): " + sb.error();
  }
  if (!err.empty()) {
    o.status = RuleOutcome::Status::Failed;
    o.reason = err;
    o.decided = nullptr;
    return;
  }
  lists_stay_lists(o.decided);
  o.status = o.decided.is_null() ? RuleOutcome::Status::Quiet : RuleOutcome::Status::Fired;
}

nlohmann::json verdict_document(const std::vector<RuleOutcome>& outcomes) {
  nlohmann::json doc = nlohmann::json::object();
  for (const auto& o : outcomes) {
    if (!o.meta.verdict || o.decided.is_null()) continue;
    nlohmann::json* at = &doc;
    size_t start = 0;
    const std::string& id = o.meta.id;
    for (size_t dot = id.find('.'); dot != std::string::npos; start = dot + 1, dot = id.find('.', start))
      at = &(*at)[id.substr(start, dot - start)];
    (*at)[id.substr(start)] = o.decided;
  }
  return doc;
}

void set_verdicts_global(LuaSandbox& sb, const nlohmann::json& doc) {
  sb.push_view(doc);
  lua_setglobal(sb.L(), "verdicts");
}

}  // namespace npu
