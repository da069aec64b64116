// A hand-built Kineto trace as text for facts tests: a Python process (pid 1, thread 1) and GPU 0
// (stream 7), events at known times in us (tests/facts/job_test.cpp, inference_test.cpp).
#pragma once
#include <string>

#include "facts/diagnostics/diagnostics.h"
#include "test_support.h"

namespace npu::test::kineto {

// The trace's opening and its metadata; with a ProfilerStep#1 over [1000, 1000 + step_us) when
// step_us > 0.
inline std::string header(double step_us = 0, const std::string& step = "ProfilerStep#1") {
  std::string h = R"({"schemaVersion": 1, "traceEvents": [
  {"name": "process_name", "ph": "M", "pid": 1, "tid": 0, "args": {"name": "python3"}},
  {"name": "process_labels", "ph": "M", "pid": 0, "tid": 0, "args": {"labels": "GPU 0"}},
)";
  if (step_us > 0)
    h += R"(  {"ph": "X", "cat": "user_annotation", "name": ")" + step +
         R"(", "pid": 1, "tid": 1, "ts": 1000, "dur": )" + std::to_string(step_us) + "},\n";
  return h;
}

// A host event of category `cat`; a runtime call carries its correlation id (corr > 0).
inline std::string host(const char* cat, const std::string& name, double ts, double dur, int corr = 0) {
  std::string s = R"(  {"ph": "X", "cat": ")" + std::string(cat) + R"(", "name": ")" + name +
                  R"(", "pid": 1, "tid": 1, "ts": )" + std::to_string(ts) + R"(, "dur": )" + std::to_string(dur);
  if (corr > 0) s += R"(, "args": {"correlation": )" + std::to_string(corr) + "}";
  return s + "},\n";
}

inline std::string kernel(const std::string& name, double ts, double dur, int corr) {
  return R"(  {"ph": "X", "cat": "kernel", "name": ")" + name + R"(", "pid": 0, "tid": 7, "ts": )" +
         std::to_string(ts) + R"(, "dur": )" + std::to_string(dur) + R"(, "args": {"correlation": )" +
         std::to_string(corr) + R"(, "device": 0, "stream": 7}},
)";
}

inline std::string close(std::string body) {
  body.resize(body.size() - 2);  // the last ",\n"
  return body + "\n]}\n";
}

inline npu::Facts facts_of(const std::string& trace) {
  npu::test::TempDir dir;
  return npu::compute_facts(npu::test::load_path(dir.write("t.pt.trace.json", trace)));
}

}  // namespace npu::test::kineto
