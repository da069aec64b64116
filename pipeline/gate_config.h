// The gate's configuration read from where the user writes it: a budget flag
// (--max-regression METRIC=VALUE), a YAML file, or "key = value" lines (docs/compare-gate.md).
// The budgets themselves and their evaluation are compare/gate.h.
#pragma once
#include <string>

#include "compare/gate.h"

namespace npu::pipeline {

// Parses "METRIC=VALUE"; throws std::invalid_argument with a message naming what is wrong.
compare::Budget parse_budget(const std::string& spec, const std::string& source);

// Reads a gate configuration file into cfg (its budgets override the defaults). YAML for
// .yaml/.yml (yaml-cpp); anything else is read as "key = value" lines, which also reads the
// simple TOML layout ([max_regression] table, quoted keys and values). Throws LoadError.
void read_gate_config(const std::string& path, compare::GateConfig& cfg);

// Applies one "key = value" setting (a budget metric or a gate option); throws std::invalid_argument.
void apply_gate_setting(const std::string& key, const std::string& value, const std::string& source,
                        compare::GateConfig& cfg);

// "10%" or "0.1" -> 0.1; throws std::invalid_argument.
double parse_fraction(const std::string& text);

}  // namespace npu::pipeline
