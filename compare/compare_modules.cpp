// The modules section of the compare document: the two runs' module trees (facts.modules,
// docs/facts-modules.md) matched by path, and where names differ by order (the same class under
// the same matched parent, in the order they ran), with the change of device time per step, and
// the first place a regression shows: from the top-level module that changed most, down into the
// child that carries most of its parent's change.
#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_map>

#include <fmt/format.h>

#include "compare/compare_sections.h"

namespace npu::compare::sections {

namespace {

constexpr size_t kRows = 40;            // rows listed, largest change first
constexpr double kCarriesParent = 0.5;  // a child carries its parent's change from this share on

struct Node {
  std::string path, cls;
  int parent = -1;
  int depth = 1;
  const json* row = nullptr;
};

std::vector<Node> read_tree(const json& m) {
  std::vector<Node> out;
  // Rows point into the facts document itself (value() would hand back a copy).
  auto tree = m.find("tree");
  if (tree == m.end() || !tree->is_array()) return out;
  for (const auto& n : *tree) {
    if (!n.is_object() || !n.contains("path") || !n["path"].is_string()) continue;
    Node x;
    x.path = n["path"].get<std::string>();
    x.cls = n.value("class", x.path);
    x.parent = static_cast<int>(num(n, "parent").value_or(-1));
    x.depth = static_cast<int>(num(n, "depth").value_or(1));
    x.row = &n;
    out.push_back(std::move(x));
  }
  return out;
}

json side(const Node& n) {
  const json& r = *n.row;
  return {{"path", n.path},
          {"device_ns", ns(num(r, "device_ns").value_or(0))},
          {"self_ns", ns(num(r, "self_ns").value_or(0))},
          {"host_ns", ns(num(r, "host_ns").value_or(0))},
          {"calls", ns(num(r, "calls").value_or(0))},
          {"evidence", r.value("evidence", json::array())}};
}

// base index -> new index: by path, then the rest by order within (matched parent, class).
std::vector<int> match(const std::vector<Node>& b, const std::vector<Node>& n, std::vector<std::string>& how) {
  std::vector<int> to(b.size(), -1);
  std::vector<bool> taken(n.size(), false);
  how.assign(b.size(), "");
  std::unordered_map<std::string, int> by_path;
  for (size_t j = 0; j < n.size(); ++j) by_path.emplace(n[j].path, static_cast<int>(j));
  for (size_t i = 0; i < b.size(); ++i) {
    auto it = by_path.find(b[i].path);
    if (it == by_path.end() || taken[static_cast<size_t>(it->second)]) continue;
    to[i] = it->second;
    taken[static_cast<size_t>(it->second)] = true;
    how[i] = "path";
  }
  // Preorder: a parent is matched (or not) before its children.
  std::map<std::pair<int, std::string>, std::vector<int>> free_new;
  for (size_t j = 0; j < n.size(); ++j)
    if (!taken[j]) free_new[{n[j].parent, n[j].cls}].push_back(static_cast<int>(j));
  std::map<std::pair<int, std::string>, size_t> next_free;
  for (size_t i = 0; i < b.size(); ++i) {
    if (to[i] >= 0) continue;
    const int bp = b[i].parent;
    const int np = bp < 0 ? -1 : to[static_cast<size_t>(bp)];
    if (bp >= 0 && np < 0) continue;  // the parent found no partner: neither do its children
    const auto key = std::make_pair(np, b[i].cls);
    auto f = free_new.find(key);
    if (f == free_new.end()) continue;
    size_t& k = next_free[key];
    if (k >= f->second.size()) continue;
    to[i] = f->second[k++];
    taken[static_cast<size_t>(to[i])] = true;
    how[i] = "order";
  }
  return to;
}

// Why there is no comparison: a side without a module tree, or only one side with nn.Module
// ranges (one side without them would read as every module gone); "" when both can be compared.
std::string why_not_comparable(const Facts& base, const Facts& next, const std::vector<Node>& b,
                               const std::vector<Node>& n) {
  if (b.empty() || n.empty()) {
    std::string why;
    const Facts* sides[2] = {&base, &next};
    const bool empty[2] = {b.empty(), n.empty()};
    for (int i = 0; i < 2; ++i)
      if (empty[i]) {
        std::string r = unavailable_reason(*sides[i], "modules");
        if (r.empty()) r = unavailable_reason(*sides[i], "modules.tree");
        why += fmt::format("{}the {} run has no module tree{}", why.empty() ? "" : "; ", i == 0 ? "base" : "new",
                           r.empty() ? "" : " (" + r + ")");
      }
    return why + ": no module comparison";
  }
  auto has_modules = [](const std::vector<Node>& t) {
    return std::any_of(t.begin(), t.end(), [](const Node& x) { return x.row->value("kind", "") == "module"; });
  };
  if (has_modules(b) == has_modules(n)) return "";
  return fmt::format(
      "the {} run recorded nn.Module ranges and the {} run did not (profile both with with_stack=True): "
      "no module comparison",
      has_modules(b) ? "base" : "new", has_modules(b) ? "new" : "base");
}

// One row per module of either run: the base's (matched by `to`, or vanished), then the new
// run's unmatched ones. `delta`: each base module's change of device time; `by_order`: how many
// were matched by order.
std::vector<json> module_rows(const std::vector<Node>& b, const std::vector<Node>& n, const std::vector<int>& to,
                              const std::vector<std::string>& how, std::vector<double>& delta, size_t& by_order) {
  std::vector<bool> matched_new(n.size(), false);
  std::vector<json> rows;
  delta.assign(b.size(), 0);
  by_order = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    json r = {{"path", b[i].path}, {"class", b[i].cls}, {"depth", b[i].depth}, {"base", side(b[i])}};
    const double bd = num(*b[i].row, "device_ns").value_or(0);
    if (to[i] < 0) {
      r["new"] = nullptr;
      r["status"] = "vanished";
      delta[i] = -bd;
    } else {
      const Node& m = n[static_cast<size_t>(to[i])];
      matched_new[static_cast<size_t>(to[i])] = true;
      r["new"] = side(m);
      r["matched_by"] = how[i];
      by_order += how[i] == "order";
      delta[i] = num(*m.row, "device_ns").value_or(0) - bd;
      r["status"] = delta[i] == 0 ? "unchanged" : "changed";
    }
    r["delta_device_ns"] = ns(delta[i]);
    r["delta_ratio"] = ratio_or_null(delta[i], bd);
    rows.push_back(std::move(r));
  }
  for (size_t j = 0; j < n.size(); ++j) {
    if (matched_new[j]) continue;
    const double nd = num(*n[j].row, "device_ns").value_or(0);
    rows.push_back({{"path", n[j].path},
                    {"class", n[j].cls},
                    {"depth", n[j].depth},
                    {"base", nullptr},
                    {"new", side(n[j])},
                    {"status", "new"},
                    {"delta_device_ns", ns(nd)},
                    {"delta_ratio", nullptr}});
  }
  return rows;
}

// The first place a regression shows: the top-level base module with the largest change, then
// down while one child carries at least half of its parent's change (same sign).
json first_place(const std::vector<Node>& b, const std::vector<double>& delta) {
  json chain = json::array();
  int at = -1;
  for (size_t i = 0; i < b.size(); ++i)
    if (b[i].parent < 0 && (at < 0 || std::fabs(delta[i]) > std::fabs(delta[static_cast<size_t>(at)])))
      at = static_cast<int>(i);
  while (at >= 0 && delta[static_cast<size_t>(at)] != 0) {
    chain.push_back(
        {{"path", b[static_cast<size_t>(at)].path}, {"delta_device_ns", ns(delta[static_cast<size_t>(at)])}});
    int best = -1;
    for (size_t i = 0; i < b.size(); ++i)
      if (b[i].parent == at && (best < 0 || std::fabs(delta[i]) > std::fabs(delta[static_cast<size_t>(best)])))
        best = static_cast<int>(i);
    const double d = delta[static_cast<size_t>(at)];
    if (best < 0 || delta[static_cast<size_t>(best)] * d <= 0 ||
        std::fabs(delta[static_cast<size_t>(best)]) < kCarriesParent * std::fabs(d))
      break;
    at = best;
  }
  return chain;
}

}  // namespace

