// The roofline in the terminal summary (facts.roofline, docs/facts-roofline.md): MFU per step
// and the groups with the largest gaps to their roof.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// "MFU ..." and "top gaps: ..." lines; "" without a roofline.
std::string roofline_lines(const nlohmann::json& facts);

}  // namespace npu
