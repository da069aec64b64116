#include "loaders/common/trace_json_loader.h"

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <memory>
#include <mutex>
#include <simdjson.h>
#include <thread>
#include <unordered_map>

#include "base/byte_source.h"
#include "base/json_file.h"
#include "base/load_error.h"
#include "loaders/common/duration_bound.h"
#include "loaders/common/flow_pairing.h"
#include "loaders/common/trace_chunk_parser.h"
#include "loaders/common/trace_text_scan.h"
#include "loaders/common/track_slice_blocks.h"

namespace npu {
namespace {

// Room before the text for the longest prefix a chunk may need ({"traceEvents":[).
constexpr size_t kPrefixRoom = kObjectTailPrefix.size();

// A chunk of text handed to a parser: prefix + events text [+ "]"] + padding.
struct Chunk {
  size_t index = 0;
  std::unique_ptr<char[]> data;
  size_t cap = 0;
  size_t start = 0;          // where the parse buffer (the prefix) begins in data
  size_t len = 0;            // bytes to parse from data + start
  uint64_t text_offset = 0;  // file offset of data[kPrefixRoom]
  ChunkShape shape = ChunkShape::Array;

  void parse(ChunkResult& r) const {
    parse_trace_chunk(data.get() + start, len, kPrefixRoom - start, text_offset, shape, r);
  }
};

class TraceLoader {
 public:
  TraceLoader(const std::string& path, uint16_t file_id, RunModel& model, const TraceLoadOptions& opt)
      : path_(path), file_id_(file_id), model_(model), opt_(opt) {
    threads_ = opt.threads > 0 ? opt.threads
                               : static_cast<int>(std::min(2u, std::max(1u, std::thread::hardware_concurrency())));
  }

  TraceLoadResult run() {
    auto t0 = std::chrono::steady_clock::now();
    src_ = ByteSource::open(path_);
    read_head();
    if (threads_ <= 1) {
      run_serial();
    } else {
      run_parallel();
    }
    auto t1 = std::chrono::steady_clock::now();
    model_.stats.add_phase("trace: read, parse, merge chunks", std::chrono::duration<double>(t1 - t0).count());
    finish();
    model_.stats.add_phase("trace: hand over slices, metadata",
                           std::chrono::duration<double>(std::chrono::steady_clock::now() - t1).count());
    model_.trace_file = file_id_;
    result_.bytes = consumed_;
    model_.stats.trace_bytes += consumed_;
    model_.stats.trace_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::move(result_);
  }

 private:
  // Reads until the first event (or the end of an empty array) and leaves it in carry_.
  void read_head() {
    std::string head;
    size_t want = 1 << 16;
    bool eof = false;
    // Appends up to `want` more bytes of the file to `head`; eof once nothing more comes.
    auto read_more = [&] {
      size_t old = head.size();
      head.resize(old + want);
      size_t n = src_->read(head.data() + old, want);
      head.resize(old + n);
      consumed_ += n;
      eof = n == 0;
    };
    size_t pos = 0;
    uint64_t skipped = 0;  // leading whitespace dropped before `head` (its file offset)
    for (;;) {
      read_more();
      // Skip a UTF-8 byte order mark and leading whitespace.
      pos = 0;
      if (skipped == 0 && head.size() >= 3 && static_cast<unsigned char>(head[0]) == 0xEF &&
          static_cast<unsigned char>(head[1]) == 0xBB && static_cast<unsigned char>(head[2]) == 0xBF)
        pos = 3;
      while (pos < head.size() && is_ws(head[pos])) ++pos;
      if (pos < head.size() || eof) break;
      // Only whitespace so far: drop it rather than keep it (2 GiB of spaces, or a small .gz
      // of them, grew this buffer to several GiB before "file is empty").
      skipped += head.size();
      head.clear();
    }
    if (pos >= head.size()) throw LoadError::whole_file(path_, "file is empty (no JSON, only whitespace)");

    size_t open = 0;
    if (head[pos] == '[') {
      open = pos;
    } else if (head[pos] == '{') {
      result_.object_form = true;
      for (;;) {
        open = find_trace_events_array(head, pos, eof, path_);
        if (open != std::string::npos) break;
        read_more();
        want *= 2;
      }
      // Keep the object without traceEvents, to read its other keys at the end.
      size_t key = head.rfind("\"traceEvents\"", open);
      head_object_ = head.substr(pos, key - pos);
    } else {
      throw LoadError::at_byte(path_, skipped + pos,
                               std::string("not a JSON trace: expected '[' or '{', found '") + head[pos] + "'");
    }
    size_t first = open + 1;
    while (first < head.size() && is_ws(head[first])) ++first;
    carry_.assign(head, first, std::string::npos);
    carry_offset_ = skipped + first;
    eof_ = eof;
  }

