// The cluster analysis's per-rank child processes (pipeline/child_processes.cpp) and the bytes a
// rank's result travels in (pipeline/rank_outcome.cpp): every job's result comes back in order,
// a child that dies is said, and a rank's facts come back exactly as they were made.
#include "pipeline/child_processes.h"

#include <csignal>
#include <string>
#include <unistd.h>

#include <gtest/gtest.h>

#include "facts/communication_records.h"
#include "pipeline/rank_outcome.h"

namespace {

using nlohmann::json;
using npu::pipeline::ChildResult;
using npu::pipeline::run_in_child_processes;

TEST(ChildProcesses, EveryJobRunsInAChildAndComesBackInOrder) {
  const pid_t parent = ::getpid();
  std::vector<ChildResult> r = run_in_child_processes(7, 3, [&](size_t i, bool in_child) {
    return std::to_string(i) + (in_child && ::getpid() != parent ? " child" : " here");
  });
  ASSERT_EQ(r.size(), 7u);
  for (size_t i = 0; i < r.size(); ++i) {
    EXPECT_EQ(r[i].error, "");
    EXPECT_EQ(r[i].bytes, std::to_string(i) + " child");
  }
}

TEST(ChildProcesses, AChildThatDiesIsSaidAndTheOthersStillCount) {
  std::vector<ChildResult> r = run_in_child_processes(3, 2, [](size_t i, bool) {
    if (i == 1) std::raise(SIGKILL);
    return std::string(100000, static_cast<char>('a' + i));  // larger than a pipe would buffer
  });
  ASSERT_EQ(r.size(), 3u);
  EXPECT_EQ(r[0].bytes, std::string(100000, 'a'));
  EXPECT_NE(r[1].error.find("killed by signal 9"), std::string::npos) << r[1].error;
  EXPECT_EQ(r[2].bytes, std::string(100000, 'c'));
}

// The parent takes each result as its child ends (and may drop it): every job once, no more
// than `workers` results outstanding at a time is the caller's business.
TEST(ChildProcesses, EachResultIsHandedOverWhenItsChildEnds) {
  std::vector<int> seen(5, 0);
  std::vector<std::string> bytes(5);
  run_in_child_processes(
      5, 2, [](size_t i, bool) { return "job " + std::to_string(i); },
      [&](size_t i, ChildResult&& r) {
        ++seen[i];
        EXPECT_EQ(r.error, "");
        bytes[i] = std::move(r.bytes);
      });
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(seen[i], 1) << i;
    EXPECT_EQ(bytes[i], "job " + std::to_string(i));
  }
}

TEST(ChildProcesses, NoJobsNoChildren) { EXPECT_TRUE(run_in_child_processes(0, 2, nullptr).empty()); }

