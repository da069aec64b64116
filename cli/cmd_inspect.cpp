// `npu-advisor inspect PATH`: what was found, counted and missing.
#include "cli/commands.h"
#include "reports/run_summary.h"

namespace npu::cli {

int cmd_inspect(const std::string& path, const CommonOptions& common, bool json) {
  bool member_failed = false;
  nlohmann::json s = load_and_summarize(path, common, &member_failed);
  std::string text = json ? json_text(s, 2) + "\n" : render_summary_text(s, TextStyle{stdout_is_color_terminal()});
  if (!write_output("", text)) return kBadInput;
  return member_failed ? kBadInput : kOk;
}

}  // namespace npu::cli
