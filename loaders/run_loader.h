// Loads one run into a finalised RunModel through the format that detected it
// (loaders/format.h), recording for every input file whether it was found, and why it matters
// when it was not.
#pragma once
#include "loaders/common/load_options.h"
#include "model/input.h"
#include "model/model.h"

namespace npu {

// Throws LoadError for malformed files and for a cluster (its members are loaded one by one);
// a missing file is recorded, not an error.
RunModel load_run(const Detection& input, const LoadOptions& options = {});

}  // namespace npu
