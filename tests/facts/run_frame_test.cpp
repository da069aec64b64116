// The run's frame (facts/frame/run_frame.h): which step, which launch, on small traces worked out
// by hand: a Kineto trace with steps and without, and an Ascend trace with launch arrows.
#include "facts/frame/run_frame.h"

#include <gtest/gtest.h>

#include "test_support.h"
#include "trace_builder.h"

namespace {

using npu::Ns;
using npu::RunFrame;

constexpr Ns us(double v) { return static_cast<Ns>(v * 1000); }

std::string kineto(bool with_steps) {
  // Two steps of 100 us at 1000 and 1100 us. Step 1 launches k1 (launch 1010, kernel 1020-1030)
  // and k2 (launch 1090, kernel 1150-1160: it runs in step 2's host span, but step 1 launched it);
  // step 2 launches k3 (launch 1170, kernel 1175-1180). A sync call at 1195.
  std::string t = R"({"schemaVersion": 1, "traceEvents": [
  {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python3"}},
  {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
)";
  if (with_steps)
    t += R"(  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 1000, "dur": 100},
  {"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#2", "pid": 1, "tid": 1, "ts": 1100, "dur": 100},
)";
  auto call = [&](const char* name, int ts, int dur, int corr) {
    t += R"(  {"ph": "X", "cat": "cuda_runtime", "name": ")" + std::string(name) + R"(", "pid": 1, "tid": 1, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"correlation": )" +
         std::to_string(corr) + "}},\n";
  };
  auto kernel = [&](const char* name, int ts, int dur, int corr) {
    t += R"(  {"ph": "X", "cat": "kernel", "name": ")" + std::string(name) + R"(", "pid": 0, "tid": 7, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"correlation": )" +
         std::to_string(corr) + R"(, "device": 0, "stream": 7}},)" + "\n";
  };
  call("cudaLaunchKernel", 1010, 5, 1);
  kernel("k1", 1020, 10, 1);
  call("cudaLaunchKernel", 1090, 5, 2);
  kernel("k2", 1150, 10, 2);
  call("cudaLaunchKernel", 1170, 3, 3);
  kernel("k3", 1175, 5, 3);
  call("cudaStreamSynchronize", 1195, 4, 4);
  t.resize(t.size() - 2);
  return t + "\n]}\n";
}

npu::RunModel load_kineto(bool with_steps) {
  npu::test::TempDir dir;
  return npu::test::load_path(dir.write("t.pt.trace.json", kineto(with_steps)));
}

uint32_t slice_named(const npu::RunModel& m, const std::string& name) {
  for (uint32_t i = 0; i < m.slices.size(); ++i)
    if (m.str(m.slices[i].name) == name) return i;
  ADD_FAILURE() << "no slice " << name;
  return npu::kNone32;
}

TEST(RunFrame, GpuStepsOwnWhatTheyLaunched) {
  const npu::RunModel m = load_kineto(true);
  const RunFrame f(m);
  ASSERT_FALSE(f.pseudo());
  ASSERT_EQ(f.steps().size(), 2u);
  EXPECT_TRUE(f.launched_work());
  EXPECT_EQ(f.assignment(), npu::StepAssignment::LaunchedWork);
  EXPECT_FALSE(f.steps_have_preparing());
  // Step 1's window runs until k2 ends (1160 us); step 2's starts there.
  ASSERT_EQ(f.windows().size(), 2u);
  EXPECT_EQ(f.windows()[0].end, us(1160));
  EXPECT_EQ(f.windows()[1].start, us(1160));
  // k2 starts at 1150 us: in step 2's host span, on the device step 1's.
  EXPECT_EQ(f.step_of_host(us(1150)), 1);
  EXPECT_EQ(f.step_of_device(us(1150)), 0);
  EXPECT_EQ(f.step_of_device(us(1175)), 1);
  EXPECT_EQ(f.step_id_of_host(us(1195)), 2);
  EXPECT_EQ(f.step_of_host(us(900)), -1);
  // Which launch: each kernel's runtime call, by correlation id.
  ASSERT_EQ(f.launched().size(), 3u);
  const uint32_t k2 = slice_named(m, "k2");
  const uint32_t call2 = f.launch_of(k2);
  ASSERT_NE(call2, npu::kNone32);
  EXPECT_EQ(m.slices[call2].ts, us(1090));
  for (const npu::LaunchedOp& op : f.launched())
    if (op.slice == k2) EXPECT_EQ(op.step, 0);
  EXPECT_TRUE(f.launches().by_correlation);
  EXPECT_EQ(f.launches().launches.size(), 3u);
}

// Without a schedule the run is one pseudo-step over everything seen: from the first launch
// (1010 us) to the last host event the frame counts (k3's end, 1180 us, and the launches);
// its device window is the device window (1020 .. 1180 us). Every lookup answers 0.
TEST(RunFrame, WithoutAScheduleOnePseudoStepHoldsTheRun) {
  const npu::RunModel m = load_kineto(false);
  const RunFrame f(m);
  ASSERT_TRUE(f.pseudo());
  ASSERT_EQ(f.steps().size(), 1u);
  EXPECT_EQ(f.steps()[0].id, npu::kNoId);
  EXPECT_EQ(f.steps()[0].start, us(1010));
  EXPECT_EQ(f.steps()[0].end, us(1180));
  ASSERT_EQ(f.windows().size(), 1u);
  EXPECT_EQ(f.windows()[0].start, us(1020));
  EXPECT_EQ(f.windows()[0].end, us(1180));
  EXPECT_EQ(f.windows()[0].launched_tasks, 0u);
  EXPECT_TRUE(f.scheduled_windows().empty());
  for (Ns ts : {us(0), us(1195), us(5000)}) {
    EXPECT_EQ(f.step_of_host(ts), 0);
    EXPECT_EQ(f.step_of_device(ts), 0);
    EXPECT_EQ(f.step_of_launch(ts), 0);
    EXPECT_EQ(f.step_id_of_host(ts), npu::kNoId);
  }
  for (const npu::LaunchedOp& op : f.launched()) EXPECT_EQ(op.step, 0);
}

// Ascend (torch_npu text export): a step's device window starts at its first launched task and
// ends at the later of its last task's end and the host step's end; a task's launch is its
// HostToDevice arrow.
TEST(RunFrame, AscendWindowsAndArrows) {
  auto at = [](double v) { return npu::test::TraceBuilder::kBaseNs + us(v); };  // the builder's clock
  npu::test::TraceBuilder b;
  b.step(1, 0, 1000);
  b.step(2, 1000, 1000);
  b.launch(100, 300, 400);    // step 1: task 300 .. 700
  b.launch(900, 1050, 1000);  // step 1: task 1050 .. 2050, past the step's host end
  b.launch(1100, 2100, 100);  // step 2: task 2100 .. 2200
  const npu::RunModel m = npu::test::load_trace_text(b.json());
  const RunFrame f(m);
  ASSERT_EQ(f.steps().size(), 2u);
  EXPECT_FALSE(f.launched_work());
  EXPECT_EQ(f.assignment(), npu::StepAssignment::SegmentsByStart);
  EXPECT_TRUE(f.steps_have_preparing());
  EXPECT_TRUE(f.host_span_is_step_time());
  EXPECT_EQ(f.windows()[0].start, at(300));
  EXPECT_EQ(f.windows()[0].end, at(2050));
  EXPECT_EQ(f.windows()[0].launched_tasks, 2u);
  EXPECT_EQ(f.windows()[1].start, at(2100));
  // A device event's step is the first window that holds it; a host event's its host span.
  EXPECT_EQ(f.step_of_device(at(1500)), 0);
  EXPECT_EQ(f.step_of_host(at(1500)), 1);
  EXPECT_EQ(f.step_of_device(at(2150)), 1);
  EXPECT_EQ(f.step_of_launch(at(2000)), 1);  // end inclusive, as torch_npu matches launches
  EXPECT_EQ(f.step_of_host(at(2000)), -1);
  const uint32_t task = slice_named(m, "kernel3");
  const uint32_t launch = f.launch_of(task);
  ASSERT_NE(launch, npu::kNone32);
  EXPECT_EQ(m.slices[launch].ts, at(1099));  // the Node@launch slice that holds the arrow's start
  EXPECT_FALSE(f.launches().by_correlation);
  ASSERT_TRUE(f.launches().kind.has_value());
  EXPECT_EQ(*f.launches().kind, npu::FlowKind::HostToDevice);
}

}  // namespace
