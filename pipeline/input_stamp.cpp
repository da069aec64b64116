#include "pipeline/input_stamp.h"

namespace npu::pipeline {

void stamp_input(Facts& facts, const std::string& path, const Detection& d) {
  facts.doc["input"] = {{"path", path}, {"kind", to_string(d.kind)}, {"description", d.description}};
}

}  // namespace npu::pipeline
