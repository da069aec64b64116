// The HTML report (reports/html/): structure, escaping of hostile text, robustness to
// absent sections, and the CLI choosing it. The real-browser checks are in tests/browser/.
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "reports/report_document.h"
#include "test_support.h"

namespace {

using nlohmann::json;

std::string read_file(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

size_t count(const std::string& hay, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = hay.find(needle); pos != std::string::npos; pos = hay.find(needle, pos + needle.size())) ++n;
  return n;
}

json analyze_json(const std::string& path) {
  json r = npu::test::analyze_json(path);
  EXPECT_TRUE(r.is_object()) << "analyze " << path;
  return r;
}

const json& sample_report() {
  static const json r = analyze_json(npu::test::sample_run());
  return r;
}

// The text of <script type="application/json" id="report-data">.
std::string embedded_json(const std::string& html) {
  const std::string open = "<script type=\"application/json\" id=\"report-data\">";
  size_t a = html.find(open);
  if (a == std::string::npos) return "";
  a += open.size();
  size_t b = html.find("</script>", a);
  return b == std::string::npos ? "" : html.substr(a, b - a);
}

bool valid_utf8(const std::string& s) {
  size_t i = 0;
  while (i < s.size()) {
    unsigned char c = static_cast<unsigned char>(s[i]);
    size_t len = c < 0x80 ? 1 : (c >> 5) == 6 ? 2 : (c >> 4) == 14 ? 3 : (c >> 3) == 30 ? 4 : 0;
    if (len == 0 || i + len > s.size()) return false;
    for (size_t k = 1; k < len; ++k)
      if ((static_cast<unsigned char>(s[i + k]) & 0xC0) != 0x80) return false;
    i += len;
  }
  return true;
}

// A report with text an attacker could put in a profile (operator names, env values, paths)
// and rule output.
json hostile_report() {
  const std::string evil = "</script><script>alert(1)</script><!--";
  json r = {
      {"schema", "npu-advisor.report"},
      {"schema_version", 1},
      {"input",
       {{"path", "/runs/<b>x</b>"}, {"kind", "trace file"}, {"description", "run \"<img src=x onerror=alert(1)>\""}}},
      {"summary", json::object()},
      {"rules", json::array({{{"rule", "x.<i>"},
                              {"title", evil},
                              {"category", "c"},
                              {"status", "failed"},
                              {"reason", "line 1: " + evil},
                              {"findings", 0},
                              {"file", "f.lua"}}})},
      {"unavailable", json::array({{{"fact", "dispatch"}, {"why", "no arrows & " + evil}}})}};
  json facts = {{"schema", "npu-advisor.facts"}, {"schema_version", 1}};
  facts["run"] = {{"framework", "torch_npu"},
                  {"env",
                   {{"EVIL_VAR", evil},
                    {"INVALID_UTF8", std::string("a\xff\xfe"
                                                 "b")}}},
                  {"inputs", json::array({{{"role", "trace_view.json"},
                                           {"status", "loaded"},
                                           {"path", "/runs/<b>x</b>/t.json"},
                                           {"bytes", 1},
                                           {"records", 1},
                                           {"note", evil}}})}};
  facts["operators"] = {{"source", "kernel_details.csv"},
                        {"by_type", json::array({{{"type", "<img src=x onerror=alert(2)>"},
                                                  {"accelerator_core", "AI_CORE"},
                                                  {"count", 1},
                                                  {"total_ns", 1000},
                                                  {"mean_ns", 1000},
                                                  {"max_ns", 1000},
                                                  {"share_of_compute", 1.0},
                                                  {"share_of_step", 0.5}}})},
                        {"by_name", json::array({{{"name", evil}, {"count", 1}, {"total_ns", 1000}}})}};
  facts["unavailable"] = r["unavailable"];
  r["facts"] = facts;
  r["findings"] =
      json::array({{{"rank", 1},
                    {"rule", "team.<evil>"},
                    {"title", "<script>alert(3)</script>"},
                    {"category", "x\" onmouseover=\"alert(4)"},
                    {"severity", "high\"><script>"},
                    {"observed", evil},
                    {"why", "&amp; stays literal"},
                    {"action", "a"},
                    {"commands", json::array({"echo '</script>' && rm -rf \"$HOME\" # <b>"})},
                    {"evidence", json::array({{{"file", "/runs/<b>x</b>/t.json"}, {"byte", 7}, {"what", evil}},
                                              {{"fact", "overall.free_ratio"}, {"value", 0.123456789}},
                                              "plain <string>"})},
                    {"saving_ns", 1000000},
                    {"saving_ratio", 0.1},
                    {"saving_formula", "<f>"},
                    {"confidence", 0.5},
                    {"score_ns", 500000}}});
  return r;
}

}  // namespace

