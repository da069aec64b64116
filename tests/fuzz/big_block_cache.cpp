// Fuzzing speed only: a replacement global operator new/delete that keeps freed blocks of
// 4 MiB and more for reuse.
//
// When a chunk fails, the trace loader's recovery path reads the rest of the file into a
// std::string grown 16 MiB at a time (then 32 MiB). Under ASan every such block is a fresh
// mmap, and faulting in ~48 MiB made each failed load cost ~40 ms, i.e. 4 inputs/s. Reusing
// the blocks removes the page faults. ASan still sees everything: blocks come from malloc,
// the unused tail of a reused block and every cached block are poisoned, so an overflow or a
// use after free is still reported (as a use-after-poison).
#include <atomic>
#include <cstddef>
#include <cstdlib>
#include <mutex>
#include <new>

#include <sanitizer/asan_interface.h>

namespace {

constexpr size_t kBig = size_t{4} << 20;
constexpr int kSlots = 8;

struct Block {
  void* p = nullptr;
  size_t cap = 0;
};

std::mutex& mu() {
  static std::mutex m;
  return m;
}
Block live[64];
Block cached[kSlots];
std::atomic<int> n_live{0};

void* big_alloc(size_t n) {
  std::lock_guard<std::mutex> lock(mu());
  int best = -1;
  for (int i = 0; i < kSlots; ++i)
    if (cached[i].p && cached[i].cap >= n && (best < 0 || cached[i].cap < cached[best].cap)) best = i;
  Block b;
  if (best >= 0) {
    b = cached[best];
    cached[best] = Block{};
    ASAN_UNPOISON_MEMORY_REGION(b.p, n);
    ASAN_POISON_MEMORY_REGION(static_cast<char*>(b.p) + n, b.cap - n);
  } else {
    b.p = std::malloc(n);
    b.cap = n;
    if (!b.p) return nullptr;
  }
  for (auto& l : live) {
    if (!l.p) {
      l = b;
      ++n_live;
      return b.p;
    }
  }
  // Table full: hand it out untracked; delete will free() it.
  ASAN_UNPOISON_MEMORY_REGION(b.p, b.cap);
  return b.p;
}

// True when p was a tracked big block (now cached or freed).
bool big_free(void* p) {
  if (n_live.load(std::memory_order_relaxed) == 0) return false;
  std::lock_guard<std::mutex> lock(mu());
  for (auto& l : live) {
    if (l.p != p) continue;
    Block b = l;
    l = Block{};
    --n_live;
    ASAN_UNPOISON_MEMORY_REGION(b.p, b.cap);
    int slot = -1;
    for (int i = 0; i < kSlots; ++i)
      if (!cached[i].p) slot = i;
    if (slot < 0) {
      // Evict the smallest cached block.
      slot = 0;
      for (int i = 1; i < kSlots; ++i)
        if (cached[i].cap < cached[slot].cap) slot = i;
      ASAN_UNPOISON_MEMORY_REGION(cached[slot].p, cached[slot].cap);
      std::free(cached[slot].p);
    }
    ASAN_POISON_MEMORY_REGION(b.p, b.cap);
    cached[slot] = b;
    return true;
  }
  return false;
}

void* alloc(size_t n) {
  if (n == 0) n = 1;
  void* p = n >= kBig ? big_alloc(n) : std::malloc(n);
  return p;
}

void release(void* p) {
  if (p && !big_free(p)) std::free(p);
}

}  // namespace

void* operator new(size_t n) {
  void* p = alloc(n);
  if (!p) throw std::bad_alloc();
  return p;
}
void* operator new(size_t n, const std::nothrow_t&) noexcept { return alloc(n); }
void operator delete(void* p) noexcept { release(p); }
void operator delete(void* p, size_t) noexcept { release(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { release(p); }
