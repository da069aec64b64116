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
// How: blocks from 1 MiB up are allocated 2 MiB-aligned, in whole 2 MiB pages, and marked
// madvise(MADV_HUGEPAGE).
// Freeing stays plain free() (libstdc++'s operator delete), so nothing else changes; where THP
// is off or madvise fails, the hint is silently ignored. NPU_ADVISOR_NO_HUGE_PAGES=1 turns
// it off (to measure without it).
//
// Linked into the executables as an object library (not the static core library), so the
// replacement is always the one the linker sees.
#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <malloc.h>
#include <new>

#include <sys/mman.h>

namespace {

constexpr std::size_t kHugePage = std::size_t{2} << 20;
// Smaller blocks are left alone: a huge page would be mostly empty.
constexpr std::size_t kAdviseFrom = std::size_t{1} << 20;

bool huge_pages_wanted() {
  static const bool wanted = [] {
    const char* off = std::getenv("NPU_ADVISOR_NO_HUGE_PAGES");
    return !(off && *off && *off != '0');
  }();
  return wanted;
}

std::size_t round_up_to_huge_page(std::size_t n) { return (n + kHugePage - 1) & ~(kHugePage - 1); }

// glibc raises its mmap threshold each time a mapped block is freed (up to 32 MiB), after which
// big blocks come from the heap, and freeing them no longer gives memory back: a loader that
// frees its per-chunk buffers and per-track blocks as it goes would keep their peak anyway.
// A fixed threshold keeps every block of 1 MiB and more mapped, so free() returns it at once.
// Fixing it also fixes the heap's trim threshold (128 KiB by default), and the heap would then
// hand its top back to the kernel on nearly every free and fault it in again on the next
// malloc: keep up to 32 MiB of it for reuse.
const bool malloc_tuned = [] {
  return mallopt(M_MMAP_THRESHOLD, 1 << 20) == 1 && mallopt(M_TRIM_THRESHOLD, 32 << 20) == 1;
}();

// Out of memory, an exception unwinds, and unwinding allocates too: nlohmann::json's destructor
// moves a container's members into a vector first, and a failure there, in a destructor, is
// std::terminate (SIGABRT, no message). So some address space is set aside at start, never
// touched (it costs no memory), and a part of it given back at each failure, before std::bad_alloc
// is thrown: the unwinding that follows has room, and the run ends with its one-line error. Parts,
// because another thread may fail too (or go on, and fail later) before the run ends.
constexpr std::size_t kReserveParts = 4, kReservePart = std::size_t{16} << 20;
std::atomic<void*> reserve[kReserveParts] = {std::malloc(kReservePart), std::malloc(kReservePart),
                                             std::malloc(kReservePart), std::malloc(kReservePart)};

[[noreturn]] void out_of_memory() {
  for (auto& part : reserve)
    if (void* p = part.exchange(nullptr)) {
      std::free(p);
      break;
    }
  throw std::bad_alloc();
}

void* allocate(std::size_t n) {
  void* p = nullptr;
  if (n >= kAdviseFrom && huge_pages_wanted()) {
    // Aligned and rounded up to whole huge pages, so all of the block can be backed by them
    // (the rounding costs address space; a page is only made resident when touched).
    std::size_t whole = round_up_to_huge_page(n);
    if (posix_memalign(&p, kHugePage, whole) != 0) out_of_memory();
    madvise(p, whole, MADV_HUGEPAGE);
    return p;
  }
  p = std::malloc(n ? n : 1);
  if (!p) out_of_memory();
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
