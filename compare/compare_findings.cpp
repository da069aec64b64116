// The findings section of the compare document: the rule engine's findings of both runs matched
// by rule and title.
#include <map>

#include "compare/compare_sections.h"

namespace npu::compare::sections {

namespace {

std::string finding_key(const json& f) { return f.value("rule", "") + "\x1f" + f.value("title", ""); }

json finding_brief(const json& f) {
  return {{"rule", f.value("rule", "")},
          {"title", f.value("title", "")},
          {"severity", f.value("severity", "")},
          {"category", f.value("category", "")},
          {"saving_ns", f.value("saving_ns", json(nullptr))},
          {"saving_ratio", f.value("saving_ratio", json(nullptr))},
          {"observed", f.value("observed", "")}};
}

}  // namespace

json findings_section(const json& base_findings, const json& next_findings) {
  std::map<std::string, const json*> fb, fn;
  for (const auto& f : base_findings) fb.emplace(finding_key(f), &f);
  for (const auto& f : next_findings) fn.emplace(finding_key(f), &f);
  json appeared = json::array(), gone = json::array(), persisting = json::array(), all_new = json::array();
  for (const auto& f : next_findings) {
    all_new.push_back(finding_brief(f));
    auto it = fb.find(finding_key(f));
    if (it == fb.end()) {
      appeared.push_back(finding_brief(f));
    } else {
      json p = finding_brief(f);
      p["base_saving_ratio"] = it->second->value("saving_ratio", json(nullptr));
      p["base_saving_ns"] = it->second->value("saving_ns", json(nullptr));
      p["base_observed"] = it->second->value("observed", "");
      persisting.push_back(p);
    }
  }
  for (const auto& f : base_findings)
    if (!fn.count(finding_key(f))) gone.push_back(finding_brief(f));
  return {{"appeared", appeared}, {"disappeared", gone}, {"persisting", persisting}, {"new_run", all_new}};
}

}  // namespace npu::compare::sections
