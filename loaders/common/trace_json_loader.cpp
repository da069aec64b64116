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
#include "loaders/common/long_event.h"
#include "loaders/common/trace_chunk_parser.h"
#include "loaders/common/trace_chunk_reader.h"
#include "loaders/common/trace_text_scan.h"
#include "loaders/common/track_slice_blocks.h"

namespace npu {
namespace {

class TraceLoader {
 public:
  TraceLoader(const std::string& path, uint16_t file_id, RunModel& model, const TraceLoadOptions& opt)
      : path_(path),
        file_id_(file_id),
        model_(model),
        threads_(opt.threads > 0 ? opt.threads
                                 : static_cast<int>(std::min(2u, std::max(1u, std::thread::hardware_concurrency())))),
        reader_(path, opt, static_cast<size_t>(threads_) + 1) {}

  TraceLoadResult run() {
    auto t0 = std::chrono::steady_clock::now();
    reader_.open();
    result_.object_form = reader_.object_form();
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
    result_.bytes = reader_.consumed();
    model_.stats.trace_bytes += reader_.consumed();
    model_.stats.trace_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    return std::move(result_);
  }

 private:
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

  // Chunks one after another; after a chunk fails, again from its start, cut exactly, where a
  // chunk that fails is the file's error.
  void run_serial() {
    Chunk c;
    ChunkResult r;
    while (reader_.next(c)) {
      r.reset();
      c.parse(r);
      if (!r.ok) {
        if (reader_.exact()) throw reader_.chunk_error(c, r);
        reader_.restart_exact(c.text_offset);
        continue;
      }
      merge(r);
    }
  }

  // What the loading thread and the parse workers share in run_parallel: the chunks waiting for
  // a worker, the results waiting for their turn to merge (in chunk order), and where a failed
  // chunk started.
  struct Pipeline {
    std::mutex mu;
    std::condition_variable cv_jobs, cv_done;
    std::deque<Chunk> jobs;
    std::unordered_map<size_t, std::unique_ptr<ChunkResult>> results;
    std::unordered_map<size_t, uint64_t> chunk_offsets;
    bool closing = false;
    std::exception_ptr worker_error;
    std::vector<std::thread> workers;
    size_t next_merge = 0, produced = 0;
    bool failed = false;
    uint64_t failed_offset = 0;
  };

  // A worker: parses the chunks it takes until the pipeline closes. An exception (out of
  // memory) ends no thread: the chunk's result is null and the merge rethrows it on the loading
  // thread.
  void parse_chunks(Pipeline& p) {
    for (;;) {
      Chunk c;
      {
        std::unique_lock<std::mutex> lock(p.mu);
        p.cv_jobs.wait(lock, [&] { return p.closing || !p.jobs.empty(); });
        if (p.jobs.empty()) return;
        c = std::move(p.jobs.front());
        p.jobs.pop_front();
      }
      p.cv_jobs.notify_all();
      std::unique_ptr<ChunkResult> r;
      std::exception_ptr error;
      try {
        r = take_result();
        c.parse(*r);
      } catch (...) {
        r.reset();
        error = std::current_exception();
      }
      reader_.give_back(c);
      {
        std::lock_guard<std::mutex> lock(p.mu);
        if (error && !p.worker_error) p.worker_error = error;
        p.results[c.index] = std::move(r);
      }
      p.cv_done.notify_all();
    }
  }

  // Merges the results that are next in chunk order (all of them, waiting, with `wait_all`);
  // stops at a chunk that failed, noting where it started.
  void merge_ready(Pipeline& p, bool wait_all) {
    for (;;) {
      std::unique_ptr<ChunkResult> r;
      {
        std::unique_lock<std::mutex> lock(p.mu);
        if (p.next_merge >= p.produced) return;
        if (wait_all) p.cv_done.wait(lock, [&] { return p.results.count(p.next_merge) > 0; });
        auto it = p.results.find(p.next_merge);
        if (it == p.results.end()) return;
        r = std::move(it->second);
        p.results.erase(it);
      }
      if (!r) std::rethrow_exception(p.worker_error);
      if (!r->ok) {
        p.failed = true;
        p.failed_offset = p.chunk_offsets[p.next_merge];
        return;
      }
      merge(*r);
      recycle(std::move(r));
      ++p.next_merge;
    }
  }