  // Fills a new chunk: carry + fresh input up to chunk_bytes, cut at the last event boundary.
  // Returns false when there is nothing left.
  bool next_chunk(Chunk& c) {
    if (done_) return false;
    size_t target = std::max(opt_.chunk_bytes, carry_.size() + (size_t{1} << 16));
    for (;;) {
      size_t need = kPrefixRoom + target + 1 + simdjson::SIMDJSON_PADDING;
      if (!c.data || c.cap < need) {
        c.data = take_buffer(need);
        c.cap = need;
      }
      char* text = c.data.get() + kPrefixRoom;
      std::memcpy(text, carry_.data(), carry_.size());
      size_t have = carry_.size();
      while (!eof_ && have < target) {
        size_t n = src_->read(text + have, target - have);
        if (n == 0) eof_ = true;
        have += n;
        consumed_ += n;
      }
      if (opt_.progress) opt_.progress(consumed_, src_->compressed() ? 0 : src_->file_bytes());
      c.text_offset = carry_offset_;
      c.index = next_index_++;
      if (eof_) {
        set_prefix(c, result_.object_form ? ChunkShape::ObjectTail : ChunkShape::Array);
        c.len = kPrefixRoom - c.start + have;
        std::memset(text + have, 0, simdjson::SIMDJSON_PADDING);
        done_ = true;
        carry_.clear();
        return true;
      }
      size_t next_start = 0;
      size_t cut = find_event_boundary(text, have, &next_start);
      if (cut == 0) cut = cut_before_trailing_whitespace(text, have, &next_start);
      if (cut == 0) {
        // No event boundary yet. Whitespace before the next event is dropped (a run of GBs of
        // it between two events made this carry, and memory, grow to several times its size);
        // what remains is one event larger than the chunk: keep it and read more.
        size_t ws = 0;
        while (ws < have && is_ws(text[ws])) ++ws;
        carry_.assign(text + ws, have - ws);
        carry_offset_ += ws;
        --next_index_;
        if (ws == 0) target *= 2;
        continue;
      }
      carry_.assign(text + next_start, have - next_start);
      carry_offset_ = c.text_offset + next_start;
      text[cut] = ']';
      set_prefix(c, ChunkShape::Array);
      c.len = kPrefixRoom - c.start + cut + 1;
      std::memset(text + cut + 1, 0, simdjson::SIMDJSON_PADDING);
      return true;
    }
  }

  static void set_prefix(Chunk& c, ChunkShape shape) {
    c.shape = shape;
    if (shape == ChunkShape::Array) {
      c.start = kPrefixRoom - 1;
      c.data[c.start] = '[';
    } else {
      c.start = 0;
      std::memcpy(c.data.get(), kObjectTailPrefix.data(), kPrefixRoom);
    }
  }

