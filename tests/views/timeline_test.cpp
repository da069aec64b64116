// The timeline view (views/timeline*.cpp, docs/views.md) on a hand-built trace with known
// answers, its bounds, its place beside the facts (never in them), its schema, and the HTML
// section around it (reports/html_timeline.cpp). The picture itself is checked in a real browser
// by tests/browser/.
#include <cstdio>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "facts/facts_schema.h"
#include "reports/report_document.h"
#include "test_support.h"
#include "views/views.h"

using nlohmann::json;

namespace {

constexpr npu::Ns us(double v) { return static_cast<npu::Ns>(v * 1000); }

// torch_npu-style events: Python pid 1, CANN pid 2, Ascend Hardware pid 3. Times in µs after 1 s.
struct Events {
  std::vector<std::string> ev;
  int flow = 0;
  static std::string t(double v) {
    char b[48];
    std::snprintf(b, sizeof b, "\"%.3f\"", 1'000'000 + v);
    return b;
  }
  void x(int pid, int tid, const std::string& name, double at, double dur, const std::string& extra = "") {
    char d[48];
    std::snprintf(d, sizeof d, "%.3f", dur);
    ev.push_back("{\"ph\":\"X\",\"name\":\"" + name + "\",\"pid\":" + std::to_string(pid) + ",\"tid\":" +
                 std::to_string(tid) + ",\"ts\":" + t(at) + ",\"dur\":" + d + ",\"cat\":\"cpu_op\"" + extra + "}");
  }
  // Node@launch on CANN thread 2 and a HostToDevice arrow from `launch` to a task at `start`.
  void launch(double launch, double start, double dur) {
    std::string id = std::to_string(++flow);
    x(2, 2, "Node@launch", launch - 1, 2);
    ev.push_back("{\"ph\":\"s\",\"name\":\"h2d\",\"cat\":\"HostToDevice\",\"id\":\"" + id +
                 "\",\"pid\":2,\"tid\":2,\"ts\":" + t(launch) + "}");
    x(3, 3, "kernel" + id, start, dur, ",\"args\":{\"Task Type\":\"AI_CORE\"}");
    ev.push_back("{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"h2d\",\"cat\":\"HostToDevice\",\"id\":\"" + id +
                 "\",\"pid\":3,\"tid\":3,\"ts\":" + t(start) + "}");
  }
  std::string json() const {
    std::string out = "[\n";
    for (const auto& e : ev) out += e + ",\n";
    return out + R"({"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"Python"}},
{"ph":"M","name":"process_name","pid":2,"tid":0,"args":{"name":"CANN"}},
{"ph":"M","name":"process_name","pid":3,"tid":0,"args":{"name":"Ascend Hardware"}},
{"ph":"M","name":"process_labels","pid":3,"tid":0,"args":{"labels":"NPU 0"}},
{"ph":"M","name":"thread_name","pid":3,"tid":3,"args":{"name":"Stream 3"}}
])";
  }
};

// Three steps (µs): 1 [0, 1000), 2 [1000, 3000) (the worst), 3 [3000, 3500).
// Step 2: a vertical launch (1101 -> 1103, lag 2 µs) and a late one (1501 -> 1700, lag 199 µs),
// a compile and a sync on the CANN threads, and 300 host ops of 0.5 µs, 1 µs apart. The drawn
// window is step 2 +- 1% = [980, 3020), 2040 µs; the aggregation width 2040/1500 µs = 1360 ns,
// so the host ops merge two by two (the next starts 1000 ns after, the one after 2000 ns).
// A Python frame spans everything: it is listed as enclosing, not drawn.
std::string three_step_trace() {
  Events e;
  e.x(1, 1, "<module>", -100, 4100);
  e.x(1, 1, "ProfilerStep#1", 0, 1000);
  e.x(1, 1, "ProfilerStep#2", 1000, 2000);
  e.x(1, 1, "ProfilerStep#3", 3000, 500);
  e.launch(1101, 1103, 100);
  e.launch(1501, 1700, 100);
  e.x(2, 2, "AscendCL@aclopCompileAndExecute", 1200, 250);
  e.x(2, 9, "AscendCL@aclrtSynchronizeStream", 2000, 30);
  for (int k = 0; k < 300; ++k) e.x(1, 1, "aten::tiny", 2100 + k, 0.5);
  return e.json();
}

