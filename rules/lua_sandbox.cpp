#include "rules/lua_sandbox.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <string_view>

#include <lua.hpp>

#include "base/text.h"
#include "rules/lua_convert.h"
#include "rules/lua_library.h"
#include "rules/lua_limits.h"

namespace npu {
namespace {

using json = nlohmann::json;

constexpr int kHookEvery = 10000;  // instructions between budget checks
constexpr const char* kReadOnly = "facts are read-only";

int read_only_newindex(lua_State* L) { return luaL_error(L, kReadOnly); }

// next(t, k) of the base library, for a table that is not a view.
int raw_next(lua_State* L) {
  lua_settop(L, 2);
  if (lua_next(L, 1)) return 2;
  lua_pushnil(L);
  return 1;
}
// ---- Lazy views of the shared C++ facts document ----
//
// A view is a table (so type() is "table") with the one shared view metatable and a single
// raw field: its const json*, as a light userdata, under a light-userdata key that Lua code
// cannot make (there is no rawget in the sandbox, and next() is replaced by a view-aware one,
// so rules never see it). `cache` (weak values) maps the node pointer -> its view, so a node
// read twice while its view is alive gives the same table. The metamethods are C closures
// with upvalues 1 = cache, 2 = the metatable (__pairs also 3 = the view-aware next).
char kViewNodeField, kViewCacheKey, kViewMetaKey, kViewNextKey;  // addresses used as keys

constexpr int kCache = 1, kMeta = 2, kNext = 3;

const json* view_node(lua_State* L, int idx) {
  if (lua_type(L, idx) != LUA_TTABLE) return nullptr;
  const json* n = nullptr;
  if (lua_rawgetp(L, idx, &kViewNodeField) == LUA_TLIGHTUSERDATA) n = static_cast<const json*>(lua_touserdata(L, -1));
  lua_pop(L, 1);
  return n;
}

// Pushes `v`: scalars as Lua values (null as nil), objects and arrays as (cached) views.
// cache/meta are absolute or upvalue indices.
void push_node(lua_State* L, const json& v, int cache, int meta) {
  switch (v.type()) {
    case json::value_t::null: lua_pushnil(L); return;
    case json::value_t::boolean: lua_pushboolean(L, v.get<bool>()); return;
    case json::value_t::number_integer: lua_pushinteger(L, v.get<int64_t>()); return;
    case json::value_t::number_unsigned: lua_pushinteger(L, static_cast<lua_Integer>(v.get<uint64_t>())); return;
    case json::value_t::number_float: lua_pushnumber(L, v.get<double>()); return;
    case json::value_t::string: {
      const auto& s = v.get_ref<const std::string&>();
      lua_pushlstring(L, s.data(), s.size());
      return;
    }
    case json::value_t::object:
    case json::value_t::array: break;
    default: lua_pushnil(L); return;  // binary, discarded: not in facts
  }
  void* key = const_cast<json*>(&v);
  if (lua_rawgetp(L, cache, key) != LUA_TNIL) return;
  lua_pop(L, 1);
  lua_createtable(L, 0, 1);
  lua_pushlightuserdata(L, key);
  lua_rawsetp(L, -2, &kViewNodeField);
  lua_pushvalue(L, meta);
  lua_setmetatable(L, -2);
  lua_pushvalue(L, -1);
  lua_rawsetp(L, cache, key);
}

// The element of an array node for a Lua key (integers, and floats with an integral value,
// as Lua tables index them), or nullptr.
const json* array_at(lua_State* L, const json& arr, int key_idx) {
  if (lua_type(L, key_idx) != LUA_TNUMBER) return nullptr;
  int isnum = 0;
  lua_Integer i = lua_tointegerx(L, key_idx, &isnum);
  if (!isnum || i < 1 || static_cast<lua_Unsigned>(i) > arr.size()) return nullptr;
  return &arr[static_cast<size_t>(i - 1)];
}

int view_index(lua_State* L) {
  const json* node = view_node(L, 1);
  const json* v = nullptr;
  if (node && node->is_object()) {
    if (lua_type(L, 2) == LUA_TSTRING) {
      size_t n = 0;
      const char* k = lua_tolstring(L, 2, &n);
      const auto& obj = node->get_ref<const json::object_t&>();
      auto it = obj.find(std::string_view(k, n));
      if (it != obj.end()) v = &it->second;
    }
  } else if (node && node->is_array()) {
    v = array_at(L, *node, 2);
  }
  if (!v) {
    lua_pushnil(L);
    return 1;
  }
  push_node(L, *v, lua_upvalueindex(kCache), lua_upvalueindex(kMeta));
  return 1;
}

int view_len(lua_State* L) {
  const json* node = view_node(L, 1);
  // Objects have string keys only: their length is 0, as for a Lua table with no 1..n.
  lua_pushinteger(L, node && node->is_array() ? static_cast<lua_Integer>(node->size()) : 0);
  return 1;
}

// next(t, k) for views (in key order: 1..n for arrays, sorted keys for objects; null values
// are skipped, as a copied table would not hold them) and raw next for any other table. It
// is the sandbox's global `next` and what pairs() on a view iterates with.
int view_next(lua_State* L) {
  const json* node = view_node(L, 1);
  if (!node) {
    luaL_checktype(L, 1, LUA_TTABLE);
    return raw_next(L);  // a plain table: raw next
  }
  const int cache = lua_upvalueindex(kCache), meta = lua_upvalueindex(kMeta);
  if (node->is_array()) {
    size_t i = 0;
    if (!lua_isnoneornil(L, 2)) {
      int isnum = 0;
      lua_Integer k = lua_type(L, 2) == LUA_TNUMBER ? lua_tointegerx(L, 2, &isnum) : 0;
      if (!isnum || k < 1 || static_cast<lua_Unsigned>(k) > node->size()) return luaL_error(L, "invalid key to 'next'");
      i = static_cast<size_t>(k);
    }
    for (; i < node->size(); ++i)
      if (!(*node)[i].is_null()) {
        lua_pushinteger(L, static_cast<lua_Integer>(i + 1));
        push_node(L, (*node)[i], cache, meta);
        return 2;
      }
  } else if (node->is_object()) {
    const auto& obj = node->get_ref<const json::object_t&>();
    auto it = obj.begin();
    if (!lua_isnoneornil(L, 2)) {
      if (lua_type(L, 2) != LUA_TSTRING) return luaL_error(L, "invalid key to 'next'");
      size_t n = 0;
      const char* k = lua_tolstring(L, 2, &n);
      it = obj.find(std::string_view(k, n));
      if (it == obj.end()) return luaL_error(L, "invalid key to 'next'");
      ++it;
    }
    for (; it != obj.end(); ++it)
      if (!it->second.is_null()) {
        lua_pushlstring(L, it->first.data(), it->first.size());
        push_node(L, it->second, cache, meta);
        return 2;
      }
  }
  lua_pushnil(L);
  return 1;
}

// The sandbox's pairs(t): t's __pairs when it has one, else the view-aware next. The base
// library's pairs hands out its own raw next, which, taken from pairs({}) and called on a view,
// returned the view's hidden fields (C++ pointers as userdata).
int sandbox_pairs(lua_State* L) {
  luaL_checkany(L, 1);
  if (luaL_getmetafield(L, 1, "__pairs") != LUA_TNIL) {
    lua_pushvalue(L, 1);
    lua_call(L, 1, 3);
    return 3;
  }
  lua_pushvalue(L, lua_upvalueindex(1));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

int view_pairs(lua_State* L) {
  lua_pushvalue(L, lua_upvalueindex(kNext));
  lua_pushvalue(L, 1);
  lua_pushnil(L);
  return 3;
}

}  // namespace

const nlohmann::json* facts_view_node(lua_State* L, int idx) { return view_node(L, idx); }

LuaSandbox* LuaSandbox::of(lua_State* L) { return *static_cast<LuaSandbox**>(lua_getextraspace(L)); }

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
  LuaSandbox* self = of(L);
  if (self->aborted_) self->abort_rule(L, "");  // once aborted, every instruction fails
  self->executed_ += kHookEvery;
  if (self->executed_ > self->limits_.instructions) {
    char why[96];
    std::snprintf(why, sizeof why, "instruction budget exceeded (%lld instructions): endless loop?",
                  self->limits_.instructions);
    self->abort_rule(L, why);
  }
  self->check_clock(L);
}

void LuaSandbox::check_clock(lua_State* L) {
  if (std::chrono::steady_clock::now() <= deadline_) return;
  char why[120];
  if (total_bound_)
    std::snprintf(why, sizeof why, "the rules' total time budget of this command (%lld ms) is spent",
                  limits_.total_wall_ms);
  else std::snprintf(why, sizeof why, "time budget exceeded (%lld ms)", limits_.wall_ms);
  abort_rule(L, why);
}

void LuaSandbox::abort_rule(lua_State* L, const char* why) {
  if (!aborted_) {
    aborted_ = true;
    abort_reason_ = why;
    lua_sethook(L, &LuaSandbox::hook, LUA_MASKCOUNT, 1);
    luaL_where(L, 0);  // in the hook: the running Lua function (may fail with no memory left)
    const char* where = lua_tostring(L, -1);
    abort_reason_.insert(0, where ? where : "");
    lua_pop(L, 1);
  }
  lua_pushstring(L, abort_reason_.c_str());
  lua_error(L);
  std::abort();  // not reached: lua_error does not return
}

std::atomic<long long>& LuaSandbox::total_spent() const {
  static std::atomic<long long> process_spent_ms{0};
  return limits_.total_spent_ms ? *limits_.total_spent_ms : process_spent_ms;
}

// A phase gets its own budget, or what is left of the command's total when that is less.
void LuaSandbox::refresh_deadline() {
  const auto now = std::chrono::steady_clock::now();
  account_time();
  since_ = now;
  const long long left = std::max(0LL, limits_.total_wall_ms - total_spent().load());
  total_bound_ = left < limits_.wall_ms;
  deadline_ = now + std::chrono::milliseconds(total_bound_ ? left : limits_.wall_ms);
}

void LuaSandbox::account_time() {
  const auto now = std::chrono::steady_clock::now();
  if (since_.time_since_epoch().count() != 0)
    total_spent() += std::chrono::duration_cast<std::chrono::milliseconds>(now - since_).count();
  since_ = now;
}

LuaSandbox::LuaSandbox(const SandboxLimits& limits)
    : limits_(limits), output_left_(limits.output_bytes), print_left_(limits.print_bytes) {
  refresh_deadline();
  L_ = lua_newstate(&LuaSandbox::alloc, this);
  if (!L_) throw std::bad_alloc();
  *static_cast<LuaSandbox**>(lua_getextraspace(L_)) = this;
  // Only the safe libraries: no io, os, package, debug, coroutine-free of nothing dangerous.
  luaL_requiref(L_, LUA_GNAME, luaopen_base, 1);
  luaL_requiref(L_, LUA_STRLIBNAME, luaopen_string, 1);
  luaL_requiref(L_, LUA_TABLIBNAME, luaopen_table, 1);
  luaL_requiref(L_, LUA_MATHLIBNAME, luaopen_math, 1);
  luaL_requiref(L_, LUA_UTF8LIBNAME, luaopen_utf8, 1);
  lua_pop(L_, 5);
  for (const char* name : {"dofile", "loadfile", "load", "loadstring", "require", "collectgarbage", "rawset", "rawget",
                           "rawequal", "setmetatable", "getmetatable", "warn"}) {
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
  install_views();
  install_limited_libs(L_);
  install_lua_library(L_);
  lua_sethook(L_, &LuaSandbox::hook, LUA_MASKCOUNT, kHookEvery);
  // Everything runs under lua_pcall; should an error ever escape, fail loudly, not silently.
  lua_atpanic(L_, [](lua_State* L) -> int {
    const char* msg = lua_tostring(L, -1);
    std::fprintf(stderr, "internal error: unprotected Lua error: %s\n", msg ? msg : "?");
    std::abort();
  });
}

void LuaSandbox::install_views() {
  lua_State* L = L_;
  lua_newtable(L);  // cache: node -> view (weak values)
  lua_createtable(L, 0, 1);
  lua_pushliteral(L, "v");
  lua_setfield(L, -2, "__mode");
  lua_setmetatable(L, -2);
  int cache = lua_gettop(L);
  lua_createtable(L, 0, 5);  // the views' metatable
  int meta = lua_gettop(L);
  auto push_upvalues = [&] {
    lua_pushvalue(L, cache);
    lua_pushvalue(L, meta);
  };
  push_upvalues();
  lua_pushcclosure(L, view_next, 2);
  int next = lua_gettop(L);
  push_upvalues();
  lua_pushcclosure(L, view_index, 2);
  lua_setfield(L, meta, "__index");
  lua_pushcfunction(L, read_only_newindex);
  lua_setfield(L, meta, "__newindex");
  lua_pushcfunction(L, view_len);
  lua_setfield(L, meta, "__len");
  push_upvalues();
  lua_pushvalue(L, next);
  lua_pushcclosure(L, view_pairs, 3);
  lua_setfield(L, meta, "__pairs");
  lua_pushliteral(L, "read-only");
  lua_setfield(L, meta, "__metatable");
  // next() sees into views too (the base library's would see only the hidden node field).
  lua_pushvalue(L, next);
  lua_setglobal(L, "next");
  lua_pushvalue(L, next);
  lua_pushcclosure(L, sandbox_pairs, 1);
  lua_setglobal(L, "pairs");
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kViewNextKey);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kViewMetaKey);
  lua_rawsetp(L, LUA_REGISTRYINDEX, &kViewCacheKey);
}

