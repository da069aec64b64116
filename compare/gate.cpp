// The regression gate (docs/compare-gate.md): budgets, the noise-aware verdict, and the
// configuration file.
#include "compare/gate.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <stdexcept>

#include "compare/stats.h"
#include "base/load_error.h"

namespace npu::compare {

using nlohmann::json;

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

std::vector<double> to_vec(const json& arr) {
  std::vector<double> v;
  if (arr.is_array())
    for (const auto& x : arr)
      if (x.is_number()) v.push_back(x.get<double>());
  return v;
}

std::string value_text(double v, const std::string& unit) {
  if (unit == "ns") return fmt_ms(v);
  if (unit == "ratio") return fmt::format("{:.2f}%", v * 100);
  if (unit == "MB") return fmt::format("{:.1f} MB", v);
  if (unit == "calls") return fmt::format("{:g} calls/step", v);
  return fmt::format("{:g}", v);
}

std::string delta_text(double v, const std::string& unit) {
  if (unit == "ns") return fmt_signed_ms(v);
  if (unit == "ratio") return fmt::format("{:+.2f} pts", v * 100);
  if (unit == "MB") return fmt::format("{:+.1f} MB", v);
  if (unit == "calls") return fmt::format("{:+g} calls/step", v);
  return fmt::format("{:+g}", v);
}

std::string xml_escape(const std::string& s) {
  std::string o;
  for (char c : s) {
    switch (c) {
      case '&': o += "&amp;"; break;
      case '<': o += "&lt;"; break;
      case '>': o += "&gt;"; break;
      case '"': o += "&quot;"; break;
      case '\'': o += "&apos;"; break;
      default:
        // XML 1.0 forbids most control characters.
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t' && c != '\r') o += ' ';
        else o += c;
    }
  }
  return o;
}

// Text from runs and rules in the job summary: one table cell, and no HTML or code span of its
// own (a rule's title must not inject markup into a CI page).
std::string md_cell(const std::string& s) {
  std::string o;
  o.reserve(s.size());
  for (char c : s) {
    if (c == '|' || c == '\n' || c == '\r') o += ' ';
    else if (c == '`') o += '\'';
    else if (c == '<') o += "&lt;";
    else if (c == '>') o += "&gt;";
    else o += c;
  }
  return o;
}

}  // namespace

std::string metric_unit(const std::string& metric) {
  if (metric == "step_time" || metric == "comm_not_overlapped") return "ns";
  if (metric == "free_ratio") return "ratio";
  if (metric == "memory_peak") return "MB";
  if (metric == "ai_cpu_calls") return "calls";
  if (metric.rfind("op_type:", 0) == 0 && metric.size() > 8) return "ns";
  throw std::invalid_argument("unknown metric \"" + metric +
                              "\" (known: step_time, free_ratio, comm_not_overlapped, op_type:<TYPE>, memory_peak, "
                              "ai_cpu_calls)");
}

double parse_fraction(const std::string& text) {
  std::string t = trim(text);
  double v = ends_with(t, "%") ? parse_number(t.substr(0, t.size() - 1), "percentage") / 100.0
                               : parse_number(t, "fraction");
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
      for (Suffix sx : {Suffix{"ns", 1}, Suffix{"us", 1e3}, Suffix{"\xc2\xb5s", 1e3}, Suffix{"ms", 1e6}, Suffix{"s", 1e9}})
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
      if (b.value > 1) throw std::invalid_argument(what + ": \"" + b.text + "\" is more than a whole ratio (use 0.03, 3pp or 5%)");
    }
  }
  if (b.value < 0) throw std::invalid_argument(what + ": \"" + b.text + "\" is negative");
  return b;
}

