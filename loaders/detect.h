// Decides what an input path is: every registered format (loaders/format.h) sniffs it and the
// most confident one claims it, or the error says what was looked for.
#pragma once
#include <string>

#include "model/input.h"

namespace npu {

// Throws LoadError (whole file) when the path is missing, is no format's, or two formats claim it
// with the same confidence.
Detection detect_input(const std::string& path);

}  // namespace npu
