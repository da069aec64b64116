// The rules' shared Lua library (rules/lua/lib/*.lua, compiled into the binary with the
// built-in rules; docs/rules.md lists its helpers). A rule loads a module with
// `local evidence = require "lib.evidence"`; `util` (lib/util.lua) is also a global.
// Modules are read-only in the sandbox: a module table (and every table inside it) is an empty
// proxy whose writes fail, so a rule cannot change a helper, neither for itself nor for another
// rule (each rule has its own Lua state and loads its own copy).
#pragma once

struct lua_State;

namespace npu {

// Sets the globals `require` (built-in library modules only, loaded once per state) and `util`.
void install_lua_library(lua_State* L);

}  // namespace npu
