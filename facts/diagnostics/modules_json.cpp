// The module view's tree written as the facts section "modules" (docs/facts-modules.md): the
// heaviest nodes in preorder, the repeated layers with their spread, the graph replays' share.
#include <algorithm>
#include <cmath>
#include <map>

#include "base/stats.h"
#include "base/text.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/diagnostics/module_tree.h"

namespace npu::modules {

using nlohmann::json;

std::string Tree::path(int32_t node) const {
  std::vector<std::string_view> names;
  size_t bytes = 0;
  for (int32_t k = node; k >= 0; k = nodes[static_cast<size_t>(k)].parent) {
    names.push_back(nodes[static_cast<size_t>(k)].label);
    bytes += names.back().size() + (names.size() > 1 ? 1 : 0);
  }
  std::string out;
  for (size_t i = names.size(); i-- > 0 && out.size() <= text::kMaxNameBytes;) {
    out += names[i];
    if (i > 0) out += kSep;
  }
  if (bytes <= text::kMaxNameBytes) return out;
  const std::string suffix = "...(" + std::to_string(bytes) + " bytes)";
  out.resize(text::utf8_prefix(out, text::kMaxNameBytes - suffix.size()));
  return out + suffix;
}

namespace {

Ns per_step(Ns v, size_t steps) {
  return static_cast<Ns>(std::llround(static_cast<double>(v) / static_cast<double>(steps)));
}

// Siblings of one class and one shape, three or more: the repeated layers, with their spread.
json repeated_json(const RunModel& m, const Tree& t, const std::vector<bool>& kept) {
  std::map<std::pair<int32_t, uint64_t>, std::vector<uint32_t>> groups;
  for (uint32_t i = 0; i < t.nodes.size(); ++i)
    if (kept[i]) groups[{t.nodes[i].parent, t.nodes[i].shape}].push_back(i);
  std::vector<std::pair<Ns, json>> out;
  for (const auto& [key, members] : groups) {
    if (members.size() < kMinRepeated) continue;
    std::vector<double> v;
    Ns sum = 0;
    for (uint32_t i : members) {
      v.push_back(static_cast<double>(t.nodes[i].total));
      sum += t.nodes[i].total;
    }
    const double med = stats::median_midpoint(v);
    const double mad = stats::mad_midpoint(v, med);
    const Node& first = t.nodes[members[0]];
    json list = json::array();
    for (size_t k = 0; k < members.size() && k < kMaxMembers; ++k) {
      const Node& n = t.nodes[members[k]];
      list.push_back({{"path", t.path(static_cast<int32_t>(members[k]))},
                      {"device_ns", per_step(n.total, t.steps)},
                      {"host_ns", per_step(n.host, t.steps)},
                      {"calls", n.calls},
                      {"evidence", json::array({evidence_event(m, n.loc, "its first range")})}});
    }
    const auto [lo, hi] = std::minmax_element(v.begin(), v.end());
    out.push_back({sum, json{{"class", class_of(first.label)},
                             {"parent", first.parent < 0 ? json(nullptr) : json(t.path(first.parent))},
                             {"count", members.size()},
                             {"device_ns", per_step(sum, t.steps)},
                             {"median_ns", per_step(static_cast<Ns>(med), t.steps)},
                             {"mad_ns", per_step(static_cast<Ns>(mad), t.steps)},
                             {"min_ns", per_step(static_cast<Ns>(*lo), t.steps)},
                             {"max_ns", per_step(static_cast<Ns>(*hi), t.steps)},
                             {"members_listed", list.size()},
                             {"members", std::move(list)}}});
  }
  std::stable_sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  json arr = json::array();
  for (size_t k = 0; k < out.size() && k < kMaxRepeated; ++k) arr.push_back(std::move(out[k].second));
  return arr;
}

std::vector<bool> kept_nodes(const Tree& t) {
  // Keep the heaviest nodes and their ancestors when the tree is too large to list.
  std::vector<bool> kept(t.nodes.size(), true);
  if (t.nodes.size() <= kMaxNodes) return kept;
  std::vector<uint32_t> order(t.nodes.size());
  for (uint32_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(),
                   [&](uint32_t a, uint32_t b) { return t.nodes[a].total > t.nodes[b].total; });
  std::fill(kept.begin(), kept.end(), false);
  size_t n = 0;
  for (uint32_t i : order) {
    for (int32_t k = static_cast<int32_t>(i); k >= 0 && !kept[static_cast<size_t>(k)];
         k = t.nodes[static_cast<size_t>(k)].parent) {
      kept[static_cast<size_t>(k)] = true;
      ++n;
    }
    if (n >= kMaxNodes) break;
  }
  return kept;
}

std::vector<uint32_t> preorder(const Tree& t, const std::vector<bool>& kept, std::vector<int32_t>& index) {
  // Preorder: parents before children, siblings in the order they first ran.
  std::vector<uint32_t> order;
  index.assign(t.nodes.size(), -1);
  std::vector<uint32_t> stack;
  for (uint32_t i = static_cast<uint32_t>(t.nodes.size()); i-- > 0;)
    if (t.nodes[i].parent < 0 && kept[i]) stack.push_back(i);
  while (!stack.empty()) {
    const uint32_t i = stack.back();
    stack.pop_back();
    index[i] = static_cast<int32_t>(order.size());
    order.push_back(i);
    const auto& ch = t.nodes[i].children;
    for (size_t k = ch.size(); k-- > 0;)
      if (kept[ch[k]]) stack.push_back(ch[k]);
  }
  return order;
}

}  // namespace

json tree_json(const RunModel& m, const Tree& t, Facts& facts) {
  const std::vector<bool> kept = kept_nodes(t);
  std::vector<int32_t> index;
  const std::vector<uint32_t> order = preorder(t, kept, index);
  Ns in_modules = 0;
  for (const Node& n : t.nodes)
    if (n.parent < 0) in_modules += n.total;
  json tree = json::array();
  for (uint32_t i : order) {
    const Node& n = t.nodes[i];
    tree.push_back({{"path", t.path(static_cast<int32_t>(i))},
                    {"name", n.label},
                    {"class", class_of(n.label)},
                    {"kind", n.kind == RangeKind::Module ? "module" : "annotation"},
                    {"depth", n.depth},
                    {"parent", n.parent < 0 ? -1 : index[static_cast<size_t>(n.parent)]},
                    {"calls", n.calls},
                    {"device_ns", per_step(n.total, t.steps)},
                    {"self_ns", per_step(n.self, t.steps)},
                    {"computing_ns", per_step(n.part[0], t.steps)},
                    {"communication_ns", per_step(n.part[1], t.steps)},
                    {"copies_ns", per_step(n.part[2], t.steps)},
                    {"backward_ns", per_step(n.backward, t.steps)},
                    {"host_ns", per_step(n.host, t.steps)},
                    {"total_device_ns", n.total},
                    {"evidence", json::array({evidence_event(m, n.loc, "its first range")})}});
  }
  json graph = {{"device_ns", per_step(t.graph_ns, t.steps)},
                {"share", stats::ratio(t.graph_ns, t.step_ns)},
                {"mapped", t.mapped_graph_ns > 0},
                {"mapped_ns", per_step(t.mapped_graph_ns, t.steps)},
                {"mapped_share", stats::ratio(t.mapped_graph_ns, t.graph_ns)}};
  if (t.graph_ns > t.mapped_graph_ns) {
    graph["why_not_mapped"] =
        "graph replays launch their kernels from one call: a replayed kernel is mapped to the modules its "
        "capture recorded around its launch only where the capture (in the trace or beside it) is paired with the "
        "replay and recorded nn.Module frames (with_stack); the rest counts for the module that launched the "
        "replay, else outside every module";
    if (t.mapped_graph_ns == 0)
      facts.unavailable("modules.graph", "replayed kernels are not mapped back to the modules that captured them");
  }
  const Ns total = t.step_ns;
  return {{"steps", m.steps.size()},
          {"ranges", t.ranges},
          {"nodes", t.nodes.size()},
          {"nodes_listed", tree.size()},
          {"step_device_ns", per_step(total, t.steps)},
          {"step_computing_ns", per_step(t.step_part[0], t.steps)},
          {"step_communication_ns", per_step(t.step_part[1], t.steps)},
          {"step_copies_ns", per_step(t.step_part[2], t.steps)},
          {"total_step_device_ns", total},
          {"in_modules_ns", per_step(in_modules, t.steps)},
          {"outside_ns", per_step(total, t.steps) - per_step(in_modules, t.steps)},  // adds up as rounded
          {"unjoined_ns", per_step(t.unjoined_ns, t.steps)},
          {"coverage", stats::ratio(in_modules, total)},
          {"graph", std::move(graph)},
          {"tree", std::move(tree)},
          {"repeated", repeated_json(m, t, kept)}};
}

}  // namespace npu::modules
