// The terminal's roofline line (reports/roofline_text.cpp): an MFU figure only where most of the
// compute time has a FLOP model; otherwise "not known", with what the rest lacks.
#include <string>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/roofline_text.h"

namespace {

using nlohmann::json;

json facts_with(double share, double mfu, json not_modelled) {
  return {{"roofline",
           {{"device", {{"known", true}, {"name", "NVIDIA H200 SXM"}}},
            {"steps", json::array({{{"step", 1}, {"mfu_bf16", mfu}, {"above_peak", false}}})},
            {"coverage",
             {{"share", share},
              {"compute_ns", 10'000'000},
              {"modelled_ns", static_cast<int64_t>(share * 1e7)},
              {"not_modelled", std::move(not_modelled)}}}}}};
}

TEST(RooflineText, MfuWhereMostComputeTimeIsModelled) {
  const std::string s = npu::roofline_lines(facts_with(0.73, 0.623, json::array()));
  EXPECT_EQ(s, "MFU 62.3% of NVIDIA H200 SXM's BF16 peak (hardware FLOPs, median step); 73% of compute time modelled\n");
}

// A graph-replayed decode (SGLang on the MI300X: 9.674 of 9.765 ms of kernels replayed outside
// any operator): 0.0% would read as a figure; it is not one.
TEST(RooflineText, NoMfuFigureWhereLittleComputeTimeIsModelled) {
  const json reasons = json::array({{{"reason", "op without a model"}, {"count", 4}, {"time_ns", 69'021}},
                                    {{"reason", "kernel launched outside any operator"},
                                     {"count", 547},
                                     {"time_ns", 9'673'987}}});
  const std::string s = npu::roofline_lines(facts_with(0.001, 0.0, reasons));
  EXPECT_EQ(s,
            "MFU not known: 0% of compute time has a FLOP model; the most not modelled: kernel launched outside any "
            "operator (97% of compute time)\n");
}

// A facts file read back may hold anything: values of the wrong type are skipped, never thrown.
TEST(RooflineText, ReasonsOfTheWrongTypeAreSkipped) {
  const json reasons = json::array({"x", {{"reason", 5}, {"time_ns", 1}}, {{"reason", "r"}, {"time_ns", "big"}}});
  EXPECT_EQ(npu::roofline_lines(facts_with(0.2, 0.1, reasons)), "MFU not known: 20% of compute time has a FLOP model\n");
}

}  // namespace
