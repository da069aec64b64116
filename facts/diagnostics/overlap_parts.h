// The step breakdown's parts (docs/overlap.md), shared by the files of the "steps" and "overall"
// diagnostic: the breakdown of one step, how device segments are given to steps by the frame's
// assignment (overlap_assign.cpp), and the profiler's own numbers (overlap_profiler.cpp).
#pragma once
#include <limits>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "base/intervals.h"
#include "base/json_object.h"
#include "facts/diagnostics/diagnostics.h"

namespace npu::breakdown {

struct Breakdown {
  Ns computing = 0, communication = 0, comm_not_overlapped = 0, overlapped = 0, free = 0;
  Ns bubble = 0;         // hcom_receive time (pipeline parallelism); Stage leaves it out
  Ns preparing = kNoId;  // host step start -> the step's first device task; kNoId: unknown
  // GPU runs: memcpy/memset time that no kernel overlaps (device work, not idle); kNoId on
  // Ascend, whose profilers count runtime tasks as Free (the key is then not written).
  Ns copies = kNoId;
  Ns copy_time() const { return copies == kNoId ? 0 : copies; }
  // The device step: its parts are disjoint and add up to it exactly.
  Ns device_time() const { return computing + comm_not_overlapped + copy_time() + free; }
  void add(const Breakdown& o) {
    computing += o.computing, communication += o.communication, comm_not_overlapped += o.comm_not_overlapped;
    overlapped += o.overlapped, free += o.free, bubble += o.bubble;
    if (o.preparing != kNoId) preparing = (preparing == kNoId ? 0 : preparing) + o.preparing;
    if (o.copies != kNoId) copies = copy_time() + o.copies;
  }
};

// The breakdown's members, added to `o` (the caller may add more before taking it).
void add_breakdown(JsonObject& o, const Breakdown& b);
nlohmann::json to_json(const Breakdown& b);
// Tolerance for agreement with the profiler: 0.1% of the step or 1 us, whichever is larger.
nlohmann::json agreement(const Breakdown& ours, const Breakdown& theirs);
bool is_receive(std::string_view op);
// The gaps between consecutive busy intervals: the profiler's Free segments.
Intervals gaps(const Intervals& busy);

// Per-step accumulation of segments, plus the first busy start (for Preparing).
struct Accumulator {
  std::vector<Breakdown> per;
  std::vector<Ns> first_busy;
  std::vector<Intervals> free;  // each step's Free segments (handed to the idle attribution)
  explicit Accumulator(size_t n) : per(n), first_busy(n, std::numeric_limits<Ns>::max()), free(n) {}
  void add(size_t i, const Interval& s, Ns Breakdown::*field, bool busy) {
    per[i].*field += s.length();
    if (busy) first_busy[i] = std::min(first_busy[i], s.start);
    if (field == &Breakdown::free) free[i].push_back(s);
  }
};

// How device segments are given to the steps' windows (overlap_assign.cpp), one per
// StepAssignment of the frame.
void capture_segments(const RunModel& m, const DeviceTimeline& d, const std::vector<StepWindow>& w, Accumulator& acc);
// `copies`: copies are a part of the step (GPU); Ascend's breakdown has none (a serving engine's
// iterations, StepAssignment::ClippedWindows, are clipped the same way).
void launched_work(const DeviceTimeline& d, const std::vector<StepWindow>& w, Accumulator& acc, bool copies = true);
// `msprof`: Free spans the first to the last task of any type in the window.
void step_tasks(const RunModel& m, const DeviceTimeline& d, const std::vector<StepWindow>& w, bool msprof,
                Accumulator& acc);

// The profiler's own numbers (overlap_profiler.cpp).
std::vector<const StepTraceRow*> rows_of_device(const RunModel& m, int32_t device);
std::set<int32_t> devices_in_rows(const RunModel& m);
const StepTraceRow* profiler_row(const std::vector<const StepTraceRow*>& rows, int64_t step_id, size_t index,
                                 size_t n_steps);
Breakdown from_row(const StepTraceRow& r);
std::string profiler_source(const RunModel& m);
// The Overlap Analysis track summed per step by the same windows, when no table gives the
// profiler's numbers.
bool overlap_track_breakdown(const RunModel& m, const std::vector<StepWindow>& w, std::vector<Breakdown>& out);
void put_overall(Facts& facts, const Breakdown& total, size_t n_steps, std::vector<Ns> device_times,
                 std::vector<Ns> host_times, nlohmann::json extra);
// No device timeline: the profiler's own rows are the breakdown.
void from_profiler_rows(const RunModel& m, Facts& facts, StepIdle* idle);
// No device timeline and no profiler rows: the facts say why.
void no_breakdown(const RunModel& m, Facts& facts);
// A CPU-only run (no device timeline): its ProfilerStep#N spans on the host, the only step time
// it has (facts.host_steps; compare and verify read it where `steps` is unavailable).
void host_steps(const RunModel& m, const RunFrame& f, Facts& facts);

}  // namespace npu::breakdown