void LuaSandbox::push_view(const nlohmann::json& j) {
  luaL_checkstack(L_, 6, "facts view");
  lua_rawgetp(L_, LUA_REGISTRYINDEX, &kViewCacheKey);
  lua_rawgetp(L_, LUA_REGISTRYINDEX, &kViewMetaKey);
  int top = lua_gettop(L_);
  push_node(L_, j, top - 1, top);
  lua_replace(L_, top - 1);
  lua_settop(L_, top - 1);
}

LuaSandbox::~LuaSandbox() {
  if (L_) lua_close(L_);
}

void LuaSandbox::reset_budget() {
  executed_ = 0;
  refresh_deadline();
}

void LuaSandbox::set_error_from_stack() {
  const char* msg = lua_tostring(L_, -1);
  error_ = aborted_ ? abort_reason_ : msg ? msg : "error object is not a string";
  if (memory_exceeded_ && error_.find("memory") != std::string::npos)
    error_ = "memory budget exceeded (" + std::to_string(limits_.memory_bytes >> 20) + " MiB): " + error_;
  // An error message is text for a person, and it goes into the report: error(string.rep("x",
  // 60e6)) would carry 60 MB out of the rule's budgets. Kept to its first kMaxErrorBytes.
  constexpr size_t kMaxErrorBytes = 4096;
  if (error_.size() > kMaxErrorBytes) {
    const size_t total = error_.size();
    error_.resize(text::utf8_prefix(error_, kMaxErrorBytes));
    error_ += "... (" + std::to_string(total) + " bytes)";
  }
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
  since_ = std::chrono::steady_clock::now();
  const int status = lua_pcall(L_, nargs, nresults, 0);
  account_time();
  since_ = {};  // time outside Lua is not the rules'
  if (status != LUA_OK) {
    set_error_from_stack();
    return false;
  }
  return true;
}

bool LuaSandbox::to_json(int index, nlohmann::json& out) {
  if (lua_to_json(L_, index, output_left_, out, error_)) return true;
  out = nullptr;
  return false;
}

}  // namespace npu
