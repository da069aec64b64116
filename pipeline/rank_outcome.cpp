#include "pipeline/rank_outcome.h"

#include <cstring>
#include <stdexcept>
#include <type_traits>

namespace npu::pipeline {
namespace {

using nlohmann::json;
using cluster::StepRow;
static_assert(std::is_trivially_copyable_v<StepRow>, "step rows travel as raw bytes");

void put_u64(std::string& out, uint64_t v) { out.append(reinterpret_cast<const char*>(&v), sizeof v); }

uint64_t get_u64(const std::string& in, size_t& at) {
  uint64_t v = 0;
  if (in.size() - at < sizeof v) throw std::runtime_error("truncated rank result");
  std::memcpy(&v, in.data() + at, sizeof v);
  at += sizeof v;
  return v;
}

}  // namespace

// Layout: [u64 header size][header CBOR: the slim facts, the communication rows][u64 step count][step rows].
std::string encode_rank_outcome(const RankOutcome& r) {
  json header = {{"error", r.error},
                 {"rank", r.rank.rank},
                 {"path", r.rank.path},
                 {"facts", r.rank.facts},
                 {"communication_rows", cluster::rows_to_json(r.rank.comm_ops, r.rank.links)}};
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
  cluster::rows_from_json(header["communication_rows"], r.rank.comm_ops, r.rank.links);
  r.input_files = header["input_files"].get<std::vector<std::pair<uint64_t, uint64_t>>>();
  r.rank.steps.resize(rows);
  std::memcpy(r.rank.steps.data(), bytes.data() + at, rows * sizeof(StepRow));
  if (header.contains("full")) {
    json& f = header["full"];
    r.full = RunOfList{f["path"].get<std::string>(), std::move(f["summary"]), Facts{std::move(f["facts"])},
                       std::move(f["views"])};
  }
  return r;
}

}  // namespace npu::pipeline
