#include "loaders/common/trace_chunk_parser.h"

#include <charconv>
#include <cstring>
#include <iterator>
#include <new>
#include <simdjson.h>
#include <string>

#include "base/decimal.h"
#include "loaders/common/trace_event_fields.h"

namespace npu {
namespace od = simdjson::ondemand;

namespace {

using trace_event::EventFields;
using trace_event::fast_int;
using trace_event::fast_us_to_ns;
using trace_event::InternCache;

class ChunkParser {
 public:
  ChunkParser(const char* buf, size_t prefix_len, uint64_t text_offset, ChunkResult& out)
      : buf_(buf), prefix_len_(prefix_len), text_offset_(text_offset), out_(out), cache_(out.strings) {}

  uint64_t file_offset(const char* p) const {
    if (p < buf_ + prefix_len_) return text_offset_;
    return text_offset_ + static_cast<uint64_t>(p - (buf_ + prefix_len_));
  }

  // Returns the key of a field without unescaping: trace keys never contain escapes.
  static std::string_view raw_key(od::field& f, const char* end) {
    const char* k = f.key().raw();
    const char* q = static_cast<const char*>(std::memchr(k, '"', static_cast<size_t>(end - k)));
    return q ? std::string_view(k, static_cast<size_t>(q - k)) : std::string_view();
  }

  simdjson::error_code read_id_value(od::value v, int64_t* num, bool* is_str) {
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    if (t == od::json_type::number) {
      std::string_view raw = v.raw_json_token();
      if (fast_int(raw.data(), num)) {
        *is_str = false;
        return simdjson::SUCCESS;
      }
    }
    if (t == od::json_type::string) {
      std::string_view s;
      if (auto e = v.get_string().get(s)) return e;
      auto n = parse_int(s);
      if (n) {
        *num = *n;
        *is_str = false;
      } else {
        *num = out_.strings.intern(s);
        *is_str = true;
      }
      return simdjson::SUCCESS;
    }
    if (t == od::json_type::number) {
      std::string_view raw = v.raw_json_token();
      auto n = parse_int(raw);
      if (!n) {
        // Floats used as ids: keep the integer part.
        double d = 0;
        if (auto e = v.get_double().get(d)) return e;
        // Out of int64 range (or not finite): not a usable id; keep it distinct but defined.
        if (!(d > -9.2e18 && d < 9.2e18)) d = 0;
        n = static_cast<int64_t>(d);
      }
      *num = *n;
      *is_str = false;
      return simdjson::SUCCESS;
    }
    *num = 0;
    *is_str = false;
    return simdjson::SUCCESS;
  }

  // A time in us (number or numeric string) as ns. `bad` (when given) is set for a value that is
  // present but not a time (a word, a boolean, an object): the event is unusable, not timeless.
  simdjson::error_code read_ns(od::value v, Ns* out, bool* has, bool* bad = nullptr) {
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    std::string_view text;
    if (t == od::json_type::string) {
      od::raw_json_string raw;
      if (auto e = v.get_raw_json_string().get(raw)) return e;
      if (fast_us_to_ns(raw.raw(), out, true)) {
        *has = true;
        return simdjson::SUCCESS;
      }
      if (auto e = v.get_string().get(text)) return e;
    } else if (t == od::json_type::number) {
      text = v.raw_json_token();
      if (fast_us_to_ns(text.data(), out, false)) {
        *has = true;
        return simdjson::SUCCESS;
      }
    } else {
      if (bad && t != od::json_type::null) *bad = true;
      return simdjson::SUCCESS;  // null ts/dur: treated as absent
    }
    auto ns = parse_us_to_ns(text);
    if (ns) {
      *out = *ns;
      *has = true;
    } else if (bad) {
      *bad = true;
    }
    return simdjson::SUCCESS;
  }

  simdjson::error_code read_str(od::value v, StrId* out) {
    std::string_view s;
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    if (t == od::json_type::string) {
      if (auto e = v.get_string().get(s)) return e;
    } else {
      s = v.raw_json_token();  // numbers or other scalars used as names
    }
    *out = cache_.intern(s);
    return simdjson::SUCCESS;
  }

