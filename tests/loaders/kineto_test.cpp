// Kineto (CUDA / CPU) traces feed the same model and the same facts as Ascend runs. The
// expected values come from testdata/kineto/two_steps_nccl.json worked out by hand (the
// comments give the arithmetic) and agree with tests/realdata/verify_kineto.py on that file.
#include <fstream>
#include <iterator>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "rules/rule_engine.h"
#include "test_support.h"

namespace {

using npu::Facts;
using npu::RunModel;
using npu::TrackKind;

std::string fixture() { return npu::test::source_dir() + "/testdata/kineto/two_steps_nccl.json"; }

const nlohmann::json& step(const Facts& f, const char* section, size_t i) {
  return section[0] == 's' ? f.doc["steps"][i] : f.doc[section]["steps"][i];
}

TEST(Kineto, TracksAreClassifiedByCategoryNotPid) {
  RunModel m = npu::test::load_path(fixture());
  EXPECT_EQ(m.meta.platform, "gpu");
  EXPECT_EQ(m.meta.gpu_runtime, "cuda");
  EXPECT_EQ(m.meta.device, 0);
  int device = 0, host = 0;
  for (const auto& t : m.tracks) {
    if (t.kind == TrackKind::Device) {
      ++device;
      EXPECT_EQ(t.pid, 0);
      EXPECT_EQ(t.device, 0);
    }
    // pid 0 tid 0 holds python_function events: a host thread despite sharing GPU 0's pid.
    if (t.pid == 0 && t.tid == 0) EXPECT_EQ(t.kind, TrackKind::HostOther);
    host += t.kind == TrackKind::HostOther;
  }
  EXPECT_EQ(device, 2);  // stream 7, stream 20
  EXPECT_EQ(host, 2);    // thread 100, pid 0 tid 0
  // The GPU copy of ProfilerStep#1 (gpu_user_annotation) is not a host step.
  ASSERT_EQ(m.steps.size(), 2u);
  EXPECT_EQ(m.steps[0].id, 1);
  EXPECT_EQ(m.steps[0].start, 1'000'000);
  EXPECT_EQ(m.steps[0].end, 1'100'000);
}

TEST(Kineto, PerStepBreakdownUsesTheOverlapRules) {
  Facts f = npu::compute_facts(npu::test::load_path(fixture()));
  EXPECT_EQ(f.doc["run"]["platform"], "gpu");
  // compute = kernels [1020,1050] [1110,1112] [1150.5,1170.75]; NCCL [1040,1080]; copies
  // [1060,1065] (under the NCCL kernel) and [1130,1134]; the annotation is not device work.
  // Step windows (launched work): step 1 = [1000, max(1100, 1080)], step 2 = [1100, max(1200,
  // 1170.75)]: each host span, since the work each step launched ends before its host end.
  const auto& s1 = step(f, "steps", 0);
  EXPECT_EQ(s1["device_time_ns"], 100'000);
  EXPECT_EQ(s1["computing_ns"], 30'000);
  EXPECT_EQ(s1["communication_ns"], 40'000);
  EXPECT_EQ(s1["comm_not_overlapped_ns"], 30'000);  // [1050,1080]
  EXPECT_EQ(s1["overlapped_ns"], 10'000);
  EXPECT_EQ(s1["copies_ns"], 0);     // the HtoD copy runs under the NCCL kernel
  EXPECT_EQ(s1["free_ns"], 40'000);  // 100 - [1020,1080]
  EXPECT_EQ(s1["device_window"]["launched_tasks"], 3);
  EXPECT_EQ(s1["device_window"]["launched_end_ns"], 1'080'000);
  const auto& s2 = step(f, "steps", 1);
  EXPECT_EQ(s2["computing_ns"], 22'250);
  EXPECT_EQ(s2["communication_ns"], 0);
  EXPECT_EQ(s2["copies_ns"], 4'000);   // the .item() copy [1130,1134]
  EXPECT_EQ(s2["free_ns"], 73'750);    // 100 - 22.25 - 4
  EXPECT_EQ(f.doc["overall"]["step_time_rule"], "launched_work");
  EXPECT_EQ(f.doc["overall"]["self_check"]["ok"], true);
  EXPECT_EQ(f.doc["overall"]["communication_source"], "NCCL kernels");
  EXPECT_EQ(f.doc["overall"]["communication_ops"], 1);
  EXPECT_EQ(f.doc["overall"]["device"], 0);
}

TEST(Kineto, LaunchLagJoinsRuntimeCallsToKernelsByCorrelation) {
  Facts f = npu::compute_facts(npu::test::load_path(fixture()));
  const auto& d = f.doc["dispatch"];
  EXPECT_EQ(d["flow_kind"], "correlation");
  // Lags (us): step 1: 10, 20, 30; step 2: 5, 10 (the D2H copy), 10.5.
  EXPECT_EQ(d["overall"]["count"], 6);
  EXPECT_EQ(d["overall"]["lag_p50_ns"], 10'500);
  EXPECT_EQ(step(f, "dispatch", 0)["lag_p50_ns"], 20'000);
  EXPECT_EQ(step(f, "dispatch", 1)["lag_p50_ns"], 10'000);
  EXPECT_EQ(step(f, "dispatch", 1)["sync_calls"], 1);         // cudaStreamSynchronize
  EXPECT_EQ(step(f, "dispatch", 1)["device_sync_calls"], 1);  // cudaDeviceSynchronize
  EXPECT_EQ(step(f, "dispatch", 1)["sync_ns"], 15'000);
  EXPECT_EQ(step(f, "dispatch", 0)["host_ops"], 2);  // aten::mm, record_param_comms
}

TEST(Kineto, GpuFactsFindSyncsBlockingCopiesAndPageableMemory) {
  Facts f = npu::compute_facts(npu::test::load_path(fixture()));
  const auto& g = f.doc["gpu"];
  EXPECT_EQ(g["runtime"], "cuda");
  EXPECT_EQ(g["kernels"]["count"], 4);
  EXPECT_EQ(g["kernels"]["nccl"], 1);
  EXPECT_EQ(g["kernels"]["small"], 1);  // elementwise_add, 2 us
  EXPECT_EQ(g["syncs"]["count"], 2);
  // .item(): cudaMemcpyAsync [1120,1122] then cudaStreamSynchronize [1122,1135] past the
  // copy's end 1134: the host waited 1135 - 1120 = 15 us.
  EXPECT_EQ(g["blocking_d2h"]["count"], 1);
  EXPECT_EQ(g["blocking_d2h"]["host_wait_ns"], 15'000);
  EXPECT_EQ(g["blocking_d2h"]["longest"][0]["host_call"], "cudaMemcpyAsync");
  EXPECT_EQ(g["pageable_copies"]["count"], 1);
  EXPECT_EQ(g["pageable_copies"]["device_ns"], 5'000);
  EXPECT_EQ(g["memcpy"]["htod"]["count"], 1);
  EXPECT_EQ(g["memcpy"]["dtoh"]["total_ns"], 4'000);
  EXPECT_EQ(g["steps"][1]["blocking_d2h"], 1);
  // Sync points: the .item() (its copy and the stream sync it waits in: one, 1120 -> 1135) and
  // the device sync at 1180 (2 us): 15 + 2 us of the host's time.
  EXPECT_EQ(g["steps"][1]["sync_calls"], 2);
  EXPECT_EQ(g["steps"][1]["sync_points"], 2);
  EXPECT_EQ(g["steps"][1]["sync_wait_ns"], 17'000);
  EXPECT_EQ(g["steps"][0]["pageable_copies"], 1);
  // record_param_comms names its collective; this NCCL kernel does not (older PyTorch).
  ASSERT_EQ(g["collectives"].size(), 2u);
  EXPECT_EQ(g["collectives"][0]["name"], "(unnamed)");
  EXPECT_EQ(g["collectives"][0]["kernel_ns"], 40'000);
  EXPECT_EQ(g["collectives"][1]["name"], "allreduce");
  EXPECT_EQ(g["collectives"][1]["host_calls"], 1);
  // The [memory] event of GPU 0's allocator (Total Allocated 2 MiB, Total Reserved 4 MiB).
  EXPECT_DOUBLE_EQ(g["memory"]["peak_allocated_mb"].get<double>(), 2.0);
  EXPECT_DOUBLE_EQ(g["memory"]["peak_reserved_mb"].get<double>(), 4.0);
  EXPECT_EQ(g["memory"]["peak_allocated_step"], 1);
  // Top kernels and host ops.
  const auto& ops = f.doc["operators"];
  EXPECT_EQ(ops["by_name"][0]["name"], "sm90_xmma_gemm_bf16");
  EXPECT_EQ(ops["by_name"][0]["total_ns"], 50'250);
  EXPECT_EQ(ops["communication"][0]["total_ns"], 40'000);
  EXPECT_EQ(ops["host"]["operators"], 4);  // aten::mm, record_param_comms, aten::add, aten::item
}

TEST(Kineto, AscendOnlyRulesSayNotApplicableOnGpu) {
  Facts f = npu::compute_facts(npu::test::load_path(fixture()));
  npu::RuleEngine engine;
  engine.add_builtin_rules();
  bool saw_host_bound = false, saw_comm = false;
  for (const auto& o : engine.run(f, {})) {
    if (o.meta.id == "dispatch.host_bound") {
      saw_host_bound = true;
      EXPECT_EQ(o.status, npu::RuleOutcome::Status::NotApplicable);
      EXPECT_EQ(o.reason, "Ascend-only (this run is gpu)");
    }
    if (o.meta.id == "communication.not_overlapped") {
      saw_comm = true;
      EXPECT_EQ(o.status, npu::RuleOutcome::Status::Fired);  // 30 us of 150.75 us device time
    }
  }
  EXPECT_TRUE(saw_host_bound);
  EXPECT_TRUE(saw_comm);
}

TEST(Kineto, CpuOnlyTraceKeepsHostFactsAndSaysWhyDeviceChecksAreSkipped) {
  RunModel m = npu::test::load_trace_text(R"({"traceEvents": [
    {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#3", "pid": 7, "tid": 7, "ts": 10, "dur": 50},
    {"ph": "X", "cat": "cpu_op", "name": "aten::mm", "pid": 7, "tid": 7, "ts": 12, "dur": 20},
    {"ph": "X", "cat": "cpu_op", "name": "aten::relu", "pid": 7, "tid": 7, "ts": 40, "dur": 5}]})");
  m.meta.framework = "pytorch";
  Facts f = npu::compute_facts(m);
  EXPECT_EQ(f.doc["run"]["platform"], "cpu");
  EXPECT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(f.doc["operators"]["host"]["operators"], 2);
  EXPECT_EQ(f.doc["dispatch"]["steps"][0]["host_ops"], 2);
  bool steps_reason = false, gpu_reason = false;
  for (const auto& u : f.doc["unavailable"]) {
    if (u["fact"] == "steps") steps_reason = u["why"].get<std::string>().find("CPU-only") != std::string::npos;
    if (u["fact"] == "gpu") gpu_reason = u["why"].get<std::string>().find("CPU-only") != std::string::npos;
  }
  EXPECT_TRUE(steps_reason);
  EXPECT_TRUE(gpu_reason);
}

TEST(Kineto, HipRuntimeNamesAreRecognised) {
  RunModel m = npu::test::load_trace_text(R"({"traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "hipLaunchKernel", "pid": 5, "tid": 5, "ts": 10, "dur": 3, "args": {"correlation": 9}},
    {"ph": "X", "cat": "cuda_runtime", "name": "hipDeviceSynchronize", "pid": 5, "tid": 5, "ts": 20, "dur": 30},
    {"ph": "X", "cat": "kernel", "name": "Cijk_Ailk_Bljk_HHS_BH", "pid": 2, "tid": 0, "ts": 14, "dur": 30, "args": {"correlation": 9}}]})");
  EXPECT_EQ(m.meta.platform, "gpu");
  EXPECT_EQ(m.meta.gpu_runtime, "hip");
  EXPECT_EQ(m.meta.device, 2);  // no labels: the GPU pid is the device id
  Facts f = npu::compute_facts(m);
  EXPECT_EQ(f.doc["dispatch"]["overall"]["lag_p50_ns"], 4'000);
  EXPECT_FALSE(f.doc["gpu"].contains("memory"));  // no [memory] events: listed as unavailable
  EXPECT_EQ(f.doc["gpu"]["syncs"]["by_name"][0]["name"], "hipDeviceSynchronize");
}

// CPU allocator events (Device Type 0) are not GPU memory; a device allocator's are, per device.
TEST(Kineto, MemoryEventsBecomeCountersOfTheirDevice) {
  RunModel m = npu::test::load_trace_text(R"({"traceEvents": [
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 10,
     "args": {"Device Type": 0, "Device Id": -1, "Addr": 1, "Bytes": 4, "Total Allocated": 999, "Total Reserved": 999}},
    {"ph": "i", "s": "t", "name": "[memory]", "pid": 5, "tid": 5, "ts": 11,
     "args": {"Device Type": 1, "Device Id": 3, "Addr": 2, "Bytes": 8, "Total Allocated": 1048576, "Total Reserved": 2097152}}]})");
  ASSERT_EQ(m.counters.size(), 2u);
  EXPECT_EQ(m.str(m.counters[0].name), "[memory] Total Allocated, device 3");
  EXPECT_EQ(m.counters[0].value, 1048576.0);
  EXPECT_EQ(m.str(m.counters[1].name), "[memory] Total Reserved, device 3");
}

// The same fixture cut into many small chunks parsed on two threads gives the same facts
// (chunk-local strings of memory counters and collective names are remapped on merge).
TEST(Kineto, SmallChunksGiveTheSameFacts) {
  std::ifstream in(fixture());
  std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  RunModel whole = npu::test::load_path(fixture());
  RunModel cut = npu::test::load_trace_text(text, 256, 2);
  ASSERT_EQ(cut.counters.size(), whole.counters.size());
  for (size_t i = 0; i < cut.counters.size(); ++i)
    EXPECT_EQ(cut.str(cut.counters[i].name), whole.str(whole.counters[i].name));
  Facts a = npu::compute_facts(whole), b = npu::compute_facts(cut);
  // Evidence names the file, which only load_path registers: compare the byte offsets alone.
  auto strip = [](nlohmann::json j) {
    for (auto& x : j)
      if (x.contains("evidence"))
        for (auto& e : x["evidence"]) e.erase("file");
    return j;
  };
  EXPECT_EQ(strip(a.doc["steps"]), strip(b.doc["steps"]));
  EXPECT_EQ(strip(a.doc["gpu"]["collectives"]), strip(b.doc["gpu"]["collectives"]));
  EXPECT_EQ(a.doc["dispatch"]["overall"]["lag_p50_ns"], b.doc["dispatch"]["overall"]["lag_p50_ns"]);
}

TEST(Kineto, TwoGpusInOneTraceAreNotUnioned) {
  RunModel m = npu::test::load_trace_text(R"({"traceEvents": [
    {"ph": "X", "cat": "kernel", "name": "a", "pid": 0, "tid": 7, "ts": 10, "dur": 30},
    {"ph": "X", "cat": "kernel", "name": "b", "pid": 0, "tid": 7, "ts": 50, "dur": 30},
    {"ph": "X", "cat": "kernel", "name": "c", "pid": 1, "tid": 7, "ts": 40, "dur": 10}]})");
  EXPECT_EQ(m.meta.device, 0);  // the busier GPU
  Facts f = npu::compute_facts(m);
  EXPECT_EQ(f.doc["overall"]["computing_ns"], 60'000);
  EXPECT_EQ(f.doc["overall"]["free_ns"], 10'000);
  EXPECT_EQ(f.doc["overall"]["other_devices"], nlohmann::json::array({1}));
  // No ProfilerStep#N: one pseudo-step (id null) holds GPU 0's two kernels.
  ASSERT_EQ(f.doc["gpu"]["steps"].size(), 1u);
  EXPECT_TRUE(f.doc["gpu"]["steps"][0]["id"].is_null());
  EXPECT_EQ(f.doc["gpu"]["steps"][0]["kernels"], 2);
}

}  // namespace

namespace {

// A GPU step that trusts nothing it cannot show: without correlation ids no device op is joined
// to a launch, the steps fall back to the host spans, and the self-check says so; a kernel longer
// than its step is named with its evidence.
TEST(Kineto, SelfCheckSaysWhenTheStepRuleCannotBeApplied) {
  std::string text;
  {
    std::ifstream in(fixture());
    text.assign(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  // Drop every correlation id (", \"correlation\": N" in the args).
  for (size_t at = text.find(", \"correlation\": "); at != std::string::npos; at = text.find(", \"correlation\": ")) {
    size_t end = text.find_first_of("}", at);
    text.erase(at, end - at);
  }
  Facts f = npu::compute_facts(npu::test::load_trace_text(text));
  const auto& check = f.doc["overall"]["self_check"];
  EXPECT_EQ(check["ok"], false);
  EXPECT_EQ(check["launched_in_steps"], 0);
  ASSERT_FALSE(check["problems"].empty());
  EXPECT_NE(check["problems"][0].get<std::string>().find("no device op is joined"), std::string::npos);
  // The windows are the host spans: [1000, 1100] and [1100, 1200].
  EXPECT_EQ(f.doc["steps"][0]["device_time_ns"], 100'000);

  // A kernel no step launched (no correlation) that runs 150 us from inside step 2's 100 us
  // window is longer than the step that holds it.
  std::string late = text;
  const std::string extra =
      "  {\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"long_kernel\", \"pid\": 0, \"tid\": 7, \"ts\": 1101, "
      "\"dur\": 150, \"args\": {\"device\": 0, \"stream\": 7}},\n";
  const size_t at = late.find("  {\"ph\": \"i\"");
  ASSERT_NE(at, std::string::npos);
  late.insert(at, extra);
  Facts g = npu::compute_facts(npu::test::load_trace_text(late));
  const auto& c2 = g.doc["overall"]["self_check"];
  EXPECT_EQ(c2["ok"], false);
  EXPECT_EQ(c2["longer_than_step"], 1);
  EXPECT_EQ(c2["evidence"].size(), 1u);
}

// With the correlation ids the same trace passes: every op is launched in a step, the parts of
// every step add up to its window.
TEST(Kineto, SelfCheckPassesOnTheFixture) {
  Facts f = npu::compute_facts(npu::test::load_path(fixture()));
  const auto& check = f.doc["overall"]["self_check"];
  EXPECT_EQ(check["ok"], true) << check.dump();
  EXPECT_EQ(check["device_ops"], 6);  // 4 kernels, 2 copies (the annotation is a marker)
  EXPECT_EQ(check["launched_in_steps"], 6);
  EXPECT_EQ(check["steps_not_adding_up"], 0);
  for (const auto& s : f.doc["steps"])
    EXPECT_EQ(s["device_time_ns"].get<int64_t>(),
              s["computing_ns"].get<int64_t>() + s["comm_not_overlapped_ns"].get<int64_t>() +
                  s["copies_ns"].get<int64_t>() + s["free_ns"].get<int64_t>());
}

}  // namespace
