// What an input path is: the format that claimed it (loaders/formats.cpp), its kind in words and
// what that format found there. Filled by loaders/registry.cpp, read by every later layer
// (reports name the input, the pipeline treats a cluster apart from a run).
#pragma once
#include <any>
#include <string>
#include <vector>

namespace npu {

// The kind in words of every cluster input, whichever format found it.
inline constexpr const char* kClusterKind = "cluster (several ranks)";

struct Detection {
  std::string format;                // the registered format's name ("torch_npu_text", "msprof", ...)
  std::string kind;                  // the kind in words, as reports print it ("ascend run folder")
  bool cluster = false;              // several runs: the pipeline loads each member (none: only the profiler's
                                     // own cluster analysis is there)
  std::string path;                  // the input: as given, or the one run inside the folder given
  std::string framework;             // "torch_npu", "mindspore", "" when unknown
  std::string description;           // the sniff's reason: one line for `inspect`
  int confidence = 0;                // the sniff's confidence (loaders/format.h)
  std::vector<std::string> members;  // cluster: the rank folders/files, sorted
  std::vector<std::string> files;    // the files the format found (the output guard never writes over them)
  std::any found;                    // what only its format reads back (its folders and files)
};

}  // namespace npu
