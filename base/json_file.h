// Small JSON documents (metadata, communication summaries): read whole with nlohmann::json,
// turning a syntax error into a LoadError with the byte offset.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace npu {

// Deeper nesting than this is refused before parsing: nlohmann parses iteratively, but dump()
// and the copies made from a parsed document recurse, and ~100,000 levels in a 200 KB side
// value (Kineto distributedInfo, profiler_info config) overflowed the stack.
constexpr int kMaxJsonDepth = 256;

// The byte offset at which `text` opens its (max_depth + 1)-th nested object/array, or npos
// when it nests no deeper (strings are skipped; the text need not be valid JSON).
size_t json_too_deep_at(std::string_view text, int max_depth = kMaxJsonDepth);

// Throws LoadError (file and byte offset) on a syntax error or nesting deeper than kMaxJsonDepth.
nlohmann::json read_json_file(const std::string& path);
// A JSON library error as text for a person: its message without the "[json.exception...] " tag.
std::string json_error_text(const nlohmann::json::exception& e);

// Parses `text` without throwing: a discarded value when it is not valid JSON or nests deeper
// than kMaxJsonDepth (then *too_deep_at, if given, is the offset of the level past the limit).
nlohmann::json parse_json_or_discard(std::string_view text, size_t* too_deep_at = nullptr);

// A rank or device id: an integer in 0..INT32_MAX, else nullopt (2^40 must not read as 0,
// nor 2^32 + 5 as 5, which made a rank a "duplicate" of rank 5).
std::optional<int32_t> json_small_id(const nlohmann::json& v);

// A scalar as text, the way a user would write it ("1", "true", "Level1"); objects and arrays
// are dumped compactly.
std::string json_scalar_text(const nlohmann::json& v);

}  // namespace npu
