#include "pipeline/run_facts.h"

#include "facts/diagnostics/diagnostics.h"
#include "views/views.h"

namespace npu::pipeline {

Facts run_facts(const RunModel& model, const std::string& path, const Detection& d, const FactsSettings& settings,
                nlohmann::json* views) {
  FactsWork work;
  Facts f = compute_facts(model, views ? &work : nullptr, settings.options);
  if (views) *views = compute_views(work, f.doc);
  f.doc["input"] = {{"path", path}, {"kind", d.kind}, {"description", d.description}};
  return f;
}

}  // namespace npu::pipeline
