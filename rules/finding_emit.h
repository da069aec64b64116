// A rule's check(facts, params, emit) call and what its emit{...} tables become: findings,
// checked field by field (types, ranges, evidence locations, pools, what-if names) and made safe
// for terminals, with the replay's saving where the rule names a transformation.
#pragma once
#include <nlohmann/json.hpp>

#include "rules/lua_sandbox.h"
#include "rules/rule_engine.h"

struct lua_State;

namespace npu {

// What one rule's check() call reads and fills.
struct EmitContext {
  LuaSandbox* sb;
  RuleOutcome* outcome;  // its findings
  double step_ns;        // the step the saving ratios are of (0: unknown)
  const nlohmann::json* facts;
  const nlohmann::json* params;
  const nlohmann::json* verdicts;  // decided before the rules (rules/verdicts.h)
};

// Runs inside lua_pcall with the EmitContext as light userdata 1: pushes the (trusted) facts and
// params, then calls check(). Doing the pushes under pcall turns an out-of-memory there into an
// ordinary rule failure.
int lua_run_check(lua_State* L);

}  // namespace npu
