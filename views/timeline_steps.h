// Which steps the timeline view draws (docs/views.md): chosen from the step windows the facts
// already hold ("steps", else "dispatch".steps), never recomputed.
#pragma once
#include <string>
#include <vector>

#include "facts/facts.h"
#include "model/model.h"

namespace npu {

constexpr size_t kMaxTimelineSteps = 5;  // worst, median, fastest, first, last (distinct)

struct ChosenStep {
  nlohmann::json id;      // step id or null (whole run)
  Ns start = 0, end = 0;  // the step window from the facts
  Ns time = 0;            // the step time the choice ranked by
  std::vector<std::string> why;
  size_t index = 0;  // index into facts.steps / dispatch.steps
};

// A section of the facts by reference (no copy: dispatch.steps of a long capture is tens of
// MB), or null.
const nlohmann::json& facts_section(const nlohmann::json& doc, const char* key);

// The worst, median and fastest steps by step time, then the first and the last (at most
// kMaxTimelineSteps, each once with every reason it was chosen). doc: the facts written so far.
// step_time_key: set to the facts key the steps were ranked by.
std::vector<ChosenStep> choose_timeline_steps(const nlohmann::json& doc, std::string& step_time_key);

}  // namespace npu
