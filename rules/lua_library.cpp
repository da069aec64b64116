#include "rules/lua_library.h"

#include <cstdio>
#include <cstdlib>
#include <string>

#include <lua.hpp>

#include "rules/builtin_rules.h"

namespace npu {
namespace {

char kModuleCacheKey;  // address used as the registry key of the loaded modules
constexpr const char* kLibPrefix = "lib.";
constexpr int kMaxModuleDepth = 8;  // nested tables made read-only inside a module

// The source of library module `name` ("lib.evidence" -> lib/evidence.lua), or nullptr. Calls
// no Lua API, so its std::string cannot be skipped by a Lua error.
const BuiltinRule* find_module(const std::string& name) {
  if (name.rfind(kLibPrefix, 0) != 0) return nullptr;
  std::string path = name;
  for (char& c : path)
    if (c == '.') c = '/';
  path += ".lua";
  for (const auto& r : builtin_rules())
    if (r.path == path) return &r;
  return nullptr;
}

// __newindex of a module's proxy; upvalue 1 is the table's name ("lib.util", "lib.x.field").
int read_only_error(lua_State* L) {
  return luaL_error(L, "%s is read-only (the rule library)", lua_tostring(L, lua_upvalueindex(1)));
}

int read_only_len(lua_State* L) {
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__index");
  lua_pushinteger(L, static_cast<lua_Integer>(lua_rawlen(L, -1)));
  return 1;
}

int read_only_next(lua_State* L) {
  lua_settop(L, 2);
  if (lua_next(L, lua_upvalueindex(1))) return 2;
  lua_pushnil(L);
  return 1;
}

// pairs() over a proxy: the iterator holds the data table as an upvalue and is called with the
// proxy, so the data table itself never reaches the rule (it could write it).
int read_only_pairs(lua_State* L) {
  lua_getmetatable(L, 1);
  lua_getfield(L, -1, "__index");
  lua_pushcclosure(L, read_only_next, 1);
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

// Replaces the table at the top of the stack by a read-only proxy of it; tables inside it
// first become proxies themselves. `name` is the stack index of the table's name. The Lua API
// may raise (out of memory, a spent budget): a longjmp, so no C++ object with a destructor lives
// here or in lua_require.
void make_read_only(lua_State* L, int name, int depth) {
  luaL_checkstack(L, 8, "rule library");
  int data = lua_gettop(L);
  if (depth < kMaxModuleDepth) {
    lua_pushnil(L);
    while (lua_next(L, data)) {
      if (lua_type(L, -1) == LUA_TTABLE && !lua_getmetatable(L, -1)) {
        lua_pushfstring(L, "%s.%s", lua_tostring(L, name), lua_type(L, -2) == LUA_TSTRING ? lua_tostring(L, -2) : "[]");
        lua_insert(L, -2);  // key, field name, table
        make_read_only(L, lua_gettop(L) - 1, depth + 1);
        lua_remove(L, -2);  // key, proxy
        lua_pushvalue(L, -2);
        lua_insert(L, -2);
        lua_rawset(L, data);  // replacing an existing key's value is allowed while iterating
      } else {
        if (lua_type(L, -1) == LUA_TTABLE) lua_pop(L, 1);  // the metatable getmetatable pushed
        lua_pop(L, 1);
      }
    }
  }
  lua_newtable(L);
  lua_createtable(L, 0, 5);
  lua_pushvalue(L, data);
  lua_setfield(L, -2, "__index");
  lua_pushvalue(L, name);
  lua_pushcclosure(L, read_only_error, 1);
  lua_setfield(L, -2, "__newindex");
  lua_pushcfunction(L, read_only_len);
  lua_setfield(L, -2, "__len");
  lua_pushcfunction(L, read_only_pairs);
  lua_setfield(L, -2, "__pairs");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, -2, "__metatable");
  lua_setmetatable(L, -2);
  lua_replace(L, data);
}

// require(name): the read-only table of a built-in library module, loaded on first use (under
// the budgets of the rule that asks) and then shared by the rest of that rule's code.
int lua_require(lua_State* L) {
  const char* name = luaL_checkstring(L, 1);  // stays alive: argument 1 keeps the string
  lua_settop(L, 1);
  lua_rawgetp(L, LUA_REGISTRYINDEX, &kModuleCacheKey);
  const int cache = 2;
  if (lua_getfield(L, cache, name) == LUA_TTABLE) return 1;
  if (lua_toboolean(L, -1)) return luaL_error(L, "require \"%s\": the module requires itself", name);
  lua_pop(L, 1);
  const BuiltinRule* mod = find_module(name);
  if (!mod)
    return luaL_error(L, "require \"%s\": only the built-in rule library (lib.*, docs/rules.md) can be required", name);
  lua_pushboolean(L, 1);  // loading: a cycle ends in the error above, not in a stack overflow
  lua_setfield(L, cache, name);
  char chunk[160];
  std::snprintf(chunk, sizeof chunk, "@builtin:%.*s", static_cast<int>(mod->path.size()), mod->path.data());
  if (luaL_loadbufferx(L, mod->code.data(), mod->code.size(), chunk, "t") != LUA_OK) return lua_error(L);
  lua_call(L, 0, 1);
  if (!lua_istable(L, -1)) return luaL_error(L, "require \"%s\": the module returned no table", name);
  make_read_only(L, 1, 0);
  lua_pushvalue(L, -1);
  lua_setfield(L, cache, name);
  return 1;
}

}  // namespace

void install_lua_library(lua_State* L) {
  lua_newtable(L);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kModuleCacheKey);
  lua_pushcfunction(L, lua_require);
  lua_setglobal(L, "require");
  // `util` predates require: rules (and users' rules) use it as a global.
  lua_pushcfunction(L, lua_require);
  lua_pushliteral(L, "lib.util");
  if (lua_pcall(L, 1, 1, 0) != LUA_OK) {
    std::fprintf(stderr, "internal error: lib.util: %s\n", lua_tostring(L, -1));
    std::abort();
  }
  lua_setglobal(L, "util");
}

}  // namespace npu