  // Event names. torch_npu names each HostToDevice flow event "HostToDevice<id>": a million
  // distinct strings that say nothing the flow id does not, so they are stored as
  // "HostToDevice" and the id is kept in the flow.
  simdjson::error_code read_name(od::value v, StrId* out) {
    std::string_view s;
    od::json_type t;
    if (auto e = v.type().get(t)) return e;
    if (t != od::json_type::string) return read_str(v, out);
    if (auto e = v.get_string().get(s)) return e;
    constexpr std::string_view kH2D = "HostToDevice";
    if (s.size() > kH2D.size() && s.substr(0, kH2D.size()) == kH2D &&
        s.find_first_not_of("0123456789", kH2D.size()) == std::string_view::npos)
      s = kH2D;
    *out = cache_.intern(s);
    return simdjson::SUCCESS;
  }

  simdjson::error_code read_args(od::value v, EventFields& ev, const char* end) {
    od::object args;
    if (v.get_object().get(args)) return simdjson::SUCCESS;  // args that are not objects are ignored
    for (auto fr : args) {
      od::field f;
      if (auto e = std::move(fr).get(f)) return e;
      od::raw_json_string rk = f.key();
      const char* k0 = rk.raw();
      od::value av = f.value();
      if (*k0 == 'T' && rk.unsafe_is_equal("Task Type")) {
        if (auto e = read_str(av, &ev.task_type)) return e;
      } else if (*k0 == 'c' && (rk.unsafe_is_equal("connection_id") || rk.unsafe_is_equal("correlation_id") ||
                                rk.unsafe_is_equal("correlation"))) {
        int64_t n = 0;
        bool s = false;
        if (auto e = read_id_value(av, &n, &s)) return e;
        if (!s) ev.corr = n;
      } else if (*k0 == 'b' && rk.unsafe_is_equal("bytes")) {
        int64_t n = 0;
        bool s = false;
        if (auto e = read_id_value(av, &n, &s)) return e;
        if (!s && n >= 0) ev.bytes = n;
      } else if (*k0 == 'I' && (rk.unsafe_is_equal("Input Dims") || rk.unsafe_is_equal("Input type"))) {
        // Kept as their JSON text, interned: the roofline reads them (record_shapes runs).
        od::array arr;
        if (av.get_array().get(arr)) continue;  // not a list: not recorded shapes
        std::string_view raw;
        if (auto e = arr.raw_json().get(raw)) return e;
        while (!raw.empty() && (raw.back() == ' ' || raw.back() == '\n' || raw.back() == '\r' || raw.back() == '\t'))
          raw.remove_suffix(1);
        (rk.raw()[6] == 'D' ? ev.input_dims : ev.input_types) = cache_.intern(raw);
      } else if (*k0 == 'C' && rk.unsafe_is_equal("Collective name")) {
        // Kineto record_param_comms ops and NCCL kernels: "allreduce", "broadcast", ... Kept in
        // the task type slot, which Kineto events do not otherwise use.
        if (auto e = read_str(av, &ev.task_type)) return e;
      } else if (*k0 == 'k' && rk.unsafe_is_equal("kernel")) {
        // A launch call's kernel (a graph capture records launches whose kernels do not run).
        if (auto e = read_str(av, &ev.launch_kernel)) return e;
      } else if (*k0 == 'n' && rk.unsafe_is_equal("name")) {
        if (auto e = read_str(av, &ev.arg_name)) return e;
      } else if (*k0 == 'l' && rk.unsafe_is_equal("labels")) {
        if (auto e = read_str(av, &ev.arg_labels)) return e;
      } else if ((*k0 == 'T' && (rk.unsafe_is_equal("Total Allocated") || rk.unsafe_is_equal("Total Reserved"))) ||
                 (*k0 == 'D' && (rk.unsafe_is_equal("Device Type") || rk.unsafe_is_equal("Device Id")))) {
        od::json_type t;
        if (auto e = av.type().get(t)) return e;
        if (t != od::json_type::number) continue;
        std::string_view raw = av.raw_json_token();
        const char c = *k0 == 'T' ? rk.raw()[6] : rk.raw()[7];  // Total [A]llocated / [R]eserved, Device [T]ype / [I]d
        (c == 'A'   ? ev.mem_allocated
         : c == 'R' ? ev.mem_reserved
         : c == 'T' ? ev.mem_device_type
                    : ev.mem_device_id) = raw;
        if (ev.n_num_args < 4) ev.num_args[ev.n_num_args++] = {raw_key(f, end), raw};
      } else if (ev.n_num_args < 4) {
        od::json_type t;
        if (auto e = av.type().get(t)) return e;
        if (t == od::json_type::number) ev.num_args[ev.n_num_args++] = {raw_key(f, end), av.raw_json_token()};
      }
    }
    return simdjson::SUCCESS;
  }

