// Global operator new that asks the kernel for transparent huge pages on large blocks.
//
// Why: loading a big trace touches ~0.5 GB of fresh memory (the slice table, chunk buffers,
// per-chunk results, the sort's gather buffer). On the virtual machines these tools run on, a
// 4 KiB page fault costs ~10 us: a 1 GB trace took 223k faults, 2.7 s of system time, more
// than the parse itself, plus TLB misses in every later pass. With THP in "madvise" mode (the
// Debian default) a block only gets 2 MiB pages if someone asks: glibc asks only when started
// with GLIBC_TUNABLES=glibc.malloc.hugetlb=1. So large blocks are asked for here, for every
// std::vector and buffer in the program, without touching the code that allocates them.
//
// How: malloc as usual, then madvise(MADV_HUGEPAGE) the 2 MiB-aligned interior of the block.
// Freeing stays plain free() (libstdc++'s operator delete), so nothing else changes; where THP
// is off or madvise fails, the hint is silently ignored. NPU_ADVISOR_NO_HUGE_PAGES=1 turns
// it off (to measure without it).
//
// Linked into the executables as an object library (not the static core library), so the
// replacement is always the one the linker sees.
#include <sys/mman.h>

#include <cstdint>
#include <cstdlib>
#include <new>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Smaller blocks are left alone: a huge page would be mostly empty.
constexpr std::size_t kAdviseFrom = std::size_t{2} << 20;

bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* off = std::getenv("NPU_ADVISOR_NO_HUGE_PAGES");
    return !(off && *off && *off != '0');
  }();
  return wanted;
}

void advise_huge_pages(void* p, std::size_t n) {
  auto begin = reinterpret_cast<std::uintptr_t>(p);
  std::uintptr_t first = (begin + kHugePage - 1) & ~(kHugePage - 1);
  std::uintptr_t last = (begin + n) & ~(kHugePage - 1);
  if (last > first) madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

void* allocate(std::size_t n) {
  void* p = nullptr;
  if (n >= kAdviseFrom && huge_pages_wanted()) {
    // Aligned, so the whole block (not just its interior) can be backed by huge pages.
    if (posix_memalign(&p, kHugePage, n) != 0) throw std::bad_alloc();
    advise_huge_pages(p, n);
    return p;
  }
  p = std::malloc(n ? n : 1);
  if (!p) throw std::bad_alloc();
  return p;
}

}  // namespace

void* operator new(std::size_t n) { return allocate(n); }
void* operator new[](std::size_t n) { return allocate(n); }
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  try {
    return allocate(n);
  } catch (...) {
    return nullptr;
  }
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }
void operator delete[](void* p, std::size_t) noexcept { std::free(p); }
