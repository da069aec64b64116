#include "rules/lua_limits.h"

#include <algorithm>
#include <cstdio>
#include <cstring>

#include <lua.hpp>

#include "rules/lua_sandbox.h"

namespace npu {
namespace {

// ---- pcall / xpcall that do not catch an aborted rule ----

// After a protected call that failed: re-raise when the rule is aborted (or ran out of
// memory: that is the memory budget), else return false and the error, as the base pcall.
int protected_result(lua_State* L, int status, int results_from) {
  LuaSandbox* sb = LuaSandbox::of(L);
  if (status == LUA_OK) {
    lua_pushboolean(L, 1);
    lua_replace(L, results_from);  // the slot below the results holds the function/handler
    return lua_gettop(L) - results_from + 1;
  }
  if (sb->aborted()) sb->abort_rule(L, "");
  if (status == LUA_ERRMEM) {
    char why[80];
    std::snprintf(why, sizeof why, "memory budget exceeded (%zu MiB)", sb->limits().memory_bytes >> 20);
    sb->abort_rule(L, why);
  }
  lua_pushboolean(L, 0);
  lua_insert(L, -2);
  return 2;
}

int sandbox_pcall(lua_State* L) {
  luaL_checkany(L, 1);
  lua_pushnil(L);  // the slot for the status
  lua_insert(L, 1);
  int status = lua_pcall(L, lua_gettop(L) - 2, LUA_MULTRET, 0);
  return protected_result(L, status, 1);
}

// The rule's message handler, run only while the rule is not aborted. An abort is raised from
// the count hook, and Lua runs the handler right there, before unwinding, with hooks off: a
// looping handler would never be stopped.
int guarded_handler(lua_State* L) {
  if (LuaSandbox::of(L)->aborted()) return 1;  // the error as it is
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, lua_gettop(L) - 1, 1);
  return 1;
}

int sandbox_xpcall(lua_State* L) {
  int n = lua_gettop(L);
  luaL_checktype(L, 2, LUA_TFUNCTION);
  lua_pushvalue(L, 2);
  lua_pushcclosure(L, guarded_handler, 1);
  lua_replace(L, 2);
  // [f, msgh, args...] -> [msgh, f, args...]: the handler below the call, as lua_pcall wants.
  lua_pushvalue(L, 1);
  lua_copy(L, 2, 1);
  lua_replace(L, 2);
  int status = lua_pcall(L, n - 2, LUA_MULTRET, 1);
  return protected_result(L, status, 1);
}

// ---- priced pattern matching ----

enum MatchKind { kFind, kMatch, kGmatch, kGsub };
const char* const kMatchName[] = {"find", "match", "gmatch", "gsub"};

bool has_specials(std::string_view p) { return p.find_first_of("^$*+?.([%-") != std::string_view::npos; }

// string.find(s, p, init, true): Lua's own plain search compares the needle at every place the
// first byte matches, O(n x m) (a 4 MB subject ran past 60 s); glibc's memmem is linear (two-way
// algorithm). Same arguments and results as Lua 5.4's.
int plain_find(lua_State* L) {
  size_t ls = 0, lp = 0;
  const char* s = luaL_checklstring(L, 1, &ls);
  const char* p = luaL_checklstring(L, 2, &lp);
  const lua_Integer init = luaL_optinteger(L, 3, 1);
  size_t start = 1;  // 1-based, as lstrlib's posrelatI
  if (init > 0) start = static_cast<size_t>(init);
  else if (init < 0 && static_cast<lua_Unsigned>(-init) <= ls) start = ls - static_cast<size_t>(-init) + 1;
  if (start > ls + 1) {
    lua_pushnil(L);
    return 1;
  }
  const char* from = s + (start - 1);
  const void* at = lp == 0 ? from : memmem(from, ls - (start - 1), p, lp);
  if (at == nullptr) {
    lua_pushnil(L);
    return 1;
  }
  const size_t pos = static_cast<size_t>(static_cast<const char*>(at) - s);
  lua_pushinteger(L, static_cast<lua_Integer>(pos + 1));
  lua_pushinteger(L, static_cast<lua_Integer>(pos + lp));
  return 2;
}

int limited_match(lua_State* L) {
  auto kind = static_cast<MatchKind>(lua_tointeger(L, lua_upvalueindex(2)));
  bool plain = kind == kFind && lua_toboolean(L, 4);
  if (plain) {
    const int n = plain_find(L);
    LuaSandbox::of(L)->check_clock(L);
    return n;
  }
  int t1 = lua_type(L, 1);
  if (!plain && (t1 == LUA_TSTRING || t1 == LUA_TNUMBER) && lua_type(L, 2) == LUA_TSTRING) {
    size_t n = 0, m = 0;
    lua_tolstring(L, 1, &n);
    const char* p = lua_tolstring(L, 2, &m);
    std::string_view pat(p, m);
    double cost =
        kind == kFind && !has_specials(pat) ? double(n) * double(m) : pattern_worst_case(pat, n, kind != kGmatch);
    if (cost > kMaxPatternSteps) {
      char msg[256];
      std::snprintf(msg, sizeof msg,
                    "string.%s: pattern \"%.40s\" is too costly for a %zu-byte subject (worst case %.3g steps, "
                    "limit %.3g): use a plain find (4th argument true) or a simpler pattern",
                    kMatchName[kind], p, n, cost, kMaxPatternSteps);
      return luaL_error(L, "%s", msg);
    }
  }
  int nargs = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, nargs, LUA_MULTRET);
  LuaSandbox::of(L)->check_clock(L);
  return lua_gettop(L);
}

