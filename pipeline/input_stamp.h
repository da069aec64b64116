// The facts' "input" section: which path was analysed and what it was. Written here only, so
// every command (facts, analyze, compare, clusters) stamps it the same way; the rules read it
// to name real folders in their commands.
#pragma once
#include <string>

#include "facts/facts.h"
#include "model/input.h"

namespace npu::pipeline {

void stamp_input(Facts& facts, const std::string& path, const Detection& d);

}  // namespace npu::pipeline
