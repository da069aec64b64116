// The one data model every loader feeds and every analysis reads (importers -> storage ->
// analyses, as in Perfetto's trace_processor). Tables are plain vectors of small records;
// names are interned; every record keeps where it came from (SourceRef or a line number).
#pragma once
#include <map>
#include <string>
#include <unordered_map>
#include <vector>

#include "base/types.h"
#include "model/communication.h"
#include "model/graph_capture.h"
#include "model/parallel_group.h"
#include "model/role.h"
#include "model/string_pool.h"

namespace npu {

enum class InferencePhase : uint8_t;  // model/engine_patterns.h

// What kind of timeline a track is, decided from its process *name* (pids are synthetic).
enum class TrackKind : uint8_t {
  Unknown,
  HostPython,     // torch_npu "Python" process: cpu_op, python_function, enqueue/dequeue
  HostGC,         // "Python GC"
  HostCANN,       // "CANN": AscendCL@, Runtime@, Node@launch
  HostOther,      // other host processes (Kineto host threads)
  Device,         // "Ascend Hardware" (one thread per stream) or a GPU stream
  Communication,  // "HCCL" (older) / "Communication" (newer): op and plane threads
  Overlap,        // "Overlap Analysis": the profiler's own Computing/Communication/Free
  Counter,        // counters such as "AI Core Freq"
};
const char* to_string(TrackKind k);

// String pids/tids ("Spans", "stream 7") are interned and stored as kStrKeyBase + StrId, so a
// track key stays two integers.
constexpr int64_t kStrKeyBase = int64_t{1} << 62;

struct Track {
  int64_t pid = 0;  // as written (or kStrKeyBase + StrId); synthetic, only kept for reference
  int64_t tid = 0;
  StrId process_name = kEmptyStr;
  StrId thread_name = kEmptyStr;
  StrId process_label = kEmptyStr;  // "CPU", "NPU", "NPU 0"
  TrackKind kind = TrackKind::Unknown;
  int32_t device = -1;  // from process_labels "NPU k"
};

// A complete event ("X"), an instant ("i", dur 0) or a B/E pair joined into one slice.
struct Slice {
  Ns ts = 0;
  Ns dur = 0;
  int64_t corr = kNoId;  // connection_id / correlation_id / correlation arg, when present
  uint64_t loc = 0;      // byte offset of the event in the trace file
  StrId name = kEmptyStr;
  StrId cat = kEmptyStr;
  StrId task_type = kEmptyStr;  // "Task Type" arg of device tasks (AI_CORE, HCCL, ...); Kineto: "Collective name"
  uint32_t track = 0;
  Ns end() const { return ts + dur; }
};

enum class FlowKind : uint8_t { HostToDevice, AsyncNpu, AsyncTaskQueue, FwdBwd, Ac2g, Other };
const char* to_string(FlowKind k);
FlowKind flow_kind_from_category(std::string_view cat);

// One end of a flow arrow: when, where in the input, on which track.
struct FlowEnd {
  Ns ts = 0;
  uint64_t loc = 0;
  uint32_t track = 0;
};

// A flow arrow joined from its "s" and "f" events.
struct Flow {
  int64_t id = 0;
  Ns start_ts = 0;
  Ns end_ts = 0;
  uint64_t start_loc = 0;
  uint64_t end_loc = 0;
  uint32_t start_track = 0;
  uint32_t end_track = 0;
  uint32_t start_slice = kNone32;  // the slice that encloses the start/end point, if any
  uint32_t end_slice = kNone32;
  StrId cat = kEmptyStr;
  StrId name = kEmptyStr;
  FlowKind kind = FlowKind::Other;

