#include "mcp/advisor_handler.h"

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <new>

#include "base/load_error.h"
#include "facts/whatif/transforms.h"
#include "mcp/facts_lookup.h"

namespace npu::mcp {

using json = nlohmann::json;

namespace {

constexpr size_t kCachedReports = 2;

json string_arg(const char* what) { return {{"type", "string"}, {"description", what}}; }

json tool(const char* name, const char* title, const char* description, json properties,
          std::vector<std::string> required) {
  json schema = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) schema["required"] = required;
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(schema)},
          {"annotations", {{"readOnlyHint", true}, {"idempotentHint", true}, {"openWorldHint", false}}}};
}

json tool_list() {
  const char* kPath =
      "A profiler output inside the allowed folders: a *_ascend_pt / *_ascend_ms run folder or its "
      "ASCEND_PROFILER_OUTPUT, a PROF_* folder, a SQLite export (.db), a Kineto trace (*.pt.trace.json[.gz]), "
      "a trace_view.json, or a parent folder of several ranks (a cluster)";
  json whatif_names = whatif::transform_names();
  return json::array(
      {tool("analyze", "Analyze a run",
            "Load a profiler output, compute its facts and run the rules: where the step's time goes and the "
            "findings ranked by estimated saving per step (each with what was observed, what to do, exact "
            "commands). Evidence and numbers: explain_finding and facts.",
            {{"path", string_arg(kPath)}}, {"path"}),
       tool("facts", "Read the facts of a run",
            "A part of the facts the rules and reports are built from (docs: resource npu-advisor://docs/facts.md), "
            "with its unit and meaning from the facts schema. Without facts_path: the sections and their sizes.",
            {{"path", string_arg(kPath)},
             {"facts_path", string_arg("JSON Pointer (/steps/0/free_ns) or dotted (steps[0].free_ns, "
                                       "dispatch.steps[id=3]); empty: the top level")}},
            {"path"}),
       tool("explain_finding", "Explain a finding",
            "One finding of analyze in full: its evidence (file and byte offset or CSV line, or SQLite table and "
            "rowid), how its saving was computed and from which part of the step it is drawn, its commands.",
            {{"path", string_arg(kPath)},
             {"finding",
              {{"type", json::array({"string", "integer"})},
               {"description", "the rule id (e.g. dispatch.host_bound) or the finding's rank (1 = first)"}}}},
            {"path", "finding"}),
       tool("compare", "Compare two runs",
            "What got slower from baseline to new, and why: step time with a noise test, the device time split, "
            "operators matched by type and name, dispatch, memory and finding changes, ranked contributors. "
            "Either side may be a facts file.",
            {{"baseline", string_arg("the baseline run (as for analyze), or a facts file")},
             {"new", string_arg("the run to judge (as for analyze), or a facts file")},
             {"keep_warmup", {{"type", "boolean"}, {"description", "keep the first step (dropped with 4+ steps)"}}}},
            {"baseline", "new"}),
       tool("whatif", "Replay with fixes applied",
            "Replay the run's steps with fixes applied together and say what they save per step (docs: resource "
            "npu-advisor://docs/whatif.md). Without apply: each fix alone.",
            {{"path", string_arg(kPath)},
             {"apply",
              {{"type", "array"}, {"items", {{"type", "string"}, {"enum", whatif_names}}}, {"description", "fixes"}}}},
            {"path"}),
       tool("list_rules", "List the rules",
            "The built-in rules: id, title, category, severity, platforms, the facts each needs, its options "
            "(parameters) and, for one id, its documentation.",
            {{"id", string_arg("one rule's id: its full documentation")}}, {})});
}

