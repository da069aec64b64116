#include "facts/inference/iterations.h"

#include <algorithm>
#include <string_view>
#include <unordered_map>

#include "facts/graph_calls.h"
#include "model/graph_capture.h"

namespace npu {
namespace {

// What a distinct name is to this pass, decided once per name.
enum Code : int16_t {
  kUnseen = -1,
  kNothing = 0,
  kPatternBase = 100,  // + engine_patterns() index
  kSourceBase = 200,   // + engine_sources() index
  kGraphBase = 300,    // + GraphCall
  kIsin = 400,         // aten::isin: generate()'s stopping criteria (the EOS check), once per token
  kTokenOp = 401,      // aten::argmax (greedy) / aten::multinomial (sampling): one token chosen
};

int16_t classify(std::string_view n, std::unordered_map<StrId, PatternMatch>& matches, StrId id) {
  if (n == "aten::isin") return kIsin;
  if (n == "aten::argmax" || n == "aten::multinomial") return kTokenOp;
  if (GraphCall g = graph_call(n); g != GraphCall::None) return static_cast<int16_t>(kGraphBase + static_cast<int>(g));
  PatternMatch pm;
  if (int p = match_engine_pattern(n, pm); p >= 0) {
    matches[id] = pm;
    return static_cast<int16_t>(kPatternBase + p);
  }
  if (int s = match_engine_source(n); s >= 0) return static_cast<int16_t>(kSourceBase + s);
  return kNothing;
}

// What the scan of the host tracks collected.
struct Scan {
  std::vector<PatternHit> hits;  // annotations an engine pattern matched
  std::unordered_map<StrId, PatternMatch> matches;
  std::vector<uint32_t> first_source;  // per engine_sources() entry, the first slice, or kNone32
  uint32_t first_isin = kNone32;
  std::vector<Ns> token_ops, begin_captures, instantiations;
  uint32_t graph_launches = 0;
};

Scan scan_host(const RunModel& m) {
  Scan s;
  s.first_source.assign(engine_sources().size(), kNone32);
  std::vector<int16_t> code(m.strings.size(), kUnseen);
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    if (!is_host_op_track(m.tracks[t])) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const Slice& sl = m.slices[i];
      int16_t& c = code[sl.name];
      if (c == kUnseen) c = classify(m.str(sl.name), s.matches, sl.name);
      if (c == kNothing) continue;
      if (c >= kPatternBase && c < kSourceBase) s.hits.push_back({i, c - kPatternBase, s.matches.at(sl.name)});
      else if (c >= kSourceBase && c < kGraphBase) {
        uint32_t& first = s.first_source[static_cast<size_t>(c - kSourceBase)];
        if (first == kNone32) first = i;
      } else if (c == kGraphBase + static_cast<int>(GraphCall::BeginCapture)) s.begin_captures.push_back(sl.ts);
      else if (c == kGraphBase + static_cast<int>(GraphCall::Instantiate)) s.instantiations.push_back(sl.ts);
      else if (c == kGraphBase + static_cast<int>(GraphCall::Launch)) ++s.graph_launches;
      else if (c == kIsin && s.first_isin == kNone32) s.first_isin = i;
      else if (c == kTokenOp) s.token_ops.push_back(sl.ts);
    }
  }
  sort_hits(m, s.hits);
  for (auto* v : {&s.token_ops, &s.begin_captures, &s.instantiations}) std::sort(v->begin(), v->end());
  return s;
}

uint32_t count_in(const std::vector<Ns>& sorted, Ns start, Ns end) {
  return static_cast<uint32_t>(std::lower_bound(sorted.begin(), sorted.end(), end) -
                               std::lower_bound(sorted.begin(), sorted.end(), start));
}

