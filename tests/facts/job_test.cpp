// The job's context (facts.job), the user's call sites from with_stack frames
// (facts/python_stacks.h) and the steps of a GPU trace without ProfilerStep
// (RunModel::derive_iteration_steps), on small Kineto traces whose answers are read off them.
#include <map>

#include <gtest/gtest.h>

#include "facts/diagnostics/diagnostics.h"
#include "kineto_text.h"
#include "test_support.h"

namespace {

using nlohmann::json;

using npu::test::kineto::close;
using npu::test::kineto::facts_of;
using npu::test::kineto::host;
using npu::test::kineto::kernel;

std::string header(bool profiler_step = true) { return npu::test::kineto::header(profiler_step ? 100 : 0); }

// A forward only: aten ops and a kernel, no optimizer step, no backward: inference.
TEST(Job, AtenOpsWithoutTrainingAreInference) {
  std::string t = header();
  t += host("cpu_op", "aten::linear", 1010, 20);
  t += host("cuda_runtime", "cudaLaunchKernel", 1012, 5, 1);
  t += kernel("gemm", 1020, 10, 1);
  const json j = facts_of(close(t)).doc["job"];
  EXPECT_EQ(j["training"], false) << j.dump();
  EXPECT_EQ(j["framework_ops"], 1);
  EXPECT_TRUE(j["optimizer"].is_null());
  EXPECT_EQ(j["python_stacks"], false);
}

// Runtime calls only (no framework operator was recorded): nothing says it is inference.
TEST(Job, RuntimeCallsAloneTellNothing) {
  std::string t = header();
  t += host("cuda_runtime", "cudaLaunchKernel", 1012, 5, 1);
  t += kernel("gemm", 1020, 10, 1);
  EXPECT_TRUE(facts_of(close(t)).doc["job"]["training"].is_null());
}

// An AdamW step whose update ran as foreach ops inside it, a backward op, a DataLoader fetch
// with workers and DDP's forward: each recorded, with its evidence.
TEST(Job, TrainingOptimizerDataLoaderAndDdp) {
  std::string t = header();
  t += host("user_annotation", "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__", 1001, 3);
  t += host("user_annotation", "DistributedDataParallel.forward", 1005, 20);
  t += host("cpu_op", "aten::linear", 1006, 10);
  t += host("cpu_op", "autograd::engine::evaluate_function: AddmmBackward0", 1030, 10);
  t += host("user_annotation", "Optimizer.step#AdamW.step", 1050, 30);
  t += host("cpu_op", "aten::_foreach_lerp_", 1055, 5);
  const json j = facts_of(close(t)).doc["job"];
  EXPECT_EQ(j["training"], true) << j.dump();
  EXPECT_EQ(j["optimizer"], "AdamW");
  EXPECT_EQ(j["optimizer_impl"], "foreach");
  EXPECT_EQ(j["dataloader"], "workers");
  EXPECT_EQ(j["data_parallel"], "ddp");
  EXPECT_EQ(j["optimizer_steps"], 1);
  EXPECT_EQ(j["backward_ops"], 1);
  EXPECT_EQ(j["evidence"].size(), 3u);  // the step, the fetch, the wrapper
}

// A foreach op outside the step (gradient clipping) does not make the step a foreach one; a
// fused op does make it fused.
TEST(Job, OptimizerImplementationFromTheOpsInsideTheStep) {
  std::string t = header();
  t += host("cpu_op", "aten::_foreach_norm", 1005, 5);
  t += host("user_annotation", "Optimizer.step#SGD.step", 1050, 30);
  EXPECT_EQ(facts_of(close(t)).doc["job"]["optimizer_impl"], "for_loop");
  std::string f = header();
  f += host("user_annotation", "Optimizer.step#Adam.step", 1050, 30);
  f += host("cpu_op", "aten::_fused_adam_", 1055, 5);
  EXPECT_EQ(facts_of(close(f)).doc["job"]["optimizer_impl"], "fused");
}

// A step captured whole in a CUDA graph: the host shows a graph launch only; the replayed
// kernels show the optimizer's update (foreach add with alpha), so it trains. A graph of copies
// only says nothing.
TEST(Job, AGraphReplayedStepIsKnownByItsOptimizerKernels) {
  std::string t = header();
  t += host("cuda_runtime", "cudaGraphLaunch", 1010, 5, 1);
  t += kernel(
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<3>, "
      "BinaryOpListAlphaFunctor<float, 3, 2, 0>, std::plus<float>, float>()",
      1020, 10, 1);
  EXPECT_EQ(facts_of(close(t)).doc["job"]["training"], true);
  std::string c = header();
  c += host("cpu_op", "aten::copy_", 1005, 3);
  c += host("cuda_runtime", "cudaGraphLaunch", 1010, 5, 1);
  c += kernel(
      "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<TensorListMetadata<2>, "
      "CopyFunctor<int, long, 2, 1, 1>>()",
      1020, 10, 1);
  EXPECT_TRUE(facts_of(close(c)).doc["job"]["training"].is_null());
}

// with_stack: the script's <module> frame makes train.py the user's file; an .item() in its
// step() (two per step: the sync call inside the built-in method, inside the frame) is named
// there; torch's own frames never are.
TEST(CallSites, SyncsAreNamedAtTheUsersFrame) {
  std::string t = header();
  t += host("python_function", "train.py(1): <module>", 900, 300);
  t += host("python_function", "train.py(10): step", 1005, 90);
  for (int i = 0; i < 2; ++i) {
    const double at = 1010 + 40 * i;
    t += host("python_function", "<built-in method item of Tensor object at 0x7f00>", at, 20);
    t += host("cpu_op", "aten::item", at + 1, 18);
    t += host("python_function", "torch/_tensor.py(100): __hash__", at + 2, 1);
    t += host("cuda_runtime", "cudaStreamSynchronize", at + 5, 10);
  }
  const npu::Facts f = facts_of(close(t));
  const json& sites = f.doc["gpu"]["syncs"]["call_sites"];
  ASSERT_EQ(sites.size(), 1u) << f.doc["gpu"]["syncs"].dump();
  EXPECT_EQ(sites[0]["site"], "train.py:10 step()");
  EXPECT_EQ(sites[0]["call"], ".item()");
  EXPECT_EQ(sites[0]["count"], 2);
  EXPECT_EQ(sites[0]["ns"], 20'000);
  EXPECT_EQ(f.doc["job"]["python_stacks"], true);
}

// A sync made inside a module's forward names the module path (as the modules facts write it),
// whether the module range is above the user's frame or below it; one outside every module has none.
TEST(CallSites, SyncsNameTheModulesAroundThem) {
  std::string t = header();
  t += host("python_function", "train.py(1): <module>", 900, 300);
  t += host("python_function", "train.py(10): step", 1005, 190);
  t += host("python_function", "nn.Module: Model_0", 1006, 100);
  t += host("python_function", "nn.Module: Block_3", 1008, 90);
  t += host("python_function", "train.py(40): forward", 1009, 80);
  t += host("python_function", "<built-in method item of Tensor object at 0x7f00>", 1010, 20);
  t += host("cuda_runtime", "cudaStreamSynchronize", 1015, 10);
  t += host("python_function", "<built-in method item of Tensor object at 0x7f00>", 1150, 20);
  t += host("cuda_runtime", "cudaStreamSynchronize", 1155, 10);
  const npu::Facts f = facts_of(close(t));
  const json& sites = f.doc["gpu"]["syncs"]["call_sites"];
  ASSERT_EQ(sites.size(), 2u) << f.doc["gpu"]["syncs"].dump();
  std::map<std::string, json> by_site;
  for (const auto& s : sites) by_site[s["site"].get<std::string>()] = s["modules"];
  EXPECT_EQ(by_site["train.py:40 forward()"], json::array({"Model_0/Block_3"}));
  EXPECT_EQ(by_site["train.py:10 step()"], json::array());
}

// Without stacks the lists are empty, not absent.
TEST(CallSites, EmptyWithoutStacks) {
  std::string t = header();
  t += host("cuda_runtime", "cudaStreamSynchronize", 1010, 10);
  EXPECT_EQ(facts_of(close(t)).doc["gpu"]["syncs"]["call_sites"], json::array());
}

// No ProfilerStep: three outermost record_function ranges that fill their span are the steps
// (a range nested inside them is not); the run says so. Each lasts until the next one starts
// (100 us apart: the loop's period), the last one its own 95 us.
TEST(IterationSteps, RepeatedRecordFunctionRangesAreTheSteps) {
  std::string t = header(false);
  for (int i = 0; i < 3; ++i) {
    const double at = 1000 + 100 * i;
    t += host("user_annotation", "decode_step", at, 95);
    t += host("user_annotation", "attention", at + 10, 20);
    t += host("cuda_runtime", "cudaLaunchKernel", at + 12, 5, i + 1);
    t += kernel("k", at + 20, 10, i + 1);
  }
  const npu::RunModel m = [&] {
    npu::test::TempDir dir;
    return npu::test::load_path(dir.write("t.pt.trace.json", close(t)));
  }();
  ASSERT_EQ(m.steps.size(), 3u);
  EXPECT_EQ(m.steps[1].id, 2);
  EXPECT_EQ(m.steps[1].start, 1'100'000);
  EXPECT_EQ(m.steps[1].end, 1'200'000);
  EXPECT_EQ(m.steps[2].end, 1'295'000);
  EXPECT_EQ(m.meta.step_source, "record_function 'decode_step'");
}

// A compiled decode loop: each token's range is a 30 us host call replaying a CUDA graph whose
// kernel runs 300 us; the loop samples on the host for 150 us after it (period 500 us). The
// ranges' host time is 6% of their span, their extents with the launched work 60%: they are the
// steps, each 500 us (the sampling is its token's). After the fourth, a 1 ms break (another
// request's set-up; the extents still cover 2310 of the 4330 us span) is in no step: the fourth
// step ends with its own range (its window with its kernel); the break is over twice the
// median period (500 us).
TEST(IterationSteps, GraphReplayRangesCountWithTheirLaunchedWork) {
  std::string t = header(false);
  for (int i = 0; i < 7; ++i) {
    const double at = 1000 + 500 * i + (i >= 4 ? 1000 : 0);
    t += host("user_annotation", "## Call CompiledFxGraph x ##", at, 30);
    t += host("cuda_runtime", "cudaGraphLaunch", at + 5, 20, i + 1);
    t += kernel("fused", at + 30, 300, i + 1);
    t += host("cpu_op", "aten::argmax", at + 350, 150);
  }
  npu::test::TempDir dir;
  const npu::RunModel m = npu::test::load_path(dir.write("t.pt.trace.json", close(t)));
  ASSERT_EQ(m.steps.size(), 7u);
  EXPECT_EQ(m.meta.step_source, "record_function '## Call CompiledFxGraph x ##'");
  EXPECT_EQ(m.steps[0].end - m.steps[0].start, 500'000);
  EXPECT_EQ(m.steps[3].end - m.steps[3].start, 30'000);  // before the break: its own range
  EXPECT_EQ(m.steps[4].start, 4'000'000);
  EXPECT_EQ(m.steps[4].end - m.steps[4].start, 500'000);
  EXPECT_EQ(m.steps[6].end - m.steps[6].start, 30'000);  // the last one
}

// A range around a small part of each iteration (10 us of every 100) is not the step; nor are
// two repeats; the whole trace stays one step.
TEST(IterationSteps, ShortOrRareRangesAreNotSteps) {
  std::string t = header(false);
  for (int i = 0; i < 4; ++i) t += host("user_annotation", "wrapper", 1000 + 100 * i, 10);
  t += host("user_annotation", "twice", 2000, 100);
  t += host("user_annotation", "twice", 2100, 100);
  t += host("cuda_runtime", "cudaLaunchKernel", 1002, 5, 1);
  t += kernel("k", 1010, 10, 1);
  npu::test::TempDir dir;
  const npu::RunModel m = npu::test::load_path(dir.write("t.pt.trace.json", close(t)));
  EXPECT_TRUE(m.steps.empty());
  EXPECT_EQ(m.meta.step_source, "");
}

// with_stack, no ProfilerStep: the outermost module's forwards (one per token in a decode loop)
// are the steps; an inner module is not.
TEST(IterationSteps, TopModuleForwardsAreTheStepsOfADecodeLoop) {
  std::string t = header(false);
  for (int i = 0; i < 4; ++i) {
    const double at = 1000 + 50 * i;
    t += host("python_function", "nn.Module: GPT2LMHeadModel_0", at, 45);
    t += host("python_function", "nn.Module: GPT2Block_0", at + 5, 30);
    t += host("cuda_runtime", "cudaLaunchKernel", at + 6, 5, i + 1);
    t += kernel("k", at + 15, 10, i + 1);
  }
  npu::test::TempDir dir;
  const npu::RunModel m = npu::test::load_path(dir.write("t.pt.trace.json", close(t)));
  ASSERT_EQ(m.steps.size(), 4u);
  EXPECT_EQ(m.meta.step_source, "nn.Module forward 'GPT2LMHeadModel_0'");
}

// With ProfilerStep the ranges change nothing.
TEST(IterationSteps, ProfilerStepWins) {
  std::string t = header(true);
  for (int i = 0; i < 3; ++i) t += host("user_annotation", "decode_step", 1000 + 30 * i, 25);
  npu::test::TempDir dir;
  const npu::RunModel m = npu::test::load_path(dir.write("t.pt.trace.json", close(t)));
  ASSERT_EQ(m.steps.size(), 1u);
  EXPECT_EQ(m.meta.step_source, "ProfilerStep#N");
}

}  // namespace
