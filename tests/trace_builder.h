// A hand-built torch_npu-style trace for facts tests: Python (pid 1), CANN (pid 2) and Ascend
// Hardware (pid 3) events at known times, written as the text export writes them.
#pragma once
#include <cstdio>
#include <string>
#include <vector>

#include "base/types.h"

namespace npu::test {

// Builds a torch_npu-style trace: Python (pid 1), CANN (pid 2), Ascend Hardware (pid 3).
// Times are µs after a base of 1 s, written as 3-decimal strings like real exports.
class TraceBuilder {
 public:
  static constexpr double kBaseUs = 1'000'000;
  static constexpr npu::Ns kBaseNs = 1'000'000'000;

  static std::string ts(double us) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "\"%.3f\"", kBaseUs + us);
    return buf;
  }
  static std::string num(double v) {
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.3f", v);
    return buf;
  }

  void x(int pid, int tid, const std::string& name, double at, double dur, const std::string& cat = "",
         const std::string& args = "") {
    std::string e = "{\"ph\": \"X\", \"name\": \"" + name + "\", \"pid\": " + std::to_string(pid) +
                    ", \"tid\": " + std::to_string(tid) + ", \"ts\": " + ts(at) + ", \"dur\": " + num(dur);
    if (!cat.empty()) e += ", \"cat\": \"" + cat + "\"";
    if (!args.empty()) e += ", \"args\": " + args;
    events_.push_back(e + "}");
  }
  void flow_point(const std::string& cat, const std::string& id, char ph, int pid, int tid, double at) {
    events_.push_back("{\"ph\": \"" + std::string(1, ph) + "\", \"bp\": \"e\", \"name\": \"" + cat + id +
                      "\", \"cat\": \"" + cat + "\", \"id\": \"" + id + "\", \"pid\": " + std::to_string(pid) +
                      ", \"tid\": " + std::to_string(tid) + ", \"ts\": " + ts(at) + "}");
  }
  void step(int id, double at, double dur) { x(1, 1, "ProfilerStep#" + std::to_string(id), at, dur, "cpu_op"); }
  void host_op(const std::string& name, double at, double dur) { x(1, 1, name, at, dur, "cpu_op"); }
  // An AscendCL call on the CANN thread (compile, synchronize, ...).
  void cann(const std::string& name, double at, double dur) { x(2, 2, name, at, dur); }
  // A Python garbage collection on the "Python GC" track (pid 4).
  void gc(double at, double dur) { x(4, 4, "GC", at, dur, "GC"); }
  // A device task with no launch arrow.
  void task(const std::string& name, double start, double dur, const std::string& type = "AI_CORE") {
    x(3, 3, name, start, dur, "", "{\"Task Type\": \"" + type + "\", \"Stream Id\": 3}");
  }
  // Node@launch on the CANN launch thread around `launch`, a HostToDevice arrow from it to a
  // device task that starts at `start`.
  void launch(double launch, double start, double dur, const std::string& name = "kernel") {
    std::string id = std::to_string(++next_id_);
    x(2, 2, "Node@launch", launch - 1, 2);
    flow_point("HostToDevice", id, 's', 2, 2, launch);
    task(name + id, start, dur);
    flow_point("HostToDevice", id, 'f', 3, 3, start);
  }
  // `device_name`: the process name of pid 3 ("" leaves it unnamed: no device timeline).
  std::string json(const std::string& device_name = "Ascend Hardware") const {
    std::string out = "[\n";
    for (const auto& e : events_) out += e + ",\n";
    if (!device_name.empty())
      out += R"({"ph": "M", "name": "process_name", "pid": 3, "tid": 0, "args": {"name": ")" + device_name +
             R"("}},
{"ph": "M", "name": "process_labels", "pid": 3, "tid": 0, "args": {"labels": "NPU 0"}},
)";
    out += R"({"ph": "M", "name": "process_name", "pid": 1, "tid": 0, "args": {"name": "Python"}},
{"ph": "M", "name": "process_name", "pid": 2, "tid": 0, "args": {"name": "CANN"}},
{"ph": "M", "name": "process_name", "pid": 4, "tid": 0, "args": {"name": "Python GC"}},
{"ph": "M", "name": "thread_name", "pid": 3, "tid": 3, "args": {"name": "Stream 3"}}
])";
    return out;
  }

 private:
  std::vector<std::string> events_;
  int next_id_ = 0;
};

}  // namespace npu::test
