#include "rules/lua_sandbox.h"

#include <lua.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

namespace npu {
namespace {

constexpr int kHookEvery = 10000;  // instructions between budget checks
constexpr const char* kSandboxKey = "npu_advisor_sandbox";

int read_only_newindex(lua_State* L) { return luaL_error(L, "facts are read-only"); }

// Read-only tables are empty proxies whose metatable's __index is the data table; these
// give them length and pairs() over the data.
void push_proxy_data(lua_State* L, int proxy) {
  lua_getmetatable(L, proxy);
  lua_getfield(L, -1, "__index");
  lua_remove(L, -2);
}
int read_only_len(lua_State* L) {
  push_proxy_data(L, 1);
  lua_pushinteger(L, static_cast<lua_Integer>(lua_rawlen(L, -1)));
  return 1;
}
int read_only_next(lua_State* L) {
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}
int read_only_pairs(lua_State* L) {
  lua_pushcfunction(L, read_only_next);
  push_proxy_data(L, 1);
  lua_pushnil(L);
  return 3;
}

}  // namespace

void* LuaSandbox::alloc(void* ud, void* ptr, size_t osize, size_t nsize) {
  auto* self = static_cast<LuaSandbox*>(ud);
  size_t old = ptr ? osize : 0;
  if (nsize == 0) {
    std::free(ptr);
    self->used_ -= old;
    return nullptr;
  }
  if (nsize > old && !self->trusted_ && self->used_ + (nsize - old) > self->baseline_ + self->limits_.memory_bytes) {
    self->memory_exceeded_ = true;
    return nullptr;  // Lua raises "not enough memory"
  }
  void* p = std::realloc(ptr, nsize);
  if (p) self->used_ = self->used_ - old + nsize;
  return p;
}

void LuaSandbox::hook(lua_State* L, lua_Debug*) {
  lua_getfield(L, LUA_REGISTRYINDEX, kSandboxKey);
  auto* self = static_cast<LuaSandbox*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  self->executed_ += kHookEvery;
  if (self->executed_ > self->limits_.instructions)
    luaL_error(L, "instruction budget exceeded (%I instructions): endless loop?",
               static_cast<lua_Integer>(self->limits_.instructions));
}

LuaSandbox::LuaSandbox(const SandboxLimits& limits) : limits_(limits) {
  L_ = lua_newstate(&LuaSandbox::alloc, this);
  lua_pushlightuserdata(L_, this);
  lua_setfield(L_, LUA_REGISTRYINDEX, kSandboxKey);
  // Only the safe libraries: no io, os, package, debug, coroutine-free of nothing dangerous.
  luaL_requiref(L_, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L_, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L_, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L_, LUA_MATHLIBNAME, luaopen_math, 1);
  luaL_requiref(L_, LUA_UTF8LIBNAME, luaopen_utf8, 1);
  lua_pop(L_, 5);
  for (const char* name : {"dofile", "loadfile", "load", "loadstring", "require", "collectgarbage", "rawset",
                           "rawget", "rawequal", "setmetatable", "getmetatable"}) {
    lua_pushnil(L_);
    lua_setglobal(L_, name);
  }
  // string.dump would expose bytecode; strings' metatable __index stays (s:format works).
  lua_getglobal(L_, "string");
  lua_pushnil(L_);
  lua_setfield(L_, -2, "dump");
  lua_pop(L_, 1);
  // math.random is deterministic-free noise in a rule; keep it out.
  lua_getglobal(L_, "math");
  lua_pushnil(L_);
  lua_setfield(L_, -2, "randomseed");
  lua_pop(L_, 1);
  lua_sethook(L_, &LuaSandbox::hook, LUA_MASKCOUNT, kHookEvery);
  // Everything runs under lua_pcall; should an error ever escape, fail loudly, not silently.
  lua_atpanic(L_, [](lua_State* L) -> int {
    const char* msg = lua_tostring(L, -1);
    std::fprintf(stderr, "internal error: unprotected Lua error: %s\n", msg ? msg : "?");
    std::abort();
  });
}

LuaSandbox::~LuaSandbox() {
  if (L_) lua_close(L_);
}

void LuaSandbox::reset_budget() { executed_ = 0; }

void LuaSandbox::set_error_from_stack() {
  const char* msg = lua_tostring(L_, -1);
  error_ = msg ? msg : "error object is not a string";
  if (memory_exceeded_ && error_.find("memory") != std::string::npos)
    error_ = "memory budget exceeded (" + std::to_string(limits_.memory_bytes >> 20) + " MiB): " + error_;
  lua_pop(L_, 1);
}

bool LuaSandbox::run_chunk(const std::string& code, const std::string& chunk_name) {
  // Text only ("t"): precompiled bytecode can break the VM's safety.
  if (luaL_loadbufferx(L_, code.data(), code.size(), ("@" + chunk_name).c_str(), "t") != LUA_OK) {
    set_error_from_stack();
    return false;
  }
  return call(0, 0);
}

bool LuaSandbox::call(int nargs, int nresults) {
  if (lua_pcall(L_, nargs, nresults, 0) != LUA_OK) {
    set_error_from_stack();
    return false;
  }
  return true;
}

void LuaSandbox::push_json(const nlohmann::json& j, bool read_only) {
  luaL_checkstack(L_, 4, "json nesting");
  switch (j.type()) {
    case nlohmann::json::value_t::null: lua_pushnil(L_); return;
    case nlohmann::json::value_t::boolean: lua_pushboolean(L_, j.get<bool>()); return;
    case nlohmann::json::value_t::number_integer: lua_pushinteger(L_, j.get<int64_t>()); return;
    case nlohmann::json::value_t::number_unsigned: lua_pushinteger(L_, static_cast<lua_Integer>(j.get<uint64_t>())); return;
    case nlohmann::json::value_t::number_float: lua_pushnumber(L_, j.get<double>()); return;
    case nlohmann::json::value_t::string: {
      const auto& s = j.get_ref<const std::string&>();
      lua_pushlstring(L_, s.data(), s.size());
      return;
    }
    case nlohmann::json::value_t::array: {
      lua_createtable(L_, static_cast<int>(j.size()), 0);
      lua_Integer i = 1;
      for (const auto& v : j) {
        push_json(v, read_only);
        lua_rawseti(L_, -2, i++);
      }
      break;
    }
    case nlohmann::json::value_t::object: {
      lua_createtable(L_, 0, static_cast<int>(j.size()));
      for (auto it = j.begin(); it != j.end(); ++it) {
        push_json(it.value(), read_only);
        lua_setfield(L_, -2, it.key().c_str());
      }
      break;
    }
    default: lua_pushnil(L_); return;
  }
  if (read_only) {
    // Replace the table by an empty proxy: reads go to the data (__index), writes are
    // refused (__newindex), # and pairs() see the data. A rule can build its own tables.
    int data = lua_gettop(L_);
    lua_newtable(L_);                // proxy
    lua_createtable(L_, 0, 5);       // metatable
    lua_pushvalue(L_, data);
    lua_setfield(L_, -2, "__index");
    lua_pushcfunction(L_, read_only_newindex);
    lua_setfield(L_, -2, "__newindex");
    lua_pushcfunction(L_, read_only_len);
    lua_setfield(L_, -2, "__len");
    lua_pushcfunction(L_, read_only_pairs);
    lua_setfield(L_, -2, "__pairs");
    lua_pushliteral(L_, "read-only");
    lua_setfield(L_, -2, "__metatable");
    lua_setmetatable(L_, -2);
    lua_replace(L_, data);           // the proxy takes the data's stack slot
  }
}

nlohmann::json LuaSandbox::to_json(int index, int depth) {
  index = lua_absindex(L_, index);
  if (depth > 32) return "<too deep>";
  switch (lua_type(L_, index)) {
    case LUA_TNIL: return nullptr;
    case LUA_TBOOLEAN: return lua_toboolean(L_, index) != 0;
    case LUA_TNUMBER:
      if (lua_isinteger(L_, index)) return static_cast<int64_t>(lua_tointeger(L_, index));
      {
        double d = lua_tonumber(L_, index);
        if (!std::isfinite(d)) return nullptr;
        return d;
      }
    case LUA_TSTRING: {
      size_t n = 0;
      const char* s = lua_tolstring(L_, index, &n);
      return std::string(s, n);
    }
    case LUA_TTABLE: {
      // A read-only proxy (facts passed back in emit{evidence = ...}): read its data.
      if (lua_getmetatable(L_, index)) {
        lua_getfield(L_, -1, "__index");
        if (lua_istable(L_, -1)) {
          nlohmann::json j = to_json(-1, depth + 1);
          lua_pop(L_, 2);
          return j;
        }
        lua_pop(L_, 2);
      }
      lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L_, index));
      bool is_array = n > 0;
      if (is_array) {
        nlohmann::json a = nlohmann::json::array();
        for (lua_Integer i = 1; i <= n; ++i) {
          lua_rawgeti(L_, index, i);
          a.push_back(to_json(-1, depth + 1));
          lua_pop(L_, 1);
        }
        return a;
      }
      nlohmann::json o = nlohmann::json::object();
      lua_pushnil(L_);
      while (lua_next(L_, index) != 0) {
        if (lua_type(L_, -2) == LUA_TSTRING) o[lua_tostring(L_, -2)] = to_json(-1, depth + 1);
        lua_pop(L_, 1);
      }
      return o;
    }
    default: return std::string("<") + luaL_typename(L_, index) + ">";
  }
}

}  // namespace npu
