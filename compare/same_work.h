// Did two runs do the same work? Before a comparison says a fix saved time, the runs must have
// run the same steps: the same number of steps, the same device kernels and the same backward
// operators per step, each operator called as often. A different batch or model changes those;
// a fix of the input pipeline or of the dispatch does not (docs/verify.md, "Same work").
// `verify` refuses runs that differ; `compare` and `gate` warn (compare document `same_work`).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "facts/facts.h"

namespace npu::compare {

// {same, checked[], differences[{what, base, new, text}], not_checked[]}: `same` is false when a
// difference was found; a check neither side's facts allow is listed in not_checked.
nlohmann::json same_work(const Facts& base, const Facts& next);

// One line naming the differences (at most `limit`), "" when the runs did the same work.
std::string describe_differences(const nlohmann::json& same, size_t limit = 4);

}  // namespace npu::compare
