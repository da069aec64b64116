// The roofline's operator models and device peaks (facts/roofline/, docs/facts-roofline.md), with
// hand-worked figures.
#include <gtest/gtest.h>

#include "facts/roofline/op_model.h"
#include "facts/roofline/peaks.h"

namespace {

using namespace npu::roofline;

TEST(RooflineModel, AddmmIsTwoMknWithItsBias) {
  std::vector<Shape> in;
  ASSERT_TRUE(parse_kineto_dims("[[8192], [8192, 8192], [8192, 8192], [], []]", &in));
  ASSERT_EQ(in.size(), 5u);
  const OpWork w = model_torch_op("aten::addmm", in, parse_kineto_types(R"(["c10::BFloat16", "c10::BFloat16",
    "c10::BFloat16", "Scalar", "Scalar"])"));
  ASSERT_TRUE(w.modelled) << w.why;
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 8192 * 8192 * 8192);
  EXPECT_DOUBLE_EQ(w.bytes, 2.0 * (3.0 * 8192 * 8192 + 8192));  // A, B, C and the bias, bf16
  EXPECT_EQ(w.dtype, "bf16");
}

TEST(RooflineModel, LinearFoldsLeadingDimsIntoRows) {
  std::vector<Shape> in;
  ASSERT_TRUE(parse_kineto_dims("[[4, 128, 1024], [4096, 1024], [4096]]", &in));
  const OpWork w = model_torch_op("aten::linear", in, {"float", "float", "float"});
  ASSERT_TRUE(w.modelled);
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 512 * 1024 * 4096);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (512.0 * 1024 + 4096.0 * 1024 + 512.0 * 4096 + 4096));
}

TEST(RooflineModel, ContradictoryShapesAreRefusedNotGuessed) {
  std::vector<Shape> in = {{64, 128}, {256, 32}};
  const OpWork w = model_torch_op("aten::mm", in, {"float", "float"});
  EXPECT_FALSE(w.modelled);
  EXPECT_NE(w.why.find("contradictory shapes"), std::string::npos) << w.why;
  EXPECT_EQ(model_torch_op("aten::softmax", in, {"float"}).why, "op without a model");
  EXPECT_FALSE(parse_kineto_dims("[[[1, 2], [3]], [4]]", &in));  // a TensorList: not read
}

// MatMulV2 with a transposed B ("32,9216;4096,9216;4096" -> 32,4096): K from A, checked in B.
TEST(RooflineModel, AscendMatmulTakesMAndNFromItsOutput) {
  std::vector<Shape> in, out;
  ASSERT_TRUE(parse_ascend_shapes("32,9216;4096,9216;4096", &in));
  ASSERT_TRUE(parse_ascend_shapes("32,4096", &out));
  const OpWork w = model_ascend_op("MatMulV2", in, out, {"FLOAT", "FLOAT", "FLOAT"}, {"FLOAT"},
                                   {"FORMAT_ND", "FORMAT_ND", "FORMAT_ND"});
  ASSERT_TRUE(w.modelled) << w.why;
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 32 * 9216 * 4096);
  EXPECT_DOUBLE_EQ(w.bytes, 4.0 * (32.0 * 9216 + 4096.0 * 9216 + 4096 + 32.0 * 4096));
  EXPECT_NEAR(w.flops / w.bytes, 15.82, 0.01);  // memory-bound on any Cube rate
  ASSERT_TRUE(parse_ascend_shapes("32,9216;4000,9216", &in));
  EXPECT_FALSE(model_ascend_op("MatMulV2", in, out, {"FLOAT", "FLOAT"}, {"FLOAT"}, {}).modelled);
}

// Conv2D 11x11 of AlexNet's first layer: 5HD x (C0 8, 3 channels padded to 8), FRACTAL_Z weight
// (1 x 11 x 11, 64/16, 16, 8): 2 x N x Ho x Wo x (121 x 4 x 16 x 8) hardware FLOPs.
TEST(RooflineModel, AscendConvCountsThePaddedWeight) {
  std::vector<Shape> in, out;
  ASSERT_TRUE(parse_ascend_shapes("32,1,224,224,8;121,4,16,8;64", &in));
  ASSERT_TRUE(parse_ascend_shapes("32,8,55,55,8", &out));
  const OpWork w = model_ascend_op("Conv2D", in, out, {"FLOAT", "FLOAT", "FLOAT"}, {"FLOAT"},
                                   {"NC1HWC0", "FRACTAL_Z", "NCHW"});
  ASSERT_TRUE(w.modelled) << w.why;
  EXPECT_DOUBLE_EQ(w.flops, 2.0 * 32 * 55 * 55 * (121.0 * 4 * 16 * 8));
  // The backprop filter: its weight is the output, Ho x Wo from dy.
  ASSERT_TRUE(parse_ascend_shapes("32,1,224,224,8;4;32,8,55,55,8", &in));
  ASSERT_TRUE(parse_ascend_shapes("121,4,16,8", &out));
  const OpWork b = model_ascend_op("Conv2DBackpropFilter", in, out, {"FLOAT", "INT32", "FLOAT"}, {"FLOAT"},
                                   {"NC1HWC0", "NCHW", "NC1HWC0"});
  EXPECT_DOUBLE_EQ(b.flops, w.flops);
  // A weight of 32 output channels for an output of 64: refused.
  ASSERT_TRUE(parse_ascend_shapes("32,1,224,224,8;121,2,16,8;64", &in));
  ASSERT_TRUE(parse_ascend_shapes("32,8,55,55,8", &out));
  EXPECT_FALSE(model_ascend_op("Conv2D", in, out, {"FLOAT", "FLOAT", "FLOAT"}, {"FLOAT"},
                               {"NC1HWC0", "FRACTAL_Z", "NCHW"})
                   .modelled);
}

npu::RunModel gpu_run(const std::string& name, int sms, double mem) {
  npu::RunModel m;
  m.meta.platform = "gpu";
  m.meta.config["gpu_name"] = name;
  m.meta.config["gpu_sms"] = std::to_string(sms);
  m.meta.config["gpu_memory_bytes"] = std::to_string(static_cast<int64_t>(mem));
  return m;
}

TEST(RooflinePeaks, GpusMatchByNameSmsAndMemory) {
  const auto& t = builtin_peaks();
  EXPECT_EQ(device_peaks(gpu_run("NVIDIA H100 80GB HBM3", 132, 85e9), t).id, "nvidia-h100-sxm");
  EXPECT_EQ(device_peaks(gpu_run("NVIDIA H100 PCIe", 114, 85e9), t).id, "nvidia-h100-pcie");
  EXPECT_EQ(device_peaks(gpu_run("NVIDIA A100-SXM4-40GB", 108, 42e9), t).id, "nvidia-a100-40gb");
  EXPECT_EQ(device_peaks(gpu_run("NVIDIA A100-SXM4-80GB", 108, 85e9), t).id, "nvidia-a100-sxm-80gb");
  const DevicePeaks h200 = device_peaks(gpu_run("NVIDIA H200", 132, 150e9), t);
  EXPECT_DOUBLE_EQ(h200.peak("bf16"), 989.4e12);
  EXPECT_DOUBLE_EQ(h200.bytes_per_s, 4.8e12);
  const DevicePeaks unknown = device_peaks(gpu_run("NVIDIA GeForce RTX 4090", 128, 25e9), t);
  EXPECT_FALSE(unknown.known);
  EXPECT_NE(unknown.why.find("--peaks"), std::string::npos);
}

}  // namespace