TEST(HtmlReport, SampleHasEverySection) {
  const json& r = sample_report();
  std::string html = npu::render_html(r);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  for (const char* id : {"summary", "steps", "dispatch", "operators", "findings", "checks", "run"})
    EXPECT_NE(html.find(std::string("<section id=\"") + id + "\""), std::string::npos) << id;
  EXPECT_EQ(count(html, "<details class=\"finding"), r["findings"].size());
  // One chart per section with data: steps, dispatch, operators.
  EXPECT_EQ(count(html, "<canvas "), 3u);
  EXPECT_NE(html.find("data-chart=\"steps\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"dispatch\""), std::string::npos);
  EXPECT_NE(html.find("data-chart=\"operators\""), std::string::npos);
  // Summary numbers, the top findings with their savings, copyable commands.
  EXPECT_NE(html.find("Median step time"), std::string::npos);
  EXPECT_NE(html.find("7.291 ms"), std::string::npos);  // the device step (Stage), median
  EXPECT_NE(html.find("22.3%"), std::string::npos);
  // Every finding: its title, and its commands in a copyable <pre>.
  size_t with_commands = 0;
  for (const auto& f : r["findings"]) {
    EXPECT_NE(html.find(f["title"].get<std::string>()), std::string::npos) << f["title"];
    for (const auto& c : f["commands"]) {
      std::string cmd = c.get<std::string>();
      if (cmd.find_first_of("<>&\"'") == std::string::npos) {
        EXPECT_NE(html.find(cmd), std::string::npos) << cmd;
      }
    }
    with_commands += f["commands"].empty() ? 0 : 1;
  }
  EXPECT_EQ(count(html, "<button type=\"button\" class=\"copy\""), with_commands);
  // The top finding's saving as the summary card shows it.
  ASSERT_FALSE(r["findings"].empty());
  const auto& top = r["findings"][0];
  if (top["saving_ns"].get<double>() > 0) {
    EXPECT_NE(html.find("~" + npu::format_ms(top["saving_ns"].get<double>()) + "/step"), std::string::npos);
  }
  EXPECT_NE(html.find("table class=\"sortable"), std::string::npos);
  EXPECT_NE(html.find("@media print"), std::string::npos);
  EXPECT_NE(html.find("MatMulV3"), std::string::npos);
  EXPECT_NE(html.find("TASK_QUEUE_ENABLE"), std::string::npos);
}

TEST(HtmlReport, EmbedsTheReportDocument) {
  const json& r = sample_report();
  std::string html = npu::render_html(r);
  std::string data = embedded_json(html);
  ASSERT_FALSE(data.empty());
  EXPECT_EQ(json::parse(data), r);
  // The page's scripts read it from one parse (format.js: npuReport), not one each.
  EXPECT_EQ(count(html, "getElementById('report-data')"), 1u);
  EXPECT_EQ(count(html, "var npuReport = "), 1u);
  EXPECT_EQ(count(html, "var report = npuReport"), 3u);  // report.js, timeline.js, modules.js
}

