#include "reports/inference_text.h"

#include <algorithm>
#include <vector>

#include <fmt/format.h>

#include "base/stats.h"
#include "base/text.h"
#include "reports/json_read.h"
#include "reports/report_document.h"

namespace npu {

using nlohmann::json;

namespace {

// A number of the facts, or `def` where they say it is not known (null) or do not say.
double number(const json& o, const char* key, double def = 0) { return json_number(o, key, def); }
bool has_number(const json& o, const char* key) { return has_json_number(o, key); }

const json& inference_of(const json& facts) {
  static const json none;
  const auto it = facts.find("inference");
  return it != facts.end() && it->is_object() ? *it : none;
}

// Three significant digits: 2978.6 -> "2.98k", 2800 -> "2.80k", 31093 -> "31.1k", 121 -> "121".
std::string rate_text(double v) {
  const double scaled = v >= 1e6 ? v / 1e6 : v >= 1e3 ? v / 1e3 : v;
  const int decimals = scaled < 10 ? 2 : scaled < 100 ? 1 : 0;
  return fmt::format("{:.{}f}{}", scaled, v < 1e3 ? 0 : decimals, v >= 1e6 ? "M" : v >= 1e3 ? "k" : "");
}

// An iteration of a served batch; a call of a generate() loop or a diffusion pipeline.
const char* unit_of(const json& inf) { return inf.value("kind", "") == "serving" ? "iteration" : "call"; }

// "32 requests", "29-32 requests" over the phase's batch sizes; "" when the names say none.
std::string requests_text(const json& phase) {
  int64_t lo = -1, hi = -1;
  for (const auto& b : phase.value("by_batch_size", json::array()))
    if (has_number(b, "requests")) {
      const auto r = b["requests"].get<int64_t>();
      lo = lo < 0 ? r : std::min(lo, r), hi = std::max(hi, r);
    }
  if (lo < 0) return "";
  return (lo == hi ? std::to_string(lo) : fmt::format("{}-{}", lo, hi)) + (hi == 1 ? " request" : " requests");
}

std::string ms_or_dash(const json& o, const char* key) {
  return has_number(o, key) ? text::ms_number(o[key].get<double>()) : "-";
}

}  // namespace

std::string left_out_text(const json& inf, size_t i) {
  for (const auto& x : inf.value("steady_state", json()).value("excluded", json::array()))
    if (x.value("iteration", size_t{0}) == i + 1) return "left out: " + x.value("why", std::string());
  return "";
}

namespace {

// One row of the iterations' table: #, phase, batch, tokens, own window, hole, busy, in graphs, note.
std::vector<std::string> iteration_cells(const json& it, size_t i, const json& inf) {
  return {std::to_string(i + 1),
          it.value("phase", std::string()),
          has_number(it, "requests") ? it["requests"].dump() : "-",
          has_number(it, "tokens") ? it["tokens"].dump() : "-",
          ms_or_dash(it, "own_window_ns"),
          text::ms_number(number(it, "hole_ns")),
          text::ms_number(number(it, "busy_ns")),
          has_number(it, "graph_share") ? format_percent(it["graph_share"].get<double>()) : "-",
          left_out_text(inf, i)};
}

constexpr size_t kMarkdownIterations = 50;

}  // namespace

std::string inference_title(const json& inf) {
  const std::string kind = inf.value("kind", std::string());
  const std::string title = kind == "serving"         ? "Serving"
                            : kind == "generate_loop" ? "generate() loop"
                            : kind == "diffusion"     ? "Diffusion"
                            : kind == "graph_capture" ? "Graph capture"
                                                      : "Inference";
  return title + " (" + inf.value("engine", std::string("unknown")) + ")";
}

std::string phase_headline(const json& inf, const json& ph) {
  const double n = number(ph, "iterations"), median = number(ph, "own_window_median_ns");
  if (n <= 0 || median <= 0) return "";
  const std::string phase = ph.value("phase", std::string());
  std::string who = phase == "unknown" ? "" : phase;
  if (const std::string r = requests_text(ph); !r.empty()) who += (who.empty() ? "" : ", ") + r;
  const char* unit = unit_of(inf);
  std::string out = (who.empty() ? "" : who + ": ") + format_ms(median) + "/" + unit;
  const double tps = number(ph, "tokens_per_s");
  // A generate() loop makes its tokens one after another: its time per token.
  if (tps > 0 && inf.value("kind", "") == "generate_loop") out += ", " + format_ms(1e9 / tps) + " per token";
  if (tps > 0) out += ", " + rate_text(tps) + " tokens/s";
  if (has_number(ph, "graph_share")) out += ", " + format_percent(ph["graph_share"].get<double>()) + " in graphs";
  return out + fmt::format(" (median own window of {} {}{})", n, unit, n == 1 ? "" : "s");
}

std::string batch_sizes_text(const json& ph) {
  const json& batches = ph.value("by_batch_size", json::array());
  if (batches.size() < 2) return "";
  std::string per;
  for (const auto& b : batches)
    per += fmt::format("{}{}: {}", per.empty() ? "" : ", ", has_number(b, "requests") ? b["requests"].dump() : "?",
                       format_ms(number(b, "own_window_median_ns")));
  return per;
}

std::string steady_state_text(const json& inf) {
  const json& st = inf.value("steady_state", json());
  if (!st.is_object()) return "";
  const size_t all = inf.value("iterations", json::array()).size();
  std::string out = fmt::format("steady state: {}s {}-{} of {}", unit_of(inf), st.value("first", 0),
                                st.value("last", 0), all);
  std::string left;
  for (const auto& x : st.value("excluded", json::array()))
    left += fmt::format("{}{} {} ({})", left.empty() ? "" : "; ", unit_of(inf), x.value("iteration", 0),
                        x.value("why", std::string()));
  return out + (left.empty() ? "; nothing left out" : "; left out: " + left);
}

std::string hole_text(const json& facts) {
  const json& inf = inference_of(facts);
  double hole = 0;
  for (const auto& it : inf.value("iterations", json::array())) hole += number(it, "hole_ns");
  if (hole <= 0) return "";
  const bool steps = facts.contains("run") && facts["run"].value("step_source", "") == "engine iteration";
  return fmt::format(
      "{} of device idle before the iterations' own work is a hole: work missing from this cut trace (the stream "
      "waited on device work the trace does not hold), not idle time; {}",
      format_ms(hole),
      steps ? "each step starts after it" : "the step numbers still count it");
}

std::string turn_text(const json& facts) {
  const auto a = facts.find("idle_attribution");
  if (a == facts.end() || !a->is_object()) return "";
  const double turns = number(*a, "turns_ns"), steps = number(*a, "steps");
  if (turns <= 0 || steps < 2) return "";
  return fmt::format(
      "between two iterations the device idles {} per turn ({} turns) while the host takes its turn: in no "
      "iteration's window, {} per iteration of the period",
      format_ms(turns / (steps - 1)), static_cast<int64_t>(steps - 1), format_ms(turns / steps));
}

std::string generate_call_text(const json& inf) {
  std::vector<double> prefill, per_token;
  for (const auto& it : inf.value("iterations", json::array())) {
    if (has_number(it, "prefill_ns")) prefill.push_back(it["prefill_ns"].get<double>());
    if (has_number(it, "decode_ns_per_token")) per_token.push_back(it["decode_ns_per_token"].get<double>());
  }
  if (prefill.empty() || per_token.empty()) return "";
  return fmt::format("each call (median): prefill to the first token {}, then {} per token",
                     format_ms(stats::median(prefill)), format_ms(stats::median(per_token)));
}

std::string capture_text(const json& inf) {
  std::string graphs;
  for (const auto& g : inf.value("capture", json()).value("graphs", json::array()))
    graphs += fmt::format("{}{} {}", graphs.empty() ? "" : ", ", g.value("batch_size", 0), g.value("mode", ""));
  return "start-up, not serving: graphs " + (graphs.empty() ? std::string("(none named)") : graphs) +
         "; the step numbers are the capture's, not served traffic";
}

std::string inference_terminal_lines(const json& facts) {
  const json& inf = inference_of(facts);
  if (!inf.is_object()) return "";
  if (inf.value("kind", "") == "graph_capture") return inference_title(inf) + ": " + capture_text(inf) + "\n";
  std::string out;
  for (const auto& ph : inf.value("phases", json::array())) {
    const std::string head = phase_headline(inf, ph);
    if (head.empty()) continue;
    out += (out.empty() ? inference_title(inf) + ": " : "  ") + head + "\n";
    if (const std::string per = batch_sizes_text(ph); !per.empty())
      out += "    by batch size (requests: median own window): " + per + "\n";
  }
  if (const std::string g = generate_call_text(inf); !g.empty()) out += "  " + g + "\n";
  const json& st = inf.value("steady_state", json());
  if (st.is_object() && !st.value("excluded", json::array()).empty()) out += "  " + steady_state_text(inf) + "\n";
  if (const std::string h = hole_text(facts); !h.empty()) out += "  " + h + "\n";
  if (const std::string t = turn_text(facts); !t.empty()) out += "  " + t + "\n";
  return out;
}

std::string inference_markdown(const json& facts) {
  const json& inf = inference_of(facts);
  if (!inf.is_object()) return "";
  std::string out = "\n## " + text::md_prose(inference_title(inf)) + "\n\n";
  if (inf.value("kind", "") == "graph_capture") return out + text::md_prose("Graph capture: " + capture_text(inf)) + ".\n";
  for (const auto& ph : inf.value("phases", json::array()))
    if (const std::string head = phase_headline(inf, ph); !head.empty()) {
      out += "- **" + text::md_prose(head) + "**";
      if (const std::string per = batch_sizes_text(ph); !per.empty())
        out += "; by batch size (requests: median own window): " + text::md_prose(per);
      out += "\n";
    }
  if (const std::string g = generate_call_text(inf); !g.empty()) out += "- " + text::md_prose(g) + "\n";
  if (const std::string s = steady_state_text(inf); !s.empty()) out += "- " + text::md_prose(s) + "\n";
  if (const std::string h = hole_text(facts); !h.empty()) out += "- " + text::md_prose(h) + "\n";
  if (const std::string t = turn_text(facts); !t.empty()) out += "- " + text::md_prose(t) + "\n";
  const json& its = inf.value("iterations", json::array());
  if (its.empty()) return out;
  out += fmt::format("\n| # | phase | batch | tokens | own window (ms) | hole (ms) | busy (ms) | in graphs | |\n"
                     "|---:|:--|---:|---:|---:|---:|---:|---:|:--|\n");
  for (size_t i = 0; i < its.size() && i < kMarkdownIterations; ++i) {
    std::string row = "|";
    for (const std::string& c : iteration_cells(its[i], i, inf)) row += " " + text::md_safe_cell(c) + " |";
    out += row + "\n";
  }
  if (its.size() > kMarkdownIterations)
    out += fmt::format("\nThe first {} of {} {}s; all are in the JSON report (facts.inference.iterations).\n",
                       kMarkdownIterations, its.size(), unit_of(inf));
  return out;
}

}  // namespace npu
