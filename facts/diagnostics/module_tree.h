// The module view's tree (docs/facts-modules.md): modules.cpp builds it from the run's ranges and
// launches, modules_json.cpp writes it as the facts section "modules". Nodes are keyed by path
// (parent, label); repeated siblings of one class and shape are grouped when it is written.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/module_ranges.h"
#include "model/model.h"

namespace npu {
struct Facts;

namespace modules {

constexpr size_t kMaxNodes = 2000;   // tree nodes kept (the heaviest, with their ancestors)
constexpr size_t kMinRepeated = 3;   // siblings of one class and shape that make a repeated layer
constexpr size_t kMaxMembers = 512;  // members listed per repeated layer
constexpr size_t kMaxRepeated = 64;  // repeated layers listed (the heaviest)
inline constexpr const char* kSep = "/";    // between the names of a path
// Ranges nested deeper than this count for their ancestor at this depth (8,000 nested ranges
// made paths of depth x name bytes each); a real model's tree is a few tens deep.
constexpr size_t kMaxDepth = 128;

using RangeKind = ModuleRangeKind;

// "Linear_3" -> "Linear", "layers.11" -> "layers": the class a repeated layer shares.
inline std::string class_of(std::string_view label) {
  size_t e = label.size();
  while (e > 0 && label[e - 1] >= '0' && label[e - 1] <= '9') --e;
  if (e == label.size() || e == 0) return std::string(label);
  if (label[e - 1] == '_' || label[e - 1] == '.' || label[e - 1] == '#') --e;
  return std::string(label.substr(0, e));
}

struct Node {
  std::string_view label;  // the model's string: a path is built from the parents when written
  RangeKind kind = RangeKind::None;
  int32_t parent = -1;
  uint32_t depth = 1;
  uint64_t calls = 0, loc = 0;
  Ns host = 0, total = 0, self = 0;
  Ns part[3] = {0, 0, 0};  // computing, communication, copies (total)
  Ns backward = 0;         // of total: launched by the backward ops its forward ops became
  std::vector<uint32_t> children;
  uint64_t shape = 0;  // class and children's shapes, for repeated layers
};

// The tree and the step's device work it was built from (totals over the run's steps).
struct Tree {
  std::vector<Node> nodes;
  uint64_t ranges = 0;  // module ranges recorded
  size_t steps = 1;
  Ns step_ns = 0, unjoined_ns = 0, graph_ns = 0;
  Ns mapped_graph_ns = 0;  // of graph_ns: mapped to the modules its capture recorded
  Ns step_part[3] = {0, 0, 0};
  // "Model/encoder/Linear_3": the names from the root, cut as a long name is (text::clip, with
  // the whole path's length).
  std::string path(int32_t node) const;
};

// The facts section "modules" (docs/facts-modules.md); says in `facts` what it could not map.
nlohmann::json tree_json(const RunModel& m, const Tree& t, Facts& facts);

}  // namespace modules
}  // namespace npu