// The outermost captures, and the engine's iterations (model/engine_patterns.h: the steps of the run).
void collect(const RunModel& m, const Scan& s, InferenceRun& run) {
  for (const PatternHit& h : s.hits) {
    const Slice& sl = m.slices[h.slice];
    const PatternMatch& pm = h.match;
    if (pm.kind != PatternMatch::Kind::Capture) continue;
    if (!run.captures.empty() && sl.ts < run.captures.back().end) continue;
    InferenceCapture c;
    c.name = sl.name, c.batch = pm.batch, c.mode = std::string(pm.mode), c.start = sl.ts, c.end = sl.end();
    c.stream_captures = count_in(s.begin_captures, c.start, c.end);
    c.instantiations = count_in(s.instantiations, c.start, c.end);
    c.loc = sl.loc;
    run.captures.push_back(std::move(c));
  }
  for (const PatternHit& h : engine_iterations(m, s.hits)) {
    const Slice& sl = m.slices[h.slice];
    InferenceIteration it;
    it.slice = h.slice, it.name = sl.name, it.pattern = h.pattern, it.phase = h.match.phase;
    it.requests = h.match.requests, it.tokens = h.match.tokens, it.start = h.start, it.end = h.end, it.loc = sl.loc;
    run.iterations.push_back(it);
  }
}

// The engine: the first pattern (in the table's order) that names one (a stage only where it
// made an iteration: a lone "forward" range names nobody), else the first source. vLLM on an
// Ascend run is vLLM-Ascend (the plugin runs vLLM's engine: its frames and names are vLLM's).
void decide_engine(const RunModel& m, const Scan& s, InferenceRun& run) {
  int best = -1;
  uint32_t at = kNone32;
  auto consider = [&](int pattern, uint32_t slice) {
    if (std::string_view(engine_patterns()[static_cast<size_t>(pattern)].engine) == "unknown") return;
    if (best < 0 || pattern < best) best = pattern, at = slice;
  };
  for (const PatternHit& h : s.hits)
    if (h.match.kind != PatternMatch::Kind::Stage) consider(h.pattern, h.slice);
  for (const InferenceIteration& it : run.iterations)
    if (it.pattern >= 0) consider(it.pattern, it.slice);
  if (best >= 0) {
    const EnginePattern& p = engine_patterns()[static_cast<size_t>(best)];
    run.engine = p.engine, run.engine_loc = m.slices[at].loc, run.engine_known = true;
    run.engine_what = std::string(p.engine) + " annotation (" + p.id + ")";
  }
  for (size_t i = 0; i < s.first_source.size() && !run.engine_known; ++i) {
    if (s.first_source[i] == kNone32) continue;
    run.engine = engine_sources()[i].engine, run.engine_loc = m.slices[s.first_source[i]].loc, run.engine_known = true;
    run.engine_what = std::string(run.engine) + " Python frame (" + engine_sources()[i].fragment + ")";
  }
  if (run.engine_known && std::string_view(run.engine) == "vllm" && run_platform(m) == "ascend") {
    run.engine = "vllm_ascend";
    run.engine_what += ", on an Ascend run";
  }
}

// HF generate(): each ProfilerStep a request, each token one choice (argmax / multinomial) after
// the stopping criteria's isin. Only where the run has its own steps and nothing else said.
void find_generate_loop(const RunModel& m, const Scan& s, bool training, InferenceRun& run) {
  if (training || m.steps.empty() || m.meta.step_source != "ProfilerStep#N") return;
  const bool by_source = run.engine_known && std::string_view(run.engine) == "hf_generate";
  if (!by_source && (run.engine_known || s.first_isin == kNone32)) return;
  std::vector<InferenceIteration> its;
  int64_t most = 0;
  for (const Step& st : m.steps) {
    InferenceIteration it;
    it.start = st.start, it.end = st.end, it.loc = st.src.loc;
    it.tokens = count_in(s.token_ops, st.start, st.end);
    if (auto t = std::lower_bound(s.token_ops.begin(), s.token_ops.end(), st.start);
        t != s.token_ops.end() && *t < st.end)
      it.first_token_at = *t;
    most = std::max(most, it.tokens);
    its.push_back(it);
  }
  if (most < 2) return;
  if (!by_source) {
    run.engine = "hf_generate", run.engine_loc = m.slices[s.first_isin].loc, run.engine_known = true;
    run.engine_what = "aten::isin: generate()'s stopping criteria, with one argmax/multinomial per token";
  }
  run.iterations = std::move(its);
}

