// Did two runs do the same work? Before a comparison says a fix saved time, the runs must have
// run the same steps: the same number of steps and the same FLOPs per step modelled from the
// recorded shapes (a different batch or model changes them; a precision, fusion or compile fix does
// not). Without shapes on both sides: the same device kernels and backward operators per step,
// each operator called as often (docs/verify.md, "Same work").
// `verify` refuses runs that differ; `compare` and `gate` warn (compare document `same_work`).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "facts/facts.h"

namespace npu::compare {

// {same, checked[], differences[{what, base, new, text}], not_checked[], count_changes[]}: `same` is
// false when a difference was found; a check neither side's facts allow is listed in not_checked.
// Where both sides' FLOPs from shapes agree, differing kernel and operator counts are listed in
// count_changes (the same arithmetic run by other kernels), not in differences.
nlohmann::json same_work(const Facts& base, const Facts& next);

// One line naming the differences (at most `limit`), "" when the runs did the same work.
std::string describe_differences(const nlohmann::json& same, size_t limit = 4);

}  // namespace npu::compare
