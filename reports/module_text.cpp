// The module view (facts.modules, docs/facts-modules.md) as the report carries it and in words,
// the same in every renderer: the tree trimmed to its heaviest nodes, the top modules, how much
// of the step's device work the modules cover and the repeated layers.
#include <algorithm>
#include <map>
#include <numeric>

#include <fmt/format.h>

#include "reports/html/kit.h"
#include "reports/report_document.h"

namespace npu {
namespace {

using nlohmann::json;

constexpr size_t kReportRepeated = 16;  // repeated layers the report keeps (the heaviest)
constexpr size_t kReportMembers = 32;   // members listed per repeated layer
// A node one of whose children holds this much of its device time is a wrapper
// (DistributedDataParallel around the model): the top modules name the child instead.
constexpr double kWrapperShare = 0.99;
// Siblings of one class that make a stack of layers (facts.modules.repeated counts from 3 too).
constexpr size_t kStackMembers = 3;

double ns_of(const json& node, const char* key) { return html::num(node, key).value_or(0); }

// The parent index of tree[i] when it is a valid earlier node, else -1 (preorder: parents first).
int64_t parent_of(const json& tree, size_t i) {
  const auto it = tree[i].find("parent");
  if (it == tree[i].end() || !it->is_number_integer()) return -1;
  const int64_t p = it->get<int64_t>();
  return p >= 0 && static_cast<size_t>(p) < i ? p : -1;
}

// "model/encoder/layers.0" -> "layers.0".
std::string last_name(const std::string& path) {
  const size_t slash = path.rfind('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

std::string share_of(double part, double whole) { return whole > 0 ? format_percent(part / whole) : "-"; }

}  // namespace

void trim_module_view(json& modules) {
  if (!modules.is_object()) return;
  if (auto it = modules.find("tree"); it != modules.end() && it->is_array() && it->size() > kReportModuleNodes) {
    json& tree = *it;
    const size_t n = tree.size();
    std::vector<size_t> order(n);
    std::iota(order.begin(), order.end(), size_t{0});
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return ns_of(tree[a], "device_ns") > ns_of(tree[b], "device_ns"); });
    // The heaviest nodes with their ancestors, so every kept node hangs where it did.
    std::vector<bool> kept(n, false);
    size_t count = 0;
    std::vector<size_t> chain;
    for (size_t i : order) {
      chain.clear();
      for (int64_t k = static_cast<int64_t>(i); k >= 0 && !kept[static_cast<size_t>(k)];
           k = parent_of(tree, static_cast<size_t>(k)))
        chain.push_back(static_cast<size_t>(k));
      if (count + chain.size() > kReportModuleNodes) continue;  // a lighter node may need fewer ancestors
      for (size_t k : chain) kept[k] = true;
      count += chain.size();
      if (count == kReportModuleNodes) break;
    }
    std::vector<int64_t> index(n, -1);
    json out = json::array();
    for (size_t i = 0; i < n; ++i) {
      if (!kept[i]) continue;
      const int64_t p = parent_of(tree, i);
      index[i] = static_cast<int64_t>(out.size());
      json node = std::move(tree[i]);
      if (node.is_object()) node["parent"] = p < 0 ? -1 : index[static_cast<size_t>(p)];
      out.push_back(std::move(node));
    }
    tree = std::move(out);
    modules["nodes_listed"] = tree.size();
  }
  if (auto it = modules.find("repeated"); it != modules.end() && it->is_array()) {
    json& rep = *it;
    if (rep.size() > kReportRepeated) rep.erase(rep.begin() + kReportRepeated, rep.end());
    for (json& r : rep) {
      auto m = r.is_object() ? r.find("members") : r.end();
      if (m == r.end() || !m->is_array() || m->size() <= kReportMembers) continue;
      m->erase(m->begin() + kReportMembers, m->end());
      r["members_listed"] = kReportMembers;
    }
  }
}

namespace {

// (parent index, class) of tree[i]: the siblings of one class.
std::pair<int64_t, std::string> stack_key(const json& tree, size_t i) {
  return {parent_of(tree, i), html::str(tree[i], "class")};
}

}  // namespace

size_t repeated_siblings(const json& modules, size_t i) {
  const json& tree = html::list(modules, "tree");
  if (i >= tree.size()) return 0;
  const auto key = stack_key(tree, i);
  size_t count = 0;
  for (size_t k = 0; k < tree.size(); ++k)
    if (stack_key(tree, k) == key) ++count;
  return count;
}

std::vector<size_t> top_modules(const json& modules, size_t n, int64_t max_depth) {
  const json& tree = html::list(modules, "tree");
  std::vector<double> heaviest_child(tree.size(), 0.0);
  std::map<std::pair<int64_t, std::string>, std::pair<size_t, size_t>> stacks;  // key -> (members, heaviest)
  for (size_t i = 0; i < tree.size(); ++i) {
    if (const int64_t p = parent_of(tree, i); p >= 0)
      heaviest_child[static_cast<size_t>(p)] =
          std::max(heaviest_child[static_cast<size_t>(p)], ns_of(tree[i], "device_ns"));
    auto [it, fresh] = stacks.try_emplace(stack_key(tree, i), 0, i);
    ++it->second.first;
    if (ns_of(tree[i], "device_ns") > ns_of(tree[it->second.second], "device_ns")) it->second.second = i;
  }
  // A stack of identical layers is given by its heaviest member: the others, and what runs inside
  // them, would fill the list with copies.
  auto in_other_member = [&](size_t i) {
    for (int64_t k = static_cast<int64_t>(i); k >= 0; k = parent_of(tree, static_cast<size_t>(k))) {
      const auto& s = stacks.at(stack_key(tree, static_cast<size_t>(k)));
      if (s.first >= kStackMembers && s.second != static_cast<size_t>(k)) return true;
    }
    return false;
  };
  std::vector<size_t> out;
  for (size_t i = 0; i < tree.size(); ++i) {
    const double dev = ns_of(tree[i], "device_ns");
    if (dev <= 0 || html::num(tree[i], "depth").value_or(1) > static_cast<double>(max_depth)) continue;
    if (heaviest_child[i] >= kWrapperShare * dev || in_other_member(i)) continue;
    out.push_back(i);
  }
  std::stable_sort(out.begin(), out.end(),
                   [&](size_t a, size_t b) { return ns_of(tree[a], "device_ns") > ns_of(tree[b], "device_ns"); });
  if (out.size() > n) out.resize(n);
  return out;
}

std::string module_label_text(const json& modules, size_t i, const char* key) {
  const json& tree = html::list(modules, "tree");
  if (i >= tree.size()) return "?";
  const std::string name = html::str(tree[i], key);
  const size_t count = repeated_siblings(modules, i);
  if (count < kStackMembers) return name.empty() ? "?" : name;
  return fmt::format("{} (heaviest of {} x {})", name, count, html::str(tree[i], "class"));
}

std::string module_coverage_text(const json& m) {
  if (!m.is_object()) return "";
  const double step = ns_of(m, "step_device_ns"), in = ns_of(m, "in_modules_ns");
  std::string out = fmt::format("modules cover {} of the step's device work ({} of {} per step)", share_of(in, step),
                                format_ms(in), format_ms(step));
  if (const double unjoined = ns_of(m, "unjoined_ns"); unjoined > 0)
    out += fmt::format("; {} of it is joined to no host launch", share_of(unjoined, step));
  const json& graph = html::at(m, "graph");
  if (const double share = html::num(graph, "share").value_or(0); share > 0) {
    const double mapped = html::num(graph, "mapped_share").value_or(0);
    out += fmt::format("; {} of it runs in graph replays", format_percent(share));
    out += mapped >= 1 ? ", mapped to modules through their capture"
           : mapped > 0
               ? fmt::format(", {} of that mapped to modules through their capture", format_percent(mapped))
               : std::string(", not mapped to modules");
  }
  return out;
}

std::string repeated_layer_text(const json& r) {
  if (!r.is_object()) return "";
  const json& parent = html::at(r, "parent");
  const std::string cls = html::str(r, "class");
  return fmt::format(
      "{} x {} {}: median {} (MAD {}), {} to {} per step", html::count_str(ns_of(r, "count")), cls.empty() ? "?" : cls,
      parent.is_string() ? "in " + last_name(parent.get<std::string>()) : std::string("at the top level"),
      html::dur(ns_of(r, "median_ns")), html::dur(ns_of(r, "mad_ns")), html::dur(ns_of(r, "min_ns")),
      html::dur(ns_of(r, "max_ns")));
}

std::string repeated_layers_line(const json& m, size_t n) {
  const json& rep = html::list(m, "repeated");
  if (rep.empty()) return "";
  std::string out;
  for (size_t i = 0; i < rep.size() && i < n; ++i) out += (i ? "; " : "") + repeated_layer_text(rep[i]);
  if (rep.size() > n) out += fmt::format("; {} more", rep.size() - n);
  return out;
}

std::string module_share_text(const json& m, const json& node) {
  return fmt::format("{} ({})", format_ms(ns_of(node, "device_ns")),
                     share_of(ns_of(node, "device_ns"), ns_of(m, "step_device_ns")));
}

}  // namespace npu
