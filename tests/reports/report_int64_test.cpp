// Nanosecond quantities past 2^31 (a 3.75 s saving per step, a real one on a Kineto capture of
// tb_plugin_samples/resnet50_autograd_api_num_workers_0) print as numbers, never as "saving unknown".
#include <gtest/gtest.h>

#include "reports/report_document.h"
#include "test_support.h"

namespace {

nlohmann::json report_with_saving(int64_t saving_ns) {
  nlohmann::json r = npu::test::analyze_json(npu::test::sample_run());
  r["findings"][0]["saving_ns"] = saving_ns;  // the sample's first finding, its saving past 2^31 ns
  return r;
}

TEST(ReportInt64, MultiSecondSavingIsPrinted) {
  const auto r = report_with_saving(3754539300);
  npu::TerminalOptions opt;
  std::string term = npu::render_terminal(r, opt);
  EXPECT_NE(term.find("3754.539 ms/step"), std::string::npos) << term;
  std::string md = npu::render_markdown(r);
  EXPECT_NE(md.find("3754.539"), std::string::npos) << md;
}

}  // namespace
