// Joins flow "s" and "f" points into Flow arrows as the trace is merged, in file order.
//
// Points with the same (cat, id) pair up through a hash map of the ones still open, so
// nothing is sorted and the points are never stored all at once (a big trace has millions;
// only the few arrows open at a time are held). An id seen again after it was paired starts
// a new arrow (ids are sometimes reused); a second start (or end) before the first was matched
// replaces it, and the first is counted as dangling.
#pragma once
#include <unordered_map>

#include "loaders/common/trace_chunk_parser.h"
#include "model/model.h"

namespace npu {

class FlowPairing {
 public:
  explicit FlowPairing(RunModel& model) : model_(model) {}

  // `p` with model-wide string and track ids.
  void add(const RawFlowPoint& p) {
    if (p.phase != 's' && p.phase != 'f') return;  // 't' steps are not needed
    Key k{p.id, p.cat, p.id_is_str};
    auto& mine = p.phase == 's' ? open_starts_ : open_ends_;
    auto& other = p.phase == 's' ? open_ends_ : open_starts_;
    auto it = other.find(k);
    if (it != other.end()) {
      if (p.phase == 's') emit(p, it->second);
      else emit(it->second, p);
      other.erase(it);
      return;
    }
    auto [slot, inserted] = mine.try_emplace(k, p);
    if (!inserted) {
      ++dangling_;
      slot->second = p;
    }
  }

  // Counts what never found its other end.
  void finish() {
    model_.stats.dangling_flow_points += dangling_ + open_starts_.size() + open_ends_.size();
    open_starts_.clear();
    open_ends_.clear();
    dangling_ = 0;
  }

 private:
  struct Key {
    int64_t id;
    StrId cat;
    bool is_str;
    bool operator==(const Key& o) const { return id == o.id && cat == o.cat && is_str == o.is_str; }
  };
  struct KeyHash {
    size_t operator()(const Key& k) const {
      uint64_t h = static_cast<uint64_t>(k.id) * 0x9E3779B97F4A7C15ull ^ (uint64_t{k.cat} << 1 | k.is_str);
      return static_cast<size_t>(h ^ (h >> 29));
    }
  };

  void emit(const RawFlowPoint& st, const RawFlowPoint& en) {
    auto [kind, fresh] = kind_by_cat_.try_emplace(st.cat, FlowKind::Other);
    if (fresh) kind->second = flow_kind_from_category(model_.str(st.cat));
    model_.flows.push_back(
        Flow::between(st.id, {st.ts, st.loc, st.track}, {en.ts, en.loc, en.track}, kind->second, st.cat, st.name));
  }

  RunModel& model_;
  std::unordered_map<Key, RawFlowPoint, KeyHash> open_starts_, open_ends_;
  std::unordered_map<StrId, FlowKind> kind_by_cat_;
  uint64_t dangling_ = 0;
};

}  // namespace npu
