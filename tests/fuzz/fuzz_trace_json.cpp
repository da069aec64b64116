// libFuzzer target: the streaming Chrome-trace loader (loaders/trace_json_loader.h).
//
// Every input is loaded four ways, each followed by RunModel::finalize():
//   1. as is, threads=1, chunk_bytes=64
//   2. as is, threads=2, chunk_bytes=64
//   3./4. "amplified": ~128 KiB of filler (two valid events and whitespace) is spliced in
//      front of the input's own events, so that the first chunk boundary (the loader never
//      makes a chunk smaller than its carry + 64 KiB, whatever chunk_bytes says) falls inside
//      the fuzzed bytes, at a place chosen by the input's hash; threads=1 and threads=2. This
//      is what drives the "}, {" splitting and the recovery path.
// To keep the rate up (a failed chunk makes the loader re-read the rest of the file into a
// fresh 16 MiB buffer, which dominates the cost of a small input), the threads=2 loads run
// for every input that loads and for a hash-chosen share of those that do not.
//
// Oracles: a LoadError is fine (one line, naming the file, offset inside it); any other
// exception, a crash, a hang or a sanitizer report is a bug. Beyond that, results must not
// depend on how the file was cut: threads=1 and threads=2 must agree exactly, and when the
// splice point is unambiguous the amplified file must load iff the original does, with
// exactly the filler's events added.
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>

#include "base/load_error.h"
#include "fuzz_util.h"
#include "loaders/common/trace_json_loader.h"
#include "model/model.h"

namespace {

using npu_fuzz::enabled;
using npu_fuzz::finding;

struct Outcome {
  bool ok = false;
  std::string error;  // LoadError::what() with the path removed
  uint64_t events = 0, slices = 0, flows = 0, counters = 0, unmatched = 0, dangling = 0;
  bool object_form = false;