  static Flow between(int64_t id, const FlowEnd& from, const FlowEnd& to, FlowKind kind, StrId cat = kEmptyStr,
                      StrId name = kEmptyStr) {
    Flow f;
    f.id = id;
    f.start_ts = from.ts;
    f.end_ts = to.ts;
    f.start_loc = from.loc;
    f.end_loc = to.loc;
    f.start_track = from.track;
    f.end_track = to.track;
    f.cat = cat;
    f.name = name;
    f.kind = kind;
    return f;
  }
};

struct CounterSample {
  Ns ts = 0;
  double value = 0;
  uint64_t loc = 0;
  StrId name = kEmptyStr;
  uint32_t track = 0;
};

// A training/inference step: ProfilerStep#N on the host timeline.
struct Step {
  int64_t id = 0;
  Ns start = 0;
  Ns end = 0;
  SourceRef src;
};

// One row of kernel_details.csv / op_summary: a device task as the profiler summarised it.
struct Kernel {
  Ns start = 0;
  Ns dur = 0;
  Ns wait = kNoId;
  int64_t step_id = kNoId;
  int64_t model_id = kNoId;
  int64_t task_id = kNoId;
  int64_t stream_id = kNoId;
  int32_t device = -1;
  int32_t block_dim = -1;      // "Block Dim" or its newer name "Block Num"
  int32_t mix_block_dim = -1;  // "Mix Block Dim" / "Mix Block Num"
  uint32_t line = 0;
  StrId name = kEmptyStr;
  StrId type = kEmptyStr;
  StrId accel_core = kEmptyStr;  // Accelerator Core / Task Type: AI_CORE, AI_CPU, HCCL, ...
  StrId op_state = kEmptyStr;    // dynamic / static / N/A
  StrId hf32 = kEmptyStr;
  StrId input_shapes = kEmptyStr;
  StrId input_dtypes = kEmptyStr;
  StrId input_formats = kEmptyStr;
  StrId output_shapes = kEmptyStr;
  StrId output_dtypes = kEmptyStr;
  StrId output_formats = kEmptyStr;
};

// One row of op_statistic.csv.
struct OpStatistic {
  StrId op_type = kEmptyStr;
  StrId core_type = kEmptyStr;
  int64_t count = 0;
  Ns total = 0, min = 0, avg = 0, max = 0;
  double ratio_percent = 0;
  int32_t device = -1;
  uint32_t line = 0;
};

// One row of step_trace_time.csv: the profiler's own per-step breakdown.
struct StepTraceRow {
  int32_t device = -1;
  int64_t step = kNoId;  // empty Step column (no schedule) -> kNoId
  Ns computing = 0, comm_not_overlapped = 0, overlapped = 0, communication = 0, free = 0;
  Ns stage = kNoId, bubble = kNoId, comm_not_overlapped_excl_receive = kNoId, preparing = kNoId;
  uint32_t line = 0;
};

// The transfer arguments of an HCCL plane task (trace args "size(Byte)", "transport type",
// "link type"): what the byte-alignment check reads. Read after the load, by the task's byte
// offset (loaders/hccl_task_args.cpp), only for the plane tasks that move data.
struct CommTaskArgs {
  uint32_t slice = 0;  // index into RunModel::slices
  int64_t size_bytes = -1;
  StrId transport = kEmptyStr;  // SDMA, RDMA, LOCAL, ...
  StrId link = kEmptyStr;       // HCCS, PCIE, ON_CHIP, ...
};

// The size of a GPU copy or memset (Kineto gpu_memcpy / gpu_memset "bytes" arg), found by the
// event's loc: what the what-if replay prices a copy at another bandwidth by.
struct CopyBytes {
  uint64_t loc = 0;
  int64_t bytes = 0;
};

// The inputs a Kineto host operator recorded (record_shapes=True): its "Input Dims" and "Input
// type" args as the JSON text they were written in (interned: an operator's shapes repeat every
// step), found by the event's loc. What the roofline computes FLOPs and bytes from (facts/roofline).
struct OpInputs {
  uint64_t loc = 0;
  StrId dims = kEmptyStr;
  StrId types = kEmptyStr;
};

// The kernel a host launch call names (Kineto runtime events' "kernel" arg, written by ROCm's
// hipLaunchKernel and kin), found by the event's loc: what a graph capture recorded, whose kernels
// do not run until the graph is replayed (model/graph_capture.h).
struct LaunchKernel {
  uint64_t loc = 0;
  StrId kernel = kEmptyStr;
};

struct MemoryRecord {  // memory_record.csv
  Ns ts = 0;
  double allocated_mb = 0, reserved_mb = 0, active_mb = -1;
  StrId component = kEmptyStr;
  StrId device_type = kEmptyStr;
  uint32_t line = 0;
};

struct OperatorMemory {  // operator_memory.csv
  double size_kb = 0;
  Ns alloc_ts = kNoId, release_ts = kNoId, duration = kNoId;
  double alloc_total_allocated_mb = -1, alloc_total_reserved_mb = -1;
  StrId name = kEmptyStr;
  StrId device_type = kEmptyStr;
  uint32_t line = 0;
};

struct ModuleMemory {  // npu_module_mem.csv
  Ns ts = 0;
  double reserved_kb = 0;
  int32_t device = -1;
  StrId component = kEmptyStr;
  uint32_t line = 0;
};

// What the run says about itself: profiler_info*.json, profiler_metadata.json, trace labels.
// How the profiler that wrote an input assigns device time to steps (docs/overlap.md); the
// loader that knows the input kind sets it.
enum class StepSemantics : uint8_t {
  // torch_npu text export (and every trace without a rule of its own): the Overlap Analysis
  // segments of the whole capture, each in the step whose device window holds its start.
  CaptureSegments,
  // torch_npu SQLite export (analysis.db StepTraceTime): each step's own tasks (start in its
  // device window) merged on their own; a gap after the step's last task is not its Free.
  StepTasks,
  // msprof's own Overlap Analysis (CANN 6.x per-iteration timelines, msprof_*.db): like
  // StepTasks, with each "Iteration N" span as the window, and Free spanning every device task
  // of the window (runtime tasks such as MEMCPY_ASYNC keep it open) minus compute/communication.
  MsprofTasks,
  // GPU (Kineto) traces, the rule of PyTorch's TensorBoard profiler plugin (and HTA's launch
  // correlation): a step lasts from max(previous step's end, its host start) until the later
  // of its host end and the end of the last device op (kernel, memcpy, memset) that a runtime
  // call inside its host span launched (joined by correlation id). Windows do not overlap; each
  // step's parts are the device unions clipped to its window.
  LaunchedWork,
};
const char* to_string(StepSemantics s);

// A track of host operators (Python, framework threads; not the runtime's own threads).
bool is_host_op_track(const Track& t);

struct RunMetadata {
  std::string framework;  // "torch_npu", "mindspore", "pytorch" (Kineto), or "" unknown
  // "ascend", "gpu" or "cpu" (the vocabulary of rule `platforms`); set by finalize() from the
  // device tracks it finds, else derived from the framework (run_platform()).
  std::string platform;
  std::string gpu_runtime;     // Kineto GPU traces: "cuda" or "hip" (from the runtime call names)
  std::string source_format;   // "ascend_pt text export", "trace file", ...
  int32_t rank = -1;           // from profiler_info_{rank}.json; -1 when unknown
  int32_t device = -1;         // from process_labels "NPU k"
  std::string profiler_level;  // Level0/Level1/Level2
  std::string aic_metrics;
  std::string worker_name;
  std::map<std::string, std::string> versions;     // torch_npu, cann, torch, ...
  std::map<std::string, std::string> env;          // ENV_VARIABLES
  std::map<std::string, std::string> config;       // record_shapes, with_stack, ...
  std::map<std::string, std::string> distributed;  // distributed_args
  std::vector<ParallelGroup> parallel_groups;      // parallel_group_info: the groups' names (tp, dp, ...)
  StepSemantics step_semantics = StepSemantics::CaptureSegments;
  // What the steps are: "ProfilerStep#N" (or the loader's own, e.g. msprof "Iteration N"), else,
  // in a GPU trace without them, the iterations it repeats: "record_function 'NAME'" or
  // "nn.Module forward 'NAME'" (RunModel::derive_iteration_steps); "" when the whole trace is one.
  std::string step_source;
  // The steps are a serving engine's iterations (model/engine_patterns.h): each is timed by its own
  // window, from its launched work after any hole a cut trace leaves (facts/frame/step_windows.h).
  bool engine_iteration_steps = false;
  // With engine_iteration_steps: each step's phase, as its annotation says it (engine_patterns.h).
  std::vector<InferencePhase> iteration_phases;
};

// An input file the loader looked for, and what became of it.
struct InputFile {
  Role role_id = Role::Other;  // what the facts look it up by (model/role.h)
  // The name reports print for it: role_name(role_id), or a trace file's own name when it was
  // named alone ("rank0.json.gz").
  std::string role;
  std::string path;  // empty when missing
  enum class Status : uint8_t { Loaded, Missing, Empty } status = Status::Missing;
  uint64_t bytes = 0;
  uint64_t records = 0;
  std::string note;  // why it matters when missing, or a load remark
  // Databases: the table(s) the role's rows came from ("TASK+COMPUTE_TASK_INFO"); record
  // `line` numbers of this role are then SQLite rowids of the first table named.
  std::string table;
};
const char* to_string(InputFile::Status s);

// Counters the loaders keep about what they saw and skipped, for `inspect` and honesty.
struct LoadStats {
  uint64_t trace_events = 0;  // every element of the trace array
  std::map<std::string, uint64_t> events_by_phase;
  uint64_t dangling_flow_points = 0;  // s without f, or f without s
  uint64_t unmatched_begin_end = 0;
  double trace_seconds = 0;
  uint64_t trace_bytes = 0;
  // The load's phases in order, with wall seconds and the process's resident memory when each
  // ended (bench/bench_load prints them, to see where time and memory go).
  struct Phase {
    std::string name;
    double seconds = 0;
    double rss_mb = 0, peak_rss_mb = 0;  // VmRSS and VmHWM after the phase (0 where unknown)
  };
  std::vector<Phase> phases;
  void add_phase(std::string name, double seconds);
  std::vector<std::string> warnings;  // everything the user should know of the load
  // The warnings that say records were dropped (rows, events, tasks): a run with any is partial,
  // and `gate` refuses to decide on it unless told --allow-partial.
  std::vector<std::string> rejected;
  void reject(const std::string& what) {
    warnings.push_back(what);
    rejected.push_back(what);
  }
};

// Kineto: the host runtime/driver call that carries each correlation id; the kernel, memcpy or
// memset with the same id is what it launched. Calls of one id that nest (a runtime call and the
// driver call inside it) are one launch: the outer one is kept. An id carried by calls that do
// not nest (ids reused across steps) is ambiguous: which launch started its device work is
// unknown, so it is left out of `by_id` and listed in `ambiguous` (run_loader says so).
struct CorrelationLaunches {
  std::unordered_map<int64_t, uint32_t> by_id;  // id -> slice index of the call
  std::vector<int64_t> ambiguous;               // sorted
};
struct RunModel {
  StringPool strings;
  RunMetadata meta;
  std::vector<InputFile> files;  // SourceRef::file indexes this

