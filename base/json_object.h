// Writing a JSON object member by member, fast: for facts written once per step, tens of
// thousands of times per rank.
//
// nlohmann::json keeps an object in a std::map. `j["key"] = v` builds a std::string and walks
// the tree per member; the initializer-list form `{{"key", v}, ...}` also builds a temporary
// [key, value] array per member. JsonObject gathers the members in a flat list, sorts it once
// (the map's own order) and hands each to the map with end() as the hint: one comparison and
// one node per member, no temporaries.
#pragma once
#include <cstddef>
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
    // Insertion sort, stable: a few dozen members, mostly added in order already (std::stable_sort
    // allocated a buffer per object).
    for (size_t i = 1; i < members_.size(); ++i)
      for (size_t j = i; j > 0 && members_[j].first < members_[j - 1].first; --j) std::swap(members_[j], members_[j - 1]);
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
