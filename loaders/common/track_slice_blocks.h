// Slices collected per track while a trace is merged, in blocks, then moved into the model's
// slice table already grouped by track.
//
// Why: the model wants its slices grouped by track and sorted by time. Appending them in file
// order (tracks interleaved) and regrouping at the end needs a second copy of the whole table
// (a gather) or a slow in-place permutation. Collecting them per track costs the same appends,
// and the final move frees each block as soon as it is copied, so the peak is the table plus
// one block, and RunModel::finalize finds the tracks grouped and (usually) sorted already.
#pragma once
#include <algorithm>
#include <cstddef>
#include <memory>
#include <new>
#include <vector>

#include "model/model.h"

namespace npu {

class TrackSliceBlocks {
 public:
  void push(uint32_t track, const Slice& s) {
    if (track >= tracks_.size()) tracks_.resize(size_t{track} + 1);
    PerTrack& t = tracks_[track];
    if (t.blocks.empty() || t.last_fill == t.last_cap) {
      // Blocks double from small (most tracks are short) up to 4 MiB, so a short track wastes
      // little and a long one needs few blocks.
      size_t cap = t.blocks.empty() ? kFirstBlock : std::min(t.last_cap * 2, kMaxBlock);
      // Raw storage: each slot is constructed once, by the copy below.
      t.blocks.emplace_back(static_cast<Slice*>(::operator new(cap * sizeof(Slice))));
      t.caps.push_back(cap);
      t.last_cap = cap;
      t.last_fill = 0;
    }
    new (t.blocks.back().get() + t.last_fill++) Slice(s);
    ++total_;
  }

  size_t size() const { return total_; }

  // Appends every slice to `out`, track by track in track order, freeing blocks as it goes.
  void move_into(std::vector<Slice>& out) {
    out.reserve(out.size() + total_);
    for (auto& t : tracks_) {
      for (size_t b = 0; b < t.blocks.size(); ++b) {
        size_t n = b + 1 == t.blocks.size() ? t.last_fill : t.caps[b];
        out.insert(out.end(), t.blocks[b].get(), t.blocks[b].get() + n);
        t.blocks[b].reset();
      }
    }
    tracks_.clear();
    total_ = 0;
  }

 private:
  // Small: a trace may hold a million one-event threads (256 slices here made each of them cost
  // a 16 KiB block, 4.2 GiB for a 120 MB trace); doubling reaches kMaxBlock in a few more steps.
  static constexpr size_t kFirstBlock = 4;
  static constexpr size_t kMaxBlock = (size_t{4} << 20) / sizeof(Slice);
  struct FreeBlock {
    void operator()(Slice* p) const { ::operator delete(p); }
  };
  using Block = std::unique_ptr<Slice, FreeBlock>;
  struct PerTrack {
    std::vector<Block> blocks;
    std::vector<size_t> caps;
    size_t last_cap = 0, last_fill = 0;
  };
  std::vector<PerTrack> tracks_;
  size_t total_ = 0;
};

}  // namespace npu
