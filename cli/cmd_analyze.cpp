// `npu-advisor analyze PATH`: the full pipeline. For now: load, summarise, and show the
// profiler's own step breakdown; diagnostics, rules and reports plug in here.
#include <cstdio>

#include "cli/commands.h"
#include "reports/run_summary.h"

namespace npu::cli {
namespace {

std::string format_for(const OutputOptions& o) {
  if (!o.format.empty()) return o.format;
  auto ends = [&](const char* ext) {
    std::string e(ext);
    return o.out_file.size() >= e.size() && o.out_file.compare(o.out_file.size() - e.size(), e.size(), e) == 0;
  };
  if (ends(".json")) return "json";
  if (ends(".md")) return "md";
  return "text";
}

}  // namespace

int cmd_analyze(const std::string& path, const CommonOptions& common, const OutputOptions& out) {
  bool member_failed = false;
  nlohmann::json s = load_and_summarize(path, common, &member_failed);
  std::string fmt = format_for(out);
  std::string text;
  if (fmt == "json") {
    text = s.dump(2) + "\n";
  } else if (fmt == "md") {
    text = render_summary_markdown(s);
  } else {
    bool color = out.out_file.empty() && stdout_is_color_terminal();
    text = render_summary_text(s, TextStyle{color});
  }
  if (!write_output(out.out_file, text)) return kBadInput;
  if (!out.out_file.empty() && !common.quiet) std::fprintf(stderr, "report written to %s\n", out.out_file.c_str());
  return member_failed ? kBadInput : kOk;
}

}  // namespace npu::cli
