// The registry: every input format, one line each (docs/adding-a-format.md). The order does
// not decide anything (the most confident sniff does); it is the order `inspect` would list them.
#include "loaders/chrome_trace/format.h"
#include "loaders/cluster/format.h"
#include "loaders/db/format.h"
#include "loaders/mindspore_legacy/format.h"
#include "loaders/msprof/format.h"
#include "loaders/torch_npu_text/format.h"

namespace npu {

std::vector<InputFormat>& registered_formats() {
  static std::vector<InputFormat> formats = {
      torch_npu_text_format(),          sqlite_format(),       msprof_format(),
      mindspore_legacy_format(),        chrome_trace_format(), cluster_format(),
      cluster_analysis_output_format(),
  };
  return formats;
}

}  // namespace npu
