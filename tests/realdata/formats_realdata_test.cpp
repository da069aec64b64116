// SQLite exports, msprof PROF_ folders and MindSpore legacy folders from ../shared/realdata,
// loaded in place. Every expected number was computed independently by
// tests/realdata/verify_formats.py (Python sqlite3/json), not by our loaders.
#include <filesystem>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "base/load_error.h"
#include "test_support.h"

namespace {

using npu::test::real;

std::map<std::string, uint64_t> slices_by_process(const npu::RunModel& m) {
  std::map<std::string, uint64_t> out;
  for (const auto& s : m.slices) out[npu::process_display_name(m, m.tracks[s.track])]++;
  return out;
}

const char* kFullDb = "ascend_db/msinsight_full_db/msprof_0.db";
const char* kMultiDevice = "ascend_db/msinsight_multiDevice";
const char* kProf2 = "msprof_PROF/mindinsight_2device";
const char* kProf0 = "msprof_PROF/mindinsight_2device/PROF_000001_20230818142704322_COJGGGCANRMICFBC";
const char* kProf1 = "msprof_PROF/mindinsight_2device/PROF_000001_20230818142704567_GQFAMHBKGODKJMLA";

TEST(RealDataFormats, MsinsightFullDb) {
  REQUIRE_REALDATA(kFullDb);
  npu::Detection d = npu::detect_input(real(kFullDb));
  EXPECT_EQ(d.format, "sqlite");
  npu::RunModel m = npu::load_run(d);
  EXPECT_EQ(m.meta.source_format,
            "msprof DB (schema with COMPUTE_TASK_INFO.blockDim, OVERLAP_ANALYSIS, no PYTORCH_API)");
  auto by = slices_by_process(m);
  EXPECT_EQ(by["Ascend Hardware"], 24u);   // TASK rows
  EXPECT_EQ(by["CANN"], 4u);               // CANN_API rows
  EXPECT_EQ(by["Overlap Analysis"], 22u);  // OVERLAP_ANALYSIS rows
  size_t device_tracks = 0;
  for (const auto& t : m.tracks) device_tracks += t.kind == npu::TrackKind::Device;
  EXPECT_EQ(device_tracks, 3u);      // distinct (deviceId, streamId)
  ASSERT_EQ(m.kernels.size(), 11u);  // TASK joined with COMPUTE_TASK_INFO
  npu::Ns total = 0;
  for (const auto& k : m.kernels) {
    EXPECT_EQ(m.str(k.accel_core), "AI_VECTOR_CORE");
    total += k.dur;
  }
  EXPECT_EQ(total, 663872);
  EXPECT_EQ(m.kernels[0].line, 0u);  // TASK rowid
  EXPECT_EQ(m.str(m.kernels[0].name), "aclnnInplaceZero_ZerosLikeAiCore_ZerosLike");
  EXPECT_EQ(m.kernels[0].block_dim, 48);
  size_t comm_tasks = 0;
  for (const auto& s : m.slices) comm_tasks += m.str(s.task_type) == "COMMUNICATION";
  EXPECT_EQ(comm_tasks, 8u);  // TASK joined with COMMUNICATION_TASK_INFO
  EXPECT_EQ(m.meta.device, 2);
}

TEST(RealDataFormats, MsinsightAnalysisDb) {
  REQUIRE_REALDATA(kMultiDevice);
  npu::RunModel m = npu::test::load_path(real(kMultiDevice));
  ASSERT_EQ(m.step_trace.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(m.step_trace[static_cast<size_t>(i)].device, i);
    EXPECT_EQ(m.step_trace[static_cast<size_t>(i)].line, static_cast<uint32_t>(i + 1));  // rowid
    EXPECT_EQ(m.step_trace[static_cast<size_t>(i)].step, npu::kNoId);
  }
  EXPECT_EQ(m.step_trace[0].computing, 75720);  // "75.72" us
  EXPECT_EQ(m.step_trace[0].free, 271016820);   // "271016.82" us
  EXPECT_EQ(m.step_trace[3].computing, 76520);
  EXPECT_EQ(m.step_trace[3].free, 296825180);
  const npu::InputFile* db = m.file(npu::Role::Database);
  ASSERT_NE(db, nullptr);
  EXPECT_EQ(db->status, npu::InputFile::Status::Missing);
}

TEST(RealDataFormats, MsprofTwoDevicesIsACluster) {
  REQUIRE_REALDATA(kProf2);
  npu::Detection d = npu::detect_input(real(kProf2));
  EXPECT_EQ(d.cluster, true);
  ASSERT_EQ(d.members.size(), 2u);
  EXPECT_EQ(npu::detect_input(d.members[0]).format, "msprof");
}

void check_prof(const char* rel, uint64_t events, uint64_t cann, uint64_t overlap, int device) {
  npu::RunModel m = npu::test::load_path(real(rel));
  EXPECT_EQ(m.meta.source_format, "msprof PROF_ (CANN 6.x device_N/timeline layout, 10 iteration files)");
  EXPECT_EQ(m.stats.trace_events, events);
  auto by = slices_by_process(m);
  EXPECT_EQ(by["Ascend Hardware"], 4940u - 40u);  // the Step Trace thread moves to its own process
  EXPECT_EQ(by["Step Trace"], 40u);
  EXPECT_EQ(by["CANN"], cann);
  EXPECT_EQ(by["HCCL"], 3380u);
  EXPECT_EQ(by["Overlap Analysis"], overlap);
  EXPECT_EQ(m.steps.size(), 10u);  // "Iteration N" spans
  EXPECT_EQ(m.meta.device, device);
  // Ten files: every slice's evidence names its own file.
  ASSERT_EQ(m.trace_parts.size(), 10u);
  std::set<uint16_t> files;
  for (const auto& s : m.slices) files.insert(m.decode_loc(s.loc).file);
  EXPECT_EQ(files.size(), 10u);
}

TEST(RealDataFormats, MsprofLegacyDevice0) {
  REQUIRE_REALDATA(kProf0);
  check_prof(kProf0, 11373, 14, 2504, 0);
}

TEST(RealDataFormats, MsprofLegacyDevice1) {
  REQUIRE_REALDATA(kProf1);
  check_prof(kProf1, 11381, 9, 2512, 1);
}

TEST(RealDataFormats, MindSporeLegacyTimeline) {
  const char* rel = "mindspore_legacy/mindinsight_run_2/profiler";
  REQUIRE_REALDATA(rel);
  npu::Detection d = npu::detect_input(real(rel));
  EXPECT_EQ(d.format, "mindspore_legacy");
  npu::RunModel m = npu::load_run(d);
  EXPECT_EQ(m.meta.framework, "mindspore");
  EXPECT_EQ(m.stats.trace_events, 112u);
  auto by = slices_by_process(m);
  EXPECT_EQ(by["Ascend Hardware"], 107u);  // pid 1
  EXPECT_EQ(by["pid 9000"], 5u);
}

TEST(RealDataFormats, MindSporeLegacyWithoutTimelineIsExplained) {
  const char* rel = "mindspore_legacy/mindinsight_cluster_4rank/profiler";
  REQUIRE_REALDATA(rel);
  try {
    npu::test::load_path(real(rel));
    FAIL() << "expected a LoadError";
  } catch (const npu::LoadError& e) {
    EXPECT_NE(std::string(e.what()).find("not supported"), std::string::npos) << e.what();
  }
}

// The folders a user points at: the one holding msprof_0.db, and the MindSpore job folder
// holding profiler/, load as the file and the profiler/ folder do.
TEST(RealDataFormats, ParentFoldersOfADbAndOfAMindSporeProfilerFolder) {
  REQUIRE_REALDATA(kFullDb);
  npu::Detection folder = npu::detect_input(real("ascend_db/msinsight_full_db"));
  EXPECT_EQ(folder.format, "sqlite");
  EXPECT_EQ(std::filesystem::path(folder.files.at(0)).filename(), "msprof_0.db");
  npu::RunModel a = npu::load_run(folder), b = npu::load_run(npu::detect_input(real(kFullDb)));
  EXPECT_EQ(a.slices.size(), b.slices.size());
  EXPECT_EQ(a.kernels.size(), b.kernels.size());
  EXPECT_EQ(slices_by_process(a), slices_by_process(b));

  const char* job = "mindspore_legacy/mindinsight_run_2";
  REQUIRE_REALDATA(job);
  npu::Detection d = npu::detect_input(real(job));
  EXPECT_EQ(d.format, "mindspore_legacy");
  EXPECT_EQ(std::filesystem::path(d.path).filename(), "profiler");
}

}  // namespace
