// Known answers for the database loader's id index (loaders/db/db_id_index.h), the huge-page
// allocation policy (base/huge_page_new.cpp) and the slice order finalize() gives.
#include "loaders/db/db_id_index.h"

#include <cstdlib>
#include <memory>
#include <random>
#include <unordered_map>
#include <vector>

#include <gtest/gtest.h>

#include "model/model.h"

namespace {

std::vector<int> values_of(const npu::IdMultiIndex<int>& idx, int64_t key) {
  auto v = idx.values(key);
  return {v.begin(), v.end()};
}

TEST(IdMultiIndex, DenseIdsGiveEachIdsValuesNewestFirst) {
  npu::IdMultiIndex<int> idx;
  idx.add(10, 1);
  idx.add(12, 2);
  idx.add(10, 3);
  idx.add(11, 4);
  idx.add(10, 5);
  idx.build();
  EXPECT_EQ(values_of(idx, 10), (std::vector<int>{5, 3, 1}));
  EXPECT_EQ(values_of(idx, 11), (std::vector<int>{4}));
  EXPECT_EQ(values_of(idx, 12), (std::vector<int>{2}));
  EXPECT_TRUE(values_of(idx, 9).empty());
  EXPECT_TRUE(values_of(idx, 13).empty());
  EXPECT_TRUE(values_of(idx, INT64_MIN).empty());
  EXPECT_TRUE(values_of(idx, INT64_MAX).empty());
}

TEST(IdMultiIndex, SparseIdsAreFoundBySearch) {
  npu::IdMultiIndex<int> idx;
  idx.add(INT64_MAX, 1);
  idx.add(-5, 2);
  idx.add(INT64_MAX, 3);
  idx.add(int64_t{1} << 40, 4);
  idx.build();
  EXPECT_EQ(values_of(idx, INT64_MAX), (std::vector<int>{3, 1}));
  EXPECT_EQ(values_of(idx, -5), (std::vector<int>{2}));
  EXPECT_EQ(values_of(idx, int64_t{1} << 40), (std::vector<int>{4}));
  EXPECT_TRUE(values_of(idx, 0).empty());
}

TEST(IdMultiIndex, EmptyIndexFindsNothing) {
  npu::IdMultiIndex<int> idx;
  idx.build();
  EXPECT_TRUE(values_of(idx, 0).empty());
}

// The loader's flows used to come from std::unordered_multimap::equal_range; the index must
// give the same values in the same order, dense or sparse.
TEST(IdMultiIndex, SameOrderAsUnorderedMultimap) {
  for (int64_t spread : {int64_t{1}, int64_t{1} << 33}) {
    std::mt19937_64 rng(7);
    npu::IdMultiIndex<int> idx;
    std::unordered_multimap<int64_t, int> ref;
    for (int i = 0; i < 20000; ++i) {
      int64_t key = static_cast<int64_t>(rng() % 3000) * spread;
      idx.add(key, i);
      ref.emplace(key, i);
    }
    idx.build();
    for (int64_t k = 0; k < 3000; ++k) {
      auto [lo, hi] = ref.equal_range(k * spread);
      std::vector<int> want;
      for (auto it = lo; it != hi; ++it) want.push_back(it->second);
      EXPECT_EQ(values_of(idx, k * spread), want) << "id " << k * spread;
    }
  }
}

// Blocks of 1 MiB and more start on a 2 MiB boundary (so huge pages can back all of them) and
// behave as ordinary memory; small blocks come from malloc as usual.
TEST(HugePages, LargeBlocksAreHugePageAligned) {
  std::vector<int64_t> v = {1, 2, 3};
  v.reserve(3'000'000);  // 24 MB
  if (!std::getenv("NPU_ADVISOR_NO_HUGE_PAGES")) {
    EXPECT_EQ(reinterpret_cast<uintptr_t>(v.data()) % (uintptr_t{2} << 20), 0u);
  }
  EXPECT_EQ(v, (std::vector<int64_t>{1, 2, 3}));
  v.resize(3'000'000, 7);
  EXPECT_EQ(v.back(), 7);
  auto small = std::make_unique<char[]>(100);
  small[99] = 'x';
  EXPECT_EQ(small[99], 'x');
}

// finalize() orders each track by (ts, -dur) and keeps the table order of equal slices; a
// track already in order and one out of order, interleaved.
TEST(SortSlices, GroupsByTrackAndSortsOnlyWhatIsOutOfOrder) {
  npu::RunModel m;
  m.tracks.resize(2);
  auto add = [&](uint32_t track, npu::Ns ts, npu::Ns dur, uint64_t loc) {
    npu::Slice s;
    s.track = track;
    s.ts = ts;
    s.dur = dur;
    s.loc = loc;
    m.slices.push_back(s);
  };
  add(1, 50, 5, 0);
  add(0, 10, 1, 1);
  add(1, 20, 5, 2);
  add(0, 20, 1, 3);
  add(1, 20, 30, 4);  // same start, longer: the parent comes first
  add(0, 20, 1, 5);   // equal to slice 3: stays after it
  add(1, 5, 1, 6);
  m.finalize();
  std::vector<uint64_t> locs;
  for (const auto& s : m.slices) locs.push_back(s.loc);
  EXPECT_EQ(locs, (std::vector<uint64_t>{1, 3, 5, 6, 4, 2, 0}));
  EXPECT_EQ(m.track_slices[0].begin, 0u);
  EXPECT_EQ(m.track_slices[0].end, 3u);
  EXPECT_EQ(m.track_slices[1].begin, 3u);
  EXPECT_EQ(m.track_slices[1].end, 7u);
}

}  // namespace
