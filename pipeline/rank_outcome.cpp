#include "pipeline/rank_outcome.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

#include "model/communication.h"

namespace npu::pipeline {
namespace {

using cluster::StepRow;
using nlohmann::json;
static_assert(std::is_trivially_copyable_v<StepRow>, "step rows travel as raw bytes");

void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

uint64_t get_u64(const std::string& in, size_t& at) {
  uint64_t v = 0;
  if (in.size() - at < sizeof v) throw std::runtime_error("truncated rank result");
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

// The communication records travel field by field (a rank has thousands, each with its links:
// as CBOR objects they cost the parent a JSON tree per record to read).
template <class T>
void put(std::string& out, T v) {
  static_assert(std::is_trivially_copyable_v<T> && sizeof(T) <= sizeof(uint64_t));
  out.append(reinterpret_cast<const char*>(&v), sizeof v);
}
void put(std::string& out, const std::string& s) {
  put_u64(out, s.size());
  out += s;
}

struct Reader {
  const std::string& in;
  size_t at = 0;
  template <class T>
  void get(T& v) {
    if (in.size() - at < sizeof v) throw std::runtime_error("truncated rank result");
    std::memcpy(&v, in.data() + at, sizeof v);
    at += sizeof v;
  }
  void get(std::string& s) {
    uint64_t n = get_u64(in, at);
    if (in.size() - at < n) throw std::runtime_error("truncated rank result");
    s.assign(in.data() + at, n);
    at += n;
  }
  template <class... T>
  void all(T&... v) {
    (get(v), ...);
  }
  uint64_t count(size_t min_bytes_each) {
    uint64_t n = get_u64(in, at);
    if ((in.size() - at) / min_bytes_each < n) throw std::runtime_error("truncated rank result");
    return n;
  }
};

template <class... T>
void put_all(std::string& out, const T&... v) {
  (put(out, v), ...);
}

void put_source(std::string& out, const RecordSource& s) { put_all(out, s.file, s.table, s.row, s.what); }

void put_records(std::string& out, const std::vector<CommOp>& ops, const std::vector<CommLink>& links) {
  put_u64(out, ops.size());
  for (const CommOp& o : ops) {
    put_all(out, o.step, o.kind, o.name, o.group, o.rank, o.elapse_ns, o.transit_ns, o.wait_ns, o.sync_ns, o.idle_ns,
            o.wait_ratio, o.sync_ratio);
    put_u64(out, o.bandwidth.size());
    for (const CommBandwidth& b : o.bandwidth)
      put_all(out, b.transport, b.size_mb, b.time_ns, b.gbps, b.large_packet_ratio, b.packets);
    put_source(out, o.source);
  }
  put_u64(out, links.size());
  for (const CommLink& l : links) {
    put_all(out, l.step, l.kind, l.op, l.group, l.src, l.dst, l.transport, l.size_mb, l.time_ns, l.gbps);
    put_source(out, l.source);
  }
}

void get_records(Reader& r, std::vector<CommOp>& ops, std::vector<CommLink>& links) {
  ops.resize(r.count(sizeof(uint64_t)));
  for (CommOp& o : ops) {
    r.all(o.step, o.kind, o.name, o.group, o.rank, o.elapse_ns, o.transit_ns, o.wait_ns, o.sync_ns, o.idle_ns,
          o.wait_ratio, o.sync_ratio);
    o.bandwidth.resize(r.count(sizeof(uint64_t)));
    for (CommBandwidth& b : o.bandwidth)
      r.all(b.transport, b.size_mb, b.time_ns, b.gbps, b.large_packet_ratio, b.packets);
    r.all(o.source.file, o.source.table, o.source.row, o.source.what);
  }
  links.resize(r.count(sizeof(uint64_t)));
  for (CommLink& l : links) {
    r.all(l.step, l.kind, l.op, l.group, l.src, l.dst, l.transport, l.size_mb, l.time_ns, l.gbps);
    r.all(l.source.file, l.source.table, l.source.row, l.source.what);
  }
}

}  // namespace

// Layout: [u64 header size][header CBOR: the slim facts][u64 step count][step rows][the
// communication records, field by field (put_records)].
std::string encode_rank_outcome(const RankOutcome& r) {
  json header = {{"error", r.error}, {"rank", r.rank.rank}, {"path", r.rank.path}, {"facts", r.rank.facts}};
  header["input_files"] = r.input_files;
  if (r.full)
    header["full"] = {
        {"path", r.full->path}, {"summary", r.full->summary}, {"facts", r.full->facts.doc}, {"views", r.full->views}};
  std::vector<uint8_t> cbor = json::to_cbor(header);
  std::string out;
  out.reserve(2 * sizeof(uint64_t) + cbor.size() + r.rank.steps.size() * sizeof(StepRow));
  put_u64(out, cbor.size());
  out.append(reinterpret_cast<const char*>(cbor.data()), cbor.size());
  put_u64(out, r.rank.steps.size());
  out.append(reinterpret_cast<const char*>(r.rank.steps.data()), r.rank.steps.size() * sizeof(StepRow));
  put_records(out, r.rank.comm_ops, r.rank.links);
  return out;
}

RankOutcome decode_rank_outcome(const std::string& bytes) {
  size_t at = 0;
  uint64_t header_size = get_u64(bytes, at);
  if (bytes.size() - at < header_size) throw std::runtime_error("truncated rank result");
  json header = json::from_cbor(bytes.begin() + static_cast<std::ptrdiff_t>(at),
                                bytes.begin() + static_cast<std::ptrdiff_t>(at + header_size));
  at += header_size;
  uint64_t rows = get_u64(bytes, at);
  if ((bytes.size() - at) / sizeof(StepRow) < rows) throw std::runtime_error("truncated rank result");
  RankOutcome r;
  r.error = header["error"].get<std::string>();
  r.rank.rank = header["rank"].get<int>();
  r.rank.path = header["path"].get<std::string>();
  r.rank.facts = std::move(header["facts"]);
  r.input_files = header["input_files"].get<std::vector<std::pair<uint64_t, uint64_t>>>();
  r.rank.steps.resize(rows);
  std::memcpy(r.rank.steps.data(), bytes.data() + at, rows * sizeof(StepRow));
  Reader records{bytes, at + rows * sizeof(StepRow)};
  get_records(records, r.rank.comm_ops, r.rank.links);
  if (header.contains("full")) {
    json& f = header["full"];
    r.full = RunOfList{f["path"].get<std::string>(), std::move(f["summary"]), Facts{std::move(f["facts"])},
                       std::move(f["views"])};
  }
  return r;
}

}  // namespace npu::pipeline