// The union of [start, end) intervals, sorted in place.
Ns union_ns(std::vector<std::pair<Ns, Ns>>& v) {
  std::sort(v.begin(), v.end());
  Ns total = 0, cur_s = 0, cur_e = -1;
  for (const auto& [a, b] : v) {
    if (cur_e < 0 || a > cur_e) {
      if (cur_e >= 0) total += cur_e - cur_s;
      cur_s = a, cur_e = b;
    } else cur_e = std::max(cur_e, b);
  }
  return cur_e >= 0 ? total + cur_e - cur_s : total;
}

// One device op of an iteration: the op, the call that launched it, and whether a graph replay ran it.
struct IterOp {
  uint32_t slice, call;
  bool graphed;
};

// The index of the iteration whose host span [start, end) holds ts, or -1.
int iteration_at(const std::vector<InferenceIteration>& its, Ns ts) {
  auto next =
      std::upper_bound(its.begin(), its.end(), ts, [](Ns v, const InferenceIteration& it) { return v < it.start; });
  if (next == its.begin()) return -1;
  const auto i = static_cast<size_t>(next - its.begin()) - 1;
  return ts < its[i].end ? static_cast<int>(i) : -1;
}

// Ascend: the tasks whose launch origin (the frame's arrows through the task queue, and the
// graph executions' tasks) an iteration's host span holds.
std::vector<std::vector<IterOp>> ascend_ops_of_iterations(const RunFrame& frame, const InferenceRun& run) {
  std::vector<std::vector<IterOp>> out(run.iterations.size());
  for (const LaunchOrigin& o : frame.origins(true)) {
    const int i = o.call == kNone32 ? -1 : iteration_at(run.iterations, o.ts);
    if (i >= 0) out[static_cast<size_t>(i)].push_back({o.slice, o.call, o.graph});
  }
  return out;
}

// The iterations' ops (the frame's pairing by correlation id: ops launched by runtime calls
// inside an iteration's host span, on the annotation's process; Ascend: by launch origin).
std::vector<std::vector<IterOp>> ops_of_iterations(const RunModel& m, const RunFrame& frame, const InferenceRun& run) {
  const auto& its = run.iterations;
  if (!frame.launched_work()) return ascend_ops_of_iterations(frame, run);
  std::vector<std::vector<IterOp>> out(its.size());
  for (const LaunchedOp& op : frame.launched()) {
    if (op.call == kNone32) continue;
    const Slice& call = m.slices[op.call];
    const int at = iteration_at(its, call.ts);
    if (at < 0) continue;
    const auto i = static_cast<size_t>(at);
    if (its[i].slice != kNone32 && m.tracks[call.track].pid != m.tracks[m.slices[its[i].slice].track].pid) continue;
    out[i].push_back({op.slice, op.call, graph_call(m.str(call.name)) == GraphCall::Launch});
  }
  return out;
}

// Each op's class: a replayed kernel's from the host operators its capture recorded around its
// launch (model/graph_capture.h); an eager op's from those around its own launch call.
void classify_ops(const RunModel& m, const std::vector<std::vector<IterOp>>& ops, InferenceRun& run) {
  std::vector<uint32_t> eager_calls;
  for (const auto& v : ops)
    for (const IterOp& o : v)
      if (!o.graphed) eager_calls.push_back(o.call);
  const std::vector<HostOpsAround> around = host_ops_around(m, eager_calls);
  size_t e = 0;
  for (size_t i = 0; i < ops.size(); ++i)
    for (const IterOp& o : ops[i]) {
      const Slice& d = m.slices[o.slice];
      StrId op = kEmptyStr, leaf = kEmptyStr;
      if (!o.graphed) {
        op = around[e].op, leaf = around[e].leaf_op, ++e;
      } else if (const CapturedLaunch* l = m.graph_replays.launch_of(o.slice)) {
        op = l->op, leaf = l->leaf_op, ++run.iterations[i].paired_ops;
      }
      const OpClass c = classify_op(m.str(op), m.str(leaf), m.str(d.name));
      run.iterations[i].class_ns[static_cast<size_t>(c)] += d.dur;
      if (!o.graphed) run.iterations[i].eager_class_ns[static_cast<size_t>(c)] += d.dur;
      run.class_ops[{c, op != kEmptyStr ? op : leaf != kEmptyStr ? leaf : d.name}] += d.dur;
    }
}