GateConfig::GateConfig() { set(parse_budget("step_time=5%", "default")); }

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
    if (c <= 0.5 || c >= 1) throw std::invalid_argument("confidence must lie between 0.5 and 1 (e.g. 0.95), got " + value);
    cfg.compare.confidence = c;
  } else if (key == "min_steps") {
    double n = parse_number(value, key);
    if (n < 2 || n != std::floor(n)) throw std::invalid_argument("min_steps must be a whole number >= 2, got " + value);
    cfg.compare.min_steps_for_test = static_cast<size_t>(n);
  } else if (key == "skip_warmup") {
    cfg.compare.skip_warmup = parse_bool(value, key);
  } else if (key == "resamples") {
    double n = parse_number(value, key);
    if (n < 100 || n > 1e6 || n != std::floor(n)) throw std::invalid_argument("resamples must be a whole number in 100..1000000");
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
  if (!root.IsMap()) throw LoadError::whole_file(path, "a gate config is a mapping of settings (see docs/compare-gate.md)");
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
      if (!v.IsMap()) throw LoadError::at_line(path, static_cast<uint64_t>(v.Mark().line + 1), key + " wants a mapping");
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
        throw LoadError::at_line(path, n, "unknown section [" + sect + "] (known: [gate], [max_regression], "
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

// ---------------------------------------------------------------- evaluation

namespace {

struct MetricValues {
  bool ok = false;
  std::string why;               // when !ok
  std::vector<double> b, n;      // per-step series (may be empty)
  bool paired = false;           // the series are the same steps
  double base = 0, next = 0;     // the compared values
  json evidence = json::object();
};

MetricValues values_for(const json& doc, const std::string& metric) {
  MetricValues m;
  auto from_series = [&](const char* key, const char* label) {
    if (!doc.value("step_time", json::object()).value("available", false)) {
      m.why = std::string("no per-step breakdown on at least one side, so no ") + label;
      return;
    }
    m.b = to_vec(doc["series"]["base"][key]);
    m.n = to_vec(doc["series"]["new"][key]);
    if (m.b.empty() || m.n.empty()) {
      m.why = "no steps";
      return;
    }
    m.base = median(m.b);
    m.next = median(m.n);
    m.paired = doc["series"].value("paired", false);
    m.ok = true;
  };
  if (metric == "step_time") {
    from_series("step_time_ns", "step time");
  } else if (metric == "comm_not_overlapped") {
    from_series("comm_not_overlapped_ns", "communication breakdown");
  } else if (metric == "free_ratio") {
    from_series("free_ratio", "free ratio");
  } else if (metric == "ai_cpu_calls") {
    const json& ops = doc.value("operators", json::object());
    if (!ops.contains("ai_cpu")) {
      m.why = "no AI CPU facts (operator_health.ai_cpu) on at least one side";
      return m;
    }
    m.base = ops["ai_cpu"]["base_calls_per_step"].get<double>();
    m.next = ops["ai_cpu"]["new_calls_per_step"].get<double>();
    m.evidence = {{"new_types", ops["ai_cpu"]["new_types"]}};
    m.ok = true;
  } else if (metric == "memory_peak") {
    const json& mem = doc.value("memory", json::object());
    if (!mem.value("available", false)) {
      m.why = mem.value("note", std::string("no memory facts"));
      return m;
    }
    for (const auto& r : mem["metrics"])
      if (r["key"] == "peak_allocated_mb" && r["base"].is_number() && r["new"].is_number()) {
        m.base = r["base"].get<double>();
        m.next = r["new"].get<double>();
        m.ok = true;
        m.evidence = mem.value("evidence", json::object());
      }
    if (!m.ok) m.why = "no peak allocated memory on at least one side";
  } else if (metric.rfind("op_type:", 0) == 0) {
    std::string type = metric.substr(8);
    const json& ops = doc.value("operators", json::object());
    if (!ops.value("available", false)) {
      m.why = ops.value("note", std::string("no operator facts"));
      return m;
    }
    if (ops.value("matched_by", "") != "type") {
      m.why = "the runs have no operator types (kernel_details.csv) to match " + type;
      return m;
    }
    for (const auto& r : ops["by_type"]) {
      if (r.value("type", "") != type) continue;
      if (r.value("status", "") == "unlisted") {
        m.why = type + " is below the top-list cut of one run: " + r.value("why", "");
        return m;
      }
      m.base = r["base"].is_null() ? 0 : r["base"]["per_step_ns"].get<double>();
      m.next = r["new"].is_null() ? 0 : r["new"]["per_step_ns"].get<double>();
      m.evidence = {{"base", r["base"].is_null() ? json(nullptr) : r["base"]["evidence"]},
                    {"new", r["new"].is_null() ? json(nullptr) : r["new"]["evidence"]},
                    {"status", r["status"]}};
      m.ok = true;
      return m;
    }
    m.why = "operator type " + type + " is not among the listed operator types of either run";
  }
  return m;
}

}  // namespace

json evaluate_gate(const json& doc, const GateConfig& cfg) {
  json checks = json::array();
  json notes = json::array();
  int failed = 0, skipped = 0, passed = 0;
  for (const auto& [metric, b] : cfg.budgets) {
    if (b.kind == Budget::Kind::Off) continue;
    std::string unit = metric_unit(metric);
    json c = {{"name", metric}, {"budget", b.text}, {"budget_source", b.source}, {"unit", unit}};
    MetricValues v = values_for(doc, metric);
    if (!v.ok) {
      c["status"] = "skipped";
      c["message"] = "not evaluated: " + v.why;
      ++skipped;
      checks.push_back(c);
      continue;
    }
    double delta = v.next - v.base;
    double threshold = b.kind == Budget::Kind::Relative ? b.value * std::fabs(v.base) : b.value;
    c["base"] = v.base;
    c["new"] = v.next;
    c["delta"] = delta;
    c["delta_ratio"] = v.base != 0 ? json(delta / v.base) : json(nullptr);
    c["threshold"] = threshold;
    c["over_budget"] = delta > threshold;
    if (!v.evidence.empty()) c["evidence"] = v.evidence;
    bool fail = delta > threshold;
    std::string base_msg = fmt::format("{} -> {} ({}{}), budget {} ({})", value_text(v.base, unit), value_text(v.next, unit),
                                       delta_text(delta, unit),
                                       v.base != 0 ? ", " + fmt_signed_pct(delta / v.base) : "", b.text,
                                       delta_text(threshold, unit));
    if (!v.b.empty() && !v.n.empty()) {
      json nz = noise_test(v.b, v.n, cfg.compare, v.paired);
      c["noise"] = nz;
      if (nz.value("possible", false)) {
        c["method"] = "noise-aware: fails only when over budget and the bootstrap interval of the median "
                      "difference lies above 0";
        bool beyond = nz["ci_low"].get<double>() > 0;
        fail = fail && beyond;
        std::string ci = fmt::format("{:.0f}% CI [{}, {}]", nz["confidence"].get<double>() * 100,
                                     delta_text(nz["ci_low"].get<double>(), unit),
                                     delta_text(nz["ci_high"].get<double>(), unit));
        std::string how = fmt::format("({}; {} p = {:.3g})", nz.value("pairing", ""), nz["test"].value("name", ""),
                                      nz["test"]["p_value"].get<double>());
        if (fail) c["message"] = "regression: " + base_msg + "; beyond step-to-step noise: " + ci + " " + how;
        else if (delta > threshold)
          c["message"] = "within noise: " + base_msg + " is over budget, but the " + ci + " includes 0 " + how;
        else c["message"] = "within budget: " + base_msg + "; " + ci + " " + how;
      } else {
        c["method"] = "plain threshold: " + nz.value("why", std::string());
        c["message"] = std::string(fail ? "regression: " : "within budget: ") + base_msg +
                       " (plain threshold: too few steps for a noise test)";
      }
    } else {
      c["method"] = "plain threshold: one value per run, no per-step series";
      c["message"] = std::string(fail ? "regression: " : "within budget: ") + base_msg;
    }
    if (metric.rfind("op_type:", 0) == 0 && c.contains("evidence") && c["evidence"].value("status", "") == "new")
      c["message"] = c["message"].get<std::string>() + " [new operator type]";
    c["status"] = fail ? "fail" : "pass";
    (fail ? failed : passed)++;
    checks.push_back(c);
  }

  if (cfg.fail_on_finding_saving) {
    double limit = *cfg.fail_on_finding_saving;
    const json& f = doc.value("findings", json::object());
    json offenders = json::array();
    auto over = [&](const json& x) { return x["saving_ratio"].is_number() && x["saving_ratio"].get<double>() > limit; };
    if (cfg.new_findings_only) {
      for (const auto& x : f.value("appeared", json::array()))
        if (over(x)) offenders.push_back(x);
      for (const auto& x : f.value("persisting", json::array()))
        if (over(x) && x["base_saving_ratio"].is_number() &&
            x["saving_ratio"].get<double>() - x["base_saving_ratio"].get<double>() > 0.02)
          offenders.push_back(x);
    } else {
      for (const auto& x : f.value("new_run", json::array()))
        if (over(x)) offenders.push_back(x);
    }
    json c = {{"name", "findings"},
              {"budget", fmt::format("saving <= {:.1f}% of a step{}", limit * 100,
                                     cfg.new_findings_only ? " (new or grown findings only)" : "")},
              {"budget_source", "--fail-on-finding-saving"},
              {"unit", "ratio"},
              {"threshold", limit},
              {"offenders", offenders}};
    bool fail = !offenders.empty();
    std::string list;
    for (const auto& x : offenders)
      list += fmt::format("{}{} ({}, saves {:.1f}% of a step)", list.empty() ? "" : "; ", x.value("title", ""),
                          x.value("rule", ""), x["saving_ratio"].get<double>() * 100);
    c["status"] = fail ? "fail" : "pass";
    c["message"] = fail ? "finding over the limit: " + list
                        : fmt::format("no {}finding saves more than {:.1f}% of a step",
                                      cfg.new_findings_only ? "new or grown " : "", limit * 100);
    (fail ? failed : passed)++;
    checks.push_back(c);
  }
  if (checks.empty()) notes.push_back("every budget is off: nothing was checked");
  for (const auto& n : doc.value("notes", json::array())) notes.push_back(n);
  return {{"schema", "npu-advisor.gate"},
          {"schema_version", 1},
          {"verdict", failed > 0 ? "fail" : "pass"},
          {"failed", failed},
          {"passed", passed},
          {"skipped", skipped},
          {"checks", checks},
          {"notes", notes}};
}

bool gate_failed(const json& gate) { return gate.value("verdict", "") == "fail"; }

// ---------------------------------------------------------------- renderings

std::string render_gate_text(const json& g, const json& doc) {
  std::string o = fmt::format("gate: {} ({} failed, {} passed, {} skipped)\n",
                              g["verdict"] == "fail" ? "FAIL" : "PASS", g["failed"].get<int>(), g["passed"].get<int>(),
                              g["skipped"].get<int>());
  o += "  base: " + doc["base"].value("path", "") + "\n  new:  " + doc["new"].value("path", "") + "\n";
  for (const auto& c : g["checks"]) {
    std::string st = c["status"];
    o += fmt::format("  {:<4} {:<26} {}\n", st == "fail" ? "FAIL" : st == "pass" ? "ok" : "SKIP", c["name"].get<std::string>(),
                     c.value("message", ""));
  }
  if (gate_failed(g) && !doc["why"].empty()) {
    o += "  why (top contributors to the device-time delta):\n";
    int n = 0;
    for (const auto& w : doc["why"]) {
      if (n++ >= 3) break;
      o += "    " + std::to_string(w.value("rank", 0)) + ". " + w.value("summary", "") + "\n";
    }
  }
  return o;
}

namespace {

void evidence_lines(const json& e, const std::string& side, std::string& o) {
  if (!e.is_array()) return;
  for (const auto& x : e) {
    if (!x.is_object()) continue;
    std::string where = x.value("file", "");
    if (x.contains("line")) where += ":" + x["line"].dump();
    if (x.contains("byte")) where += " @ byte " + x["byte"].dump();
    if (x.contains("rowid")) where += " @ " + x.value("table", "") + " rowid " + x["rowid"].dump();
    o += "evidence (" + side + "): " + x.value("what", "") + " (" + where + ")\n";
  }
}

// The body of a JUnit <failure>: the numbers behind the verdict, one per line.
std::string junit_details(const json& c) {
  std::string unit = c.value("unit", "");
  std::string o = "check: " + c.value("name", "") + "\n";
  if (c.contains("base") && c["base"].is_number()) {
    o += "base: " + value_text(c["base"].get<double>(), unit) + "\n";
    o += "new: " + value_text(c["new"].get<double>(), unit) + "\n";
    o += "delta: " + delta_text(c["delta"].get<double>(), unit) +
         (c["delta_ratio"].is_number() ? " (" + fmt_signed_pct(c["delta_ratio"].get<double>()) + ")" : "") + "\n";
    o += "budget: " + c.value("budget", "") + " (" + delta_text(c["threshold"].get<double>(), unit) + "), from " +
         c.value("budget_source", "") + "\n";
  } else {
    o += "budget: " + c.value("budget", "") + "\n";
  }
  if (c.contains("method")) o += "method: " + c.value("method", "") + "\n";
  if (c.contains("noise") && c["noise"].value("possible", false)) {
    const json& nz = c["noise"];
    o += fmt::format("noise: {:.0f}% CI [{}, {}] ({}), {} p = {:.3g}\n", nz["confidence"].get<double>() * 100,
                     delta_text(nz["ci_low"].get<double>(), unit), delta_text(nz["ci_high"].get<double>(), unit),
                     nz.value("pairing", ""), nz["test"].value("name", ""), nz["test"]["p_value"].get<double>());
  }
  if (c.contains("evidence") && c["evidence"].is_object()) {
    evidence_lines(c["evidence"].value("base", json()), "base", o);
    evidence_lines(c["evidence"].value("new", json()), "new", o);
  }
  for (const auto& x : c.value("offenders", json::array()))
    o += fmt::format("finding: {} ({}) saves {:.1f}% of a step: {}\n", x.value("title", ""), x.value("rule", ""),
                     x["saving_ratio"].get<double>() * 100, x.value("observed", ""));
  return o;
}

}  // namespace

std::string render_gate_junit(const json& g) {
  size_t tests = g["checks"].size();
  std::string o = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  o += fmt::format("<testsuites name=\"npu-advisor gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                   tests, g["failed"].get<int>(), g["skipped"].get<int>());
  o += fmt::format("  <testsuite name=\"npu-advisor gate\" tests=\"{}\" failures=\"{}\" errors=\"0\" skipped=\"{}\">\n",
                   tests, g["failed"].get<int>(), g["skipped"].get<int>());
  for (const auto& c : g["checks"]) {
    std::string name = c["name"];
    std::string msg = c.value("message", "");
    o += fmt::format("    <testcase classname=\"npu-advisor.gate\" name=\"{}\">\n", xml_escape(name));
    std::string st = c["status"];
    if (st == "fail") {
      o += fmt::format("      <failure message=\"{}\" type=\"regression\">{}</failure>\n", xml_escape(msg),
                       xml_escape(junit_details(c)));
    } else if (st == "skipped") {
      o += fmt::format("      <skipped message=\"{}\"/>\n", xml_escape(msg));
    } else {
      o += fmt::format("      <system-out>{}</system-out>\n", xml_escape(msg));
    }
    o += "    </testcase>\n";
  }
  o += "  </testsuite>\n</testsuites>\n";
  return o;
}

std::string render_gate_markdown(const json& g, const json& doc) {
  bool fail = gate_failed(g);
  std::string o = fmt::format("## npu-advisor gate: {}\n\n", fail ? "❌ FAIL" : "✅ PASS");
  o += fmt::format("Baseline `{}` vs new `{}`: {} failed, {} passed, {} skipped.\n\n", md_cell(doc["base"].value("path", "")),
                   md_cell(doc["new"].value("path", "")), g["failed"].get<int>(), g["passed"].get<int>(),
                   g["skipped"].get<int>());
  o += "| check | result | base | new | delta | budget | noise |\n|---|---|---:|---:|---:|---|---|\n";
  for (const auto& c : g["checks"]) {
    std::string st = c["status"];
    std::string unit = c.value("unit", "");
    std::string noise = "-";
    if (c.contains("noise")) {
      const json& nz = c["noise"];
      noise = nz.value("possible", false)
                  ? fmt::format("{:.0f}% CI [{}, {}], p = {:.3g}", nz["confidence"].get<double>() * 100,
                                delta_text(nz["ci_low"].get<double>(), unit), delta_text(nz["ci_high"].get<double>(), unit),
                                nz["test"]["p_value"].get<double>())
                  : "too few steps: plain threshold";
    }
    if (c["name"] == "findings") {
      o += fmt::format("| findings | {} | | | | {} | |\n", st == "fail" ? "❌ fail" : "✅ pass", md_cell(c.value("budget", "")));
      continue;
    }
    if (st == "skipped") {
      o += fmt::format("| `{}` | ⏭ skipped | | | | {} | {} |\n", md_cell(c["name"]), md_cell(c.value("budget", "")),
                       md_cell(c.value("message", "")));
      continue;
    }
    o += fmt::format("| `{}` | {} | {} | {} | {}{} | {} | {} |\n", md_cell(c["name"]),
                     st == "fail" ? "❌ fail" : c.value("over_budget", false) ? "✅ pass (within noise)" : "✅ pass",
                     value_text(c["base"].get<double>(), unit), value_text(c["new"].get<double>(), unit),
                     delta_text(c["delta"].get<double>(), unit),
                     c["delta_ratio"].is_number() ? " (" + fmt_signed_pct(c["delta_ratio"].get<double>()) + ")" : "",
                     md_cell(c.value("budget", "")), md_cell(noise));
  }
  for (const auto& c : g["checks"])
    if (c["name"] == "findings" && c["status"] == "fail")
      o += "\n**Findings over the limit:** " + md_cell(c.value("message", "")) + "\n";
  if (!doc["why"].empty()) {
    o += fmt::format("\n### Why ({} by {} per step)\n\n", doc["why_basis"].value("direction", ""),
                     fmt_signed_ms(doc["why_basis"].value("total_delta_ns", 0.0)));
    int n = 0;
    for (const auto& w : doc["why"]) {
      if (n++ >= 5) break;
      o += fmt::format("{}. {}\n", w.value("rank", 0), md_cell(w.value("summary", "")));
    }
  }
  const json& f = doc["findings"];
  if (!f["appeared"].empty()) {
    o += "\n### New findings\n\n";
    for (const auto& x : f["appeared"])
      o += fmt::format("- {} (`{}`): {}\n", md_cell(x.value("title", "")), md_cell(x.value("rule", "")), md_cell(x.value("observed", "")));
  }
  if (!g["notes"].empty()) {
    o += "\n<details><summary>Notes</summary>\n\n";
    for (const auto& n : g["notes"]) o += "- " + md_cell(n.get<std::string>()) + "\n";
    o += "\n</details>\n";
  }
  return o;
}

}  // namespace npu::compare
