// libFuzzer target: hostile rules (issue 20). The input is the body of a rule's check(facts,
// params, emit), run in the sandbox with small budgets next to a well-behaved rule. Beyond "no
// crash, no sanitizer report, no hang": the well-behaved rule's one finding is always there,
// the hostile rule keeps at most SandboxLimits::findings findings, and a failed rule says why.
// Seeds: corpus/rule/ (the reproducers: deep and cyclic emits, caught budgets, costly
// patterns, bad field types).
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "rules/builtin_rules.h"
#include "rules/rule_engine.h"

// The embedded built-in rules come with npu_core_fuzz (npu_fuzz_generated): the rule library
// (lib.*) every rule's sandbox loads; this target runs only its own two rules.

namespace {

const npu::Facts& facts() {
  static const npu::Facts f = [] {
    npu::Facts x;
    x.doc = {{"run", {{"framework", "torch_npu"}}},
             {"overall", {{"steps", 2}, {"step_time", {{"median_ns", 1000000}}}}},
             {"names", {"MatMul_1", "Add_2", std::string(300, 'a')}}};
    return x;
  }();
  return f;
}

[[noreturn]] void finding(const char* what, const std::string& detail) {
  std::fprintf(stderr, "fuzz_rule: %s: %s\n", what, detail.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size > 4096) return 0;
  std::string body(reinterpret_cast<const char*>(data), size);
  npu::RuleEngine e;
  e.add_rule_source(
      {"fuzz.lua", "rule { id = 'fuzz', title = 'F' }\nfunction check(facts, params, emit)\n" + body + "\nend"}, false);
  e.add_rule_source(
      {"good.lua", "rule { id = 'good', title = 'G' } function check(f, p, emit) emit{observed = 'ok'} end"}, false);
  npu::RuleRunOptions opt;
  opt.limits.instructions = 2'000'000;
  opt.limits.wall_ms = 1'000;
  opt.limits.memory_bytes = size_t{16} << 20;
  opt.limits.output_bytes = size_t{1} << 20;
  opt.limits.findings = 20;
  opt.limits.print_bytes = 256;
  auto out = e.run(facts(), opt);
  if (out.size() != 2 + e.verdicts().size()) finding("outcomes", std::to_string(out.size()));
  if (out[1].status != npu::RuleOutcome::Status::Fired || out[1].findings.size() != 1)
    finding("the good rule lost its finding", out[1].reason);
  if (out[0].findings.size() > opt.limits.findings) finding("findings cap", std::to_string(out[0].findings.size()));
  if (out[0].status == npu::RuleOutcome::Status::Failed && out[0].reason.empty())
    finding("failed without a reason", body);
  for (const auto& f : out[0].findings) (void)f.dump();  // throws on invalid UTF-8
  (void)npu::ranked_findings(out);
  return 0;
}