  uint16_t trace_file = 0;  // the file Slice::loc and Flow::*_loc point into

  // When the timeline came from several files (sliced msprof JSON) or from database tables,
  // a location is (part << kLocPartShift) | offset-or-rowid and the part says where it
  // points: a file id, and for a database the table. Empty: locations are byte offsets
  // into files[trace_file]. See decode_loc().
  struct TracePart {
    uint16_t file = 0;
    std::string table;  // "" for a trace file (the offset is a byte offset)
  };
  static constexpr int kLocPartShift = 48;
  std::vector<TracePart> trace_parts;
  uint16_t add_trace_part(uint16_t file, std::string table);  // returns the part index
  static uint64_t make_loc(uint16_t part, uint64_t offset) { return (uint64_t{part} << kLocPartShift) | offset; }
  struct DecodedLoc {
    uint16_t file = 0;
    std::string_view table;  // empty: `offset` is a byte offset
    uint64_t offset = 0;     // byte offset, or rowid when `table` is set
  };
  DecodedLoc decode_loc(uint64_t loc) const;
  std::vector<Track> tracks;
  std::vector<Slice> slices;  // sorted by (track, ts, -dur) after finalize()
  std::vector<Flow> flows;
  std::vector<CounterSample> counters;
  std::vector<Step> steps;  // sorted by start