// ---- string.rep, table.move, print ----

int call_original(lua_State* L) {
  int nargs = lua_gettop(L);
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_insert(L, 1);
  lua_call(L, nargs, LUA_MULTRET);
  return lua_gettop(L);
}

int limited_rep(lua_State* L) {
  size_t l = 0, lsep = 0;
  luaL_checklstring(L, 1, &l);
  lua_Integer n = luaL_checkinteger(L, 2);
  luaL_optlstring(L, 3, "", &lsep);
  if (n <= 0 || l + lsep == 0 || (l == 0 && n == 1)) {
    lua_pushliteral(L, "");
    return 1;
  }
  return call_original(L);
}

int limited_move(lua_State* L) {
  lua_Integer f = luaL_checkinteger(L, 2), e = luaL_checkinteger(L, 3);
  if (e >= f &&
      static_cast<lua_Unsigned>(e) - static_cast<lua_Unsigned>(f) >= static_cast<lua_Unsigned>(kMaxMoveElements))
    return luaL_error(L, "table.move: more than %I elements", static_cast<lua_Integer>(kMaxMoveElements));
  return call_original(L);
}

int limited_print(lua_State* L) {
  size_t& left = LuaSandbox::of(L)->print_left();
  if (left == 0) return 0;
  int n = lua_gettop(L);
  luaL_Buffer b;
  luaL_buffinit(L, &b);
  for (int i = 1; i <= n; ++i) {
    if (i > 1) luaL_addchar(&b, '\t');
    luaL_tolstring(L, i, nullptr);
    luaL_addvalue(&b);
  }
  luaL_addchar(&b, '\n');
  luaL_pushresult(&b);
  size_t len = 0;
  const char* s = lua_tolstring(L, -1, &len);
  size_t put = std::min(len, left);
  std::fwrite(s, 1, put, stderr);
  left -= put;
  if (left == 0) std::fputs("\n[rule print() output cut: its budget is spent]\n", stderr);
  return 0;
}

void wrap(lua_State* L, const char* lib, const char* name, lua_CFunction fn, int kind = -1) {
  lua_getglobal(L, lib);
  lua_getfield(L, -1, name);
  int nup = 1;
  if (kind >= 0) {
    lua_pushinteger(L, kind);
    nup = 2;
  }
  lua_pushcclosure(L, fn, nup);
  lua_setfield(L, -2, name);
  lua_pop(L, 1);
}

}  // namespace

double pattern_worst_case(std::string_view p, size_t n, bool anchor_allowed) {
  const double len = double(n) + 1;
  double product = 1, items = 0;
  size_t i = 0;
  if (anchor_allowed && !p.empty() && p[0] == '^') ++i;
  else product = len;  // every start position
  while (i < p.size()) {
    char c = p[i];
    if (c == '(' || c == ')') {
      ++i;
      continue;
    }
    if (c == '$' && i + 1 == p.size()) break;
    ++items;
    bool done = false;  // the item's text is already consumed (an escaped class)
    if (c == '%' && i + 1 < p.size()) {
      char d = p[i + 1];
      if (d == 'b') {  // %bxy: scans the subject
        product *= len;
        i += 4;
        continue;
      }
      if (d >= '0' && d <= '9') {  // a back-reference: compares up to n bytes
        product *= len;
        i += 2;
        continue;
      }
      if (d == 'f') {  // %f[set]: a frontier, one step
        i += 2;
        if (i < p.size() && p[i] == '[') c = '[';  // fall through to skip the set
        else continue;
      } else {
        i += 2;
        done = true;
      }
    }
    if (done) {
      // "%a" and the like: consumed above
    } else if (c == '[') {  // a set: the first ']' after the opening (or after '^') closes it
      ++i;
      if (i < p.size() && p[i] == '^') ++i;
      if (i < p.size()) i += p[i] == '%' ? 2 : 1;
      while (i < p.size() && p[i] != ']') i += p[i] == '%' ? 2 : 1;
      ++i;
    } else {
      ++i;  // any other character, NUL included (it once looped here: found by fuzz_rule)
    }
    if (i < p.size()) {
      char q = p[i];
      if (q == '*' || q == '+' || q == '-') {
        product *= len;
        ++i;
      } else if (q == '?') {
        product *= 2;
        ++i;
      }
    }
  }
  return product * std::max(1.0, items);
}

void install_limited_libs(lua_State* L) {
  lua_pushcfunction(L, sandbox_pcall);
  lua_setglobal(L, "pcall");
  lua_pushcfunction(L, sandbox_xpcall);
  lua_setglobal(L, "xpcall");
  lua_pushcfunction(L, limited_print);
  lua_setglobal(L, "print");
  wrap(L, "string", "find", limited_match, kFind);
  wrap(L, "string", "match", limited_match, kMatch);
  wrap(L, "string", "gmatch", limited_match, kGmatch);
  wrap(L, "string", "gsub", limited_match, kGsub);
  wrap(L, "string", "rep", limited_rep);
  wrap(L, "table", "move", limited_move);
}

}  // namespace npu