// A long capture: the page samples its per-step arrays evenly (first and last kept) and says so;
// every other part of the report is embedded unchanged.
TEST(HtmlReport, LongCaptureShowsAnEvenlySpacedSampleOfSteps) {
  json r = sample_report();
  json one = r["facts"]["steps"][0];
  json steps = json::array();
  for (int i = 0; i < 5001; ++i) {
    one["id"] = i;
    steps.push_back(one);
  }
  r["facts"]["steps"] = steps;
  std::string html = npu::render_html(r);
  json page = json::parse(embedded_json(html));
  const json& shown = page["facts"]["steps"];
  ASSERT_EQ(shown.size(), 2000u);
  EXPECT_EQ(shown.front()["id"], 0);
  EXPECT_EQ(shown.back()["id"], 5000);
  EXPECT_EQ(shown[1]["id"], 2);  // 1 * 5000 / 1999, rounded down
  EXPECT_EQ(page["html_steps_sampled"]["steps_total"], 5001);
  EXPECT_NE(html.find("2000 of 5001 steps shown"), std::string::npos);
  EXPECT_EQ(page["findings"], r["findings"]);
  EXPECT_EQ(page["facts"]["overall"], r["facts"]["overall"]);
  // A short run is embedded as it is.
  EXPECT_EQ(json::parse(embedded_json(npu::render_html(sample_report()))), sample_report());
}

