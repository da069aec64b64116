// A format added from outside loaders/ (docs/adding-a-format.md): registered at run time, it is
// detected, named and loaded through the same entry points as the built-in ones.
#include <fstream>
#include <sstream>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "loaders/format.h"
#include "pipeline/load_settings.h"
#include "pipeline/run_summary.h"
#include "test_support.h"

namespace {

namespace fs = std::filesystem;

// A toy text format: "name start_us dur_us" per line, all on one device stream.
npu::Sniff sniff_toy(const fs::path& p, const std::string& extension) {
  if (!fs::is_regular_file(p) || p.extension() != extension) return {};
  npu::Sniff s;
  s.confidence = npu::confidence::kLayout;
  s.reason = "toy timeline " + p.filename().string();
  s.found.framework = "toy";
  s.found.files = {p.string()};
  return s;
}

void load_toy(const npu::Detection& d, npu::RunModel& model, const npu::LoadOptions&) {
  model.meta.framework = d.framework;
  model.meta.source_format = "toy text";
  npu::Track t;
  t.pid = 1;
  t.tid = 1;
  t.process_name = model.strings.intern("Ascend Hardware");
  model.tracks.push_back(t);
  std::ifstream in(d.path);
  std::string name;
  double start_us = 0, dur_us = 0;
  while (in >> name >> start_us >> dur_us) {
    npu::Slice s;
    s.name = model.strings.intern(name);
    s.ts = static_cast<npu::Ns>(start_us * 1000);
    s.dur = static_cast<npu::Ns>(dur_us * 1000);
    model.slices.push_back(s);
  }
}

npu::InputFormat toy_format(const std::string& name, const std::string& extension = ".toy") {
  return {name, "toy timeline", [extension](const fs::path& p) { return sniff_toy(p, extension); }, load_toy, nullptr};
}

TEST(ToyFormat, RegisteredFormatIsDetectedAndLoadedThroughThePipeline) {
  npu::register_input_format(toy_format("toy_lines"));
  npu::test::TempDir dir;
  const std::string path = dir.write("run.toy", "MatMul 10 5\nAdd 20 2.5\n");

  npu::Detection d = npu::pipeline::detect(path);
  EXPECT_EQ(d.format, "toy_lines");
  EXPECT_EQ(d.kind, "toy timeline");
  EXPECT_EQ(d.description, "toy timeline run.toy");
  EXPECT_EQ(d.confidence, npu::confidence::kLayout);
  EXPECT_FALSE(d.cluster);

  npu::RunModel m = npu::pipeline::load(d, {});
  ASSERT_EQ(m.slices.size(), 2u);
  EXPECT_EQ(m.str(m.slices[0].name), "MatMul");
  EXPECT_EQ(m.slices[0].ts, 10000);
  EXPECT_EQ(m.slices[1].dur, 2500);
  ASSERT_EQ(m.tracks.size(), 1u);
  EXPECT_EQ(m.tracks[0].kind, npu::TrackKind::Device);  // classified by finalize, as any format's
  EXPECT_EQ(m.meta.framework, "toy");

  nlohmann::json summary = npu::summarize_run(m, d);
  EXPECT_EQ(summary["input"]["kind"], "toy timeline");
  EXPECT_EQ(summary["input"]["description"], "toy timeline run.toy");

  // Other files are still what they were: the toy sniff claims only its own.
  const std::string other = dir.write("run.json", "[]");
  EXPECT_EQ(npu::pipeline::detect(other).format, "chrome_trace");
}

TEST(ToyFormat, TwoFormatsClaimingAlikeIsAnErrorNamingBoth) {
  npu::register_input_format(toy_format("toy_a", ".tie"));
  npu::register_input_format(toy_format("toy_b", ".tie"));
  npu::test::TempDir dir;
  const std::string path = dir.write("x.tie", "A 1 1\n");
  try {
    npu::pipeline::detect(path);
    FAIL() << "a tie was accepted";
  } catch (const npu::LoadError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("two formats claim it alike"), std::string::npos) << what;
    EXPECT_NE(what.find("toy_a (toy timeline x.tie) and toy_b (toy timeline x.tie)"), std::string::npos) << what;
  }
}

}  // namespace
