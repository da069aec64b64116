// Views: what the HTML report draws, beside the facts (docs/views.md). A view is computed from the
// same model, diagnostic context and facts as the facts themselves, but written into its own
// document, which the pipeline puts into the report as `views`: never into the facts, so the rules
// and the readers of `npu-advisor facts` do not see drawing data. Nothing below the pipeline
// (rules, compare, reports) includes this layer; the reports read the report document only.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "facts/diagnostics/diagnostics.h"

namespace npu {

// The view document: {"timeline": {...}, "unavailable": [{fact, why}]}, "timeline" absent when it
// could not be drawn (docs/views.md). `facts`: what the diagnostics wrote with `work` kept.
nlohmann::json compute_views(const FactsWork& work, const nlohmann::json& facts);

// The step timeline (timeline.cpp): for a few chosen steps, everything the HTML report's step
// timeline draws; null, with `why`, when there is no step window to draw. Reads the facts'
// "steps", "overall" and "dispatch" (never recomputes them); stretches: the idle attribution's, to
// draw Free by cause (null: Free drawn as one kind).
nlohmann::json timeline_view(const DiagnosticContext& ctx, const nlohmann::json& facts,
                             const std::vector<IdleStretch>* stretches, std::string& why);

}  // namespace npu
