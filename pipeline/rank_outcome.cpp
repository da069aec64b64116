#include "pipeline/rank_outcome.h"

#include <concepts>
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
// as CBOR objects they cost the parent a JSON tree per record to read). Each record's fields in
// wire order, listed once for the writer and the reader.
template <class T, class F>
void visit_fields(T& s, F& f) requires std::same_as<std::remove_const_t<T>, RecordSource> {
  f(s.file, s.table, s.row, s.what);
}
template <class T, class F>
void visit_fields(T& b, F& f) requires std::same_as<std::remove_const_t<T>, CommBandwidth> {
  f(b.transport, b.size_mb, b.time_ns, b.gbps, b.large_packet_ratio, b.packets);
}
template <class T, class F>
void visit_fields(T& o, F& f) requires std::same_as<std::remove_const_t<T>, CommOp> {
  f(o.step, o.kind, o.name, o.group, o.rank, o.elapse_ns, o.transit_ns, o.wait_ns, o.sync_ns, o.idle_ns, o.wait_ratio,
    o.sync_ratio, o.bandwidth, o.source);
}
template <class T, class F>
void visit_fields(T& l, F& f) requires std::same_as<std::remove_const_t<T>, CommLink> {
  f(l.step, l.kind, l.op, l.group, l.src, l.dst, l.transport, l.size_mb, l.time_ns, l.gbps, l.source);
}

struct Writer {
  std::string& out;
  template <class... T>
  void operator()(const T&... v) {
    (put(v), ...);
  }
  template <class T>
  void put(const T& v) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      out.append(reinterpret_cast<const char*>(&v), sizeof v);
    } else {
      visit_fields(v, *this);
    }
  }
  void put(const std::string& s) {
    put_u64(out, s.size());
    out += s;
  }
  template <class T>
  void put(const std::vector<T>& v) {
    put_u64(out, v.size());
    for (const T& x : v) put(x);
  }
};

struct Reader {
  const std::string& in;
  size_t at = 0;
  template <class... T>
  void operator()(T&... v) {
    (get(v), ...);
  }
  template <class T>
  void get(T& v) {
    if constexpr (std::is_trivially_copyable_v<T>) {
      if (in.size() - at < sizeof v) throw std::runtime_error("truncated rank result");
      std::memcpy(&v, in.data() + at, sizeof v);
      at += sizeof v;
    } else {
      visit_fields(v, *this);
    }
  }
  void get(std::string& s) {
    uint64_t n = get_u64(in, at);
    if (in.size() - at < n) throw std::runtime_error("truncated rank result");
    s.assign(in.data() + at, n);
    at += n;
  }
  template <class T>
  void get(std::vector<T>& v) {
    uint64_t n = get_u64(in, at);
    if ((in.size() - at) / sizeof(uint64_t) < n) throw std::runtime_error("truncated rank result");
    v.resize(n);
    for (T& x : v) get(x);
  }
};

}  // namespace

// Layout: [u64 header size][header CBOR: the slim facts][u64 step count][step rows][the
// communication records, field by field (visit_fields)].
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
  Writer{out}(r.rank.comm_ops, r.rank.links);
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
  Reader{bytes, at + rows * sizeof(StepRow)}(r.rank.comm_ops, r.rank.links);
  if (header.contains("full")) {
    json& f = header["full"];
    r.full = RunOfList{f["path"].get<std::string>(), std::move(f["summary"]), Facts{std::move(f["facts"])},
                       std::move(f["views"])};
  }
  return r;
}

}  // namespace npu::pipeline
