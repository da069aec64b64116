#include "rules/lua_convert.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include <lua.hpp>

namespace npu {
namespace {

using json = nlohmann::json;

constexpr size_t kValueCost = 16;  // bytes charged per converted value, besides its text

// Length of the valid UTF-8 sequence at s[i] (RFC 3629), or 0 when invalid.
size_t utf8_seq_len(std::string_view s, size_t i) {
  auto b = [&](size_t k) { return static_cast<unsigned char>(s[k]); };
  unsigned char c = b(i);
  if (c < 0x80) return 1;
  size_t n = c >= 0xC2 && c <= 0xDF ? 2 : c >= 0xE0 && c <= 0xEF ? 3 : c >= 0xF0 && c <= 0xF4 ? 4 : 0;
  if (n == 0 || i + n > s.size()) return 0;
  unsigned char lo = 0x80, hi = 0xBF;  // the allowed range of the second byte
  if (c == 0xE0) lo = 0xA0;
  if (c == 0xED) hi = 0x9F;
  if (c == 0xF0) lo = 0x90;
  if (c == 0xF4) hi = 0x8F;
  if (b(i + 1) < lo || b(i + 1) > hi) return 0;
  for (size_t k = 2; k < n; ++k)
    if (b(i + k) < 0x80 || b(i + k) > 0xBF) return 0;
  return n;
}

// A converter for one top-level value: `path` holds the tables being converted (cycle check).
struct Converter {
  lua_State* L;
  size_t& budget;
  std::string& error;
  std::vector<const void*> path;

  bool charge(size_t bytes) {
    if (bytes > budget) {
      error = "output budget exceeded (what the rule emitted is too large)";
      return false;
    }
    budget -= bytes;
    return true;
  }
  bool too_deep(int depth) {
    if (depth <= kMaxConvertDepth) return false;
    error = "a table nested deeper than " + std::to_string(kMaxConvertDepth) + " levels";
    return true;
  }
  bool string(std::string_view s, json& out) {
    if (!charge(kValueCost + s.size())) return false;
    out = sanitize_utf8(s);
    return true;
  }

  // The length Lua's # gave the copied table of an array: n, unless nulls (nil holes) end it.
  static size_t copied_array_len(const json& arr) {
    size_t n = arr.size();
    if (n == 0 || !arr[n - 1].is_null()) return n;
    if (n >= 2 && !arr[n - 2].is_null()) return n - 1;
    size_t i = 0, j = n;  // luaH_getn's binary search over the array part
    while (j - i > 1) {
      size_t m = (i + j) / 2;
      if (arr[m - 1].is_null()) j = m;
      else i = m;
    }
    return i;
  }

  // A facts node (from a view), as the plain-table copy of it converts.
  bool node(const json& v, int depth, json& out) {
    switch (v.type()) {
      case json::value_t::null: out = nullptr; return charge(kValueCost);
      case json::value_t::number_unsigned: out = static_cast<int64_t>(v.get<uint64_t>()); return charge(kValueCost);
      case json::value_t::number_float: {
        double d = v.get<double>();
        out = std::isfinite(d) ? json(d) : json(nullptr);
        return charge(kValueCost);
      }
      case json::value_t::string: return string(v.get_ref<const std::string&>(), out);
      case json::value_t::object:
      case json::value_t::array: break;
      default: out = v; return charge(kValueCost);
    }
    if (too_deep(depth) || !charge(kValueCost)) return false;
    size_t n = v.is_array() ? copied_array_len(v) : 0;
    if (n > 0) {
      out = json::array();
      for (size_t i = 0; i < n; ++i) {
        json e;
        if (!node(v[i], depth + 1, e)) return false;
        out.push_back(std::move(e));
      }
      return true;
    }
    // An object, or an array whose copy had length 0 (its entries had integer keys, dropped).
    out = json::object();
    if (v.is_object())
      for (auto it = v.begin(); it != v.end(); ++it) {
        if (it->is_null()) continue;
        json e;
        if (!charge(it.key().size()) || !node(*it, depth + 1, e)) return false;
        out[it.key()] = std::move(e);
      }
    return true;
  }