  std::unique_ptr<char[]> take_buffer(size_t need) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    for (auto it = pool_.begin(); it != pool_.end(); ++it) {
      if (it->second >= need) {
        auto p = std::move(it->first);
        pool_.erase(it);
        return p;
      }
    }
    return std::unique_ptr<char[]>(new char[need]);
  }
  void give_back(Chunk& c) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (pool_.size() < static_cast<size_t>(threads_) + 1) pool_.emplace_back(std::move(c.data), c.cap);
    c.data.reset();
  }

  std::unique_ptr<ChunkResult> take_result() {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (result_pool_.empty()) return std::make_unique<ChunkResult>();
    auto r = std::move(result_pool_.back());
    result_pool_.pop_back();
    r->reset();
    return r;
  }
  void recycle(std::unique_ptr<ChunkResult> r) {
    std::lock_guard<std::mutex> lock(pool_mu_);
    if (result_pool_.size() < static_cast<size_t>(threads_) + 1) result_pool_.push_back(std::move(r));
  }

  void run_serial() {
    Chunk c;
    ChunkResult r;
    while (next_chunk(c)) {
      r.reset();
      c.parse(r);
      if (!r.ok) {
        recover_from(c.text_offset, r);
        return;
      }
      merge(r);
    }
  }

  void run_parallel() {
    std::mutex mu;
    std::condition_variable cv_jobs, cv_done;
    std::deque<Chunk> jobs;
    std::unordered_map<size_t, std::unique_ptr<ChunkResult>> results;
    std::unordered_map<size_t, uint64_t> chunk_offsets;
    bool closing = false;
    const size_t max_queued = static_cast<size_t>(threads_);  // bounds memory: queued + in work

    std::vector<std::thread> workers;
    for (int t = 0; t < threads_; ++t) {
      workers.emplace_back([&] {
        for (;;) {
          Chunk c;
          {
            std::unique_lock<std::mutex> lock(mu);
            cv_jobs.wait(lock, [&] { return closing || !jobs.empty(); });
            if (jobs.empty()) return;
            c = std::move(jobs.front());
            jobs.pop_front();
          }
          cv_jobs.notify_all();
          std::unique_ptr<ChunkResult> r = take_result();
          c.parse(*r);
          give_back(c);
          {
            std::lock_guard<std::mutex> lock(mu);
            results[c.index] = std::move(r);
          }
          cv_done.notify_all();
        }
      });
    }

    size_t next_merge = 0, produced = 0;
    bool failed = false;
    uint64_t failed_offset = 0;
    ChunkResult failed_result;
    auto merge_ready = [&](bool wait_all) {
      for (;;) {
        std::unique_ptr<ChunkResult> r;
        {
          std::unique_lock<std::mutex> lock(mu);
          if (next_merge >= produced) return;
          if (wait_all) cv_done.wait(lock, [&] { return results.count(next_merge) > 0; });
          auto it = results.find(next_merge);
          if (it == results.end()) return;
          r = std::move(it->second);
          results.erase(it);
        }
        if (!r->ok) {
          failed = true;
          failed_offset = chunk_offsets[next_merge];
          failed_result = std::move(*r);
          return;
        }
        merge(*r);
        recycle(std::move(r));
        ++next_merge;
      }
    };

    auto stop_workers = [&] {
      {
        std::lock_guard<std::mutex> lock(mu);
        closing = true;
        jobs.clear();
      }
      cv_jobs.notify_all();
      for (auto& w : workers)
        if (w.joinable()) w.join();
    };
    try {
      for (;;) {
        Chunk c;
        if (!next_chunk(c)) break;
        chunk_offsets[c.index] = c.text_offset;
        {
          std::unique_lock<std::mutex> lock(mu);
          cv_jobs.wait(lock, [&] { return jobs.size() < max_queued; });
          jobs.push_back(std::move(c));
          ++produced;
        }
        cv_jobs.notify_all();
        merge_ready(false);
        if (failed) break;
      }
      if (!failed) merge_ready(true);
    } catch (...) {
      // A read error (or a failed merge) must not leave workers running: join, then report.
      stop_workers();
      throw;
    }
    stop_workers();
    if (failed) recover_from(failed_offset, failed_result);
  }

