// libFuzzer target: facts files, the JSON that `gate`, `compare` and `analyze --facts` read
// (docs/facts.md). The input is written to a scratch file and read with read_facts (schema
// validation, impossible numbers); a document it accepts goes on, as both sides, through
// build_compare and the gate with every budget set, and its step split funds two greedy findings.
// A LoadError is the expected answer to bad input (one line, naming the file). Oracles beyond
// "no crash, no other exception":
//   gate-counts   failed + passed + skipped is the number of checks
//   gate-self     a document gated against itself fails no budget (only "nothing was evaluated")
//   gate-nothing  a passing gate evaluated at least one check
//   savings-cap   the findings' savings together are at most the step the split gives
#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "compare/compare.h"
#include "compare/gate.h"
#include "facts/facts.h"
#include "fuzz_util.h"
#include "rules/attribution.h"

namespace {

using nlohmann::json;
using npu_fuzz::enabled;
using npu_fuzz::finding;

void gate_checks(const npu::Facts& f, const std::string& path) {
  namespace cmp = npu::compare;
  cmp::CompareSide side;
  side.path = path;
  side.kind = "facts file";
  side.facts = f;
  cmp::CompareOptions opt;
  opt.resamples = 200;
  const json doc = cmp::build_compare(side, side, opt);
  cmp::GateConfig cfg;
  cfg.compare = opt;
  for (const char* b : {"free_ratio", "comm_not_overlapped", "memory_peak", "ai_cpu_calls", "op_type:MatMul"})
    cfg.set(cmp::Budget{b, cmp::Budget::Kind::Relative, 0.05, "5%", "fuzz"});
  const json g = cmp::evaluate_gate(doc, cfg);
  const int failed = g["failed"], passed = g["passed"], skipped = g["skipped"];
  if (enabled("gate-counts") && static_cast<size_t>(failed + passed + skipped) != g["checks"].size())
    finding("gate counts do not add up to its checks: " + g.dump());
  for (const auto& c : g["checks"])
    if (enabled("gate-self") && c["status"] == "fail" && c["name"] != "evaluated")
      finding("a facts document gated against itself failed " + c.dump());
  if (enabled("gate-nothing") && !cmp::gate_failed(g) && passed == 0)
    finding("a gate passed with nothing evaluated: " + g.dump());
}

void savings_checks(const npu::Facts& f) {
  json findings = json::array();
  for (const char* pool : {"copies", "idle.compile", "compute"})
    findings.push_back({{"rule", std::string("fuzz.") + pool},
                        {"pool", pool},
                        {"saving_ns", 1'000'000'000'000'000},
                        {"confidence", 1.0},
                        {"score_ns", 1'000'000'000'000'000}});
  const json a = npu::attribute_savings(findings, f.doc);
  if (!a.value("available", false)) return;
  double total = 0;
  for (const auto& x : findings) total += x.value("saving_ns", 0.0);
  const double step = a.value("step_ns", 0.0);
  if (enabled("savings-cap") && total > step + 2)
    finding("savings of " + std::to_string(total) + " ns in a step of " + std::to_string(step) + " ns");
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  npu_fuzz::ScratchFile file(".facts.json");
  file.write(data, size);
  const std::string& p = file.path();
  npu::Facts f;
  try {
    f = npu::read_facts(p);
  } catch (const npu::LoadError& e) {
    npu_fuzz::check_load_error(e, p, size);
    return 0;
  } catch (const std::exception& e) {
    finding(std::string("read_facts threw ") + e.what());
  }
  try {
    gate_checks(f, p);
    savings_checks(f);
  } catch (const std::exception& e) {
    finding(std::string("an accepted facts document threw ") + e.what());
  }
  return 0;
}