  uint32_t track_of(const TrackKey& key) {
    if (have_last_ && key == last_key_) return last_track_;
    auto [it, inserted] = track_index_.try_emplace(key, static_cast<uint32_t>(out_.tracks.size()));
    if (inserted) out_.tracks.push_back(key);
    last_key_ = key;
    last_track_ = it->second;
    have_last_ = true;
    return it->second;
  }

  void emit(const EventFields& ev, uint64_t loc) {
    ++out_.events;
    out_.by_phase[static_cast<unsigned char>(ev.ph) & 127]++;
    switch (ev.ph) {
      case 'X':
      case 'i':
      case 'I':
      case 'n': {
        // A negative duration is corrupt, not a slice: as a ProfilerStep it made a step time
        // of -14 ms that a gate passed. A complete event ('X') whose dur is missing or null lost
        // its duration: as a zero-length task it emptied the device timeline without a word.
        if (!ev.has_ts || (ev.ph == 'X' && (!ev.has_dur || ev.dur < 0 || ev.bad_dur))) {
          ++out_.without_ts;
          return;
        }
        Slice s;
        s.ts = ev.ts;
        s.dur = ev.ph == 'X' ? ev.dur : 0;
        s.corr = ev.corr;
        s.loc = loc;
        s.name = ev.name;
        s.cat = ev.cat;
        s.task_type = ev.task_type;
        s.track = track_of(ev.key);
        out_.slices.push_back(s);
        slice_args(ev, loc, s.track);
        return;
      }
      case 'B':
      case 'E':
        if (!ev.has_ts) {
          ++out_.without_ts;
          return;
        }
        out_.begin_end.push_back(RawBeginEnd{ev.ts, loc, track_of(ev.key), ev.name, ev.cat, ev.ph});
        return;
      case 's':
      case 't':
      case 'f':
        if (!ev.has_ts || !ev.has_id) {
          ++out_.without_ts;
          return;
        }
        out_.flows.push_back(RawFlowPoint{ev.id, ev.ts, loc, track_of(ev.key), ev.cat, ev.name, ev.ph, ev.id_is_str});
        return;
      case 'M': {
        std::string_view n = out_.strings.str(ev.name);
        if (n == "process_name")
          out_.meta.push_back(RawMeta{RawMeta::What::ProcessName, ev.key.pid, ev.key.tid, ev.arg_name});
        else if (n == "process_labels")
          out_.meta.push_back(RawMeta{RawMeta::What::ProcessLabels, ev.key.pid, ev.key.tid, ev.arg_labels});
        else if (n == "thread_name")
          out_.meta.push_back(RawMeta{RawMeta::What::ThreadName, ev.key.pid, ev.key.tid, ev.arg_name});
        return;
      }
      case 'C': {
        if (!ev.has_ts) {
          ++out_.without_ts;
          return;
        }
        uint32_t track = track_of(ev.key);
        for (int i = 0; i < ev.n_num_args; ++i) {
          auto v = parse_double(ev.num_args[i].raw);
          if (!v) continue;
          StrId series = ev.name;
          if (ev.n_num_args > 1) {
            std::string s(out_.strings.str(ev.name));
            s += '.';
            s += ev.num_args[i].key;
            series = out_.strings.intern(s);
          }
          out_.counters.push_back(CounterSample{ev.ts, *v, loc, series, track});
        }
        return;
      }
      default: return;  // async b/e, samples, objects: counted, not used
    }
  }

