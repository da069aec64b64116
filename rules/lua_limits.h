// The sandbox's replacements for library functions that would let a rule dodge its budgets
// (installed by LuaSandbox's constructor):
//  - pcall / xpcall: as the base ones, but an aborted rule (instruction, time or memory budget
//    spent) is re-raised, never caught, so `while true do pcall(f) end` ends, and an xpcall
//    handler does not run for an aborted rule (Lua runs it inside the hook, where hooks are off);
//  - string.find / match / gmatch / gsub: Lua's matcher backtracks inside C, where the count
//    hook never fires (`("a"):rep(400):find("(.-)(.-)(.-)(.-)b")` ran for minutes). Each call is
//    priced first by its worst case (subject length n to the power of the backtracking items
//    x* x+ x- %b %1.., times 2 per x?, times n when unanchored) and refused above
//    kMaxPatternSteps; plain finds (4th argument true) always run, through memmem (linear);
//  - string.rep: an empty result is returned at once (rep("", 1e18) looped in C);
//  - table.move: at most kMaxMoveElements elements (a huge range looped in C);
//  - print: to stderr (stdout carries --format json), at most SandboxLimits::print_bytes.
// After each wrapped call the wall clock is checked.
#pragma once
#include <string_view>

struct lua_State;

namespace npu {

constexpr double kMaxPatternSteps = 1e8;
constexpr long long kMaxMoveElements = 10'000'000;

void install_limited_libs(lua_State* L);

// The worst-case steps of Lua's matcher for `pattern` on a subject of n bytes (see above).
double pattern_worst_case(std::string_view pattern, size_t n, bool anchor_allowed);

}  // namespace npu