// Each iteration's device work: its own window (after the holes), busy time, the part graph
// replays ran, the eager part, and the classes.
void attach_device(const RunModel& m, const RunFrame& frame, InferenceRun& run) {
  auto& its = run.iterations;
  if (its.empty()) return;
  const std::vector<std::vector<IterOp>> ops = ops_of_iterations(m, frame, run);
  Ns prev_end = -1;  // the device is free of the iterations before from here
  for (size_t i = 0; i < its.size(); ++i) {
    std::vector<std::pair<Ns, Ns>> all, graphed, eager;
    std::vector<OwnOp> own;
    for (const IterOp& o : ops[i]) {
      const Slice& d = m.slices[o.slice];
      all.push_back({d.ts, d.end()});
      (o.graphed ? graphed : eager).push_back({d.ts, d.end()});
      if (its[i].first_token_at >= 0 && m.slices[o.call].ts < its[i].first_token_at)
        its[i].prefill_end = std::max(its[i].prefill_end, d.end());
      own.push_back({d.ts, d.end(), m.slices[o.call].end(), o.slice});
    }
    its[i].ops = static_cast<uint32_t>(all.size()), its[i].graph_ops = static_cast<uint32_t>(graphed.size());
    if (all.empty()) continue;
    const OwnWindow w = own_window(own, prev_end);
    prev_end = std::max(prev_end, w.end);
    its[i].device_start = w.start, its[i].device_end = w.end, its[i].hole = w.hole;
    its[i].busy = union_ns(all);
    its[i].graph_busy = union_ns(graphed);
    its[i].eager_busy = union_ns(eager);
  }
  classify_ops(m, ops, run);
}

}  // namespace

InferenceRun find_inference(const RunModel& m, const RunFrame& frame, bool training) {
  InferenceRun run;
  const Scan s = scan_host(m);
  collect(m, s, run);
  decide_engine(m, s, run);
  run.stream_captures = static_cast<uint32_t>(s.begin_captures.size());
  run.instantiations = static_cast<uint32_t>(s.instantiations.size());
  run.graph_launches = s.graph_launches;
  // A diffusion pipeline's calls are its iterations; without their annotation the engine still says it.
  const std::string_view engine = run.engine;
  const bool diffusion = engine == "xdit" || engine == "diffusers";
  if (!run.iterations.empty()) run.kind = diffusion ? "diffusion" : "serving";
  else if (!run.captures.empty()) run.kind = "graph_capture";
  else if (diffusion) run.kind = "diffusion";
  else {
    find_generate_loop(m, s, training, run);
    if (!run.iterations.empty()) run.kind = "generate_loop";
  }
  // Ascend: the ACL graph calls are CANN's (facts/graph_calls.h), not on the host operator tracks.
  if (!frame.launched_work() && std::string_view(run.kind) != "unknown") {
    const GraphCalls calls(m);
    for (uint32_t i : calls.all_calls()) {
      const GraphCallKind k = graph_call_kind(m.str(m.slices[i].name));
      if (k == GraphCallKind::Capture) ++run.stream_captures;
      else if (k == GraphCallKind::AclGraph) ++run.graph_launches;
    }
  }
  attach_device(m, frame, run);
  return run;
}

}  // namespace npu