  // A Kineto "[memory]" event of a device allocator becomes counter samples named
  // "[memory] Total Allocated, device N" / "[memory] Total Reserved, device N" (bytes).
  // CPU allocator events (Device Type 0) are left out.
  // What a slice's args hold beyond the slice, each in its table by the event's loc.
  void slice_args(const EventFields& ev, uint64_t loc, uint32_t track) {
    if (ev.bytes >= 0 && ev.ph == 'X') out_.copy_bytes.push_back({loc, ev.bytes});
    if (ev.input_dims && ev.ph == 'X') out_.op_inputs.push_back({loc, ev.input_dims, ev.input_types});
    if (ev.launch_kernel && ev.ph == 'X') out_.launch_kernels.push_back({loc, ev.launch_kernel});
    if (!ev.mem_allocated.empty() || !ev.mem_reserved.empty()) memory_counters(ev, loc, track);
  }

  void memory_counters(const EventFields& ev, uint64_t loc, uint32_t track) {
    auto type = parse_int(ev.mem_device_type);
    auto dev = parse_int(ev.mem_device_id);
    if (!type || *type == 0 || !dev) return;
    for (auto [raw, what] : {std::pair{ev.mem_allocated, "[memory] Total Allocated, device "},
                             std::pair{ev.mem_reserved, "[memory] Total Reserved, device "}}) {
      auto v = raw.empty() ? std::nullopt : parse_double(raw);
      if (!v) continue;
      StrId series = out_.strings.intern(std::string(what) + std::to_string(*dev));
      out_.counters.push_back(CounterSample{ev.ts, *v, loc, series, track});
    }
  }

  simdjson::error_code fail(simdjson::error_code e, const char* where) {
    if (e == simdjson::MEMALLOC) throw std::bad_alloc();  // out of memory, not bad JSON
    out_.ok = false;
    out_.error = simdjson::error_message(e);
    out_.error_offset = where ? file_offset(where) : text_offset_;
    return e;
  }

  // A field of an event failed: a value of a type no trace event has ("ph": 5) is named, with
  // its event's offset, rather than reported as invalid JSON (the file is valid JSON).
  simdjson::error_code fail_field(simdjson::error_code e, const char* event_start, std::string_view key, od::value v) {
    fail(e, event_start);
    od::json_type t;
    if (e != simdjson::INCORRECT_TYPE || v.type().get(t)) return e;
    static constexpr const char* kTypes[] = {"", "an array", "an object", "a number", "a string", "a boolean", "null"};
    const auto i = static_cast<size_t>(t);
    out_.bad_event = true;
    out_.error = "the event that starts here has \"" + std::string(key) +
                 "\" = " + (i < std::size(kTypes) && *kTypes[i] ? kTypes[i] : "a value") +
                 ", which no trace event has (the file is valid JSON, but this is no Chrome-trace event)";
    return e;
  }

  simdjson::error_code parse_events(od::array arr, const char* end) {
    const char* event_start = nullptr;
    for (auto er : arr) {
      od::value ev_val;
      if (auto e = std::move(er).get(ev_val)) return fail(e, event_start);
      const char* here = nullptr;
      if (ev_val.current_location().get(here)) here = event_start;
      event_start = here;
      od::object obj;
      if (auto e = ev_val.get_object().get(obj)) return fail(e, event_start);
      EventFields ev;
      for (auto fr : obj) {
        od::field f;
        if (auto e = std::move(fr).get(f)) return fail(e, event_start);
        // Keys are matched on the raw text (trace keys carry no escapes): first byte, then
        // the rest and the closing quote, so no key is ever copied.
        od::raw_json_string rk = f.key();
        const char* k = rk.raw();
        od::value v = f.value();
        simdjson::error_code e = simdjson::SUCCESS;
        switch (k[0]) {
          case 'p':
            if (k[1] == 'h' && k[2] == '"') {
              std::string_view ph;
              e = v.get_string().get(ph);
              if (!e && !ph.empty()) ev.ph = ph[0];
            } else if (k[1] == 'i' && k[2] == 'd' && k[3] == '"') {
              bool is_str = false;
              e = read_id_value(v, &ev.key.pid, &is_str);
              if (is_str) ev.key.pid += kStrKeyBase;
            }
            break;
          case 't':
            if (k[1] == 's' && k[2] == '"') {
              e = read_ns(v, &ev.ts, &ev.has_ts);
            } else if (k[1] == 'i' && k[2] == 'd' && k[3] == '"') {
              bool is_str = false;
              e = read_id_value(v, &ev.key.tid, &is_str);
              if (is_str) ev.key.tid += kStrKeyBase;
            }
            break;
          case 'd':
            if (rk.unsafe_is_equal("dur")) e = read_ns(v, &ev.dur, &ev.has_dur, &ev.bad_dur);
            break;
          case 'n':
            if (rk.unsafe_is_equal("name")) e = read_name(v, &ev.name);
            break;
          case 'c':
            if (rk.unsafe_is_equal("cat")) e = read_str(v, &ev.cat);
            break;
          case 'i':
            if (k[1] == 'd' && k[2] == '"') {
              e = read_id_value(v, &ev.id, &ev.id_is_str);
              ev.has_id = true;
            }
            break;
          case 'a':
            if (rk.unsafe_is_equal("args")) e = read_args(v, ev, end);
            break;
          default: break;
        }
        if (e) return fail_field(e, event_start, raw_key(f, end), v);
      }
      emit(ev, event_start ? file_offset(event_start) : text_offset_);
    }
    return simdjson::SUCCESS;
  }