json modules_section(const Facts& base, const Facts& next, json& notes) {
  const json& mb = section(base, "modules");
  const json& mn = section(next, "modules");
  json out = {{"available", false}};
  const auto b = read_tree(mb), n = read_tree(mn);
  if (std::string why = why_not_comparable(base, next, b, n); !why.empty()) {
    out["note"] = why;
    notes.push_back(out["note"]);
    return out;
  }
  out["available"] = true;
  out["totals"] = json::array(
      {metric_row("step_device_ns", "device work per step", "ns", num(mb, "step_device_ns"), num(mn, "step_device_ns")),
       metric_row("in_modules_ns", "of it in modules", "ns", num(mb, "in_modules_ns"), num(mn, "in_modules_ns")),
       metric_row("outside_ns", "of it outside every module", "ns", num(mb, "outside_ns"), num(mn, "outside_ns")),
       metric_row("coverage", "module coverage", "ratio", num(mb, "coverage"), num(mn, "coverage"))});
  std::vector<std::string> how;
  const std::vector<int> to = match(b, n, how);
  std::vector<double> delta;
  size_t by_order = 0;
  std::vector<json> rows = module_rows(b, n, to, how, delta, by_order);
  if (by_order > 0)
    out["note"] =
        fmt::format("{} module(s) matched by order (same class under the same parent), their names differ", by_order);
  out["first_place"] = first_place(b, delta);
  std::stable_sort(rows.begin(), rows.end(), [](const json& x, const json& y) {
    return std::llabs(x["delta_device_ns"].get<int64_t>()) > std::llabs(y["delta_device_ns"].get<int64_t>());
  });
  out["rows_total"] = rows.size();
  if (rows.size() > kRows) rows.resize(kRows);
  out["rows"] = rows;
  return out;
}

}  // namespace npu::compare::sections
