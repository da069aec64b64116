// Id lookups for the database loader: the export's ids (connection ids, CONNECTION_IDS ids,
// global task ids) are integers handed out in sequence, so a table indexed by id beats a hash
// map on the millions of rows of a long capture; ids spread too thin fall back to a search.
#pragma once
#include <algorithm>
#include <cstdint>
#include <numeric>
#include <span>
#include <vector>

namespace npu {

// True when ids in [lo, hi] are dense enough for a table of hi - lo + 1 slots over `n` ids: at
// most 16 slots per id (a 1 GB export's TASK.connectionId spans 9 ids per task: the others went
// to CANN_API and COMMUNICATION_OP).
inline bool dense_id_range(int64_t lo, int64_t hi, size_t n) {
  return lo <= hi && static_cast<uint64_t>(hi) - static_cast<uint64_t>(lo) < 16 * uint64_t{n} + 65536;
}

// An id -> values multimap built once: add() every pair, build(), then values(id). The values
// of one id come newest first, which is the order std::unordered_multimap's equal_range gave
// (libstdc++ puts a new element before its equals), so the flows keep their order.
template <typename V>
class IdMultiIndex {
 public:
  void reserve(size_t n) {
    keys_.reserve(n);
    vals_.reserve(n);
  }
  void add(int64_t key, V v) {
    keys_.push_back(key);
    vals_.push_back(v);
  }

  void build() {
    const size_t n = keys_.size();
    if (n == 0) return;
    auto [mn, mx] = std::minmax_element(keys_.begin(), keys_.end());
    lo_ = *mn;
    dense_ = dense_id_range(*mn, *mx, n);
    sorted_.reserve(n);
    sorted_.resize(n);
    if (dense_) {
      // Counting sort by id; filling from the newest pair puts each id's values newest first.
      offsets_.assign(static_cast<size_t>(*mx - lo_) + 2, 0);
      for (int64_t k : keys_) ++offsets_[static_cast<size_t>(k - lo_) + 1];
      for (size_t i = 1; i < offsets_.size(); ++i) offsets_[i] += offsets_[i - 1];
      std::vector<uint32_t> fill(offsets_.begin(), offsets_.end() - 1);
      for (size_t i = n; i-- > 0;) sorted_[fill[static_cast<size_t>(keys_[i] - lo_)]++] = vals_[i];
    } else {
      std::vector<uint32_t> order(n);
      std::iota(order.begin(), order.end(), 0u);
      std::sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
        return keys_[a] != keys_[b] ? keys_[a] < keys_[b] : a > b;  // newest first within an id
      });
      sorted_keys_.resize(n);
      for (size_t i = 0; i < n; ++i) {
        sorted_keys_[i] = keys_[order[i]];
        sorted_[i] = vals_[order[i]];
      }
    }
    std::vector<int64_t>().swap(keys_);
    std::vector<V>().swap(vals_);
  }

  std::span<const V> values(int64_t key) const {
    if (sorted_.empty()) return {};
    if (dense_) {
      const uint64_t k = static_cast<uint64_t>(key) - static_cast<uint64_t>(lo_);
      if (key < lo_ || k + 1 >= offsets_.size()) return {};
      return {sorted_.data() + offsets_[k], sorted_.data() + offsets_[k + 1]};
    }
    auto [b, e] = std::equal_range(sorted_keys_.begin(), sorted_keys_.end(), key);
    return {sorted_.data() + (b - sorted_keys_.begin()), sorted_.data() + (e - sorted_keys_.begin())};
  }

 private:
  std::vector<int64_t> keys_;
  std::vector<V> vals_;
  int64_t lo_ = 0;
  bool dense_ = false;
  std::vector<uint32_t> offsets_;     // dense: values of id k are sorted_[offsets_[k - lo_], offsets_[k - lo_ + 1])
  std::vector<int64_t> sorted_keys_;  // sparse: sorted_'s ids, ascending
  std::vector<V> sorted_;
};

}  // namespace npu
