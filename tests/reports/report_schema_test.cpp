// The JSON report validates against docs/report.schema.json (JSON Schema draft 2020-12), on the
// sample and on real data. Validation uses Debian's python3-jsonschema (installed by
// scripts/install-deps.sh); the tests skip when it is not installed.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "test_support.h"

namespace {

using nlohmann::json;

const char* kValidator = R"py(
import json, sys
import jsonschema
schema = json.load(open(sys.argv[1]))
doc = json.load(open(sys.argv[2]))
cls = jsonschema.validators.validator_for(schema)
cls.check_schema(schema)
errors = sorted(cls(schema).iter_errors(doc), key=lambda e: list(e.path))
for e in errors[:20]:
    print("  /" + "/".join(str(p) for p in e.path) + ": " + e.message[:300])
sys.exit(1 if errors else 0)
)py";

std::string schema_path() { return npu::test::source_dir() + "/docs/report.schema.json"; }

// A python3 that has jsonschema: Debian's first (a pyenv/venv python3 on PATH may lack it).
std::string python_with_jsonschema() {
  for (const char* py : {"/usr/bin/python3", "python3"}) {
    std::string cmd = std::string(py) + " -c 'import jsonschema' >/dev/null 2>&1";
    if (std::system(cmd.c_str()) == 0) return py;
  }
  return "";
}

// Validates `doc`; returns the validator's output, empty when valid.
std::string validate(const std::string& python, const json& doc, bool* valid) {
  npu::test::TempDir dir;
  std::string script = dir.write("validate.py", kValidator);
  std::string file = dir.write("report.json", doc.dump(1));
  std::string log = (dir.path() / "log.txt").string();
  std::string cmd = python + " '" + script + "' '" + schema_path() + "' '" + file + "' > '" + log + "' 2>&1";
  *valid = std::system(cmd.c_str()) == 0;
  std::ifstream f(log);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

json analyze_json(const std::string& path) {
  npu::test::TempDir dir;
  std::string out = (dir.path() / "r.json").string();
  std::string cmd = std::string(NPU_ADVISOR_BIN) + " analyze '" + path + "' -q --format json -o '" + out + "'";
  EXPECT_EQ(std::system(cmd.c_str()), 0) << cmd;
  std::ifstream f(out);
  return json::parse(f);
}

class ReportSchema : public ::testing::Test {
 protected:
  void SetUp() override {
    python_ = python_with_jsonschema();
    if (python_.empty()) GTEST_SKIP() << "python3-jsonschema is not installed (scripts/install-deps.sh installs it)";
  }
  void expect_valid(const json& doc, const std::string& what) {
    bool valid = false;
    std::string out = validate(python_, doc, &valid);
    EXPECT_TRUE(valid) << what << " does not match docs/report.schema.json:\n" << out;
  }
  std::string python_;
};

}  // namespace

TEST(ReportSchemaFile, IsDraft202012) {
  std::ifstream f(schema_path());
  ASSERT_TRUE(f) << schema_path();
  json s = json::parse(f);
  EXPECT_EQ(s["$schema"], "https://json-schema.org/draft/2020-12/schema");
  for (const char* key : {"schema", "schema_version", "input", "summary", "facts", "findings", "rules", "unavailable"})
    EXPECT_NE(std::find(s["required"].begin(), s["required"].end(), key), s["required"].end()) << key;
}

TEST_F(ReportSchema, SampleValidates) { expect_valid(analyze_json(npu::test::sample_run()), "the sample's report"); }

TEST_F(ReportSchema, RealTimelineAdviceValidates) {
  std::string run = npu::test::realdata_dir() + "/ascend_torch_npu/mstt_timeline_advice";
  if (!std::filesystem::is_directory(run)) GTEST_SKIP() << run << " not present";
  expect_valid(analyze_json(run), "mstt_timeline_advice's report");
}

TEST_F(ReportSchema, RealComputeAdviceValidates) {
  std::string run = npu::test::realdata_dir() + "/ascend_torch_npu/mstt_compute_advice";
  if (!std::filesystem::is_directory(run)) GTEST_SKIP() << run << " not present";
  expect_valid(analyze_json(run), "mstt_compute_advice's report");
}

// The validator must be able to say no.
TEST_F(ReportSchema, RejectsBrokenDocuments) {
  json good = analyze_json(npu::test::sample_run());
  auto expect_invalid = [&](json doc, const std::string& what) {
    bool valid = true;
    validate(python_, doc, &valid);
    EXPECT_FALSE(valid) << what;
  };
  json d = good;
  d.erase("findings");
  expect_invalid(d, "no findings array");
  d = good;
  d["findings"][0]["saving_ns"] = -5;
  expect_invalid(d, "negative saving");
  d = good;
  d["findings"][0]["confidence"] = 1.5;
  expect_invalid(d, "confidence above 1");
  d = good;
  d["rules"][0]["status"] = "maybe";
  expect_invalid(d, "unknown rule status");
  d = good;
  d["rules"][0]["status"] = "skipped";
  d["rules"][0]["reason"] = "";
  expect_invalid(d, "skipped without a reason");
  d = good;
  d["facts"]["steps"][0]["computing_ns"] = 1.5;
  expect_invalid(d, "fractional ns");
  d = good;
  d["facts"]["overall"].erase("step_time");
  expect_invalid(d, "overall without step_time");
  d = good;
  d["summary"]["steps"][0]["dur_ns"] = 7289.064;
  expect_invalid(d, "a host step in fractional units");
  d = good;
  d["summary"]["profiler_step_breakdown"][0].erase("step_ns");
  d["summary"]["profiler_step_breakdown"][0]["step_us"] = 7290.851;
  expect_invalid(d, "a profiler breakdown row in µs (schema version 1)");
  d = good;
  d["schema_version"] = 1;
  expect_invalid(d, "schema version 1");
}