  std::vector<Kernel> kernels;
  std::vector<StrId> pmu_columns;  // PMU column names of kernel_details, in file order
  std::vector<double> pmu_values;  // kernels.size() x pmu_columns.size(); NaN = N/A

  std::vector<OpStatistic> op_statistics;
  std::vector<StepTraceRow> step_trace;
  std::vector<CommTaskArgs> comm_task_args;     // sorted by slice
  std::vector<CopyBytes> copy_bytes;            // sorted by loc after finalize()
  int64_t copy_bytes_of(const Slice& s) const;  // -1: not written
  std::vector<OpInputs> op_inputs;              // sorted by loc after finalize()
  const OpInputs* op_inputs_of(const Slice& s) const;  // null: none recorded
  std::vector<LaunchKernel> launch_kernels;            // sorted by loc after finalize()
  StrId launch_kernel_of(const Slice& s) const;        // kEmptyStr: none written
  // Graph captures (from the trace or capture traces beside it) and the replays paired with them.
  GraphReplays graph_replays;
  std::vector<MemoryRecord> memory_records;
  std::vector<OperatorMemory> operator_memory;
  std::vector<ModuleMemory> module_memory;

  // The rank's communication records (communication.json and communication_matrix.json, or the
  // SQLite export's analysis.db CommAnalyzerTime / CommAnalyzerMatrix): model/communication.h.
  RunCommunication communication;

