// verify_fix(): the realised saving, its interval, and the verdict against the prediction.
#include "compare/verify.h"

#include <cmath>
#include <regex>

#include <fmt/format.h>

#include "compare/same_work.h"
#include "rules/replay_saving.h"

namespace npu::compare {

using nlohmann::json;

namespace {

Prediction from_finding(const json& f, std::string chosen) {
  Prediction p;
  p.rule = f.value("rule", "");
  p.title = f.value("title", "");
  p.saving_ns = f.value("saving_ns", 0.0);
  p.method = f.value("saving_method", "formula");
  p.formula = f.value("saving_formula", "");
  p.chosen = std::move(chosen);
  return p;
}

json prediction_json(const std::optional<Prediction>& p) {
  if (!p) return nullptr;
  return {{"rule", p->rule},      {"title", p->title},     {"saving_ns", std::llround(p->saving_ns)},
          {"method", p->method},  {"formula", p->formula}, {"chosen", p->chosen}};
}

double ms(double ns) { return ns / 1e6; }

json inconclusive(json out, const std::string& why) {
  out["verdict"] = kInconclusive;
  out["why"] = why;
  return out;
}

}  // namespace

std::optional<Prediction> prediction_of(const json& findings, const std::string& rule, std::string* why) {
  if (!findings.is_array() || findings.empty()) {
    *why = "the baseline has no findings";
    return std::nullopt;
  }
  if (rule.empty()) return from_finding(findings[0], "the top finding");
  for (const json& f : findings)
    if (f.value("rule", "") == rule) return from_finding(f, "--fix " + rule);
  *why = "the baseline has no finding of " + rule;
  return std::nullopt;
}

std::optional<Prediction> prediction_of_whatif(const json& facts, const std::optional<Prediction>& p,
                                               const std::string& whatif, std::string* why) {
  const json* t = nullptr;
  if (const std::string unusable = replay_unusable(facts, whatif, &t); !unusable.empty()) {
    *why = "--whatif " + whatif + ": " + unusable;
    return std::nullopt;
  }
  Prediction out = p.value_or(Prediction{});
  out.saving_ns = (*t)["saving_ns"].get<double>();
  out.method = "replay";
  out.formula = "replay (" + whatif + "): " + t->value("formula", std::string());
  out.chosen = (out.chosen.empty() ? "" : out.chosen + "; ") + "--whatif " + whatif;
  return out;
}

std::string alternatives_note(const json& findings, const Prediction& p) {
  if (!findings.is_array()) return "";
  for (const json& f : findings) {
    if (f.value("rule", "") != p.rule) continue;
    const size_t n = f.value("commands", json::array()).size();
    const std::string w = f.value("whatif", std::string());
    if (n < 2 || w.empty() || p.chosen.find("--whatif") != std::string::npos) return "";
    return fmt::format("{} offers {} commands; its saving is the replay of '{}': if the fix applied another of them, "
                       "give --whatif NAME (the replay's transformation, facts.whatif.transforms) to judge it against "
                       "that one's saving",
                       p.rule, n, w);
  }
  return "";
}

std::optional<std::string> env_assignment(const std::string& command) {
  static const std::regex re(R"(^\s*(?:export\s+)?([A-Za-z_][A-Za-z0-9_]*)=(\S*)\s*(?:#.*)?$)");
  std::smatch m;
  if (!std::regex_match(command, m, re)) return std::nullopt;
  return m[1].str() + "=" + m[2].str();
}

std::vector<std::pair<std::string, Prediction>> env_fixes(const json& findings) {
  std::vector<std::pair<std::string, Prediction>> out;
  if (!findings.is_array()) return out;
  for (const json& f : findings)
    for (const json& c : f.value("commands", json::array()))
      if (auto a = c.is_string() ? env_assignment(c.get<std::string>()) : std::nullopt) {
        out.emplace_back(*a, from_finding(f, "its command sets " + *a));
        break;
      }
  return out;
}

std::optional<Prediction> prediction_for_env(const json& findings, const std::string& assignment) {
  for (auto& [a, p] : env_fixes(findings))
    if (a == assignment) return p;
  return std::nullopt;
}

std::string period_unverifiable(const json& base_facts) {
  const auto w = base_facts.find("whatif");
  if (w == base_facts.end() || !w->is_object()) return "";
  const auto period = w->find("period");
  if (period == w->end() || !period->is_object()) return "";
  const auto turn = period->find("measured_turn_ns");
  if (turn == period->end() || !turn->is_number() || turn->get<double>() <= 0) return "";
  return "the baseline is a serving run whose savings are of the iteration period (its window and the host's turn "
         "after it, " +
         fmt::format("{:.3f} ms of turn per iteration", ms(turn->get<double>())) +
         "); verify compares the iterations' windows, which leave the turn out";
}

json verify_fix(const json& doc, const std::optional<Prediction>& p, const VerifyBand& band) {
  json out = {{"prediction", prediction_json(p)}, {"realised", nullptr}, {"prediction_off_ratio", nullptr}};
  const json& same = doc.value("same_work", json::object());
  if (!same.value("same", true))
    return inconclusive(out, "the runs did different work: " + describe_differences(same));
  const json& st = doc.value("step_time", json::object());
  if (!st.value("available", false)) return inconclusive(out, "a run has no step times to compare");
  const json& noise = st.value("noise", json::object());
  const double base_median = st["base"].value("median_ns", 0.0);
  json realised = {{"base_median_ns", st["base"]["median_ns"]}, {"new_median_ns", st["new"]["median_ns"]},
                   {"base_steps", st["base"].value("steps_used", json(nullptr))}, {"new_steps", st["new"].value("steps_used", json(nullptr))}, {"basis", st.value("basis", "")}};
  if (!noise.value("possible", false)) {
    realised["saving_ns"] = -st.value("delta_ns", 0.0);
    out["realised"] = realised;
    return inconclusive(out, noise.value("why", std::string("no noise test")));
  }
  const bool paired = noise.value("pairing", "") == "paired by step id";
  const double saving = paired ? -noise.value("median_paired_difference", 0.0) : -st.value("delta_ns", 0.0);
  const double lo = -noise.value("ci_high", 0.0), hi = -noise.value("ci_low", 0.0);
  realised["saving_ns"] = std::llround(saving);
  realised["ci_low_ns"] = std::llround(lo);
  realised["ci_high_ns"] = std::llround(hi);
  realised["confidence"] = noise.value("confidence", 0.95);
  realised["pairing"] = noise.value("pairing", "");
  realised["test"] = noise.value("test", json(nullptr));
  out["realised"] = realised;
  const double pred = p ? p->saving_ns : 0;
  const std::string ci = fmt::format("{:.0f}% CI [{:+.3f}, {:+.3f}] ms", 100 * noise.value("confidence", 0.95),
                                     ms(lo), ms(hi));
  // No prediction (a variable no finding names): pairing the steps removes step-to-step noise, not
  // the drift of one run against another, so only a change beyond a share of the step counts.
  const double drift = band.no_effect_share * base_median;
  if (!p && lo > -drift && hi < drift) {
    out["verdict"] = kNoEffect;
    out["why"] = fmt::format("{:+.3f} ms per step ({}): within +-{:.3f} ms (10% of the step), what one run of the "
                             "same job may differ from another; no finding predicted a saving",
                             ms(saving), ci, ms(drift));
    return out;
  }
  if (lo > 0) {
    const double ratio = pred / saving;
    out["prediction_off_ratio"] = ratio - 1;
    const bool within = ratio >= band.low && ratio <= band.high;
    out["verdict"] = within ? kConfirmed : kConfirmedOff;
    out["why"] = fmt::format("saved {:.3f} ms per step ({}), beyond noise; predicted {:.3f} ms: {}", ms(saving), ci,
                             ms(pred),
                             !p       ? "no finding predicted it"
                             : within ? fmt::format("within -25%/+33% ({:+.0f}%)", 100 * (ratio - 1))
                                      : fmt::format("off by {:+.0f}% of the realised saving", 100 * (ratio - 1)));
    const json& test = noise.value("test", json::object());
    if (test.value("p_value", 0.0) > 1 - noise.value("confidence", 0.95))
      out["why"] = out["why"].get<std::string>() +
                   fmt::format("; but {} steps are too few for the {} test to exclude chance (p = {:.3g}): record 8 "
                               "or more",
                               st["base"].value("steps_used", 0), test.value("name", ""), test.value("p_value", 0.0));
    return out;
  }
  if (hi < 0) {
    out["verdict"] = kSlower;
    out["why"] = fmt::format("slower by {:.3f} ms per step ({}), beyond noise", ms(-saving), ci);
    return out;
  }
  const double effect = pred > 0 ? pred : band.no_effect_share * base_median;
  if (hi < effect) {
    out["verdict"] = kNoEffect;
    out["why"] = fmt::format("no change beyond noise ({} includes 0) and a saving of {:.3f} ms ({}) is ruled out",
                             ci, ms(effect), pred > 0 ? "the prediction" : "10% of the step");
    return out;
  }
  return inconclusive(out, fmt::format("noise wider than the prediction: the {} holds both 0 and {:.3f} ms ({})", ci,
                                       ms(effect), pred > 0 ? "the prediction" : "10% of the step"));
}

}  // namespace npu::compare
