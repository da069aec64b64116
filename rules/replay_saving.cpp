#include "rules/replay_saving.h"

#include <cmath>

#include "facts/whatif/transforms.h"

namespace npu {

using nlohmann::json;

bool is_whatif_transform(const std::string& name) {
  for (const auto& n : whatif::transform_names())
    if (n == name) return true;
  return false;
}

std::string whatif_transform_list() {
  std::string out;
  for (const auto& n : whatif::transform_names()) out += (out.empty() ? "" : ", ") + n;
  return out;
}

std::string replay_unusable(const json& facts, const std::string& name, const json** t) {
  const auto w = facts.find("whatif");
  if (w == facts.end() || !w->is_object()) return "the facts have no replay (whatif)";
  if (!w->value("available", false)) return "no replay: " + w->value("why", std::string("unavailable"));
  if (!w->value("reproduces", false))
    return "the replay does not reproduce the measured steps: " + w->value("why", std::string());
  const auto ts = w->find("transforms");
  if (ts == w->end() || !ts->is_object() || !ts->contains(name) || !(*ts)[name].is_object())
    return "the replay has no transformation '" + name + "'";
  *t = &(*ts)[name];
  if (!(*t)->value("applicable", false))
    return "the replay cannot apply '" + name + "': " + (*t)->value("why", std::string());
  if (!(*t)->contains("saving_ns") || !(**t)["saving_ns"].is_number())
    return "the replay gives no saving for '" + name + "'";
  // A facts file read back (analyze --facts, compare) may hold anything: a saving is a finite
  // number of nanoseconds below 9e18, or it is not used.
  const double v = (**t)["saving_ns"].get<double>();
  if (!std::isfinite(v) || v > 9e18) return "the replay's saving for '" + name + "' is out of range";
  return "";
}

void apply_replay_saving(json& f, const json& facts, const std::string& name) {
  const json* t = nullptr;
  const std::string why = replay_unusable(facts, name, &t);
  f["whatif"] = name;
  if (!why.empty()) {
    f["saving_method"] = "formula";
    f["saving_note"] = "the rule's own estimate: " + why;
    return;
  }
  const double replayed = std::max(0.0, (*t)["saving_ns"].get<double>());
  const double confidence = f.value("confidence", 0.5);
  f["saving_rule_ns"] = f.value("saving_ns", int64_t{0});
  f["saving_rule_formula"] = f.value("saving_formula", std::string());
  f["saving_ns"] = static_cast<int64_t>(replayed);
  f["saving_formula"] = "replay (" + name + "): " + t->value("formula", std::string());
  f["saving_method"] = "replay";
  f["score_ns"] = static_cast<int64_t>(replayed * confidence);
}

}  // namespace npu
