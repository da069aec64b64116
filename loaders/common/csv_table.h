// Reads the profilers' CSV files: quote-aware, tolerant of what real exports contain (BOM,
// CRLF, trailing tabs inside quotes, """triple""" quoted shapes, N/A), and finds columns by
// normalised name through alias lists, never by position.
#pragma once
#include <cstdint>
#include <deque>
#include <functional>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/types.h"

namespace npu {

class CsvTable {
 public:
  explicit CsvTable(const std::string& path);  // reads the header; throws LoadError
  ~CsvTable();
  CsvTable(const CsvTable&) = delete;
  CsvTable& operator=(const CsvTable&) = delete;

  const std::string& path() const { return path_; }
  uint64_t bytes() const { return size_; }
  const std::vector<std::string>& header() const { return header_; }

  // Index of the column matching the first of `names` that the header has (normalised), or -1.
  int col(std::span<const std::string_view> names) const;
  int col(std::initializer_list<std::string_view> names) const { return col({names.begin(), names.size()}); }
  // Same, but throws LoadError naming the file and the header when absent.
  int require(std::span<const std::string_view> names) const;
  int require(std::initializer_list<std::string_view> names) const { return require({names.begin(), names.size()}); }

  // Lower-case, without spaces, underscores and a BOM: "Step ID" == "Step Id" == "step_id".
  static std::string normalise(std::string_view name);

  class Row {
   public:
    std::string_view operator[](int i) const;  // "" for absent columns (i < 0 or short rows)
    uint32_t line() const { return line_; }
    size_t size() const { return fields_.size(); }

    // Typed accessors that turn a bad cell into a LoadError naming file, line and column.
    std::optional<Ns> us_to_ns(int col) const;  // nullopt for N/A / empty
    std::optional<int64_t> integer(int col) const;
    std::optional<double> number(int col) const;

   private:
    friend class CsvTable;
    std::vector<std::string_view> fields_;
    std::deque<std::string> owned_;  // unescaped copies of fields with doubled quotes
    uint32_t line_ = 0;
    const CsvTable* table_ = nullptr;
  };

  // Calls f for every data row. Blank lines are skipped. Rows whose field count differs
  // from the header's (a cell lost in editing) are skipped and described in warnings();
  // when more than half the rows are like that, the file is reported as corrupt.
  void for_each_row(const std::function<void(const Row&)>& f) const;
  const std::vector<std::string>& warnings() const { return warnings_; }
  // Rows a loader skipped for a corrupt value (a negative or missing duration): counted, then
  // reported as one warning "FILE:LINE: N rows <why> were skipped" (LINE: the first).
  void skip_row(uint32_t line) const {
    if (skipped_++ == 0) first_skipped_ = line;
  }
  void report_skipped(const std::string& why) const;
  [[noreturn]] void fail(uint32_t line, const std::string& msg) const;

 private:
  std::string path_;
  const char* data_ = nullptr;
  uint64_t size_ = 0;
  uint64_t body_ = 0;  // offset of the first data row
  std::vector<std::string> header_;
  std::vector<std::string> norm_;
  mutable std::vector<std::string> warnings_;
  mutable uint64_t skipped_ = 0;
  mutable uint32_t first_skipped_ = 0;
};

}  // namespace npu
