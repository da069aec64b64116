// File names in the order a person numbers them: msprof_0_2_10.json after msprof_0_2_9.json.
#pragma once
#include <string_view>

namespace npu {

// Runs of digits compare as numbers (leading zeros ignored), everything else byte by byte as
// unsigned values, as std::string orders it, on every CPU.
bool natural_less(std::string_view a, std::string_view b);

}  // namespace npu
