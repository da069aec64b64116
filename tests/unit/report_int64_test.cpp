// Nanosecond quantities past 2^31 (a 3.75 s saving per step, a real one on a Kineto capture of
// tb_plugin_samples/resnet50_autograd_api_num_workers_0) print as numbers, never as "saving unknown".
#include <gtest/gtest.h>

#include <fstream>
#include <sstream>

#include "reports/report_document.h"
#include "test_support.h"

namespace {

// The sample's report from the CLI, its first finding's saving set past 2^31 ns.
nlohmann::json report_with_saving(int64_t saving_ns) {
  npu::test::TempDir dir;
  std::string out = (dir.path() / "r.json").string();
  std::string cmd = std::string(NPU_ADVISOR_BIN) + " analyze '" + npu::test::sample_run() + "' -q --format json -o '" + out + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream in(out);
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json r = nlohmann::json::parse(ss.str());
  r["findings"][0]["saving_ns"] = saving_ns;
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