TEST(RankOutcome, BytesGiveBackTheSameFactsStepsAndRun) {
  npu::pipeline::RankOutcome in;
  in.rank.rank = 5;
  in.rank.path = "/x/rank5";
  in.rank.facts = {{"overall", {{"free_ns", 12}, {"free_ratio", 0.1234567890123}, {"neg", -3}}},
                   {"findings", json::array({{{"rule", "schedule.free_time"}, {"confidence", 0.7}}})},
                   {"run", {{"rank", 5}, {"framework", "torch_npu"}}}};
  for (int64_t s = 0; s < 1000; ++s) {
    npu::cluster::StepRow row;
    row.rank = 5, row.step = s, row.computing = s * 3, row.free = -s, row.bubble = 7;
    in.rank.steps.push_back(row);
  }
  npu::cluster::StepRow no_step;
  in.rank.steps.push_back(no_step);
  in.full = npu::pipeline::RunOfList{"/x/rank5", {{"schema", "npu-advisor.run-summary"}}, {}};
  in.full->facts.doc = {{"steps", json::array({{{"id", 1}, {"free_ns", 2.5}}})}};
  in.full->views = {{"timeline", {{"steps", json::array()}, {"vertical_lag_ns", 50000}}}, {"unavailable", json::array()}};
  in.input_files = {{2049, 18446744073709551615ull}, {64768, 1}};
  npu::CommOp op;
  op.rank = 5, op.step = 3, op.group = "g", op.name = "hcom_allReduce__1", op.kind = "collective";
  op.elapse_ns = 10, op.transit_ns = 4, op.wait_ns = 5, op.sync_ns = 1, op.idle_ns = 2;
  op.wait_ratio = 0.5555555555555556, op.sync_ratio = 0.2;
  op.bandwidth = {{"HCCS", 64.5, 7, 16.25, 0.25, 3}, {"RDMA", 0.1, 9, 0.5, 1.0, 18446744073709551615ull}};
  op.source = {"/x/communication.json", "", -1, "step3/g/hcom_allReduce__1"};
  in.rank.comm_ops = {op};
  npu::CommLink link;
  link.group = "g", link.op = "hcom_allReduce__1", link.transport = "HCCS", link.kind = "collective";
  link.src = 5, link.dst = 6, link.size_mb = 64.5, link.time_ns = 7, link.gbps = 9.2;
  link.source = {"/x/analysis.db", "CommAnalyzerMatrix", 12, "hcom_allReduce__1"};
  in.rank.links = {link};

  npu::pipeline::RankOutcome out = npu::pipeline::decode_rank_outcome(npu::pipeline::encode_rank_outcome(in));
  EXPECT_EQ(out.error, "");
  EXPECT_EQ(out.rank.rank, 5);
  EXPECT_EQ(out.rank.path, "/x/rank5");
  EXPECT_EQ(out.rank.facts.dump(), in.rank.facts.dump());
  ASSERT_EQ(out.rank.steps.size(), in.rank.steps.size());
  for (size_t i = 0; i < in.rank.steps.size(); ++i) {
    EXPECT_EQ(out.rank.steps[i].step, in.rank.steps[i].step);
    EXPECT_EQ(out.rank.steps[i].computing, in.rank.steps[i].computing);
    EXPECT_EQ(out.rank.steps[i].free, in.rank.steps[i].free);
    EXPECT_EQ(out.rank.steps[i].bubble, in.rank.steps[i].bubble);
  }
  EXPECT_EQ(out.input_files, in.input_files);
  ASSERT_EQ(out.rank.comm_ops.size(), 1u);
  // The rows cross as facts records (facts/communication_records.h): what comes back writes the same JSON.
  ASSERT_EQ(out.rank.comm_ops.size(), 1u);
  const npu::CommOp& o = out.rank.comm_ops[0];
  EXPECT_EQ(o.step, 3);
  EXPECT_EQ(o.name, "hcom_allReduce__1");
  EXPECT_EQ(o.wait_ns, 5);
  ASSERT_EQ(o.bandwidth.size(), 2u);
  EXPECT_EQ(o.bandwidth[0].size_mb, 64.5);
  EXPECT_EQ(o.bandwidth[1].packets, 18446744073709551615ull);
  EXPECT_EQ(o.source.what, op.source.what);
  EXPECT_EQ(npu::comm_ops_json(out.rank.comm_ops).dump(), npu::comm_ops_json(in.rank.comm_ops).dump());
  ASSERT_EQ(out.rank.links.size(), 1u);
  EXPECT_EQ(out.rank.links[0].step, npu::kNoId);
  EXPECT_EQ(out.rank.links[0].dst, 6);
  EXPECT_EQ(out.rank.links[0].source.row, 12);
  EXPECT_EQ(npu::comm_links_json(out.rank.links).dump(), npu::comm_links_json(in.rank.links).dump());
  ASSERT_TRUE(out.full.has_value());
  EXPECT_EQ(out.full->summary.dump(), in.full->summary.dump());
  EXPECT_EQ(out.full->facts.doc.dump(), in.full->facts.doc.dump());
  EXPECT_EQ(out.full->views.dump(), in.full->views.dump());  // a run of a list keeps its timeline

  npu::pipeline::RankOutcome failed;
  failed.error = "rank7: holds no profiler data";
  out = npu::pipeline::decode_rank_outcome(npu::pipeline::encode_rank_outcome(failed));
  EXPECT_EQ(out.error, failed.error);
  EXPECT_FALSE(out.full.has_value());
  EXPECT_THROW(npu::pipeline::decode_rank_outcome("short"), std::runtime_error);
}

}  // namespace
