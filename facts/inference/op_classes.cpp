#include "facts/inference/op_classes.h"

#include <algorithm>
#include <cctype>
#include <string>
#include <vector>

namespace npu {
namespace {

struct ClassRule {
  OpClass cls;
  std::vector<std::string_view> fragments;  // lower case
};

// In order: a name that holds fragments of several classes is the first one's. MoE first (its
// routing top-k and its expert GEMMs are the MoE layer's); the KV write before attention (vLLM's
// unified_kv_cache_update sits beside unified_attention); dense GEMM last (a MoE's expert
// matmul is a GEMM too, but the MoE's).
const std::vector<ClassRule>& rules() {
  static const std::vector<ClassRule> r = {
      {OpClass::Moe, {"moe", "expert", "grouped_topk", "topk_softmax"}},
      {OpClass::KvWrite, {"kv_cache", "reshape_and_cache", "cache_update", "store_kvcache", "set_kv_buffer",
                          "scatter_pa_kv"}},
      {OpClass::Attention, {"attention", "attn", "flash", "fmha", "sdpa", "paged"}},
      {OpClass::Norm, {"norm"}},
      {OpClass::Sampler, {"sampl", "argmax", "multinomial", "top_k_top_p", "topk_topp", "logprobs"}},
      {OpClass::DenseGemm, {"gemm", "aten::mm", "aten::addmm", "aten::linear", "aten::matmul", "aten::bmm",
                            "aten::baddbmm", "cijk_", "nvjet", "cutlass", "matmul"}},
  };
  return r;
}

bool classify_name(std::string_view name, OpClass& out) {
  if (name.empty()) return false;
  std::string low(name);
  std::transform(low.begin(), low.end(), low.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  for (const ClassRule& r : rules())
    for (std::string_view f : r.fragments)
      if (low.find(f) != std::string::npos) {
        out = r.cls;
        return true;
      }
  return false;
}

}  // namespace

const char* to_string(OpClass c) {
  switch (c) {
    case OpClass::Attention: return "attention";
    case OpClass::Moe: return "moe";
    case OpClass::DenseGemm: return "dense_gemm";
    case OpClass::Norm: return "norm";
    case OpClass::KvWrite: return "kv_write";
    case OpClass::Sampler: return "sampler";
    case OpClass::Other: break;
  }
  return "other";
}

OpClass classify_op(std::string_view op, std::string_view leaf_op, std::string_view kernel) {
  OpClass c = OpClass::Other;
  for (std::string_view n : {op, leaf_op, kernel})
    if (classify_name(n, c)) return c;
  return OpClass::Other;
}

}  // namespace npu
