// One pass over the host tracks of the trace that gathers what the trace checks of
// "operator_health" need (online compiles, stream syncs, memory APIs, GC, dataloader,
// SyncBatchNorm): each check then only writes its JSON from the pass. One pass, because the
// host tracks hold most of a large trace's slices.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "facts/diagnostics/operator_health.h"

namespace npu::operator_health {

// Row 21: conjectured GC: a device free gap longer than 200 ms (200000 us) ...
constexpr Ns kConjecturedGcMinFreeNs = 200'000'000;
// Fetches looked at for the user's call sites: enough for any capture a person reads.
constexpr size_t kMaxListedFetches = 100'000;
// Row 24: the memory APIs the reference watches (exact names).
constexpr const char* kMemApis[] = {"AscendCL@aclMallocMemInner", "AscendCL@aclrtFreePhysical", "AscendCL@aclrtFree"};

// A device free gap (no compute or communication task) longer than kConjecturedGcMinFreeNs,
// with the AscendCL calls that overlap it.
struct FreeGap {
  Interval iv;
  uint64_t acl_count = 0;
  Ns acl_ns = 0;
};

struct HostTracePass {
  // The cut-offs (FactsOptions): row 20, a GC event counts when it lasts at least gc_min_ns;
  // row 23, a dataloader event of dataloader_slow_ns or longer is slow (>=).
  Ns gc_min_ns = 0, dataloader_slow_ns = 0;
  // CANN (AscendCL) thread
  bool have_cann = false;
  StepAgg compile, sync;
  std::map<std::string, Agg> sync_by_api;
  TopK compile_top{kTop}, sync_top{kTop};
  uint64_t launches = 0;
  uint64_t co_occur_same_thread = 0;
  struct Mark {
    Ns ts;
    uint64_t loc;
    bool launch;
  };
  // Sync-stream and launch events of all threads sorted by ts (the reference's order).
  std::vector<Mark> marks;
  std::map<std::string, StepAgg> mem_api;
  // Python GC
  bool have_gc_track = false;
  Agg gc, gc_long;
  TopK gc_top{kTop};
  std::vector<FreeGap> gaps;  // conjectured GC candidates (only read when there are no GC events)
  // Python threads
  bool have_python = false;
  Agg dataloader;
  std::vector<uint32_t> dataloader_slices;  // every fetch (the first kMaxListedFetches), for call sites
  TopK dataloader_slow{kTop};
  uint32_t first_slow_dataloader = kNone32;
  Ns first_slow_dataloader_ts = 0;
  uint64_t dataloader_slow_count = 0;
  Ns dataloader_slow_total = 0;
  Agg syncbn;
};

HostTracePass run_host_trace_pass(const DiagnosticContext& ctx);

// ---- Trace checks: each writes its part of "operator_health" from the pass ----
nlohmann::json op_compile_json(const DiagnosticContext& ctx, const HostTracePass& p);   // op_compile.cpp
nlohmann::json stream_sync_json(const DiagnosticContext& ctx, const HostTracePass& p);  // stream_sync.cpp
nlohmann::json memory_api_json(const RunModel& m, const HostTracePass& p);              // memory_api.cpp
nlohmann::json gc_json(const DiagnosticContext& ctx, const HostTracePass& p);           // gc.cpp
nlohmann::json dataloader_json(const DiagnosticContext& ctx, const HostTracePass& p);   // dataloader.cpp
nlohmann::json syncbn_json(const RunModel& m, const HostTracePass& p);                  // syncbn.cpp

}  // namespace npu::operator_health
