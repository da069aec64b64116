// `npu-advisor compare BASE NEW`: what got slower, and why (docs/compare-gate.md).
#include <cstdio>

#include "cli/commands.h"
#include "compare/same_work.h"
#include "pipeline/compare_side.h"
#include "reports/compare_render.h"
#include "reports/html_timeline.h"

namespace npu::cli {

compare::CompareSide load_compare_side(const std::string& path, const CommonOptions& common, const RuleOptions& rules) {
  if (!common.quiet) std::fprintf(stderr, "loading %s\n", path.c_str());
  compare::CompareSide side = pipeline::load_compare_side(path, load_settings(common), rules);
  // A comparison of data the loaders had to cut is said so, -q or not.
  for (const auto& w : side.warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
  return side;
}

namespace {

// A side's step timeline (views.timeline), null for a facts file: the facts carry no drawing.
nlohmann::json timeline_of(const compare::CompareSide& side) {
  return side.views.is_object() ? side.views.value("timeline", nlohmann::json()) : nlohmann::json();
}

}  // namespace

int cmd_compare(const std::string& base, const std::string& next, const CommonOptions& common, const OutputOptions& out,
                const RuleOptions& rules, bool keep_warmup) {
  std::string fmt = output_format(out);
  compare::CompareSide b = load_compare_side(base, common, rules);
  compare::CompareSide n = load_compare_side(next, common, rules);
  compare::CompareOptions opt;
  opt.skip_warmup = !keep_warmup;
  nlohmann::json doc = compare::build_compare(b, n, opt);
  if (const std::string diff = compare::describe_differences(doc["same_work"]); !diff.empty())
    std::fprintf(stderr, "warning: the runs did different work: %s\n", diff.c_str());
  auto render = [&](const std::string& f) {
    if (f == "html") return render_compare_html(doc, timeline_of(b), timeline_of(n));
    return f == "json" ? json_text(doc) + "\n"
           : f == "md" ? reports::render_compare_markdown(doc)
                       : reports::render_compare_text(doc);
  };
  if (!out.out_file.empty()) {
    if (!write_output(out.out_file, render(fmt))) return kBadInput;
    if (!common.quiet) {
      write_output("", reports::render_compare_text(doc));
      std::fprintf(stderr, "compare written to %s\n", out.out_file.c_str());
    }
    return kOk;
  }
  return write_output("", render(fmt)) ? kOk : kBadInput;
}

}  // namespace npu::cli
