// A part of a facts document by path, with what the facts schema (facts/schema/*.json) says of
// it: the `facts` tool of the MCP server (docs/mcp.md).
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace npu::mcp {

// A path into a facts document as its keys and indexes: a JSON Pointer ("/steps/0/free_ns", "~1"
// for '/', "~0" for '~') or dotted ("steps[0].free_ns", "steps.0.free_ns"). An array element may
// also be chosen by its id, as evidence names it: "dispatch.steps[id=3]" or "/dispatch/steps/id=3".
// Throws std::invalid_argument on a bad path ("steps[x").
std::vector<std::string> facts_path_tokens(const std::string& path);

// {path, schema_path, type, unit, meaning, value} of the part at `path` ("" or "/": the whole
// document), and for an object `keys`: each key with its schema entry and size. A value whose
// JSON is over `max_value_bytes` is not given whole: an object gives its keys, an array its
// length and first element, with a note saying how to ask for less. Throws std::invalid_argument
// naming the step of the path that is not in the document, with the keys that are there.
nlohmann::json facts_part(const nlohmann::json& facts, const std::string& path, size_t max_value_bytes = 64 * 1024);

}  // namespace npu::mcp
