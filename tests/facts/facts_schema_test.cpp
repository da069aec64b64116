// The facts schema (facts/schema/*.json): the validator, the version it carries, the docs that
// describe it, and the rules and fixtures checked against it.
#include "facts/facts_schema.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "facts/diagnostics/diagnostics.h"
#include "facts/facts.h"
#include "rules/rule_engine.h"
#include "rules/rule_fixtures.h"
#include "test_support.h"

namespace {

using json = nlohmann::json;
using npu::FactsSchema;
using npu::validate_facts;
namespace fs = std::filesystem;

std::string read_text(const std::string& path) {
  std::ifstream in(path);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

std::vector<json> schema_files() {
  std::vector<json> out;
  for (const auto& e : fs::directory_iterator(npu::test::source_dir() + "/facts/schema"))
    if (e.path().extension() == ".json") out.push_back(json::parse(read_text(e.path().string())));
  return out;
}

// A small schema for the validator's own behaviour.
FactsSchema tiny_schema() {
  return FactsSchema::from_sections({json::parse(R"({
    "section": "t", "schema_version": 3,
    "types": {"ref": [{"path": "", "type": "object"}, {"path": ".file", "type": "string"}]},
    "keys": [
      {"path": "a", "type": "object", "required": true},
      {"path": "a.n", "type": "integer", "required": true, "unit": "ns"},
      {"path": "a.r", "type": "number|null"},
      {"path": "a.list", "type": "array"},
      {"path": "a.list[]", "type": "ref"},
      {"path": "a.env", "type": "map"},
      {"path": "a.env.*", "type": "string"}
    ]})")});
}

TEST(FactsSchema, ValidatorNamesEachProblemByPath) {
  FactsSchema s = tiny_schema();
  EXPECT_EQ(s.version(), 3);
  json ok = json::parse(R"({"a": {"n": 5, "r": 0.5, "list": [{"file": "x"}], "env": {"ANY_NAME": "1"}}})");
  EXPECT_TRUE(validate_facts(ok, s, true).empty());
  json bad = json::parse(R"({"a": {"r": "high", "list": [{"file": "x"}, {"fiel": "y"}], "env": {"K": 1}}, "b": 1})");
  auto problems = validate_facts(bad, s, true);
  std::set<std::string> got(problems.begin(), problems.end());
  EXPECT_EQ(got, (std::set<std::string>{"a.r: expected number or null, got string",
                                        "a.list[1].fiel: unknown key (not in the facts schema)",
                                        "a.env.K: expected string, got integer",
                                        "b: unknown key (not in the facts schema)", "a.n: missing (required)"}));
  // Partial documents (rule fixtures) are checked for keys and types only.
  EXPECT_TRUE(validate_facts(json::parse(R"({"a": {"r": null}})"), s, false).empty());
  EXPECT_EQ(validate_facts(json::parse(R"({"a": {"n": 1.5}})"), s, false),
            std::vector<std::string>{"a.n: expected integer, got number"});
}

TEST(FactsSchema, RefusesAMalformedSchema) {
  auto load = [](const char* keys) {
    return FactsSchema::from_sections(
        {json::parse(std::string(R"({"section": "t", "schema_version": 1, "keys": )") + keys + "}")});
  };
  EXPECT_THROW(load(R"([{"path": "a", "type": "array"}])"), std::invalid_argument);      // no element entry
  EXPECT_THROW(load(R"([{"path": "a.b", "type": "integer"}])"), std::invalid_argument);  // no parent
  EXPECT_THROW(load(R"([{"path": "a", "type": "integr"}])"), std::invalid_argument);     // unknown type
  EXPECT_THROW(load(R"([{"path": "a", "type": "object"}, {"path": "a", "type": "object"}])"), std::invalid_argument);
}

// Version policy (docs/facts.md): the schema carries the schema_version it describes, which must
// be the one the diagnostics write. Renaming or removing a key means bumping both.
TEST(FactsSchema, CarriesTheEmittedSchemaVersion) {
  EXPECT_EQ(FactsSchema::builtin().version(), npu::kFactsSchemaVersion);
  for (const json& f : schema_files())
    EXPECT_EQ(f.value("schema_version", 0), npu::kFactsSchemaVersion) << f.value("section", "");
  size_t keys = 0;
  for (const json& f : schema_files()) keys += f["keys"].size();
  EXPECT_LE(keys, FactsSchema::builtin().keys().size());  // the embedded copy is these files
  EXPECT_GT(keys, 500u);
}

// ... and a key released under that version stays: facts/schema/released/vN.keys lists the key
// paths of version N, so a rename or a removal without a version bump fails here.
TEST(FactsSchema, ReleasedKeysStayUntilTheVersionIsBumped) {
  std::string file =
      npu::test::source_dir() + "/facts/schema/released/v" + std::to_string(npu::kFactsSchemaVersion) + ".keys";
  std::istringstream lines(read_text(file));
  size_t released = 0;
  for (std::string line; std::getline(lines, line);) {
    if (line.empty() || line[0] == '#') continue;
    ++released;
    EXPECT_NE(FactsSchema::builtin().find(line), nullptr)
        << line << " was released in schema_version " << npu::kFactsSchemaVersion
        << ": renaming or removing it bumps the version (docs/facts.md)";
  }
  EXPECT_GT(released, 500u) << file;
}

// An older facts file is read by leaving out what the newer schema no longer has: here a schema
// without the dispatch thresholds and one key of every steps[] element and of every map value;
// what is left validates against it, and nothing else moved.
TEST(FactsSchema, OlderVersionDropsOnlyTheKeysTheNewerOneLacks) {
  ASSERT_FALSE(npu::released_facts_keys(npu::kFactsSchemaVersion).empty());
  EXPECT_TRUE(npu::released_facts_keys(99).empty());
  auto gone = [](const std::string& p) {
    return p.rfind("dispatch.thresholds", 0) == 0 || p == "steps[].free_ratio" || p == "run.env.*";
  };
  std::vector<json> sections = schema_files();
  for (json& sec : sections) {
    json kept = json::array();
    for (const json& k : sec["keys"])
      if (!gone(k["path"])) kept.push_back(k);
    sec["keys"] = kept;
  }
  FactsSchema newer = FactsSchema::from_sections(sections);
  json doc = npu::test::analyze_json(npu::test::sample_run())["facts"];
  doc["run"]["env"] = {{"A", "1"}, {"B", "2"}};
  ASSERT_TRUE(doc["dispatch"].contains("thresholds"));
  const size_t steps = doc["steps"].size();
  json before = doc;
  size_t dropped = npu::drop_keys_unknown_since(doc, npu::kFactsSchemaVersion, newer);
  EXPECT_EQ(dropped, 1 + steps + 2);  // thresholds, each step's free_ratio, both env values
  EXPECT_FALSE(doc["dispatch"].contains("thresholds"));
  EXPECT_TRUE(doc["run"]["env"].empty());
  for (const json& st : doc["steps"]) EXPECT_FALSE(st.contains("free_ratio"));
  for (const auto& p : validate_facts(doc, newer, true)) ADD_FAILURE() << p;
  // the rest is untouched
  before["dispatch"].erase("thresholds");
  before["run"]["env"] = json::object();
  for (json& st : before["steps"]) st.erase("free_ratio");
  EXPECT_EQ(doc, before);
  // and against the schema it was written with, nothing goes
  json same = before;
  EXPECT_EQ(npu::drop_keys_unknown_since(same, npu::kFactsSchemaVersion, FactsSchema::builtin()), 0u);
}

// Version 2 (docs/facts.md, Versions): a version-1 facts file still reads, without what version 2
// no longer has (the timeline, the dispatch verdict, the checks' cut-offs), and the run's
// warnings say how many values were left out.
TEST(FactsSchema, VersionOneFileReadsAsVersionTwo) {
  ASSERT_EQ(npu::kFactsSchemaVersion, 2);
  json doc = npu::test::analyze_json(npu::test::sample_run())["facts"];
  json v2 = doc;
  doc["schema_version"] = 1;
  doc["timeline"] = {{"names", json::array()}, {"steps", json::array()}};
  doc["dispatch"]["overall"]["classification"] = "host-bound";
  doc["dispatch"]["overall"]["steps_by_class"] = {{"host-bound", 1}, {"mixed", 0}};
  doc["dispatch"]["thresholds"]["host_bound_free_ratio"] = 0.1;
  npu::Facts f = npu::facts_from_json(doc, "old.facts.json");
  EXPECT_EQ(f.doc["schema_version"], 2);
  EXPECT_FALSE(f.doc.contains("timeline"));
  EXPECT_FALSE(f.doc["dispatch"]["overall"].contains("classification"));
  EXPECT_FALSE(f.doc["dispatch"]["overall"].contains("steps_by_class"));
  EXPECT_FALSE(f.doc["dispatch"]["thresholds"].contains("host_bound_free_ratio"));
  const json& warnings = f.doc["run"]["warnings"];
  ASSERT_FALSE(warnings.empty());
  EXPECT_EQ(
      warnings.back(),
      "old.facts.json: facts schema_version 1 read as 2: 4 values of keys this version no longer has were left out");
  json& w = f.doc["run"]["warnings"];
  w.erase(w.size() - 1);
  if (w.empty() && !v2["run"].contains("warnings")) f.doc["run"].erase("warnings");
  EXPECT_EQ(f.doc, v2);
  // the keys version 2 released are the schema's
  for (const std::string& k : npu::released_facts_keys(2)) EXPECT_NE(FactsSchema::builtin().find(k), nullptr) << k;
  // and version 1 had the timeline
  auto v1 = npu::released_facts_keys(1);
  EXPECT_NE(std::find(v1.begin(), v1.end(), "timeline.steps[].rows"), v1.end());
}

TEST(FactsSchema, NeedPathsResolveLikeTheRuleEngine) {
  const FactsSchema& s = FactsSchema::builtin();
  EXPECT_TRUE(s.has_need_path("dispatch.overall.host_bound_free_ns"));
  EXPECT_TRUE(s.has_need_path("steps"));
  EXPECT_TRUE(s.has_need_path("run.env.ASCEND_LAUNCH_BLOCKING"));  // run.env is a map
  EXPECT_FALSE(s.has_need_path("overall.comm_not_overlaped_ns"));
  EXPECT_FALSE(s.has_need_path("steps.free_ns"));  // an array: rules resolve object keys only
  EXPECT_FALSE(s.has_need_path(""));
}

TEST(FactsSchema, SampleFactsValidate) {
  json report = npu::test::analyze_json(npu::test::sample_run());
  ASSERT_TRUE(report.contains("facts"));
  for (const auto& p : validate_facts(report["facts"], FactsSchema::builtin(), true)) ADD_FAILURE() << p;
}

// Every rule `needs` a key path of the schema; a misspelled one is an error at load.
TEST(FactsSchema, BuiltinRuleNeedsAreSchemaKeys) {
  npu::RuleEngine e;
  e.add_builtin_rules();
  for (const auto& m : e.rules())
    for (const auto& need : m.needs)
      EXPECT_TRUE(FactsSchema::builtin().has_need_path(need)) << m.id << " needs " << need;
  for (const auto& o : e.run(npu::Facts{}))
    EXPECT_NE(o.status, npu::RuleOutcome::Status::Failed) << o.meta.id << ": " << o.reason;
}

TEST(FactsSchema, RulesTestFailsOnAMisspelledNeedOrFixtureKey) {
  auto results = npu::run_rule_fixtures(npu::test::source_dir() + "/testdata/rules_schema");
  std::map<std::string, std::vector<npu::FixtureResult>> by_rule;
  for (const auto& r : results) by_rule[std::filesystem::path(r.rule_file).filename().string()].push_back(r);
  ASSERT_EQ(by_rule.size(), 2u);
  // The rule with a misspelled need fails to load: every case fails, saying why.
  ASSERT_FALSE(by_rule["misspelled_need.lua"].empty());
  for (const auto& r : by_rule["misspelled_need.lua"]) {
    EXPECT_FALSE(r.passed) << r.fixture;
    EXPECT_NE(r.message.find("needs \"overall.comm_not_overlaped_ns\", which is not a key path of the facts schema"),
              std::string::npos)
        << r.fixture << ": " << r.message;
  }
  // The correct rule: only the case with the misspelled key fails, naming the key.
  std::map<std::string, npu::FixtureResult> by_case;
  for (const auto& r : by_rule["misspelled_key.lua"]) by_case[r.fixture] = r;
  ASSERT_EQ(by_case.size(), 3u);
  const auto& bad = by_case["fires: computing_ns misspelled"];
  EXPECT_FALSE(bad.passed);
  EXPECT_EQ(bad.message,
            "facts do not match the facts schema: overall.computing_nss: unknown key (not in the facts schema)");
  EXPECT_TRUE(by_case["quiet: nothing exposed"].passed) << by_case["quiet: nothing exposed"].message;
  EXPECT_TRUE(by_case["skipped: without overall.comm_not_overlapped_ns"].passed)
      << by_case["skipped: without overall.comm_not_overlapped_ns"].message;
}

// The identifiers written in `backticks` in a Markdown file (a-z, digits, _ and -).
std::set<std::string> backticked_words(const std::string& text) {
  std::set<std::string> out;
  static const std::regex span("`([^`]*)`"), word("[A-Za-z_][A-Za-z0-9_-]*");
  for (auto s = std::sregex_iterator(text.begin(), text.end(), span); s != std::sregex_iterator(); ++s) {
    std::string inner = (*s)[1];
    for (auto w = std::sregex_iterator(inner.begin(), inner.end(), word); w != std::sregex_iterator(); ++w)
      out.insert(w->str());
  }
  return out;
}

std::string last_component(const std::string& path) {
  std::string p = path;
  while (p.size() >= 2 && p.compare(p.size() - 2, 2, "[]") == 0) p.resize(p.size() - 2);
  return p.substr(p.rfind('.') == std::string::npos ? 0 : p.rfind('.') + 1);
}

// docs/facts*.md: their key tables are generated from the schema (tools/gen_docs.py, checked by
// ctest docs.generated); here, every key of a section is named in the doc the section says
// documents it (or in docs/facts.md, which holds the shared conventions such as evidence), ...
TEST(FactsSchema, DocsNameEverySchemaKey) {
  const std::string root = npu::test::source_dir() + "/";
  std::set<std::string> shared = backticked_words(read_text(root + "docs/facts.md"));
  for (const json& f : schema_files()) {
    std::set<std::string> words = backticked_words(read_text(root + f.value("documented_in", "")));
    ASSERT_FALSE(words.empty()) << f.value("documented_in", "") << " is missing";
    for (const json& k : f["keys"]) {
      std::string key = last_component(k["path"]);
      if (key != "*" && !words.count(key) && !shared.count(key))
        ADD_FAILURE() << k["path"].get<std::string>() << " is not named in " << f.value("documented_in", "");
    }
  }
}

// ... and every key named in the first column of a doc's key tables (| key | ... |) is a path
// component of the sections that doc documents (or a map key seen on real inputs).
TEST(FactsSchema, DocKeyTablesNameOnlySchemaKeys) {
  std::map<std::string, std::set<std::string>> known;  // doc -> components
  for (const json& f : schema_files()) {
    auto& set = known[f.value("documented_in", "")];
    for (const json& k : f["keys"]) {
      std::string p = k["path"];
      for (char& c : p)
        if (c == '.' || c == '[' || c == ']') c = ' ';
      std::istringstream words(p);
      for (std::string w; words >> w;) set.insert(w);
      for (const auto& seen : k.value("keys_seen", json::array())) set.insert(seen.get<std::string>());
    }
    for (const auto& [name, def] : f.value("types", json::object()).items())
      for (const json& k : def)
        if (std::string p = k.value("path", ""); !p.empty()) set.insert(last_component(p));
  }
  for (const auto& [doc, components] : known) {
    std::istringstream lines(read_text(npu::test::source_dir() + "/" + doc));
    bool in_table = false;
    int n = 0;
    for (std::string line; std::getline(lines, line);) {
      ++n;
      if (line.rfind("| key |", 0) == 0) {
        in_table = true;
        continue;
      }
      if (line.rfind("|", 0) != 0) in_table = false;
      if (!in_table || line.rfind("|---", 0) == 0) continue;
      std::string first = line.substr(1, line.find('|', 1) - 1);
      for (const auto& w : backticked_words(first))
        if (!components.count(w))
          ADD_FAILURE() << doc << ":" << n << ": `" << w << "` is not a key of the facts schema";
    }
  }
}

}  // namespace

// Property: a facts file with any of its step numbers replaced (a word, a negative, a huge or a
// fractional number, null, an object) is either accepted as possible or refused with a LoadError
// naming the file: never another exception, never accepted with a negative or huge time.
TEST(FactsSchema, MutatedStepNumbersAreRefusedOrPossible) {
  npu::Facts f = npu::compute_facts(npu::test::load_path(npu::test::sample_run()));
  f.doc["schema"] = npu::kFactsSchema;
  f.doc["schema_version"] = npu::kFactsSchemaVersion;
  const nlohmann::json values[] = {
      "12", -1, -5000000, 1e300, 1.5, nullptr, nlohmann::json::object(), 0, int64_t{1} << 62};
  const char* keys[] = {"computing_ns",           "free_ns", "device_time_ns", "host_dur_ns",
                        "comm_not_overlapped_ns", "start_ns"};
  size_t refused = 0, accepted = 0;
  for (size_t s = 0; s < f.doc["steps"].size(); ++s)
    for (const char* k : keys)
      for (const auto& v : values) {
        nlohmann::json doc = f.doc;
        doc["steps"][s][k] = v;
        try {
          npu::Facts g = npu::facts_from_json(doc, "mutated.facts.json");
          ++accepted;
          const auto& x = g.doc["steps"][s][k];
          if (x.is_number() && std::string(k) != "start_ns") {  // a timestamp, not a time
            EXPECT_GE(x.get<double>(), 0) << k << " = " << v;
            EXPECT_LE(x.get<double>(), 1e15) << k << " = " << v;
          }
        } catch (const npu::LoadError& e) {
          ++refused;
          EXPECT_EQ(std::string(e.what()).rfind("mutated.facts.json: ", 0), 0u) << e.what();
        }
      }
  EXPECT_GT(refused, accepted);
}