// Durations are integer ns everywhere in the document, run summary included (schema_version 2):
// no key names another unit. Rates (`launches_per_ms`, `slope_ns_per_ms`) are not durations.
TEST(ReportDocument, DurationsAreNanosecondsEverywhere) {
  json r = analyze_json(npu::test::sample_run());
  EXPECT_EQ(r["schema_version"], 2);
  EXPECT_EQ(r["summary"]["schema_version"], 2);
  ASSERT_FALSE(r["summary"]["steps"].empty());
  ASSERT_FALSE(r["summary"]["profiler_step_breakdown"].empty());
  EXPECT_TRUE(r["summary"]["steps"][0]["dur_ns"].is_number_integer());
  EXPECT_TRUE(r["summary"]["profiler_step_breakdown"][0]["step_ns"].is_number_integer());
  auto ends_with = [](const std::string& s, const std::string& tail) {
    return s.size() >= tail.size() && s.compare(s.size() - tail.size(), tail.size(), tail) == 0;
  };
  std::vector<std::string> other_units;
  std::function<void(const json&, const std::string&)> walk = [&](const json& j, const std::string& path) {
    if (j.is_object()) {
      for (const auto& [k, v] : j.items()) {
        bool rate = k.find("_per_") != std::string::npos;
        if (!rate && (ends_with(k, "_us") || ends_with(k, "_ms") || ends_with(k, "_s")))
          other_units.push_back(path + "/" + k);
        walk(v, path + "/" + k);
      }
    } else if (j.is_array()) {
      for (size_t i = 0; i < j.size(); ++i) walk(j[i], path + "/" + std::to_string(i));
    }
  };
  walk(r, "");
  EXPECT_TRUE(other_units.empty()) << other_units.size() << " keys in another unit, the first " << other_units.front();
}

// Cluster reports: the cluster section and the per-rank communication records have their own schema.
TEST_F(ReportSchema, ClusterReportsValidate) {
  for (const char* rel : {"msinsight_2rank", "msinsight_cluster_8rank", "mstt_cluster_4rank"}) {
    std::string run = npu::test::realdata_dir() + "/ascend_torch_npu/" + rel;
    if (!std::filesystem::is_directory(run)) GTEST_SKIP() << run << " not present";
    json r = analyze_json(run);
    ASSERT_TRUE(r["facts"].contains("cluster")) << rel;
    expect_valid(r, std::string(rel) + "'s cluster report");
  }
  json good = analyze_json(npu::test::realdata_dir() + "/ascend_torch_npu/msinsight_2rank");
  auto expect_invalid = [&](json doc, const std::string& what) {
    bool valid = true;
    validate(python_, doc, &valid);
    EXPECT_FALSE(valid) << what;
  };
  json d = good;
  d["facts"]["cluster"]["rank_steps"][0]["free_ns"] = 0.5;
  expect_invalid(d, "fractional ns in a rank x step row");
  d = good;
  d["facts"]["cluster"]["communication"]["groups"][0]["wait_ratio"] = 2;
  expect_invalid(d, "wait ratio above 1");
  d = good;
  d["facts"]["cluster"].erase("ranks");
  expect_invalid(d, "cluster without ranks");
}

// The module view (facts.modules, trimmed by the report): real runs with a tree, without one
// (graph replays only) and without module ranges validate; a tree past the report's bound does not.
TEST_F(ReportSchema, ModuleViewsValidate) {
  json sync;
  for (const char* rel :
       {"kineto_h200/sync", "kineto_h200/compiled", "ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt"}) {
    std::string run = npu::test::real(rel);
    if (!std::filesystem::exists(run)) GTEST_SKIP() << run << " not present";
    json r = analyze_json(run);
    ASSERT_TRUE(r["facts"].contains("modules")) << rel;
    expect_valid(r, std::string(rel) + "'s report");
    if (sync.is_null()) sync = std::move(r);
  }
  auto expect_invalid = [&](json doc, const std::string& what) {
    bool valid = true;
    validate(python_, doc, &valid);
    EXPECT_FALSE(valid) << what;
  };
  json d = sync;
  json& tree = d["facts"]["modules"]["tree"];
  ASSERT_FALSE(tree.empty());
  while (tree.size() <= 300) tree.push_back(tree[0]);
  expect_invalid(d, "a module tree of 301 nodes");
  d = sync;
  d["facts"]["modules"]["coverage"] = 1.5;
  expect_invalid(d, "coverage above 1");
  d = sync;
  d["facts"]["modules"]["tree"][0]["device_ns"] = 0.5;
  expect_invalid(d, "fractional ns in a module");
}