TEST(HtmlReport, SelfContainedNoNetwork) {
  std::string html = npu::render_html(sample_report());
  // Chart.js is inlined (Debian's libjs-chart.js at build time), never fetched.
  EXPECT_NE(html.find("Chart.js v"), std::string::npos) << "built without libjs-chart.js?";
  std::regex external(R"re((src|href|action|poster|data)\s*=\s*["']?\s*(https?:|//|ftp:))re", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, external));
  std::regex css_fetch(R"re((@import|url\(\s*["']?(https?:|//)))re", std::regex::icase);
  EXPECT_FALSE(std::regex_search(html, css_fetch));
  EXPECT_EQ(html.find("<link"), std::string::npos);
  EXPECT_EQ(html.find("<script src"), std::string::npos);
  EXPECT_EQ(html.find("<iframe"), std::string::npos);
  EXPECT_NE(html.find("Content-Security-Policy"), std::string::npos);
  // Every template placeholder was filled.
  for (const char* p : {"{{title}}", "{{css}}", "{{body}}", "{{report_json}}", "{{chartjs}}", "{{app_js}}"})
    EXPECT_EQ(html.find(p), std::string::npos) << p;
}

TEST(HtmlReport, EscapesHostileText) {
  json r = hostile_report();
  std::string html = npu::render_html(r);
  EXPECT_TRUE(valid_utf8(html));
  // Three <script> elements of our own: the data, Chart.js and the page script.
  EXPECT_EQ(count(html, "<script"), 3u);
  EXPECT_EQ(count(html, "</script"), 3u);
  EXPECT_EQ(html.find("<!--"), std::string::npos);
  EXPECT_EQ(html.find("<img"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_EQ(html.find("<i>"), std::string::npos);
  EXPECT_EQ(html.find("onmouseover=\""), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(3)&lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find("&lt;img src=x onerror=alert(2)&gt;"), std::string::npos);
  EXPECT_NE(html.find("&amp;amp; stays literal"), std::string::npos);
  EXPECT_NE(html.find("rm -rf &quot;$HOME&quot;"), std::string::npos);
  EXPECT_NE(html.find("a\xEF\xBF\xBD\xEF\xBF\xBD"
                      "b"),
            std::string::npos);  // invalid UTF-8 replaced
  // CSS classes from document text are reduced to [a-z0-9-].
  EXPECT_NE(html.find("sev-highscript"), std::string::npos);
  // The embedded JSON reads back as the document (invalid UTF-8 replaced).
  std::string data = embedded_json(html);
  ASSERT_FALSE(data.empty());
  json back = json::parse(data);
  EXPECT_EQ(back["findings"][0]["title"], r["findings"][0]["title"]);
  EXPECT_EQ(back["findings"][0]["observed"], r["findings"][0]["observed"]);
  EXPECT_EQ(back["facts"]["operators"]["by_name"][0]["name"], r["facts"]["operators"]["by_name"][0]["name"]);
  EXPECT_EQ(data.find('<'), std::string::npos);
  EXPECT_EQ(count(html, "<details class=\"finding"), 1u);
  // The failed rule and the unavailable fact are listed with their reasons.
  EXPECT_NE(html.find("not available: no arrows &amp; &lt;/script&gt;"), std::string::npos);
  EXPECT_NE(html.find(">failed</span>"), std::string::npos);
}

TEST(HtmlReport, AbsentSectionsSayWhy) {
  json r = {{"schema", "npu-advisor.report"},
            {"input", {{"description", "empty"}}},
            {"unavailable", json::array({{{"fact", "steps"}, {"why", "no device tasks here"}},
                                         {{"fact", "operators"}, {"why", "no kernels here"}}})}};
  std::string html;
  ASSERT_NO_THROW(html = npu::render_html(r));
  EXPECT_NE(html.find("not available: no device tasks here"), std::string::npos);
  EXPECT_NE(html.find("not available: no kernels here"), std::string::npos);
  EXPECT_NE(html.find("not available: no host-to-device launch facts"), std::string::npos);
  EXPECT_EQ(count(html, "<canvas "), 0u);
  EXPECT_EQ(count(html, "<details class=\"finding"), 0u);
  // Wrong types where numbers are expected do not throw either.
  json odd = sample_report();
  odd["facts"]["overall"]["free_ratio"] = "high";
  odd["facts"]["steps"][0]["computing_ns"] = nullptr;
  odd["facts"]["dispatch"]["steps"] = "none";
  odd["findings"][0]["evidence"] = json::array({42, json::array({1, 2})});
  odd["findings"][0]["commands"] = json::array({1, "ok"});
  ASSERT_NO_THROW(html = npu::render_html(odd));
  EXPECT_EQ(count(html, "<details class=\"finding"), odd["findings"].size());
  ASSERT_NO_THROW(npu::render_html(json::object()));
  ASSERT_NO_THROW(npu::render_html(json::array()));
}

TEST(HtmlReport, CliWritesHtmlByExtensionAndFormat) {
  npu::test::TempDir dir;
  std::string bin = NPU_ADVISOR_BIN;
  std::string out = (dir.path() / "report.html").string();
  std::string cmd = bin + " analyze '" + npu::test::sample_run() + "' -q -o '" + out + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::string html = read_file(out);
  EXPECT_EQ(html.rfind("<!DOCTYPE html>", 0), 0u);
  EXPECT_EQ(count(html, "<details class=\"finding"), sample_report()["findings"].size());

  std::string out2 = (dir.path() / "stdout.html").string();
  cmd = bin + " analyze '" + npu::test::sample_run() + "' --format html > '" + out2 + "'";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  EXPECT_EQ(read_file(out2).rfind("<!DOCTYPE html>", 0), 0u);
}

TEST(HtmlReport, ClusterInputRendersTheClusterSection) {
  std::string cluster = npu::test::realdata_dir() + "/ascend_torch_npu/msinsight_2rank";
  if (!std::filesystem::is_directory(cluster)) GTEST_SKIP() << cluster << " not present";
  npu::test::TempDir dir;
  std::string out = (dir.path() / "c.html").string();
  std::string cmd = std::string(NPU_ADVISOR_BIN) + " analyze '" + cluster + "' -q -o '" + out + "' 2>/dev/null";
  EXPECT_EQ(std::system(cmd.c_str()), 0);
  std::string html = read_file(out);
  ASSERT_FALSE(html.empty());
  EXPECT_NE(html.find("<section id=\"cluster\""), std::string::npos);
  EXPECT_NE(html.find("<table class=\"heatmap\" data-metric=\"computing_ns\">"), std::string::npos);
  // The rank x step heat map: rank 0's computing in step 2 (75.175 ms, step_trace_time.csv).
  EXPECT_NE(html.find(">75.175</td>"), std::string::npos);
  EXPECT_NE(html.find("Communication groups"), std::string::npos);
  EXPECT_NE(html.find("Bandwidth per transport"), std::string::npos);
  EXPECT_EQ(html.find("Top operators"), std::string::npos);  // single-rank sections are not drawn
  EXPECT_FALSE(embedded_json(html).empty());
}

TEST(HtmlReport, MarkdownStillRenders) {
  std::string md;
  ASSERT_NO_THROW(md = npu::render_markdown(sample_report()));
  EXPECT_NE(md.find("# npu-advisor report"), std::string::npos);
  EXPECT_NE(md.find("## Findings (" + std::to_string(sample_report()["findings"].size()) + ")"), std::string::npos);
  EXPECT_NE(md.find("| step | computing (ms)"), std::string::npos);
}

// The reports show what the rules decided (verdicts.dispatch.step_class): one --set of the
// verdict's parameter moves the HTML badge and step table, the terminal line and the rules
// together. The sample: the run is mixed (26% vertical, 22% host-caused idle), step 3 host-bound
// (100% vertical, 55% idle), the others device-bound.
TEST(HtmlReport, VerdictParameterMovesTheBadgeAndTheRules) {
  npu::test::TempDir dir;
  const std::string bin = NPU_ADVISOR_BIN;
  auto run = [&](const std::string& args, const std::string& name) {
    std::string out = (dir.path() / name).string();
    std::string cmd = bin + " analyze '" + npu::test::sample_run() + "' -q " + args + " > '" + out + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return read_file(out);
  };
  std::string html = run("--format html", "default.html");
  EXPECT_NE(html.find("<span class=\"badge cls-mixed\">mixed</span>"), std::string::npos);
  std::string moved = run("--format html --set dispatch.step_class.host_bound_vertical_share=0.25", "moved.html");
  EXPECT_NE(moved.find("<span class=\"badge cls-host-bound\">host-bound</span>"), std::string::npos);
  EXPECT_EQ(moved.find("<span class=\"badge cls-mixed\">mixed</span>"), std::string::npos);
  EXPECT_NE(run("--format text --set dispatch.step_class.host_bound_vertical_share=0.25", "moved.txt")
                .find("Dispatch: host-bound (26% of launches"),
            std::string::npos);

  // Asking for 60% host-caused idle: step 3 is mixed, so the host-bound rule has nothing left, in
  // the same report that shows step 3 as mixed.
  json def = json::parse(run("--format json", "default.json"));
  json r = json::parse(run("--format json --set dispatch.step_class.host_bound_free_ratio=0.6", "moved.json"));
  const json& steps = r["verdicts"]["dispatch"]["step_class"]["steps"];
  ASSERT_EQ(steps.size(), 5u);
  EXPECT_EQ(def["verdicts"]["dispatch"]["step_class"]["steps"][2]["class"], "host-bound");
  EXPECT_EQ(steps[2]["class"], "mixed");
  auto fired = [](const json& report, const std::string& rule) {
    for (const auto& f : report["findings"])
      if (f["rule"] == rule) return true;
    return false;
  };
  EXPECT_TRUE(fired(def, "dispatch.host_bound"));
  EXPECT_FALSE(fired(r, "dispatch.host_bound"));

  // A value the declaration refuses ends the command with one line naming the verdict and the parameter.
  std::string err = (dir.path() / "err.txt").string();
  std::string cmd = bin + " analyze '" + npu::test::sample_run() +
                    "' -q --set dispatch.step_class.host_bound_free_ratio=2 > /dev/null 2> '" + err + "'";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  EXPECT_EQ(read_file(err),
            "error: --set dispatch.step_class.host_bound_free_ratio: dispatch.step_class's parameter "
            "host_bound_free_ratio must be between 0 and 1, not 2\n");
}

// The vertical lag has one home, the verdict parameter dispatch.step_class.vertical_lag_ns: one
// --set moves the dispatch facts, the verdict, the timeline's colouring and the rules' text
// together. The sample's 290 HostToDevice flows (task start - launch, from trace_view.json): 75
// within 50 us, 121 within 1 ms; at 1 ms steps 1, 2, 4 and 5 turn from device-bound to mixed.
TEST(HtmlReport, VerticalLagParameterMovesTheFactsTheVerdictTheTimelineAndTheRules) {
  npu::test::TempDir dir;
  auto run = [&](const std::string& args, const std::string& name) {
    std::string out = (dir.path() / name).string();
    std::string cmd = std::string(NPU_ADVISOR_BIN) + " analyze '" + npu::test::sample_run() + "' -q " + args + " > '" + out + "'";
    EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
    return read_file(out);
  };
  const std::string set = "--set dispatch.step_class.vertical_lag_ns=1000000";
  json def = json::parse(run("--format json", "default.json"));
  json moved = json::parse(run("--format json " + set, "moved.json"));
  // The facts measured with it.
  EXPECT_EQ(def["facts"]["dispatch"]["thresholds"]["vertical_lag_ns"], 50000);
  EXPECT_EQ(moved["facts"]["dispatch"]["thresholds"]["vertical_lag_ns"], 1000000);
  EXPECT_DOUBLE_EQ(def["facts"]["dispatch"]["overall"]["vertical_share"].get<double>(), 75.0 / 290);
  EXPECT_DOUBLE_EQ(moved["facts"]["dispatch"]["overall"]["vertical_share"].get<double>(), 121.0 / 290);
  // The verdict judged by it and says it.
  const json& vd = def["verdicts"]["dispatch"]["step_class"];
  const json& vm = moved["verdicts"]["dispatch"]["step_class"];
  EXPECT_NE(vd["overall"]["why"].get<std::string>().find("26% of launches started within 50.0 us"), std::string::npos);
  EXPECT_NE(vm["overall"]["why"].get<std::string>().find("42% of launches started within 1000.0 us"), std::string::npos);
  for (size_t i : {0u, 1u, 3u, 4u}) {
    EXPECT_EQ(vd["steps"][i]["class"], "device-bound");
    EXPECT_EQ(vm["steps"][i]["class"], "mixed");
  }
  // The timeline colours launch lines by it, in the JSON and in the page's embedded document.
  EXPECT_EQ(def["views"]["timeline"]["vertical_lag_ns"], 50000);
  EXPECT_EQ(moved["views"]["timeline"]["vertical_lag_ns"], 1000000);
  json page = json::parse(embedded_json(run("--format html " + set, "moved.html")));
  EXPECT_EQ(page["views"]["timeline"]["vertical_lag_ns"], 1000000);
  // The rules' text: the host-bound idle of the other steps (the baseline) counts gaps ended by
  // the launches that are vertical now.
  auto observed = [](const json& r, const std::string& rule) {
    for (const auto& f : r["findings"])
      if (f["rule"] == rule) return f["observed"].get<std::string>();
    return std::string();
  };
  EXPECT_NE(observed(def, "dispatch.host_bound").find("Other steps keep 0.210 ms of host-bound idle"),
            std::string::npos);
  EXPECT_NE(observed(moved, "dispatch.host_bound").find("Other steps keep 0.222 ms of host-bound idle"),
            std::string::npos);
  // A value the declaration refuses is one error line.
  std::string err = (dir.path() / "err.txt").string();
  std::string cmd = std::string(NPU_ADVISOR_BIN) + " analyze '" + npu::test::sample_run() +
                    "' -q --set dispatch.step_class.vertical_lag_ns=-5 > /dev/null 2> '" + err + "'";
  EXPECT_NE(std::system(cmd.c_str()), 0);
  EXPECT_EQ(read_file(err),
            "error: --set dispatch.step_class.vertical_lag_ns: dispatch.step_class's parameter vertical_lag_ns "
            "must be at least 0, not -5\n");
}
