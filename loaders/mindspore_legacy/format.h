// MindSpore 1.x / 2.0 (MindInsight era): everything flat in one profiler/ folder, of which the
// device timeline (ascend_timeline_display_N.json) is read; the raw dumps beside it are named
// as not supported.
#pragma once
#include <filesystem>
#include <string>

#include "loaders/format.h"

namespace npu {

InputFormat mindspore_legacy_format();

// Whether a folder holds the legacy profiler's files, and its first timeline ("" without one):
// the cluster format counts such folders in a parent folder.
bool is_mindspore_legacy(const std::filesystem::path& dir, std::string* timeline);

}  // namespace npu