  // A chunk failed. Either its first or last split point fell inside a string or nested
  // value, or the file really is malformed. Re-parse everything from that chunk's start
  // to the end as one piece: if that works the split was the problem; if not, report the
  // error where the parser stopped.
  void recover_from(uint64_t offset, const ChunkResult& first_failure) {
    auto src = ByteSource::open(path_);
    std::vector<char> skip(1 << 20);
    uint64_t left = offset;
    while (left > 0) {
      size_t n = src->read(skip.data(), static_cast<size_t>(std::min<uint64_t>(left, skip.size())));
      if (n == 0) break;
      left -= n;
    }
    std::string rest = result_.object_form ? std::string(kObjectTailPrefix) : std::string("[");
    const size_t prefix_len = rest.size();
    for (;;) {
      size_t old = rest.size();
      rest.resize(old + (size_t{1} << 24));
      size_t n = src->read(rest.data() + old, size_t{1} << 24);
      rest.resize(old + n);
      if (n == 0) break;
    }
    size_t len = rest.size();
    rest.append(simdjson::SIMDJSON_PADDING, '\0');
    ChunkResult r;
    parse_trace_chunk(rest.data(), len, prefix_len, offset,
                      result_.object_form ? ChunkShape::ObjectTail : ChunkShape::Array, r);
    if (!r.ok) {
      LocatedEventError where =
          locate_event_error(rest.data() + prefix_len, len - prefix_len, offset, !result_.object_form);
      if (where.found) throw LoadError::at_byte(path_, where.offset, where.message);
      std::string msg = (r.bad_event ? "" : "invalid JSON: ") + r.error;
      // A file cut short is the commonest cause; say so when the text does not end the array.
      size_t e = len;
      while (e > prefix_len && is_ws(rest[e - 1])) --e;
      char lastc = e > prefix_len ? rest[e - 1] : '\0';
      if (lastc != ']' && lastc != '}') msg += " (the file ends inside the trace array: truncated?)";
      throw LoadError::at_byte(path_, r.error_offset, msg);
    }
    (void)first_failure;
    merge(r);
  }

  StrId remap_str(const std::vector<StrId>& m, StrId s) { return m[s]; }

  int64_t global_key_part(int64_t v, const std::vector<StrId>& smap) {
    return v >= kStrKeyBase ? kStrKeyBase + smap[static_cast<size_t>(v - kStrKeyBase)] : v;
  }