// The view document of a run, as the pipeline computes it beside the facts.
json views_of(const npu::RunModel& m, npu::Facts* facts = nullptr) {
  npu::FactsWork work;
  npu::Facts f = npu::compute_facts(m, &work);
  json views = npu::compute_views(work, f.doc);
  if (facts) *facts = std::move(f);
  return views;
}

json timeline_of(const npu::RunModel& m) {
  json v = views_of(m);
  return v.contains("timeline") ? v["timeline"] : json();
}

const json* row_labelled(const json& step, const std::string& label) {
  for (const auto& r : step["rows"])
    if (r["label"] == label) return &r;
  return nullptr;
}

}  // namespace

TEST(Timeline, ThreeStepsKnownAnswers) {
  npu::RunModel m = npu::test::load_trace_text(three_step_trace());
  ASSERT_EQ(m.steps.size(), 3u);
  json tl = timeline_of(m);
  ASSERT_TRUE(tl.is_object());
  EXPECT_EQ(tl["flow_kind"], "HostToDevice");
  // Steps are ranked by the device step (docs/overlap.md): step 2's two tasks 1103-1203 and
  // 1700-1800 µs with the 497 µs gap between them = 697 µs; steps 1 and 3 launch nothing (0).
  EXPECT_EQ(tl["step_time"], "device_time_ns");
  ASSERT_EQ(tl["sources"].size(), 1u);
  EXPECT_EQ(tl["sources"][0]["offset"], "byte");

  // Worst 2 (697 µs); by time 2, 1, 3: median 1 (also first), fastest 3 (also last).
  ASSERT_EQ(tl["steps"].size(), 3u);
  EXPECT_EQ(tl["steps"][0]["id"], 2);
  EXPECT_EQ(tl["steps"][0]["chosen_as"], json({"worst"}));
  EXPECT_EQ(tl["steps"][1]["id"], 1);
  EXPECT_EQ(tl["steps"][1]["chosen_as"], json({"median", "first"}));
  EXPECT_EQ(tl["steps"][2]["id"], 3);
  EXPECT_EQ(tl["steps"][2]["chosen_as"], json({"fastest", "last"}));

  const json& s = tl["steps"][0];
  const npu::Ns base = 1'000'000'000;
  EXPECT_EQ(s["step_time_ns"], us(697));
  EXPECT_EQ(s["step_start_ns"], base + us(1000));
  EXPECT_EQ(s["start_ns"], base + us(980));
  EXPECT_EQ(s["step_t_ns"], us(20));
  EXPECT_EQ(s["step_end_t_ns"], us(2020));
  EXPECT_EQ(s["window_ns"], us(2040));
  EXPECT_EQ(s["aggregate_below_ns"], 1360);

  // Rows: the step thread, the two CANN threads, the stream.
  ASSERT_EQ(s["rows"].size(), 4u);
  EXPECT_EQ(s["rows"][0]["label"], "Python \xC2\xB7 tid 1 (step thread)");
  EXPECT_EQ(s["rows"][0]["kind"], "host");
  EXPECT_EQ(s["rows"][3]["label"], "Ascend Hardware \xC2\xB7 Stream 3");
  EXPECT_EQ(s["rows"][3]["kind"], "device");
  const json& py = s["rows"][0];
  ASSERT_EQ(py["enclosing"].size(), 1u);
  EXPECT_EQ(tl["names"][py["enclosing"][0].get<size_t>()], "<module>");
  // ProfilerStep#1 (ends at 1000, inside the margin), #2, #3 and the 300 host ops.
  EXPECT_EQ(py["slices"], 303);
  EXPECT_EQ(py["aggregated"], 300);
  EXPECT_EQ(py["depth"], 2);
  size_t aggregates = 0;
  for (const auto& it : py["items"]) {
    if (it.size() == 8) {
      ++aggregates;
      EXPECT_EQ(it[6], 2);        // count
      EXPECT_EQ(it[7], 1000);     // busy: 2 x 500 ns
      EXPECT_EQ(it[1], us(1.5));  // from the first start to the second end
      EXPECT_EQ(it[3], 1);        // depth: under ProfilerStep#2
    }
  }
  EXPECT_EQ(aggregates, 150u);
  const json* cann = row_labelled(s, "CANN \xC2\xB7 tid 2");
  ASSERT_NE(cann, nullptr);
  EXPECT_EQ((*cann)["slices"], 3);  // two Node@launch, the compile

  // Launch lines: CANN thread 2 (row 1) -> the stream (row 3), lags 2 and 199 µs.
  EXPECT_EQ(s["flows"]["total"], 2);
  EXPECT_EQ(s["flows"]["drawn"], 2);
  ASSERT_EQ(s["flows"]["items"].size(), 2u);
  const json& f0 = s["flows"]["items"][0];
  EXPECT_EQ(f0[0], 1);
  EXPECT_EQ(f0[1], us(1101 - 980));
  EXPECT_EQ(f0[2], 3);
  EXPECT_EQ(f0[3], us(1103 - 980));
  EXPECT_EQ(f0[4], us(2));
  EXPECT_EQ(f0[5], f0[7]);  // one trace file: the same source
  EXPECT_EQ(f0[9], 0);
  EXPECT_EQ(s["flows"]["items"][1][4], us(199));

  // Band: computing [1103, 1203), free [1203, 1700), computing [1700, 1800) (the device window).
  // The free gap by cause (the idle attribution): the compile [1200, 1450) covers [1203, 1450);
  // the rest [1450, 1700) ends with a late (199 µs) launch, so no cause explains it.
  ASSERT_EQ(s["band"].size(), 4u);
  EXPECT_EQ(s["band"][0], json({us(123), us(100), 0}));
  EXPECT_EQ(s["band"][1], json({us(223), us(247), 2, "compile"}));
  EXPECT_EQ(s["band"][2], json({us(470), us(250), 2, "unexplained"}));
  EXPECT_EQ(s["band"][3], json({us(720), us(100), 0}));

  // Marks: the compile, the sync (with evidence), the host-bound gap the dispatch facts found.
  EXPECT_EQ(s["marks"]["counts"]["compile"], 1);
  EXPECT_EQ(s["marks"]["counts"]["sync"], 1);
  bool compile = false;
  for (const auto& mk : s["marks"]["items"])
    if (mk["kind"] == "compile") {
      compile = true;
      EXPECT_EQ(mk["t_ns"], us(1200 - 980));
      EXPECT_EQ(mk["dur_ns"], us(250));
      EXPECT_EQ(mk["row"], 1);
      EXPECT_TRUE(mk["evidence"].contains("byte"));
    }
  EXPECT_TRUE(compile);
}

