// FLOPs and bytes of one operator from the shapes its profiler recorded (docs/facts-roofline.md):
// the GEMM family, convolutions and their backprops (Ascend 5HD / FRACTAL_Z, C0 padding
// included: hardware FLOPs), and bytes-only models for elementwise ops, copies and format
// conversions. Shapes that contradict each other are refused with the reason, never guessed.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace npu::roofline {

using Shape = std::vector<int64_t>;

// What an operator did, or why it has no model.
struct OpWork {
  bool modelled = false;
  double flops = 0;  // 0 for bytes-only models
  double bytes = 0;  // every input read once and every output written once
  const char* kind = "";  // "gemm", "conv", "bytes_only"
  std::string why;        // when !modelled: "op without a model", "contradictory shapes: ..."
  int elem_bytes = 0;     // of the operands (the first floating input)
  std::string dtype;      // "bf16", "fp16", "fp32", "fp8", "int8" ("" when unknown)
};

// Kineto "Input Dims" ([[8192, 8192], [8192], []]) and "Input type" (["c10::BFloat16", ...]) as
// recorded. False when the text is not such a list (nested tensor lists are not read).
bool parse_kineto_dims(std::string_view text, std::vector<Shape>* out);
std::vector<std::string> parse_kineto_types(std::string_view text);
// Ascend "32,9216;4096,9216;4096" (a ';' per tensor, "" for a scalar); "FLOAT;FLOAT16" alike.
bool parse_ascend_shapes(std::string_view text, std::vector<Shape>* out);
std::vector<std::string> split_list(std::string_view text, char sep);

// The size of one element of a Kineto or Ascend data type, and its class ("bf16", "fp32", ...);
// 0 / "" when unknown.
int dtype_bytes(std::string_view type);
std::string dtype_class(std::string_view type);

// A PyTorch operator (aten::mm, addmm, bmm, baddbmm, linear, matmul; elementwise and copies
// bytes-only) from its Kineto inputs.
OpWork model_torch_op(std::string_view name, const std::vector<Shape>& in, const std::vector<std::string>& types);
// An Ascend kernel_details row (MatMulV2/V3, BatchMatMul(V2), Conv2D and its backprops; bytes-only
// elementwise, Cast, TransData) from its shapes, data types and formats.
OpWork model_ascend_op(std::string_view type, const std::vector<Shape>& in, const std::vector<Shape>& out,
                       const std::vector<std::string>& in_types, const std::vector<std::string>& out_types,
                       const std::vector<std::string>& in_formats);

}  // namespace npu::roofline
