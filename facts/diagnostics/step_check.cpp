// The GPU step's self-check (overall.self_check, docs/overlap.md): can the launched-work windows
// be trusted? As Ascend's breakdown is checked against the profiler's own numbers ("agrees" /
// "DIFFERS"), a GPU trace, which carries none, is checked for what cannot be true of a step:
// no device op joined to a launch inside a step (the windows fall back to the host spans, which a
// GPU that lags the host makes too short), a device op longer than the step that holds it, parts
// that do not add up to the step, or steps whose device time is mostly work no step launched.
#include "facts/diagnostics/step_check.h"

#include <fmt/format.h>

namespace npu {
namespace {

// Device time inside the steps' windows that no step launched (a side thread's copies, a
// warm-up's queue) above this share means the windows do not describe the steps' work.
constexpr double kMaxUnownedShare = 0.5;

std::string ms(Ns v) { return fmt::format("{:.3f} ms", static_cast<double>(v) / 1e6); }

}  // namespace

nlohmann::json launched_work_self_check(const RunModel& m, const std::vector<LaunchedOp>& launched,
                                        const std::vector<StepWindow>& w, const std::vector<StepParts>& parts) {
  uint64_t owned = 0, unowned_in = 0, longer = 0;
  Ns unowned_in_ns = 0, in_windows_ns = 0;
  const StepWindowIndex index(w);
  uint64_t longest_loc = 0;
  Ns longest_over = 0;
  for (const LaunchedOp& op : launched) {
    const Slice& s = m.slices[op.slice];
    owned += op.step >= 0;
    const int k = index.at(s.ts);
    if (k < 0) continue;
    const StepWindow& win = w[static_cast<size_t>(k)];
    in_windows_ns += s.dur;
    const Ns len = win.end - win.start;
    if (s.dur > len) {
      ++longer;
      if (s.dur - len > longest_over) longest_over = s.dur - len, longest_loc = s.loc;
    }
    if (op.step < 0) ++unowned_in, unowned_in_ns += s.dur;
  }
  const uint64_t ops = launched.size();
  uint64_t mismatched = 0;
  for (size_t i = 0; i < parts.size() && i < w.size(); ++i)
    if (parts[i].sum != w[i].end - w[i].start) ++mismatched;

  nlohmann::json problems = nlohmann::json::array();
  if (owned == 0 && ops > 0)
    problems.push_back(
        "no device op is joined to a launch inside a step (no correlation ids between runtime calls and device ops): "
        "each step is its host span, which is too short where the GPU lags the host");
  if (longer > 0)
    problems.push_back(fmt::format("{} device op{} longer than the step that holds {} (the worst by {})", longer,
                                   longer == 1 ? " is" : "s are", longer == 1 ? "it" : "them", ms(longest_over)));
  if (mismatched > 0)
    problems.push_back(
        fmt::format("the parts of {} step{} do not add up to the step", mismatched, mismatched == 1 ? "" : "s"));
  const double unowned_share =
      in_windows_ns > 0 ? static_cast<double>(unowned_in_ns) / static_cast<double>(in_windows_ns) : 0.0;
  if (unowned_share > kMaxUnownedShare)
    problems.push_back(fmt::format("{:.0f}% of the device time inside the steps is work no step launched ({} ops)",
                                   100 * unowned_share, unowned_in));
  nlohmann::json out = {
      {"ok", problems.empty()},     {"rule", "launched_work"},           {"device_ops", ops},
      {"launched_in_steps", owned}, {"unowned_in_steps", unowned_in},    {"unowned_in_steps_ns", unowned_in_ns},
      {"longer_than_step", longer}, {"steps_not_adding_up", mismatched}, {"max_unowned_share", kMaxUnownedShare},
      {"problems", problems}};
  if (longer > 0)
    out["evidence"] = nlohmann::json::array({evidence_event(m, longest_loc, "device op longer than its step")});
  return out;
}

}  // namespace npu
