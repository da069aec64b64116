// profiler_info[_{rank}].json and profiler_metadata.json: how the run was profiled and the
// environment it ran in.
#include <charconv>
#include <filesystem>
#include <regex>

#include "base/json_file.h"
#include "base/text.h"
#include "loaders/parallel_groups.h"
#include "loaders/torch_npu_text/ascend_files.h"

namespace npu {

void load_profiler_info(const std::string& path, RunModel& model) {
  nlohmann::json j = read_json_file(path);
  // The rank is the integer in the file name (profiler_info_3.json), as the profiler's own
  // cluster tools read it; rank_id inside the file is only a fallback.
  static const std::regex kRankName(R"(profiler_info_(\d+)\.json)");
  std::smatch m;
  std::string name = std::filesystem::path(path).filename().string();
  if (std::regex_match(name, m, kRankName)) {
    std::string digits = m[1].str();
    int rank = -1;
    auto [p, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
    if (ec == std::errc() && p == digits.data() + digits.size()) {
      model.meta.rank = rank;
    } else {
      model.stats.warnings.push_back(path + ": rank " + digits + " in the file name is out of range; rank unknown");
    }
  } else if (j.is_object() && j.contains("rank_id") && j["rank_id"].is_number_integer()) {
    if (auto rank = json_small_id(j["rank_id"])) model.meta.rank = *rank;
    else if (j["rank_id"] != -1)  // -1: not a distributed run
      model.stats.warnings.push_back(path + ": rank_id " + j["rank_id"].dump() + " is out of range; rank unknown");
  }
  if (!j.is_object()) return;
  if (j.contains("config") && j["config"].is_object()) {
    const auto& cfg = j["config"];
    if (cfg.contains("common_config") && cfg["common_config"].is_object()) {
      for (auto& [k, v] : cfg["common_config"].items()) {
        if (k == "on_trace_ready" && v.is_object() && v.contains("_worker_name"))
          model.meta.worker_name = json_scalar_text(v["_worker_name"]);
        model.meta.config[text::clip(k)] = json_scalar_text(v);
      }
    }
    if (cfg.contains("experimental_config") && cfg["experimental_config"].is_object()) {
      for (auto& [k, v] : cfg["experimental_config"].items()) {
        std::string key = text::clip(k.size() > 1 && k[0] == '_' ? k.substr(1) : k);
        model.meta.config[key] = json_scalar_text(v);
        if (key == "profiler_level") model.meta.profiler_level = json_scalar_text(v);
        if (key == "aic_metrics") model.meta.aic_metrics = json_scalar_text(v);
      }
    }
  }
  for (auto& [k, v] : j.items()) {
    if (k.find("version") != std::string::npos && (v.is_string() || v.is_number())) {
      model.meta.versions[text::clip(k)] = json_scalar_text(v);
      if (k == "ms_version") model.meta.framework = "mindspore";
    }
  }
}

void load_profiler_metadata(const std::string& path, RunModel& model) {
  nlohmann::json j = read_json_file(path);
  if (!j.is_object()) return;
  if (j.contains("ENV_VARIABLES") && j["ENV_VARIABLES"].is_object())
    for (auto& [k, v] : j["ENV_VARIABLES"].items()) model.meta.env[text::clip(k)] = json_scalar_text(v);
  if (j.contains("distributed_args") && j["distributed_args"].is_object())
    for (auto& [k, v] : j["distributed_args"].items()) model.meta.distributed[text::clip(k)] = json_scalar_text(v);
  if (j.contains("parallel_group_info"))
    model.meta.parallel_groups = parse_parallel_group_info(j["parallel_group_info"]);
  for (auto& [k, v] : j.items()) {
    if (k == "ENV_VARIABLES" || k == "distributed_args") continue;
    if (k.find("version") != std::string::npos && (v.is_string() || v.is_number()))
      model.meta.versions[text::clip(k)] = json_scalar_text(v);
  }
}

}  // namespace npu
