// What `inspect` shows: the run summary of one input, or of each member of a cluster.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

#include "pipeline/load_settings.h"

namespace npu::pipeline {

// A member that fails to load is kept in the document with its error, and `any_member_failed`
// is set; a bad single input throws LoadError.
nlohmann::json summarize_input(const std::string& path, const LoadSettings& settings, bool* any_member_failed);

}  // namespace npu::pipeline
