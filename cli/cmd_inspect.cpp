// `npu-advisor inspect PATH`: what was found, counted and missing.
#include "cli/commands.h"
#include "pipeline/input_summary.h"
#include "reports/run_summary.h"

namespace npu::cli {

int cmd_inspect(const std::string& path, const CommonOptions& common, bool json) {
  bool member_failed = false;
  nlohmann::json s = pipeline::summarize_input(path, load_settings(common), &member_failed);
  std::string text = json ? json_text(s, 2) + "\n" : render_summary_text(s, TextStyle{stdout_is_color_terminal()});
  if (!write_output("", text)) return kBadInput;
  return member_failed ? kBadInput : kOk;
}

}  // namespace npu::cli