// The arguments against the tool's schema (the few forms the tools use).
void check_arguments(const json& schema, const json& args) {
  const json& props = schema["properties"];
  for (const auto& [k, v] : args.items()) {
    if (!props.contains(k)) throw ToolInputError("unknown argument '" + k + "' (arguments: " + props.dump() + ")");
    const json& type = props[k]["type"];
    bool ok = type == "string"    ? v.is_string()
              : type == "boolean" ? v.is_boolean()
              : type == "array"
                  ? v.is_array() && std::all_of(v.begin(), v.end(), [](const json& e) { return e.is_string(); })
                  : v.is_string() || v.is_number_integer();
    if (!ok) throw ToolInputError("argument '" + k + "' must be " + type.dump());
    if (const json allowed = props[k].value("items", json::object()).value("enum", json()); allowed.is_array())
      for (const auto& e : v)
        if (std::find(allowed.begin(), allowed.end(), e) == allowed.end())
          throw ToolInputError("argument '" + k + "': unknown " + e.dump() + " (known: " + allowed.dump() + ")");
  }
  for (const auto& r : schema.value("required", json::array()))
    if (!args.contains(r.get<std::string>()))
      throw ToolInputError("argument '" + r.get<std::string>() + "' is missing");
}

}  // namespace

json AdvisorHandler::tools() { return tool_list(); }

ToolResult AdvisorHandler::call_tool(const std::string& name, const json& arguments) {
  const json list = tool_list();
  auto def = std::find_if(list.begin(), list.end(), [&](const json& t) { return t["name"] == name; });
  if (def == list.end()) throw ProtocolError{kInvalidParams, "unknown tool: " + name, {{"tool", name}}};
  const auto t0 = std::chrono::steady_clock::now();
  ToolResult r;
  try {
    check_arguments((*def)["inputSchema"], arguments);
    r.value = run_tool(name, arguments);
  } catch (const PathRefused& e) {
    r.error = std::string("refused: ") + e.what();
  } catch (const ToolInputError& e) {
    r.error = e.what();
  } catch (const LoadError& e) {
    r.error = std::string("cannot load: ") + e.what();
  } catch (const std::filesystem::filesystem_error& e) {
    r.error = std::string("cannot load: ") + e.path1().string() + ": " + e.code().message();
  } catch (const std::bad_alloc&) {
    r.error = "out of memory";
  } catch (const std::exception& e) {
    r.error = std::string("internal error: ") + e.what();
  }
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const std::string said = r.error.empty() ? "ok" : r.error.substr(0, r.error.find('\n'));  // one line a call
  std::fprintf(stderr, "npu-advisor mcp: %s: %s (%.2f s)\n", name.c_str(), said.c_str(), s);
  return r;
}

json AdvisorHandler::run_tool(const std::string& name, const json& args) {
  if (name == "list_rules") return tools::list_rules(args.value("id", ""));
  if (name == "compare")
    return tools::compare_runs(guard_.resolve(args["baseline"].get<std::string>()).real,
                               guard_.resolve(args["new"].get<std::string>()).real, args.value("keep_warmup", false));
  if (name == "whatif")
    return tools::whatif(guard_.resolve(args["path"].get<std::string>()).real,
                         args.value("apply", std::vector<std::string>{}));
  const json& report = report_of(args["path"].get<std::string>());
  if (name == "analyze") return tools::analyze_summary(report);
  if (name == "explain_finding") return tools::explain_finding(report, args["finding"]);
  try {
    return facts_part(report["facts"], args.value("facts_path", ""));
  } catch (const std::invalid_argument& e) {
    throw ToolInputError(e.what());
  }
}

const json& AdvisorHandler::report_of(const std::string& path) {
  const ResolvedPath p = guard_.resolve(path);
  for (auto it = cache_.begin(); it != cache_.end(); ++it)
    if (it->real == p.real && it->fingerprint == p.fingerprint) {
      cache_.splice(cache_.begin(), cache_, it);
      return cache_.front().report;
    }
  json report = tools::analyze_report(p.real);
  cache_.remove_if([&](const Cached& c) { return c.real == p.real; });  // an older state of it
  cache_.push_front({p.real, p.fingerprint, std::move(report)});
  while (cache_.size() > kCachedReports) cache_.pop_back();
  return cache_.front().report;
}

}  // namespace npu::mcp
