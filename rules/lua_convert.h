// Lua -> JSON conversion for what a rule hands back (emit{...}, rule{...}): bounded, so a
// hostile rule can neither crash the advisor nor make it allocate without limit.
//  - depth: at most kMaxConvertDepth nested tables (and the Lua stack is grown with
//    lua_checkstack at every level: without it 16+ levels overran the stack and corrupted memory);
//  - cycles: a table that contains itself is refused, not expanded 32 levels deep;
//  - size: every value costs bytes from a budget the caller owns (the rule's output budget),
//    so shared sub-tables (a DAG that doubles at every level) cannot blow up either;
//  - strings: invalid UTF-8 is repaired (U+FFFD) so a report can always be written, and a
//    string longer than kMaxConvertString is cut at a character boundary.
// A facts view passed back (emit{evidence = facts.x}) converts as the copied table would.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

struct lua_State;

namespace npu {

constexpr int kMaxConvertDepth = 32;
constexpr size_t kMaxConvertString = size_t{64} << 10;

// The facts node a view table stands for, or nullptr (defined with the views, lua_sandbox.cpp).
const nlohmann::json* facts_view_node(lua_State* L, int idx);

// Converts the value at `idx`. Tables with keys 1..n become arrays (their other keys are
// dropped), other tables objects of their string keys; nil and non-finite numbers become
// null; functions and the like "<function>". Each converted value costs bytes from
// `budget` (16 + its text); on a refusal returns false with `error` set ("... nested deeper
// than 32 levels", "... contains itself", "... output budget"), `out` unspecified.
// Never raises a Lua error: safe to call outside lua_pcall.
bool lua_to_json(lua_State* L, int idx, size_t& budget, nlohmann::json& out, std::string& error);

// `s` as valid UTF-8 (each invalid byte replaced by U+FFFD), cut to at most max_bytes bytes of
// input at a character boundary (with "..." appended when cut).
std::string sanitize_utf8(std::string_view s, size_t max_bytes = kMaxConvertString);

}  // namespace npu