  bool value(int idx, int depth, json& out) {
    idx = lua_absindex(L, idx);
    switch (lua_type(L, idx)) {
      case LUA_TNIL: out = nullptr; return charge(kValueCost);
      case LUA_TBOOLEAN: out = lua_toboolean(L, idx) != 0; return charge(kValueCost);
      case LUA_TNUMBER:
        if (lua_isinteger(L, idx)) {
          out = static_cast<int64_t>(lua_tointeger(L, idx));
        } else {
          double d = lua_tonumber(L, idx);
          out = std::isfinite(d) ? json(d) : json(nullptr);
        }
        return charge(kValueCost);
      case LUA_TSTRING: {
        size_t n = 0;
        const char* s = lua_tolstring(L, idx, &n);
        return string(std::string_view(s, n), out);
      }
      case LUA_TTABLE: return table(idx, depth, out);
      default: out = std::string("<") + lua_typename(L, lua_type(L, idx)) + ">"; return charge(kValueCost);
    }
  }

  bool table(int idx, int depth, json& out) {
    // Each level holds at most a key, a value, a metatable and its field, and the view check's
    // slot on the stack.
    if (!lua_checkstack(L, 6)) {
      error = "a table nested too deeply (Lua stack)";
      return false;
    }
    if (const json* n = facts_view_node(L, idx)) return node(*n, depth, out);
    if (too_deep(depth) || !charge(kValueCost)) return false;
    const void* self = lua_topointer(L, idx);
    if (std::find(path.begin(), path.end(), self) != path.end()) {
      error = "a table that contains itself (a cycle)";
      return false;
    }
    path.push_back(self);
    bool ok = table_entries(idx, depth, out);
    path.pop_back();
    return ok;
  }

  bool table_entries(int idx, int depth, json& out) {
    // A read-only proxy (`util`): its data is the metatable's __index table.
    if (lua_getmetatable(L, idx)) {
      lua_pushliteral(L, "__index");  // a metamethod name: interned, no allocation
      lua_rawget(L, -2);
      if (lua_istable(L, -1)) {
        bool ok = value(-1, depth + 1, out);
        lua_pop(L, 2);
        return ok;
      }
      lua_pop(L, 2);
    }
    lua_Integer n = static_cast<lua_Integer>(lua_rawlen(L, idx));
    if (n > 0) {
      out = json::array();
      for (lua_Integer i = 1; i <= n; ++i) {
        lua_rawgeti(L, idx, i);
        json e;
        bool ok = value(-1, depth + 1, e);
        lua_pop(L, 1);
        if (!ok) return false;
        out.push_back(std::move(e));
      }
      return true;
    }
    out = json::object();
    lua_pushnil(L);
    while (lua_next(L, idx) != 0) {
      if (lua_type(L, -2) == LUA_TSTRING) {
        size_t kn = 0;
        const char* k = lua_tolstring(L, -2, &kn);
        json e;
        if (!charge(kn) || !value(-1, depth + 1, e)) {
          lua_pop(L, 2);
          return false;
        }
        out[sanitize_utf8(std::string_view(k, kn))] = std::move(e);
      }
      lua_pop(L, 1);
    }
    return true;
  }
};

}  // namespace

std::string sanitize_utf8(std::string_view s, size_t max_bytes) {
  bool ascii = std::all_of(s.begin(), s.end(), [](char c) { return static_cast<unsigned char>(c) < 0x80; });
  if (ascii && s.size() <= max_bytes) return std::string(s);
  std::string out;
  out.reserve(std::min(s.size(), max_bytes) + 8);
  size_t i = 0;
  while (i < s.size() && i < max_bytes) {
    size_t n = utf8_seq_len(s, i);
    if (n == 0) {
      out += "\xEF\xBF\xBD";  // U+FFFD for the invalid byte
      ++i;
    } else {
      if (i + n > max_bytes) break;
      out.append(s.substr(i, n));
      i += n;
    }
  }
  if (i < s.size()) out += "...";
  return out;
}

bool lua_to_json(lua_State* L, int idx, size_t& budget, nlohmann::json& out, std::string& error) {
  Converter c{L, budget, error, {}};
  try {
    return c.value(idx, 0, out);
  } catch (const std::exception& e) {  // std::bad_alloc: refuse the value, keep the advisor
    error = std::string("could not convert the value: ") + e.what();
    return false;
  }
}

}  // namespace npu
