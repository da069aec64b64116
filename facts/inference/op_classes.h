// What a serving iteration's device op does, in the classes an LLM's time splits into
// (docs/facts-inference.md, "Graph replays opened up"): attention, MoE, dense GEMM, norm, KV
// write, sampler, other. One table (op_classes.cpp) of name fragments per class, read against
// the host operators around the op's launch (a replayed kernel's: those its capture recorded),
// outermost first, then the kernel's own name: the first name a fragment matches decides.
#pragma once
#include <array>
#include <cstdint>
#include <string_view>

namespace npu {

enum class OpClass : uint8_t { Attention, Moe, DenseGemm, Norm, KvWrite, Sampler, Other };
inline constexpr size_t kOpClasses = 7;
const char* to_string(OpClass c);

// `op`: the outermost host operator around the launch, `leaf_op`: the innermost, `kernel`: the
// device op's name; any may be empty.
OpClass classify_op(std::string_view op, std::string_view leaf_op, std::string_view kernel);

}  // namespace npu
