// libFuzzer target: the small JSON side files a run folder holds beside its trace, and facts
// documents read back by compare / gate / the cluster reduce (docs/facts.md).
//
// The input is written to a scratch file and read by every reader of such a file:
// communication.json and communication_matrix.json of one rank, the profiler's
// cluster_communication*.json, and a facts document (read_facts: schema validation, impossible
// numbers). A LoadError is the expected answer to bad input; it must be one line and name the
// file. Oracles beyond "no crash, no other exception":
//   comm-times  every time a communication reader accepted is an integer in [0, 1e18] ns
//   facts-ok    a facts document read_facts accepted validates against the schema again
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "facts/communication_records.h"
#include "facts/facts.h"
#include "facts/facts_schema.h"
#include "fuzz_util.h"
#include "loaders/communication/communication_files.h"

namespace {

using nlohmann::json;
using npu_fuzz::check_load_error;
using npu_fuzz::enabled;
using npu_fuzz::finding;

// Every "*_ns" number in the records a reader returned.
void check_times(const json& j, const char* reader) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      const std::string& k = it.key();
      const json& v = it.value();
      if (k.size() > 3 && k.compare(k.size() - 3, 3, "_ns") == 0 && !v.is_null()) {
        const bool ok = v.is_number_integer() && v.get<int64_t>() >= 0 && v.get<int64_t>() <= 1'000'000'000'000'000'000;
        if (enabled("comm-times") && !ok)
          finding(std::string(reader) + " accepted an impossible time: " + k + " = " + v.dump());
      }
      check_times(v, reader);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) check_times(v, reader);
  }
}

template <class Read>
void read(const char* reader, const std::string& path, uint64_t size, Read r) {
  try {
    check_times(r(), reader);
  } catch (const npu::LoadError& e) {
    check_load_error(e, path, size);
  } catch (const std::exception& e) {
    finding(std::string(reader) + " threw " + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  npu_fuzz::ScratchFile file(".json");
  file.write(data, size);
  const std::string& p = file.path();
  // The records as the facts carry them (facts/communication_records.h), where the times are checked.
  read("load_communication_ops", p, size, [&] { return npu::comm_ops_json(npu::load_communication_ops(p, 0)); });
  read("load_communication_links", p, size, [&] { return npu::comm_links_json(npu::load_communication_links(p)); });
  read("load_cluster_communication_ops", p, size,
       [&] { return npu::comm_ops_json(npu::load_cluster_communication_ops(p)); });
  read("load_cluster_communication_links", p, size,
       [&] { return npu::comm_links_json(npu::load_cluster_communication_links(p)); });
  try {
    npu::Facts f = npu::read_facts(p);
    const auto problems = npu::validate_facts(f.doc, npu::FactsSchema::builtin(), false);
    if (enabled("facts-ok") && !problems.empty())
      finding("read_facts accepted a document that does not validate: " + problems[0]);
  } catch (const npu::LoadError& e) {
    check_load_error(e, p, size);
  } catch (const std::exception& e) {
    finding(std::string("read_facts threw ") + e.what());
  }
  return 0;
}
