// Interned strings: every name in the model is stored once and referred to by a StrId.
#pragma once
#include <deque>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

#include "base/types.h"

namespace npu {

class StringPool {
 public:
  StringPool();
  StringPool(const StringPool&) = delete;
  StringPool& operator=(const StringPool&) = delete;
  StringPool(StringPool&&) = default;
  StringPool& operator=(StringPool&&) = default;

  StrId intern(std::string_view s);
  // Returns kNone32 when the string was never interned (no insertion).
  StrId find(std::string_view s) const;
  std::string_view str(StrId id) const { return views_[id]; }
  size_t size() const { return views_.size(); }

 private:
  // std::deque keeps element addresses stable, so the string_views stay valid.
  std::deque<std::string> storage_;
  std::vector<std::string_view> views_;
  std::unordered_map<std::string_view, StrId> index_;
};

}  // namespace npu