  std::string describe() const {
    if (!ok) return "LoadError \"" + error + "\"";
    return "ok: events=" + std::to_string(events) + " slices=" + std::to_string(slices) +
           " flows=" + std::to_string(flows) + " counters=" + std::to_string(counters) +
           " unmatched=" + std::to_string(unmatched) + " dangling=" + std::to_string(dangling);
  }
};

Outcome load(const std::string& path, int threads, uint64_t size) {
  Outcome o;
  npu::RunModel model;
  npu::TraceLoadOptions opt;
  opt.threads = threads;
  opt.chunk_bytes = 64;
  try {
    npu::TraceLoadResult r = npu::load_trace_json(path, 0, model, opt);
    model.finalize();
    o.ok = true;
    o.object_form = r.object_form;
    o.events = model.stats.trace_events;
    o.slices = model.slices.size();
    o.flows = model.flows.size();
    o.counters = model.counters.size();
    o.unmatched = model.stats.unmatched_begin_end;
    o.dangling = model.stats.dangling_flow_points;
    // Steps and flow bindings must point inside the tables.
    for (const auto& f : model.flows)
      if ((f.start_slice != npu::kNone32 && f.start_slice >= model.slices.size()) ||
          (f.end_slice != npu::kNone32 && f.end_slice >= model.slices.size()))
        finding("flow bound to a slice index past the table");
  } catch (const npu::LoadError& e) {
    npu_fuzz::check_load_error(e, path, size);
    o.error = std::string(e.what()).substr(path.size());
  }
  return o;
}

bool same(const Outcome& a, const Outcome& b) {
  if (a.ok != b.ok) return false;
  if (!a.ok) return a.error == b.error;
  return a.events == b.events && a.slices == b.slices && a.flows == b.flows && a.counters == b.counters &&
         a.unmatched == b.unmatched && a.dangling == b.dangling;
}

bool is_ws(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

// Just after the '[' that opens the event array, or npos. *exact: the guess is certainly the
// array the loader uses (bare array; or the only "traceEvents" in the text).
size_t array_open(std::string_view s, bool* exact) {
  *exact = false;
  size_t i = 0;
  if (s.size() >= 3 && static_cast<unsigned char>(s[0]) == 0xEF && static_cast<unsigned char>(s[1]) == 0xBB &&
      static_cast<unsigned char>(s[2]) == 0xBF)
    i = 3;
  while (i < s.size() && is_ws(s[i])) ++i;
  if (i >= s.size()) return std::string_view::npos;
  if (s[i] == '[') {
    *exact = true;
    return i + 1;
  }
  if (s[i] != '{') return std::string_view::npos;
  size_t k = s.find("\"traceEvents\"");
  if (k == std::string_view::npos) return k;
  size_t j = k + 13;
  while (j < s.size() && is_ws(s[j])) ++j;
  if (j >= s.size() || s[j] != ':') return std::string_view::npos;
  ++j;
  while (j < s.size() && is_ws(s[j])) ++j;
  if (j >= s.size() || s[j] != '[') return std::string_view::npos;
  *exact = s.find("traceEvents", k + 2) == std::string_view::npos && s.find('\\') == std::string_view::npos;
  return j + 1;
}

// Exactly `len` bytes: two valid events with whitespace between them (whitespace is
// nearly free to parse, which keeps a 128 KiB file fast); *count gets 2.
std::string filler(size_t len, uint64_t* count) {
  static const std::string first = "{\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":1,\"dur\":1,\"name\":\"f\"}, ";
  static const std::string last = "{\"ph\":\"X\",\"pid\":7,\"tid\":7,\"ts\":4,\"dur\":1,\"name\":\"g\"}";
  std::string out = first;
  size_t spaces = len - first.size() - last.size();
  out.append(spaces, ' ');
  for (size_t i = first.size() + 127; i < out.size(); i += 128) out[i] = '\n';
  out += last;
  *count = 2;
  return out;
}

uint64_t fnv1a(const uint8_t* d, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; ++i) h = (h ^ d[i]) * 1099511628211ull;
  return h;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static npu_fuzz::ScratchFile raw_file(".json");
  static npu_fuzz::ScratchFile amp_file(".json");
  if (size > (1u << 20)) return 0;
  const bool gz = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
  const uint64_t known_size = gz ? UINT64_MAX : size;

  raw_file.write(data, size);
  Outcome raw1 = load(raw_file.path(), 1, known_size);
  const uint64_t h = fnv1a(data, size);
  if (enabled("threads2") && !(gz && !enabled("gz-threads2")) && (raw1.ok || (h & 7) == 0)) {
    Outcome raw2 = load(raw_file.path(), 2, known_size);
    if (enabled("threads-agree") && !same(raw1, raw2))
      finding("threads=1 and threads=2 disagree: " + raw1.describe() + " vs " + raw2.describe());
  }

  if (gz || size > 32768 || !enabled("amplify")) return 0;
  std::string_view s(reinterpret_cast<const char*>(data), size);
  bool exact = false;
  size_t ip = array_open(s, &exact);
  if (ip == std::string_view::npos) return 0;
  size_t next = ip;
  while (next < size && is_ws(s[next])) ++next;
  std::string sep = (next < size && s[next] != ']') ? ", " : "";
  // The loader's first chunk ends at file offset 131072 (64 KiB head + 64 KiB more); put it
  // k bytes into the input's own events.
  const size_t first_chunk_end = size_t{1} << 17;
  size_t rest = size - ip;
  size_t k = static_cast<size_t>((h >> 6) % (rest + 1));
  size_t fill_len = first_chunk_end - ip - sep.size() - k;
  uint64_t fill_events = 0;
  std::string amp;
  amp.reserve(size + fill_len + 8);
  amp.append(s.substr(0, ip));
  amp += filler(fill_len, &fill_events);
  amp += sep;
  amp.append(s.substr(ip));
  amp_file.write(amp);
  Outcome amp1 = load(amp_file.path(), 1, amp.size());
  if (enabled("threads2") && (amp1.ok || (h & 0x38) == 0)) {
    Outcome amp2 = load(amp_file.path(), 2, amp.size());
    if (enabled("threads-agree") && !same(amp1, amp2))
      finding("amplified input: threads=1 and threads=2 disagree: " + amp1.describe() + " vs " + amp2.describe());
  }

  if (exact && enabled("chunking-agrees")) {
    if (raw1.ok != amp1.ok)
      finding("splitting the input into chunks changes the outcome: whole " + raw1.describe() + ", chunked " +
              amp1.describe());
    if (raw1.ok && (amp1.events != raw1.events + fill_events || amp1.slices != raw1.slices + fill_events ||
                    amp1.flows != raw1.flows || amp1.counters != raw1.counters))
      finding("splitting the input into chunks changes what is loaded: whole " + raw1.describe() + ", chunked " +
              amp1.describe() + " (filler events " + std::to_string(fill_events) + ")");
  }
  return 0;
}