  void merge(ChunkResult& r) {
    std::vector<StrId> smap(r.strings.size());
    for (size_t i = 0; i < r.strings.size(); ++i) smap[i] = model_.strings.intern(r.strings.str(static_cast<StrId>(i)));
    std::vector<uint32_t> tmap(r.tracks.size());
    for (size_t i = 0; i < r.tracks.size(); ++i) {
      TrackKey g{global_key_part(r.tracks[i].pid, smap), global_key_part(r.tracks[i].tid, smap)};
      auto [it, inserted] = track_index_.try_emplace(g, static_cast<uint32_t>(model_.tracks.size()));
      if (inserted) {
        Track t;
        t.pid = g.pid;
        t.tid = g.tid;
        model_.tracks.push_back(t);
      }
      tmap[i] = it->second;
    }
    if (first_merge_ && !r.flows.empty() && src_->file_bytes() > 0 && !src_->compressed()) {
      // Reserve the arrow table once from the first chunk's density (generously: pages that
      // are never written cost no memory), so it is not re-grown and copied many times.
      double per_byte = static_cast<double>(r.flows.size()) / 2 / static_cast<double>(std::max<uint64_t>(1, consumed_));
      model_.flows.reserve(model_.flows.size() +
                           static_cast<size_t>(per_byte * static_cast<double>(src_->file_bytes()) * 1.2) + 1024);
    }
    first_merge_ = false;
    for (Slice s : r.slices) {
      s.name = smap[s.name];
      s.cat = smap[s.cat];
      s.task_type = smap[s.task_type];
      s.track = tmap[s.track];
      slices_.push(s.track, s);
    }
    for (const auto& f : r.flows) {
      RawFlowPoint g = f;
      g.track = tmap[f.track];
      g.cat = smap[f.cat];
      g.name = smap[f.name];
      if (f.id_is_str) g.id = smap[static_cast<StrId>(f.id)];
      flows_.add(g);
    }
    for (const auto& b : r.begin_end) {
      RawBeginEnd g = b;
      g.track = tmap[b.track];
      g.name = smap[b.name];
      g.cat = smap[b.cat];
      begin_end_.push_back(g);
    }
    model_.copy_bytes.insert(model_.copy_bytes.end(), r.copy_bytes.begin(), r.copy_bytes.end());
    for (CounterSample c : r.counters) {
      c.name = smap[c.name];
      c.track = tmap[c.track];
      model_.counters.push_back(c);
    }
    for (const auto& m : r.meta) {
      TrackKey k{global_key_part(m.pid, smap), global_key_part(m.tid, smap)};
      StrId v = smap[m.value];
      switch (m.what) {
        case RawMeta::What::ProcessName: process_names_[k.pid] = v; break;
        case RawMeta::What::ProcessLabels: process_labels_[k.pid] = v; break;
        case RawMeta::What::ThreadName: thread_names_[k] = v; break;
      }
    }
    model_.stats.trace_events += r.events;
    for (int c = 0; c < 128; ++c)
      if (r.by_phase[c]) model_.stats.events_by_phase[std::string(1, static_cast<char>(c))] += r.by_phase[c];
    if (r.without_ts) {
      without_ts_ += r.without_ts;
    }
    if (!r.tail.empty()) tail_ = std::move(r.tail);
  }

  // A duration is bounded by the trace it is in (loaders/duration_bound.h): such slices are
  // dropped and the file is partial.
  void drop_impossible_durations(size_t first) {
    auto& v = model_.slices;
    if (v.size() <= first) return;
    Ns last_start = v[first].ts;
    for (size_t i = first; i < v.size(); ++i) last_start = std::max(last_start, v[i].ts);
    uint64_t dropped = 0;
    Ns worst = 0;
    size_t out = first;
    for (size_t i = first; i < v.size(); ++i) {
      const Slice& sl = v[i];
      if (lasts_impossibly_long(sl.ts, sl.dur, last_start)) {
        ++dropped;
        worst = std::max(worst, sl.dur);
        continue;
      }
      v[out++] = sl;
    }
    v.resize(out);
    if (dropped)
      model_.stats.reject(path_ + ": " + std::to_string(dropped) + " events lasting past the trace's last event by " +
                          "more than 60 s were skipped (impossible durations, the longest " + std::to_string(worst) +
                          " ns)");
  }

