#include "model/input.h"

namespace npu {

const char* to_string(InputKind k) {
  switch (k) {
    case InputKind::AscendRun: return "ascend run folder";
    case InputKind::TraceFile: return "trace file";
    case InputKind::Cluster: return "cluster (several ranks)";
    case InputKind::AscendDb: return "SQLite export";
    case InputKind::MsprofFolder: return "msprof PROF_ folder";
    case InputKind::MindSporeLegacy: return "MindSpore legacy profiler folder";
  }
  return "?";
}

}  // namespace npu
