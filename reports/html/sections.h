// The sections of the HTML analysis report, each a function of the report document (sampled
// for the page: kit.h sampled_for_page) returning its <section> (or header) markup. The page
// assembly (page.cpp) and the run-list page put them together; docs/reports.md says what each shows.
#pragma once
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

namespace npu::html {

// summary_sections.cpp: the page header with its table of contents, and the Summary card (KPIs,
// top findings, checks count).
std::string section_header(const nlohmann::json& report);
std::string section_summary(const nlohmann::json& report);
// Where the step goes (the report's `attribution`): a bar, its legend and how much the findings
// explain; "" without a split. In the Summary card, and in the Cluster card for a cluster.
std::string step_split_html(const nlohmann::json& attribution);

// inference_section.cpp: facts.inference (a serving or generate run, a start-up capture): the
// header per phase, the steady state, the holes and the iterations' table with phase-coloured
// rows; <section id="serving">, "" without it.
std::string section_inference(const nlohmann::json& report);

// step_sections.cpp: the per-step device breakdown and the host dispatch (launch lag) per step.
std::string section_steps(const nlohmann::json& report);
std::string section_dispatch(const nlohmann::json& report);

// operator_section.cpp: the top operators by type, kernel name, communication and host.
std::string section_operators(const nlohmann::json& report);

// module_section.cpp: where in the model the device time goes (facts.modules): coverage, the
// icicle (drawn by modules.js), the top modules and the repeated layers; "skipped: why" without.
std::string section_modules(const nlohmann::json& report);

// roofline_section.cpp: facts.roofline as a log-log chart (intensity vs achieved FLOP/s, the
// roofs, a point per group sized by time) and a table; <section id="roofline">, "" without it.
std::string section_roofline(const nlohmann::json& report);

// finding_sections.cpp: every finding with its evidence, and the checks that did not run.
std::string section_findings(const nlohmann::json& report);
std::string section_checks(const nlohmann::json& report);
// "~4.567 ms/step (12.3%)" (short) or "4.567 ms per step (12.3% of a step)"; "saving not estimated".
std::string saving_text(const nlohmann::json& finding, bool short_form);

// run_section.cpp: what was analysed: metadata, environment, inputs, configuration, warnings.
std::string section_run(const nlohmann::json& report);

// cluster_section.cpp: facts.cluster of a cluster analysis (ranks, heat maps, groups, links);
// "" when the report has none.
std::string section_cluster(const nlohmann::json& report);

}  // namespace npu::html
