// Decides what an input path is, or says what it looked for. The one place that knows the
// on-disk layouts of the supported profilers.
#pragma once
#include <string>

#include "model/input.h"

namespace npu {

// Throws LoadError (whole file) when the path is missing or is none of the above; the
// message lists what was looked for.
Detection detect_input(const std::string& path);

}  // namespace npu