  LoadStats stats;

  std::string_view str(StrId id) const { return strings.str(id); }
  uint16_t add_file(InputFile f);
  const InputFile* file(Role role) const;  // the first input of that role, or null

  // Per-track [begin, end) ranges into `slices`, valid after finalize().
  struct Range {
    uint32_t begin = 0, end = 0;
  };
  std::vector<Range> track_slices;
  // Kineto launches by correlation id, paired once by finalize() (correlation_launches).
  CorrelationLaunches correlation;

  // Sorts tables, classifies tracks by name, binds flows to their enclosing slices and
  // derives steps from ProfilerStep#N. Called once by the loaders when everything is in.
  void finalize();

  void sort_slices();             // by track, then start, longer first
  bool sort_grouped_slices();     // the fast path when slices come grouped by track
  void classify_kineto_tracks();  // part of finalize()
  void derive_iteration_steps();  // part of finalize(): steps of a trace without ProfilerStep

  // The innermost slice on `track` that contains `ts` (start <= ts <= end), or kNone32.
  uint32_t enclosing_slice(uint32_t track, Ns ts) const;
};

TrackKind classify_process(std::string_view process_name);

// Kineto (CUDA/ROCm/CPU) event categories. Kineto names every process after the Python
// executable ("python3"), GPU ones included, and may reuse small pids for host threads, so
// a Kineto track is classified by what its events are, not by its pid or process name.
enum class KinetoCat : uint8_t { None, GpuKernel, GpuMemcpy, GpuMemset, GpuAnnotation, HostOp, HostRuntime };
KinetoCat kineto_category(std::string_view cat);

// Pairs them (finalize() keeps the result in RunModel::correlation: read that).
CorrelationLaunches correlation_launches(const RunModel& m);

// "ascend", "gpu" or "cpu": meta.platform when finalize() found device tracks, else from the
// framework (torch_npu / mindspore / unknown -> ascend, Kineto without GPU work -> cpu).
std::string run_platform(const RunModel& m);

// The process name a person would recognise: the process_name metadata, else the string pid,
// else "pid N".
std::string process_display_name(const RunModel& model, const Track& track);

}  // namespace npu
