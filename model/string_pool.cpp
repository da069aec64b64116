#include "model/string_pool.h"

#include <string>

#include "base/text.h"

namespace npu {

StringPool::StringPool() { intern(""); }

StrId StringPool::intern(std::string_view s) {
  // A "name" past kMaxNameBytes is not one (no operator, kernel or file is named so): it is kept
  // cut, with its length, so that one 200 MB string cannot be copied into every list and report
  // that shows it. The cut falls on a UTF-8 character boundary.
  if (s.size() > text::kMaxNameBytes) return intern(text::clip(s));
  auto it = index_.find(s);
  if (it != index_.end()) return it->second;
  storage_.emplace_back(s);
  std::string_view v = storage_.back();
  StrId id = static_cast<StrId>(views_.size());
  views_.push_back(v);
  index_.emplace(v, id);
  return id;
}

StrId StringPool::find(std::string_view s) const {
  auto it = index_.find(s);
  return it == index_.end() ? kNone32 : it->second;
}

}  // namespace npu
