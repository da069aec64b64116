// The gate's configuration: budget specs ("step_time=5%"), gate settings, and the config file
// (YAML, or "key = value" lines that also read the simple TOML layout). docs/compare-gate.md.
#include "pipeline/gate_config.h"

#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include <yaml-cpp/yaml.h>

#include "base/load_error.h"

namespace npu::pipeline {

using compare::Budget;
using compare::GateConfig;
using compare::metric_unit;

namespace {

std::string trim(std::string s) {
  size_t b = 0, e = s.size();
  while (b < e && std::isspace(static_cast<unsigned char>(s[b]))) ++b;
  while (e > b && std::isspace(static_cast<unsigned char>(s[e - 1]))) --e;
  return s.substr(b, e - b);
}

std::string lower(std::string s) {
  for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return s;
}

std::string unquote(std::string s) {
  s = trim(s);
  if (s.size() >= 2 && ((s.front() == '"' && s.back() == '"') || (s.front() == '\'' && s.back() == '\'')))
    s = s.substr(1, s.size() - 2);
  return s;
}

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// A whole number text ("1.5", "2e3"); throws with `what` in the message.
double parse_number(const std::string& text, const std::string& what) {
  std::string t = trim(text);
  if (t.empty()) throw std::invalid_argument(what + ": empty value");
  char* end = nullptr;
  double v = std::strtod(t.c_str(), &end);
  if (end == t.c_str() || *end != '\0' || !std::isfinite(v))
    throw std::invalid_argument(what + ": \"" + text + "\" is not a number");
  return v;
}

bool parse_bool(const std::string& text, const std::string& what) {
  std::string t = lower(trim(text));
  if (t == "true" || t == "yes" || t == "on" || t == "1") return true;
  if (t == "false" || t == "no" || t == "off" || t == "0") return false;
  throw std::invalid_argument(what + ": \"" + text + "\" is not true or false");
}

}  // namespace

double parse_fraction(const std::string& text) {
  std::string t = trim(text);
  double v =
      ends_with(t, "%") ? parse_number(t.substr(0, t.size() - 1), "percentage") / 100.0 : parse_number(t, "fraction");
  if (v < 0) throw std::invalid_argument("\"" + text + "\" is negative");
  return v;
}

Budget parse_budget(const std::string& spec, const std::string& source) {
  auto eq = spec.find('=');
  if (eq == std::string::npos)
    throw std::invalid_argument("budget \"" + spec + "\": expected METRIC=VALUE, e.g. step_time=5%");
  Budget b;
  b.metric = trim(spec.substr(0, eq));
  b.text = trim(spec.substr(eq + 1));
  b.source = source;
  std::string unit = metric_unit(b.metric);
  std::string what = "budget " + b.metric;
  std::string t = lower(b.text);
  if (t == "off" || t == "none" || t == "disabled") {
    b.kind = Budget::Kind::Off;
    return b;
  }
  if (ends_with(t, "%")) {
    b.kind = Budget::Kind::Relative;
    b.value = parse_number(t.substr(0, t.size() - 1), what) / 100.0;
  } else {
    b.kind = Budget::Kind::Absolute;
    struct Suffix {
      const char* s;
      double scale;
    };
    bool matched = false;
    if (unit == "ns") {
      for (Suffix sx :
           {Suffix{"ns", 1}, Suffix{"us", 1e3}, Suffix{"\xc2\xb5s", 1e3}, Suffix{"ms", 1e6}, Suffix{"s", 1e9}})
        if (ends_with(t, sx.s)) {
          b.value = parse_number(t.substr(0, t.size() - std::string(sx.s).size()), what) * sx.scale;
          matched = true;
          break;
        }
      if (!matched)
        throw std::invalid_argument(what + ": \"" + b.text + "\" needs a unit (ns, us, ms, s) or a percentage (5%)");
    } else if (unit == "MB") {
      for (Suffix sx : {Suffix{"kb", 1.0 / 1024}, Suffix{"mb", 1}, Suffix{"gb", 1024}, Suffix{"tb", 1024.0 * 1024}})
        if (ends_with(t, sx.s)) {
          b.value = parse_number(t.substr(0, t.size() - 2), what) * sx.scale;
          matched = true;
          break;
        }
      if (!matched)
        throw std::invalid_argument(what + ": \"" + b.text + "\" needs a unit (KB, MB, GB) or a percentage (5%)");
    } else if (unit == "calls") {
      b.value = parse_number(t, what);
    } else {  // ratio
      if (ends_with(t, "pp")) b.value = parse_number(t.substr(0, t.size() - 2), what) / 100.0;
      else b.value = parse_number(t, what);
      if (b.value > 1)
        throw std::invalid_argument(what + ": \"" + b.text + "\" is more than a whole ratio (use 0.03, 3pp or 5%)");
    }
  }
  if (b.value < 0) throw std::invalid_argument(what + ": \"" + b.text + "\" is negative");
  return b;
}

void apply_gate_setting(const std::string& raw_key, const std::string& value, const std::string& source,
                        GateConfig& cfg) {
  std::string key = trim(raw_key);
  if (key.rfind("max_regression.", 0) == 0) key = key.substr(15);
  if (key.rfind("op_type.", 0) == 0) key = "op_type:" + key.substr(8);
  if (key == "fail_on_finding_saving") {
    std::string t = lower(trim(value));
    if (t == "off" || t == "none") cfg.fail_on_finding_saving.reset();
    else cfg.fail_on_finding_saving = parse_fraction(value);
  } else if (key == "new_findings_only") {
    cfg.new_findings_only = parse_bool(value, key);
  } else if (key == "confidence") {
    double c = parse_fraction(value);
    if (c <= 0.5 || c >= 1)
      throw std::invalid_argument("confidence must lie between 0.5 and 1 (e.g. 0.95), got " + value);
    cfg.compare.confidence = c;
  } else if (key == "min_steps") {
    double n = parse_number(value, key);
    if (n < 2 || n != std::floor(n)) throw std::invalid_argument("min_steps must be a whole number >= 2, got " + value);
    cfg.compare.min_steps_for_test = static_cast<size_t>(n);
  } else if (key == "skip_warmup") {
    cfg.compare.skip_warmup = parse_bool(value, key);
  } else if (key == "resamples") {
    double n = parse_number(value, key);
    if (n < 100 || n > 1e6 || n != std::floor(n))
      throw std::invalid_argument("resamples must be a whole number in 100..1000000");
    cfg.compare.resamples = static_cast<int>(n);
  } else {
    cfg.set(parse_budget(key + "=" + value, source));
  }
}

namespace {

void read_yaml_config(const std::string& path, GateConfig& cfg) {
  YAML::Node root;
  try {
    root = YAML::LoadFile(path);
  } catch (const YAML::BadFile&) {
    throw LoadError::whole_file(path, "cannot open gate config");
  } catch (const YAML::Exception& e) {
    throw LoadError::at_line(path, static_cast<uint64_t>(e.mark.line + 1), e.msg);
  }
  if (root.IsNull()) return;
  if (!root.IsMap())
    throw LoadError::whole_file(path, "a gate config is a mapping of settings (see docs/compare-gate.md)");
  auto apply = [&](const std::string& key, const YAML::Node& v) {
    if (!v.IsScalar())
      throw LoadError::at_line(path, static_cast<uint64_t>(v.Mark().line + 1), "\"" + key + "\" wants a single value");
    try {
      apply_gate_setting(key, v.Scalar(), path, cfg);
    } catch (const std::invalid_argument& e) {
      throw LoadError::at_line(path, static_cast<uint64_t>(v.Mark().line + 1), e.what());
    }
  };
  for (const auto& kv : root) {
    std::string key = kv.first.as<std::string>();
    const YAML::Node& v = kv.second;
    if (key == "max_regression" || key == "budgets") {
      if (!v.IsMap())
        throw LoadError::at_line(path, static_cast<uint64_t>(v.Mark().line + 1), key + " wants a mapping");
      for (const auto& b : v) {
        std::string metric = b.first.as<std::string>();
        if (metric == "op_type" && b.second.IsMap()) {
          for (const auto& t : b.second) apply("op_type:" + t.first.as<std::string>(), t.second);
        } else {
          apply(metric, b.second);
        }
      }
    } else {
      apply(key, v);
    }
  }
}

// "key = value" lines; [section] headers; '#' comments; quotes around keys and values are dropped.
void read_kv_config(const std::string& path, GateConfig& cfg) {
  std::ifstream f(path);
  if (!f) throw LoadError::whole_file(path, "cannot open gate config");
  std::string line, sect;
  uint64_t n = 0;
  while (std::getline(f, line)) {
    ++n;
    // A '#' starts a comment unless it is inside quotes.
    bool in_q = false;
    char q = 0;
    for (size_t i = 0; i < line.size(); ++i) {
      char c = line[i];
      if (in_q) {
        if (c == q) in_q = false;
      } else if (c == '"' || c == '\'') {
        in_q = true;
        q = c;
      } else if (c == '#') {
        line.erase(i);
        break;
      }
    }
    line = trim(line);
    if (line.empty()) continue;
    if (line.front() == '[') {
      if (line.back() != ']') throw LoadError::at_line(path, n, "unterminated [section]");
      sect = unquote(line.substr(1, line.size() - 2));
      if (sect != "max_regression" && sect != "budgets" && sect != "gate" && sect != "max_regression.op_type" &&
          sect != "budgets.op_type")
        throw LoadError::at_line(path, n,
                                 "unknown section [" + sect +
                                     "] (known: [gate], [max_regression], "
                                     "[max_regression.op_type])");
      continue;
    }
    auto eq = line.find('=');
    if (eq == std::string::npos) throw LoadError::at_line(path, n, "expected key = value");
    std::string key = unquote(line.substr(0, eq)), value = unquote(line.substr(eq + 1));
    if (ends_with(sect, "op_type")) key = "op_type:" + key;
    try {
      apply_gate_setting(key, value, path, cfg);
    } catch (const std::invalid_argument& e) {
      throw LoadError::at_line(path, n, e.what());
    }
  }
}

}  // namespace

void read_gate_config(const std::string& path, GateConfig& cfg) {
  std::string l = lower(path);
  if (ends_with(l, ".yaml") || ends_with(l, ".yml")) read_yaml_config(path, cfg);
  else read_kv_config(path, cfg);
}

}  // namespace npu::pipeline
