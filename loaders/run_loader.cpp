#include "loaders/run_loader.h"

#include "base/load_error.h"
#include "loaders/format.h"
#include "loaders/hccl_task_args.h"
#include "loaders/run_communication.h"

namespace npu {

RunModel load_run(const Detection& d, const LoadOptions& opt) {
  const InputFormat* format = find_input_format(d.format);
  if (!format) throw LoadError::whole_file(d.path, "no input format named \"" + d.format + "\" is registered");
  if (format->cluster || !format->load)
    throw LoadError::whole_file(d.path, "is a cluster: load each member on its own");
  RunModel model;
  format->load(d, model, opt);
  model.finalize();
  load_hccl_task_args(model);  // needs the final slice order
  load_run_communication(d, model);
  if (format->finish) format->finish(d, model);
  return model;
}

}  // namespace npu
