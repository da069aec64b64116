#include "pipeline/run_facts.h"

#include "facts/diagnostics/diagnostics.h"

namespace npu::pipeline {

Facts run_facts(const RunModel& model, const std::string& path, const Detection& d, const FactsOptions& options) {
  Facts f = compute_facts(model, options);
  f.doc["input"] = {{"path", path}, {"kind", d.kind}, {"description", d.description}};
  return f;
}

}  // namespace npu::pipeline