  void run(size_t len, ChunkShape shape) {
    // One parser per thread, reused across chunks: its buffers stay allocated and warm.
    thread_local od::parser parser;
    // simdjson does not check its string buffer's allocation when it grows (a null one crashed in
    // parse_string under a memory limit): one of that size is asked for first, so out of memory
    // is std::bad_alloc here (the loader rethrows it), not a crash. It is given back at once.
    // (A call of operator new, not a new-expression, which the compiler may leave out.)
    if (len > parser.capacity()) ::operator delete(::operator new(5 * len / 3 + 2 * simdjson::SIMDJSON_PADDING + 64));
    const char* end = buf_ + len;
    od::document doc;
    if (auto e = parser.iterate(buf_, len, len + simdjson::SIMDJSON_PADDING).get(doc)) return (void)fail(e, nullptr);
    if (shape == ChunkShape::Array) {
      od::array arr;
      if (auto e = doc.get_array().get(arr)) return (void)fail(e, nullptr);
      if (parse_events(arr, end)) return;
      const char* after = nullptr;
      if (doc.current_location().get(after) == simdjson::SUCCESS && after < end)
        return (void)fail(simdjson::TRAILING_CONTENT, after);
      return;
    }
    // ObjectTail: {"traceEvents":[ ...events... ], "otherKey": value, ... }
    od::object top;
    if (auto e = doc.get_object().get(top)) return (void)fail(e, nullptr);
    std::string tail = "{";
    for (auto fr : top) {
      od::field f;
      if (auto e = std::move(fr).get(f)) return (void)fail(e, nullptr);
      std::string_view k = raw_key(f, end);
      od::value v = f.value();
      if (k == "traceEvents") {
        od::array arr;
        if (auto e = v.get_array().get(arr)) return (void)fail(e, nullptr);
        if (parse_events(arr, end)) return;
        continue;
      }
      std::string_view raw;
      od::json_type t;
      if (auto e = v.type().get(t)) return (void)fail(e, nullptr);
      simdjson::error_code e = simdjson::SUCCESS;
      if (t == od::json_type::object) {
        od::object o;
        e = v.get_object().get(o);
        if (!e) e = o.raw_json().get(raw);
      } else if (t == od::json_type::array) {
        od::array a;
        e = v.get_array().get(a);
        if (!e) e = a.raw_json().get(raw);
      } else {
        raw = v.raw_json_token();
      }
      if (e) return (void)fail(e, nullptr);
      if (tail.size() > 1) tail += ',';
      tail += '"';
      tail += k;
      tail += "\":";
      tail += raw;
    }
    tail += '}';
    out_.tail = std::move(tail);
  }

 private:
  const char* buf_;
  size_t prefix_len_;
  uint64_t text_offset_;
  ChunkResult& out_;
  InternCache cache_;
  std::unordered_map<TrackKey, uint32_t, TrackKeyHash> track_index_;
  TrackKey last_key_;
  uint32_t last_track_ = 0;
  bool have_last_ = false;
};

}  // namespace

void parse_trace_chunk(const char* buf, size_t len, size_t prefix_len, uint64_t text_offset, ChunkShape shape,
                       ChunkResult& out) {
  ChunkParser p(buf, prefix_len, text_offset, out);
  p.run(len, shape);
}

}  // namespace npu