  void finish() {
    for (auto& t : model_.tracks) {
      if (t.process_name == kEmptyStr) {
        auto it = process_names_.find(t.pid);
        if (it != process_names_.end()) t.process_name = it->second;
      }
      auto lb = process_labels_.find(t.pid);
      if (lb != process_labels_.end()) t.process_label = lb->second;
      auto tn = thread_names_.find(TrackKey{t.pid, t.tid});
      if (tn != thread_names_.end()) t.thread_name = tn->second;
    }
    pair_begin_end();
    const size_t first_slice = model_.slices.size();
    slices_.move_into(model_.slices);
    drop_impossible_durations(first_slice);
    flows_.finish();
    if (without_ts_)
      model_.stats.reject(path_ + ": " + std::to_string(without_ts_) +
                          " events without a usable ts (or flow id), or with a dur that is no time or negative, "
                          "were skipped (complete events without a dur included)");
    if (auto it = model_.stats.events_by_phase.find(std::string(1, '\0')); it != model_.stats.events_by_phase.end()) {
      model_.stats.reject(path_ + ": " + std::to_string(it->second) + " events without a \"ph\" were skipped");
      model_.stats.events_by_phase.erase(it);
    }
    if (result_.object_form) {
      // The object's other keys: those before "traceEvents" (kept as text by read_head)
      // and those after it (collected by the last chunk's parser).
      std::string head = head_object_;
      while (!head.empty() && (is_ws(head.back()) || head.back() == ',')) head.pop_back();
      std::string after = tail_.size() > 2 ? tail_.substr(1) : "}";  // drop the tail's "{"
      std::string doc = head + (head.size() > 1 && after != "}" ? "," : "") + after;
      size_t too_deep = std::string::npos;
      result_.top_level = parse_json_or_discard(doc, &too_deep);
      if (result_.top_level.is_discarded()) {
        model_.stats.warnings.push_back(path_ + ": the keys around \"traceEvents\" could not be read" +
                                        (too_deep != std::string::npos
                                             ? " (nested deeper than " + std::to_string(kMaxJsonDepth) + " levels)"
                                             : ""));
        result_.top_level = nlohmann::json::object();
      }
    }
  }

  void pair_begin_end() {
    if (begin_end_.empty()) return;
    std::stable_sort(begin_end_.begin(), begin_end_.end(), [](const RawBeginEnd& a, const RawBeginEnd& b) {
      return a.track != b.track ? a.track < b.track : a.ts < b.ts;
    });
    std::vector<const RawBeginEnd*> stack;
    uint32_t cur = kNone32;
    for (const auto& e : begin_end_) {
      if (e.track != cur) {
        model_.stats.unmatched_begin_end += stack.size();
        stack.clear();
        cur = e.track;
      }
      if (e.phase == 'B') {
        stack.push_back(&e);
      } else if (!stack.empty()) {
        const RawBeginEnd* b = stack.back();
        stack.pop_back();
        Slice s;
        s.ts = b->ts;
        s.dur = e.ts - b->ts;
        s.loc = b->loc;
        s.name = b->name;
        s.cat = b->cat;
        s.track = b->track;
        slices_.push(s.track, s);
      } else {
        ++model_.stats.unmatched_begin_end;
      }
    }
    model_.stats.unmatched_begin_end += stack.size();
  }

  std::string path_;
  uint16_t file_id_;
  RunModel& model_;
  TraceLoadOptions opt_;
  int threads_ = 1;
  std::unique_ptr<ByteSource> src_;
  TraceLoadResult result_;

  std::string carry_;
  uint64_t carry_offset_ = 0;
  uint64_t consumed_ = 0;
  bool eof_ = false, done_ = false, first_merge_ = true;
  size_t next_index_ = 0;
  std::string head_object_, tail_;
  uint64_t without_ts_ = 0;

  std::mutex pool_mu_;
  std::vector<std::pair<std::unique_ptr<char[]>, size_t>> pool_;
  std::vector<std::unique_ptr<ChunkResult>> result_pool_;  // merged results, kept for their memory

  std::unordered_map<TrackKey, uint32_t, TrackKeyHash> track_index_;
  std::unordered_map<int64_t, StrId> process_names_, process_labels_;
  std::unordered_map<TrackKey, StrId, TrackKeyHash> thread_names_;
  FlowPairing flows_{model_};  // pairs flow points into model_.flows as chunks are merged
  std::vector<RawBeginEnd> begin_end_;
  TrackSliceBlocks slices_;  // until finish(): then moved into model_.slices, grouped by track
};

}  // namespace

TraceLoadResult load_trace_json(const std::string& path, uint16_t file_id, RunModel& model,
                                const TraceLoadOptions& options) {
  TraceLoader loader(path, file_id, model, options);
  return loader.run();
}

}  // namespace npu
