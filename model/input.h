// What an input path is: its kind and the files that make it up. Filled by loaders/detect.cpp,
// read by every later layer (reports name the input, the pipeline dispatches on the kind).
#pragma once
#include <string>
#include <vector>

namespace npu {

enum class InputKind {
  AscendRun,        // a *_ascend_pt / *_ascend_ms folder (or its ASCEND_PROFILER_OUTPUT/)
  TraceFile,        // one Chrome-format trace: trace_view.json, msprof_*.json, *.pt.trace.json[.gz]
  Cluster,          // a parent folder of several rank folders
  AscendDb,         // SQLite export: a *.db file, or an ASCEND_PROFILER_OUTPUT holding only .db files
  MsprofFolder,     // one msprof PROF_* folder (mindstudio_profiler_output/, msprof_*.db, or the
                    // older device_N/timeline/ layout)
  MindSporeLegacy,  // MindSpore 1.x/2.0 profiler/ folder (ascend_timeline_display_N.json + raw dumps)
};
const char* to_string(InputKind k);

struct Detection {
  InputKind kind = InputKind::AscendRun;
  std::string path;        // as given
  std::string run_dir;     // AscendRun: the run folder (holds profiler_info*.json), may be empty
  std::string output_dir;  // AscendRun: ASCEND_PROFILER_OUTPUT (or the folder holding the files)
  std::string trace_file;  // TraceFile
  // AscendRun from one lone CSV: its path and the file it stands for ("kernel_details.csv").
  std::string single_file, single_role;
  std::string framework;  // "torch_npu", "mindspore", "" when unknown
  // AscendDb: the profiler database and analysis.db / communication_analyzer.db (either may be
  // empty). MindSporeLegacy: trace_file is ascend_timeline_display_N.json.
  std::string db_file, analysis_db;
  std::vector<std::string> members;  // Cluster: the rank folders/files, sorted
  std::string description;           // one line for `inspect`
};

}  // namespace npu
