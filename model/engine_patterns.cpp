#include "model/engine_patterns.h"

#include <algorithm>
#include <bit>
#include <charconv>
#include <initializer_list>
#include <map>
#include <unordered_map>

namespace npu {

const char* to_string(InferencePhase p) {
  switch (p) {
    case InferencePhase::Prefill: return "prefill";
    case InferencePhase::Decode: return "decode";
    case InferencePhase::Mixed: return "mixed";
    case InferencePhase::Unknown: break;
  }
  return "unknown";
}

namespace {

// Reads a non-negative integer at the front of `s` and drops it; false when none is there.
bool take_int(std::string_view& s, int64_t& v) {
  const char* end = s.data() + s.size();
  auto [p, ec] = std::from_chars(s.data(), end, v);
  if (ec != std::errc() || p == s.data() || v < 0) return false;
  s.remove_prefix(static_cast<size_t>(p - s.data()));
  return true;
}

bool take(std::string_view& s, std::string_view prefix) {
  if (s.substr(0, prefix.size()) != prefix) return false;
  s.remove_prefix(prefix.size());
  return true;
}

// Skips a parenthesised group "(...)" when one is at the front.
void skip_group(std::string_view& s) {
  if (s.empty() || s.front() != '(') return;
  const size_t close = s.find(')');
  s.remove_prefix(close == std::string_view::npos ? s.size() : close + 1);
}

InferencePhase phase_of(int64_t prefill_reqs, int64_t decode_reqs) {
  if (prefill_reqs > 0 && decode_reqs > 0) return InferencePhase::Mixed;
  if (prefill_reqs > 0) return InferencePhase::Prefill;
  if (decode_reqs > 0) return InferencePhase::Decode;
  return InferencePhase::Unknown;
}

// SGLang's scheduler: "step[DECODE bs=32]", "step[EXTEND bs=15 toks=15360]", "step[MIXED bs=8 ...]".
bool parse_sglang_step(std::string_view s, PatternMatch& out) {
  if (!take(s, "step[")) return false;
  if (take(s, "DECODE")) out.phase = InferencePhase::Decode;
  else if (take(s, "EXTEND") || take(s, "PREFILL")) out.phase = InferencePhase::Prefill;
  else if (take(s, "MIXED")) out.phase = InferencePhase::Mixed;
  else if (!take(s, "IDLE")) return false;
  if (take(s, " bs=") && !take_int(s, out.requests)) return false;
  if (take(s, " toks=")) take_int(s, out.tokens);
  return s.find(']') != std::string_view::npos;
}

// vLLM V1 with its detailed profiling names (TraceLens's splitter writes them for SGLang too):
// "execute_T_context_C(sq..sk..)_generation_G(sq..sk..)": T tokens scheduled, C requests in
// prefill (context), G in decode (generation).
bool parse_vllm_detailed(std::string_view s, PatternMatch& out) {
  int64_t context = 0, generation = 0;
  if (!take(s, "execute_") || !take_int(s, out.tokens) || !take(s, "_context_") || !take_int(s, context)) return false;
  skip_group(s);
  if (!take(s, "_generation_") || !take_int(s, generation)) return false;
  out.requests = context + generation;
  out.phase = phase_of(context, generation);
  return true;
}

// vLLM V1's native worker annotation: "execute_new_N_cached_M": N requests scheduled for the
// first time (their prefill), M continuing (decode, or the next chunk of a chunked prefill: the
// name does not say which, so only new ones alone say prefill).
bool parse_vllm_native(std::string_view s, PatternMatch& out) {
  int64_t fresh = 0, cached = 0;
  if (!take(s, "execute_new_") || !take_int(s, fresh) || !take(s, "_cached_") || !take_int(s, cached)) return false;
  out.requests = fresh + cached;
  out.phase = fresh > 0 && cached > 0 ? InferencePhase::Mixed
              : fresh > 0             ? InferencePhase::Prefill
                                      : InferencePhase::Unknown;
  return true;
}

// xDiT's (xfuser) diffusion runner, as TraceLens records it: "execute_diffusion_N_HxW", one
// pipeline call of N images at H x W.
bool parse_xdit_diffusion(std::string_view s, PatternMatch& out) {
  int64_t h = 0, w = 0;
  if (!take(s, "execute_diffusion_") || !take_int(s, out.requests) || !take(s, "_") || !take_int(s, h) ||
      !take(s, "x") || !take_int(s, w))
    return false;
  return s.empty();
}

// A start-up capture of one batch size: vLLM "capture_32_FULL", "capture_8192_PIECEWISE",
// SGLang "capture_32_DECODE" (the capture runner's annotation as TraceLens records it).
bool parse_capture(std::string_view s, PatternMatch& out) {
  if (!take(s, "capture_") || !take_int(s, out.batch) || !take(s, "_") || s.empty()) return false;
  for (char c : s)
    if (!((c >= 'A' && c <= 'Z') || c == '_')) return false;
  out.kind = PatternMatch::Kind::Capture;
  out.mode = s;
  return true;
}

// A model runner's stage ranges, one after the other in each iteration, `stages[0]` opening it.
bool parse_stage(std::string_view s, std::initializer_list<std::string_view> stages, PatternMatch& out) {
  size_t k = 0;
  for (std::string_view st : stages) {
    if (s == st) {
      out.kind = PatternMatch::Kind::Stage;
      out.opens = k == 0;
      out.stage = static_cast<int8_t>(k);
      return true;
    }
    ++k;
  }
  return false;
}

// vLLM V1's GPU model runner (with VLLM_CUSTOM_SCOPES_FOR_PROFILING=1): "gpu_model_runner: preprocess",
// "... forward", "... postprocess", "... sample", "... eplb"; vllm/v1/worker/gpu_model_runner.py.
bool parse_vllm_v1_stage(std::string_view s, PatternMatch& out) {
  if (!take(s, "gpu_model_runner: ")) return false;
  return parse_stage(s, {"preprocess", "forward", "postprocess", "sample", "eplb"}, out);
}

// vLLM-Ascend's NPU model runner (the same switch): "prepare input", "forward", "post process",
// "sample_token", "draft_token", "async_state_update"; vllm_ascend/worker/model_runner_v1.py.
bool parse_vllm_ascend_stage(std::string_view s, PatternMatch& out) {
  return parse_stage(
      s, {"prepare input", "forward", "post process", "sample_token", "draft_token", "async_state_update"}, out);
}

}  // namespace

const std::vector<EnginePattern>& engine_patterns() {
  static const std::vector<EnginePattern> table = {
      {"sglang_step", "sglang", "step[DECODE bs=32]", parse_sglang_step},
      {"vllm_native", "vllm", "execute_new_2_cached_30", parse_vllm_native},
      {"vllm_detailed", "vllm", "execute_32_context_0(sq0sk0sqsq0sqsk0)_generation_32(sq32sk32785sqsq32sqsk32785)",
       parse_vllm_detailed},
      {"xdit_diffusion", "xdit", "execute_diffusion_1_256x256", parse_xdit_diffusion},
      {"graph_capture", "unknown", "capture_32_FULL", parse_capture},
      {"vllm_v1_stages", "vllm", "gpu_model_runner: preprocess", parse_vllm_v1_stage},
      {"vllm_ascend_stages", "vllm_ascend", "prepare input", parse_vllm_ascend_stage},
  };
  return table;
}

int match_engine_pattern(std::string_view name, PatternMatch& out) {
  const auto& table = engine_patterns();
  for (size_t i = 0; i < table.size(); ++i) {
    PatternMatch m;
    if (table[i].parse(name, m)) {
      out = m;
      return static_cast<int>(i);
    }
  }
  return -1;
}

const std::vector<EngineSource>& engine_sources() {
  static const std::vector<EngineSource> table = {
      {"sglang/srt/", "sglang"},
      {"vllm_ascend/", "vllm_ascend"},
      {"vllm/", "vllm"},
      {"mindie_llm/", "mindie"},
      {"xfuser/", "xdit"},
      {"diffusers/pipelines/", "diffusers"},
      {"transformers/generation/utils.py", "hf_generate"},
  };
  return table;
}

int match_engine_source(std::string_view name) {
  const auto& table = engine_sources();
  for (size_t i = 0; i < table.size(); ++i)
    if (name.find(table[i].fragment) != std::string_view::npos) return static_cast<int>(i);
  return -1;
}

void sort_hits(const RunModel& m, std::vector<PatternHit>& hits) {
  std::sort(hits.begin(), hits.end(), [&](const PatternHit& a, const PatternHit& b) {
    const Slice &x = m.slices[a.slice], &y = m.slices[b.slice];
    return x.ts != y.ts ? x.ts < y.ts : x.dur > y.dur;
  });
}

namespace {

// The iterations of stages (see engine_iterations): on each track, an opening stage and the
// stages of its entry after it, until the next opening one.
std::vector<PatternHit> stage_iterations(const RunModel& m, const std::vector<PatternHit>& hits) {
  struct Open {
    PatternHit hit;
    uint32_t kinds = 0;  // the different stages seen, a bit each
  };
  std::map<std::pair<uint32_t, int>, Open> open;  // (track, entry) -> the iteration being built
  std::vector<PatternHit> out;
  auto close = [&](Open& o) {
    if (std::popcount(o.kinds) >= 2) out.push_back(o.hit);
    o = Open{};
  };
  for (const PatternHit& h : hits) {
    if (h.match.kind != PatternMatch::Kind::Stage) continue;
    const Slice& s = m.slices[h.slice];
    Open& o = open[{s.track, h.pattern}];
    if (o.hit.slice != kNone32 && s.ts < o.hit.end) continue;  // inside a stage already counted
    if (h.match.opens) {
      if (o.hit.slice != kNone32) close(o);
      o.hit = h, o.hit.start = s.ts, o.hit.end = s.end();
    } else if (o.hit.slice == kNone32) {
      continue;  // a stage before any opening one: its iteration began before the trace
    } else {
      o.hit.end = std::max(o.hit.end, s.end());
    }
    o.kinds |= 1u << h.match.stage;
  }
  for (auto& [key, o] : open)
    if (o.hit.slice != kNone32) close(o);
  sort_hits(m, out);
  return out;
}

}  // namespace

std::vector<PatternHit> engine_iterations(const RunModel& m, const std::vector<PatternHit>& hits) {
  std::vector<PatternHit> out;
  Ns outer_end = 0;
  for (const PatternHit& h : hits) {
    if (h.match.kind != PatternMatch::Kind::Iteration) continue;
    const Slice& s = m.slices[h.slice];
    if (!out.empty() && s.ts < outer_end) {
      PatternMatch& outer = out.back().match;
      if (outer.phase == InferencePhase::Unknown) outer.phase = h.match.phase;
      if (outer.requests < 0) outer.requests = h.match.requests;
      if (outer.tokens < 0) outer.tokens = h.match.tokens;
      continue;
    }
    out.push_back(h);
    out.back().start = s.ts, out.back().end = s.end();
    outer_end = s.end();
  }
  return out.empty() ? stage_iterations(m, hits) : out;
}

std::vector<PatternHit> engine_iterations(const RunModel& m) {
  std::vector<PatternHit> hits;
  std::vector<int16_t> code(m.strings.size(), -2);  // per name: -2 unseen, -1 no pattern, else the pattern
  std::unordered_map<StrId, PatternMatch> match;     // what the names that match say
  for (uint32_t t = 0; t < m.tracks.size() && t < m.track_slices.size(); ++t) {
    if (!is_host_op_track(m.tracks[t])) continue;
    for (uint32_t i = m.track_slices[t].begin; i < m.track_slices[t].end; ++i) {
      const StrId n = m.slices[i].name;
      if (code[n] == -2) {
        PatternMatch pm;
        code[n] = static_cast<int16_t>(match_engine_pattern(m.str(n), pm));
        if (code[n] >= 0) match[n] = pm;
      }
      if (code[n] < 0) continue;
      const PatternMatch& pm = match[n];
      if (pm.kind != PatternMatch::Kind::Capture) hits.push_back({i, code[n], pm});
    }
  }
  sort_hits(m, hits);
  return engine_iterations(m, hits);
}

GraphCall graph_call(std::string_view n) {
  if (!(take(n, "cuda") || take(n, "hip"))) return GraphCall::None;
  // Versioned entry points (cudaGraphLaunch_v10000) are the same calls.
  if (take(n, "StreamBeginCapture")) return GraphCall::BeginCapture;
  if (take(n, "StreamEndCapture")) return GraphCall::EndCapture;
  if (take(n, "GraphInstantiate")) return GraphCall::Instantiate;
  if (take(n, "GraphLaunch")) return GraphCall::Launch;
  return GraphCall::None;
}

}  // namespace npu