TEST(Timeline, LinesAreSampledBeyondTheLimit) {
  Events e;
  e.x(1, 1, "ProfilerStep#1", 0, 40000);
  for (int k = 0; k < 3000; ++k) e.launch(10 + 10 * k, 12 + 10 * k, 5);
  npu::RunModel m = npu::test::load_trace_text(e.json());
  json tl = timeline_of(m);
  ASSERT_EQ(tl["steps"].size(), 1u);
  const json& f = tl["steps"][0]["flows"];
  EXPECT_EQ(f["total"], 3000);
  EXPECT_EQ(f["drawn"], tl["limits"]["max_flows"]);
  EXPECT_EQ(f["items"].size(), tl["limits"]["max_flows"].get<size_t>());
  // Evenly sampled: the first and the last launch are kept.
  EXPECT_EQ(f["items"][0][1].get<npu::Ns>() + tl["steps"][0]["start_ns"].get<npu::Ns>(), 1'000'000'000 + us(10));
  EXPECT_EQ(f["items"].back()[1].get<npu::Ns>() + tl["steps"][0]["start_ns"].get<npu::Ns>(),
            1'000'000'000 + us(10 + 10 * 2999));
  // The stream's 3000 tasks (5 µs, 10 µs apart; aggregation width 40800/1500 µs = 27.2 µs)
  // become runs of three.
  const json& dev = tl["steps"][0]["rows"].back();
  EXPECT_EQ(dev["kind"], "device");
  EXPECT_EQ(dev["slices"], 3000);
  EXPECT_EQ(dev["items"].size(), 1000u);
}

// Without a step window the view says why in its own `unavailable`, which the report joins to the
// facts' (after them, where the facts used to list it); the facts say nothing of a timeline.
TEST(Timeline, NoStepWindowIsUnavailable) {
  npu::RunModel m = npu::test::load_trace_text("[]");
  npu::Facts f;
  json views = views_of(m, &f);
  EXPECT_FALSE(views.contains("timeline"));
  ASSERT_EQ(views["unavailable"].size(), 1u);
  EXPECT_EQ(views["unavailable"][0]["fact"], "timeline");
  EXPECT_EQ(views["unavailable"][0]["why"], "no step window to draw: no steps facts and no dispatch steps");
  for (const auto& u : f.doc["unavailable"]) EXPECT_NE(u["fact"], "timeline");
  const size_t from_facts = f.doc["unavailable"].size();
  json report = npu::build_report(json::object(), f, {}, views);
  ASSERT_EQ(report["unavailable"].size(), from_facts + 1);
  EXPECT_EQ(report["unavailable"].back(), views["unavailable"][0]);
  EXPECT_EQ(report["views"], views);
}

// The timeline is drawing data: the facts (what rules and `npu-advisor facts` read) never hold it,
// the report carries it under views.timeline, and a report built without views has none.
TEST(Timeline, LivesBesideTheFactsNotInThem) {
  npu::RunModel m = npu::test::load_trace_text(three_step_trace());
  EXPECT_FALSE(npu::compute_facts(m).has("timeline"));
  npu::Facts f;
  json views = views_of(m, &f);
  EXPECT_FALSE(f.has("timeline"));
  ASSERT_TRUE(views["timeline"].is_object());
  EXPECT_EQ(views["unavailable"], json::array());
  json report = npu::build_report(json::object(), f, {}, views);
  EXPECT_EQ(report["views"]["timeline"], views["timeline"]);
  EXPECT_FALSE(report["facts"].contains("timeline"));
  EXPECT_FALSE(npu::build_report(json::object(), f, {}).contains("views"));
}

// Every key the view writes is in views/schema/timeline.json (with its type), and every key the
// schema requires is written: the view keeps a key-level contract as the facts do.
TEST(Timeline, ViewMatchesItsSchema) {
  std::ifstream in(npu::test::source_dir() + "/views/schema/timeline.json");
  std::stringstream text;
  text << in.rdbuf();
  // The shared types (evidence_ref, ...) are the facts schema's (facts/schema/document.json).
  std::ifstream doc_types(npu::test::source_dir() + "/facts/schema/document.json");
  std::stringstream types;
  types << doc_types.rdbuf();
  json shared = json::parse(types.str());
  shared["keys"] = json::array();
  const npu::FactsSchema schema = npu::FactsSchema::from_sections({shared, json::parse(text.str())});
  npu::RunModel m = npu::test::load_trace_text(three_step_trace());
  const json tl = {{"timeline", timeline_of(m)}};
  ASSERT_TRUE(tl["timeline"].is_object());
  for (const auto& p : npu::validate_facts(tl, schema, true)) ADD_FAILURE() << p;
  // Each key is named, inside `backticks`, in the page that documents the view (as the facts
  // schema test checks docs/facts*.md).
  std::ifstream doc_in(npu::test::source_dir() + "/docs/views.md");
  std::stringstream doc;
  doc << doc_in.rdbuf();
  for (const auto& k : schema.keys()) {
    std::string key = k.path;
    while (key.ends_with("[]")) key.resize(key.size() - 2);
    key = key.substr(key.rfind('.') == std::string::npos ? 0 : key.rfind('.') + 1);
    EXPECT_TRUE(std::regex_search(doc.str(), std::regex("`[^`]*\\b" + key + "\\b[^`]*`")))
        << k.path << " is not named in docs/views.md";
  }
}

TEST(Timeline, HtmlSectionSaysWhatIsEmbeddedAndWritesNoInputText) {
  npu::RunModel m = npu::test::load_trace_text(three_step_trace());
  npu::Facts f;
  json views = views_of(m, &f);
  json report = {
      {"schema", "npu-advisor.report"}, {"input", {{"description", "t"}}}, {"facts", f.doc}, {"views", views}};
  std::string html = npu::render_html(report);
  EXPECT_NE(html.find("<section id=\"timeline\" class=\"card tl-section\""), std::string::npos);
  EXPECT_NE(html.find("href=\"#timeline\""), std::string::npos);
  EXPECT_NE(html.find("Embedded: step 2 (worst, 0.697 ms); step 1 (median, first, 0.000 ms); step 3 (fastest, last, "
                      "0.000 ms)"),
            std::string::npos);
  EXPECT_NE(html.find("<option value=\"2\">step 3 (fastest, last)</option>"), std::string::npos);
  EXPECT_EQ(html.find("{{timeline_js}}"), std::string::npos);
  EXPECT_EQ(html.find("{{timeline_css}}"), std::string::npos);
  EXPECT_NE(html.find("data-timeline=\"views\""), std::string::npos);
  for (const char* script : {"{{timeline_look_js}}", "{{timeline_draw_js}}", "{{timeline_cards_js}}"})
    EXPECT_EQ(html.find(script), std::string::npos) << script;
  EXPECT_NE(html.find("var npuTimelineDraw = "), std::string::npos);
  // A hand-edited report cannot put markup into the section: unknown reasons are dropped,
  // names only travel in the embedded JSON.
  report["views"]["timeline"]["steps"][0]["chosen_as"] = json({"<img src=x onerror=alert(1)>", "worst"});
  report["views"]["timeline"]["steps"][0]["id"] = "<b>";
  html = npu::render_html(report);
  EXPECT_EQ(html.find("<img src=x"), std::string::npos);
  EXPECT_EQ(html.find("<b>"), std::string::npos);
  EXPECT_NE(html.find("whole run (worst"), std::string::npos);
  // No timeline view: no section, no link.
  report["views"].erase("timeline");
  html = npu::render_html(report);
  EXPECT_EQ(html.find("<section id=\"timeline\" class=\"card tl-section\""), std::string::npos);
  EXPECT_EQ(html.find("href=\"#timeline\""), std::string::npos);
}

// Facts whose steps are device-side (overall.host_step_time present, host_dur_ns null, a
// device_window beside the host span) rank by device time and draw the device window too.
TEST(Timeline, DeviceSideStepsRankByDeviceTimeAndDrawTheirDeviceWindow) {
  npu::RunModel m = npu::test::load_trace_text(three_step_trace());
  npu::DiagnosticContext ctx(m);
  npu::Facts f = npu::compute_facts(m);
  const npu::Ns base = 1'000'000'000;
  f.doc["overall"]["host_step_time"] = {{"median_ns", us(1000)}};
  const npu::Ns device_time[3] = {us(100), us(50), us(900)};
  for (size_t i = 0; i < 3; ++i) {
    f.doc["steps"][i]["host_dur_ns"] = nullptr;
    f.doc["steps"][i]["device_time_ns"] = device_time[i];
  }
  f.doc["steps"][2]["device_window"] = {{"start_ns", base + us(3000)}, {"end_ns", base + us(3600)}};
  std::string why;
  const json tl = npu::timeline_view(ctx, f.doc, nullptr, why);
  ASSERT_TRUE(tl.is_object()) << why;
  EXPECT_EQ(tl["step_time"], "device_time_ns");
  ASSERT_FALSE(tl["steps"].empty());
  EXPECT_EQ(tl["steps"][0]["id"], 3);
  EXPECT_EQ(tl["steps"][0]["chosen_as"], json({"worst", "last"}));
  EXPECT_EQ(tl["steps"][0]["step_time_ns"], us(900));
  EXPECT_EQ(tl["steps"][0]["step_start_ns"], base + us(3000));
  EXPECT_EQ(tl["steps"][0]["step_end_ns"], base + us(3600));  // the device window, past the host span
}
