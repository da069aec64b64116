// Transparent huge pages for the big tables a load builds.
//
// Filling a fresh 500 MB vector faults in 128 k pages of 4 KiB; on virtual machines each fault
// is expensive (on the development VM the faults were a quarter of a 1 GB database load). Most
// systems run THP in "madvise" mode, so a region only gets 2 MiB pages when asked for them:
// reserve_huge() reserves a vector's final capacity and advises its untouched pages, so the
// fill takes one fault per 2 MiB. Only a hint: where THP is off it changes nothing.
#pragma once
#include <cstddef>
#include <vector>

namespace npu {

// Advises the whole 2 MiB pages inside [p, p + bytes) for huge pages (no-op under 4 MiB).
void advise_huge_pages(const void* p, size_t bytes);

// Reserves room for `n` elements (at least) and advises it; the vector's contents are kept.
template <typename T, typename A>
void reserve_huge(std::vector<T, A>& v, size_t n) {
  if (n <= v.capacity()) return;
  v.reserve(n);
  advise_huge_pages(v.data(), v.capacity() * sizeof(T));
}

}  // namespace npu
