#include "mcp/facts_lookup.h"

#include <cctype>

#include "facts/facts_schema.h"
#include "mcp/protocol.h"

namespace npu::mcp {

using json = nlohmann::json;

namespace {

constexpr size_t kMaxKeysListed = 200;

bool all_digits(const std::string& s) {
  if (s.empty() || s.size() > 18) return false;
  for (char c : s)
    if (!std::isdigit(static_cast<unsigned char>(c))) return false;
  return true;
}

std::string unescape_pointer(const std::string& t) {
  std::string out;
  for (size_t i = 0; i < t.size(); ++i) {
    if (t[i] == '~' && i + 1 < t.size() && (t[i + 1] == '0' || t[i + 1] == '1')) {
      out += t[i + 1] == '0' ? '~' : '/';
      ++i;
    } else if (t[i] == '~') {
      throw std::invalid_argument("'~' in a JSON Pointer must be ~0 or ~1: " + t);
    } else {
      out += t[i];
    }
  }
  return out;
}

// The schema path of key `key` below `parent` (a map's keys are its `*`), or the plain child path
// when the schema does not know it.
std::string schema_child(const FactsSchema& schema, const std::string& parent, const std::string& key) {
  const std::string plain = parent.empty() ? key : parent + "." + key;
  if (schema.find(plain)) return plain;
  const std::string any = parent.empty() ? "*" : parent + ".*";
  return schema.find(any) ? any : plain;
}

void describe(json& out, const FactsSchema& schema, const std::string& schema_path) {
  out["schema_path"] = schema_path;
  if (const FactsSchemaKey* k = schema.find(schema_path)) {
    out["type"] = k->types;
    if (!k->unit.empty()) out["unit"] = k->unit;
    if (!k->meaning.empty()) out["meaning"] = k->meaning;
  } else if (!schema_path.empty()) {
    out["meaning"] = "not in the facts schema";
  }
}

// The element of array `a` chosen by token `t`: an index, or "id=N" (the element whose id is N).
const json& element(const json& a, const std::string& t, const std::string& where) {
  if (all_digits(t)) {
    const size_t i = std::stoull(t);
    if (i >= a.size())
      throw std::invalid_argument(where + " has " + std::to_string(a.size()) + " elements: no index " + t);
    return a[i];
  }
  if (t.rfind("id=", 0) == 0) {
    const std::string want = t.substr(3);
    for (const auto& e : a)
      if (e.is_object() && e.contains("id") &&
          (e["id"].is_string() ? e["id"].get<std::string>() : e["id"].dump()) == want)
        return e;
    throw std::invalid_argument(where + " has no element with id " + want);
  }
  throw std::invalid_argument(where + " is an array: give an index (0.." + std::to_string(a.size()) +
                              ") or id=N, not '" + t + "'");
}

std::string key_list(const json& o) {
  std::string out;
  size_t n = 0;
  for (const auto& [k, v] : o.items()) {
    if (n++ == 40) return out + ", ...";
    out += (out.empty() ? "" : ", ") + k;
  }
  return out;
}

}  // namespace

std::vector<std::string> facts_path_tokens(const std::string& path) {
  std::vector<std::string> tokens;
  if (path.empty() || path == "/") return tokens;
  if (path[0] == '/') {
    size_t start = 1;
    while (true) {
      const size_t slash = path.find('/', start);
      tokens.push_back(unescape_pointer(path.substr(start, slash == std::string::npos ? slash : slash - start)));
      if (slash == std::string::npos) break;
      start = slash + 1;
    }
    return tokens;
  }
  std::string cur;
  for (size_t i = 0; i < path.size(); ++i) {
    const char c = path[i];
    if (c == '.' || c == '[') {
      if (!cur.empty()) tokens.push_back(cur);
      else if (c == '.' && (i == 0 || path[i - 1] != ']')) throw std::invalid_argument("empty key in " + path);
      cur.clear();
      if (c == '[') {
        const size_t close = path.find(']', i);
        if (close == std::string::npos) throw std::invalid_argument("no ']' after '[' in " + path);
        tokens.push_back(path.substr(i + 1, close - i - 1));
        i = close;
      }
    } else {
      cur += c;
    }
  }
  if (!cur.empty()) tokens.push_back(cur);
  return tokens;
}

json facts_part(const json& facts, const std::string& path, size_t max_value_bytes) {
  const FactsSchema& schema = FactsSchema::builtin();
  const json* cur = &facts;
  std::string schema_path, where = "/";
  for (const auto& t : facts_path_tokens(path)) {
    if (cur->is_array()) {
      cur = &element(*cur, t, where);
      schema_path += "[]";
    } else if (cur->is_object()) {
      if (!cur->contains(t))
        throw std::invalid_argument("no key '" + t + "' at " + where + "; the keys there: " + key_list(*cur));
      cur = &(*cur)[t];
      schema_path = schema_child(schema, schema_path, t);
    } else {
      throw std::invalid_argument(where + " is a " + std::string(cur->type_name()) + ": it has no part '" + t + "'");
    }
    where += (where == "/" ? "" : "/") + t;
  }
  json out = {{"path", where}};
  describe(out, schema, schema_path);
  const size_t bytes = message_line(*cur).size();
  if (cur->is_object()) {
    json keys = json::array();
    for (const auto& [k, v] : cur->items()) {
      if (keys.size() == kMaxKeysListed) {
        out["keys_not_listed"] = cur->size() - kMaxKeysListed;
        break;
      }
      json e = {{"key", k}, {"bytes", message_line(v).size()}};
      describe(e, schema, schema_child(schema, schema_path, k));
      if (v.is_array()) e["length"] = v.size();
      keys.push_back(std::move(e));
    }
    out["keys"] = std::move(keys);
  }
  if (bytes <= max_value_bytes) {
    out["value"] = *cur;
  } else if (cur->is_array()) {
    out["length"] = cur->size();
    if (!cur->empty() && message_line((*cur)[0]).size() <= max_value_bytes) out["first"] = (*cur)[0];
    out["note"] = "the array is " + std::to_string(bytes) + " bytes: ask for one element (" + where +
                  (where == "/" ? "" : "/") + "0) or a key of it";
  } else {
    out["note"] = "the value is " + std::to_string(bytes) + " bytes: ask for one of its keys (listed)";
  }
  return out;
}

}  // namespace npu::mcp