  void stop_workers(Pipeline& p) {
    {
      std::lock_guard<std::mutex> lock(p.mu);
      p.closing = true;
      p.jobs.clear();
    }
    p.cv_jobs.notify_all();
    for (auto& w : p.workers)
      if (w.joinable()) w.join();
  }

  // The loading thread: reads chunks and queues them (at most one per worker: bounds memory),
  // merging what is ready between reads, until the file ends or a chunk failed. An error reading
  // a chunk (a gzip stream cut short) is the file's error only when every chunk before it loads,
  // as in run_serial, which reads a chunk only after the one before it parsed: reading ahead
  // must not decide which of two errors is reported.
  void feed_chunks(Pipeline& p) {
    const size_t max_queued = static_cast<size_t>(threads_);
    for (;;) {
      Chunk c;
      bool more = false;
      try {
        more = reader_.next(c);
      } catch (...) {
        merge_ready(p, true);
        if (p.failed) return;  // the exact re-read from the failed chunk decides
        throw;
      }
      if (!more) break;
      p.chunk_offsets[c.index] = c.text_offset;
      {
        std::unique_lock<std::mutex> lock(p.mu);
        p.cv_jobs.wait(lock, [&] { return p.jobs.size() < max_queued; });
        p.jobs.push_back(std::move(c));
        ++p.produced;
      }
      p.cv_jobs.notify_all();
      merge_ready(p, false);
      if (p.failed) break;
    }
    if (!p.failed) merge_ready(p, true);
  }

  void run_parallel() {
    Pipeline p;
    for (int t = 0; t < threads_; ++t) p.workers.emplace_back([this, &p] { parse_chunks(p); });
    try {
      feed_chunks(p);
    } catch (...) {
      // A read error (or a failed merge) must not leave workers running: join, then report.
      stop_workers(p);
      throw;
    }
    stop_workers(p);
    // A chunk failed: a cut fell inside a string or a nested value, or the file is malformed.
    // From that chunk on, the chunks are cut exactly, one by one.
    if (p.failed) {
      reader_.restart_exact(p.failed_offset);
      run_serial();
    }
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
    const ByteSource& src = reader_.source();
    if (first_merge_ && !r.flows.empty() && src.file_bytes() > 0 && !src.compressed()) {
      // Reserve the arrow table once from the first chunk's density (generously: pages that
      // are never written cost no memory), so it is not re-grown and copied many times.
      double per_byte =
          static_cast<double>(r.flows.size()) / 2 / static_cast<double>(std::max<uint64_t>(1, reader_.consumed()));
      model_.flows.reserve(model_.flows.size() +
                           static_cast<size_t>(per_byte * static_cast<double>(src.file_bytes()) * 1.2) + 1024);
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
    for (const OpInputs& o : r.op_inputs) model_.op_inputs.push_back({o.loc, smap[o.dims], smap[o.types]});
    for (const LaunchKernel& k : r.launch_kernels) model_.launch_kernels.push_back({k.loc, smap[k.kernel]});
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
    oversized_.insert(oversized_.end(), r.oversized.begin(), r.oversized.end());
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
    if (!oversized_.empty())
      model_.stats.reject(path_ + ": " + std::to_string(oversized_.size()) + " events larger than " +
                          std::to_string(kMaxEventBytes >> 20) +
                          " MiB (without their whitespace, strings cut at 16 KiB) were skipped, the first at byte " +
                          std::to_string(oversized_.front()));
    if (auto it = model_.stats.events_by_phase.find(std::string(1, '\0')); it != model_.stats.events_by_phase.end()) {
      model_.stats.reject(path_ + ": " + std::to_string(it->second) + " events without a \"ph\" were skipped");
      model_.stats.events_by_phase.erase(it);
    }
    if (result_.object_form) {
      // The object's other keys: those before "traceEvents" (kept as text by read_head)
      // and those after it (collected by the last chunk's parser).
      std::string head = reader_.head_object();
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
  int threads_ = 1;
  TraceChunkReader reader_;
  TraceLoadResult result_;

  bool first_merge_ = true;
  std::string tail_;
  uint64_t without_ts_ = 0;
  std::vector<uint64_t> oversized_;  // events skipped by the reader, in file order

  std::mutex pool_mu_;
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
