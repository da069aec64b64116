// The roofline pass's pieces (roofline.cpp writes the facts; roofline_ops.cpp finds each
// operator's instances, time and work). Only facts/roofline includes it.
#pragma once
#include <array>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "facts/diagnostics/diagnostics.h"
#include "facts/roofline/op_model.h"
#include "facts/roofline/peaks.h"

namespace npu::roofline {

// One operator instance: its group key, what it did and how long its device work took.
struct OpRun {
  StrId op = kEmptyStr, shapes = kEmptyStr, types = kEmptyStr, formats = kEmptyStr;
  std::string precision;
  const OpWork* work = nullptr;
  Ns time = 0;
  int step = -1;       // in frame.steps()
  uint64_t loc = 0;    // GPU: the host operator's event
  int32_t file = -1;   // GPU, a replayed kernel's operator: the capture trace `loc` is in (else the trace)
  uint32_t line = 0;   // Ascend: the kernel_details row
};

// The share of compute time with a model, and why the rest has none.
struct Coverage {
  Ns compute_ns = 0, modelled_ns = 0;
  struct Reason {
    uint64_t count = 0;
    Ns ns = 0;
  };
  std::map<std::string, Reason> why;
  void miss(const std::string& reason, Ns t) {
    Reason& r = why[reason];
    ++r.count;
    r.ns += t;
  }
};

// Models computed once per distinct (op, inputs): keyed by the interned strings, so a run of
// millions of kernels builds no key text.
class WorkCache {
 public:
  using Key = std::array<StrId, 6>;
  const OpWork* get(const Key& key) const {
    auto it = cache_.find(key);
    return it == cache_.end() ? nullptr : it->second.get();
  }
  const OpWork* put(const Key& key, OpWork w) { return (cache_[key] = std::make_unique<OpWork>(std::move(w))).get(); }

 private:
  std::map<Key, std::unique_ptr<OpWork>> cache_;
};

// GPU: an operator's model from its recorded inputs (cached); the precision a GEMM kernel ran in.
// (The operator around each runtime call: DiagnosticContext::ops_of_calls, launching_ops.h.)
const OpWork* torch_work(const RunModel& m, const Slice& op, WorkCache& cache);
std::string gpu_precision(GemmPrecision p, const std::string& dtype);

std::vector<OpRun> gpu_op_runs(const DiagnosticContext& ctx, WorkCache& cache, Coverage& cov);
std::vector<OpRun> ascend_op_runs(const DiagnosticContext& ctx, WorkCache& cache, Coverage& cov);

}  // namespace npu::roofline
