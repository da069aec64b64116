#include "loaders/common/csv_table.h"

#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/stat.h>

#include "base/decimal.h"
#include "base/input_registry.h"
#include "base/load_error.h"

namespace npu {
namespace {

// Splits one record starting at `p` (quote-aware; a quoted field may span lines) into
// fields. Returns the position after the record's line end.
const char* split_record(const char* p, const char* end, std::vector<std::string_view>& fields,
                         std::deque<std::string>& owned, uint32_t* lines, bool* unclosed = nullptr) {
  if (unclosed) *unclosed = false;
  fields.clear();
  owned.clear();  // a deque: earlier views stay valid as cells are added
  *lines = 1;
  for (;;) {
    const char* start = p;
    if (p < end && *p == '"') {
      // Quoted field: find the closing quote; "" is an escaped quote.
      ++p;
      bool has_escape = false;
      const char* content = p;
      for (;;) {
        const char* q = static_cast<const char*>(std::memchr(p, '"', static_cast<size_t>(end - p)));
        if (!q) {  // never closed: the cell runs to the end of the file
          if (unclosed) *unclosed = true;
          p = end;
          break;
        }
        if (q + 1 < end && q[1] == '"') {
          has_escape = true;
          p = q + 2;
          continue;
        }
        p = q;
        break;
      }
      std::string_view raw(content, static_cast<size_t>(p - content));
      for (char c : raw)
        if (c == '\n') ++*lines;
      if (has_escape) {
        std::string u;
        u.reserve(raw.size());
        for (size_t i = 0; i < raw.size(); ++i) {
          u += raw[i];
          if (raw[i] == '"' && i + 1 < raw.size() && raw[i + 1] == '"') ++i;
        }
        owned.push_back(std::move(u));
        fields.emplace_back(owned.back());
      } else {
        fields.emplace_back(raw);
      }
      if (p < end) ++p;  // closing quote
      // Anything between the closing quote and the separator (e.g. a stray tab) is dropped.
      while (p < end && *p != ',' && *p != '\n') ++p;
    } else {
      while (p < end && *p != ',' && *p != '\n') ++p;
      std::string_view f(start, static_cast<size_t>(p - start));
      if (!f.empty() && f.back() == '\r') f.remove_suffix(1);
      fields.emplace_back(f);
    }
    if (p >= end) return end;
    if (*p == '\n') return p + 1;
    ++p;  // ','
  }
}

}  // namespace

std::string CsvTable::normalise(std::string_view n) {
  std::string out;
  out.reserve(n.size());
  size_t i = 0;
  if (n.size() >= 3 && static_cast<unsigned char>(n[0]) == 0xEF && static_cast<unsigned char>(n[1]) == 0xBB &&
      static_cast<unsigned char>(n[2]) == 0xBF)
    i = 3;
  for (; i < n.size(); ++i) {
    char c = n[i];
    if (c == ' ' || c == '_' || c == '\t' || c == '\r' || c == '"') continue;
    out += static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  }
  return out;
}

CsvTable::CsvTable(const std::string& path) : path_(path) {
  struct stat st {};
  int fd = open_input_file(path, &st);
  size_ = static_cast<uint64_t>(st.st_size);
  if (size_ > 0) {
    void* m = mmap(nullptr, size_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (m == MAP_FAILED) {
      close(fd);
      throw LoadError::whole_file(path, std::string("cannot map: ") + std::strerror(errno));
    }
    madvise(m, size_, MADV_SEQUENTIAL);
    data_ = static_cast<const char*>(m);
  }
  close(fd);
  if (size_ == 0) return;  // empty file: no header, no rows
  std::vector<std::string_view> fields;
  std::deque<std::string> owned;
  uint32_t lines = 0;
  const char* next = split_record(data_, data_ + size_, fields, owned, &lines);
  body_ = static_cast<uint64_t>(next - data_);
  for (auto f : fields) {
    std::string h(trim_cell(f));
    if (h.size() >= 3 && static_cast<unsigned char>(h[0]) == 0xEF) h.erase(0, 3);
    header_.push_back(h);
    norm_.push_back(normalise(h));
  }
  // A header must look like one: printable text, no NUL bytes.
  for (const auto& h : header_)
    for (char c : h)
      if (c == '\0' || (static_cast<unsigned char>(c) < 0x20 && c != '\t'))
        throw LoadError::at_line(path, 1, "header contains binary data: not a CSV file");
}

CsvTable::~CsvTable() {
  if (data_) munmap(const_cast<char*>(data_), size_);
}

int CsvTable::col(std::span<const std::string_view> names) const {
  for (auto n : names) {
    std::string want = normalise(n);
    for (size_t i = 0; i < norm_.size(); ++i)
      if (norm_[i] == want) return static_cast<int>(i);
  }
  return -1;
}

int CsvTable::require(std::span<const std::string_view> names) const {
  int c = col(names);
  if (c >= 0) return c;
  std::string msg = "missing column \"" + std::string(*names.begin()) + "\"; header has:";
  for (size_t i = 0; i < header_.size() && i < 12; ++i) msg += (i ? ", " : " ") + header_[i];
  if (header_.size() > 12) msg += ", ...";
  fail(1, msg);
}

void CsvTable::report_skipped(const std::string& why) const {
  if (skipped_ == 0) return;
  warnings_.push_back(path_ + ":" + std::to_string(first_skipped_) + ": " + std::to_string(skipped_) +
                      (skipped_ == 1 ? " row " : " rows ") + why + (skipped_ == 1 ? " was skipped" : " were skipped"));
  skipped_ = 0;
}

void CsvTable::fail(uint32_t line, const std::string& msg) const { throw LoadError::at_line(path_, line, msg); }

std::string_view CsvTable::Row::operator[](int i) const {
  if (i < 0 || static_cast<size_t>(i) >= fields_.size()) return {};
  return fields_[static_cast<size_t>(i)];
}

std::optional<Ns> CsvTable::Row::us_to_ns(int c) const {
  std::string_view v = (*this)[c];
  if (is_missing_cell(v)) return std::nullopt;
  auto ns = parse_us_to_ns(v);
  if (!ns)
    table_->fail(line_, "column \"" + table_->header_[static_cast<size_t>(c)] + "\": \"" + std::string(trim_cell(v)) +
                            "\" is not a number");
  return ns;
}

std::optional<int64_t> CsvTable::Row::integer(int c) const {
  std::string_view v = (*this)[c];
  if (is_missing_cell(v)) return std::nullopt;
  auto n = parse_int(v);
  if (!n)
    table_->fail(line_, "column \"" + table_->header_[static_cast<size_t>(c)] + "\": \"" + std::string(trim_cell(v)) +
                            "\" is not an integer");
  return n;
}

std::optional<double> CsvTable::Row::number(int c) const {
  std::string_view v = (*this)[c];
  if (is_missing_cell(v)) return std::nullopt;
  auto d = parse_double(v);
  if (!d)
    table_->fail(line_, "column \"" + table_->header_[static_cast<size_t>(c)] + "\": \"" + std::string(trim_cell(v)) +
                            "\" is not a number");
  return d;
}

void CsvTable::for_each_row(const std::function<void(const Row&)>& f) const {
  if (!data_) return;
  Row row;
  row.table_ = this;
  const char* p = data_ + body_;
  const char* end = data_ + size_;
  uint32_t line = 2;
  uint64_t rows = 0, bad = 0;
  uint32_t first_bad = 0;
  size_t first_bad_fields = 0;
  while (p < end) {
    uint32_t lines = 1;
    bool unclosed = false;
    const char* next = split_record(p, end, row.fields_, row.owned_, &lines, &unclosed);
    // An unclosed quote swallows every later line into one cell: that is not "1 of 2 rows
    // skipped" but the rest of the file lost.
    if (unclosed && lines > 1)
      fail(line, "a quoted cell opened on this line is never closed (the " + std::to_string(lines) +
                     " lines to the end of the file would be one cell): file is corrupt");
    bool blank = row.fields_.size() == 1 && trim_cell(row.fields_[0]).empty();
    // A trailing separator gives one extra empty field: harmless.
    while (row.fields_.size() > header_.size() && trim_cell(row.fields_.back()).empty()) row.fields_.pop_back();
    if (!blank) ++rows;
    if (!blank && row.fields_.size() != header_.size()) {
      if (bad++ == 0) {
        first_bad = line;
        first_bad_fields = row.fields_.size();
      }
      blank = true;
    }
    if (!blank) {
      for (auto fv : row.fields_)
        if (std::memchr(fv.data(), '\0', fv.size())) fail(line, "row contains binary data (NUL byte): file is corrupt");
      row.line_ = line;
      f(row);
    }
    line += lines;
    p = next;
  }
  if (bad > 0) {
    std::string what = std::to_string(bad) + " of " + std::to_string(rows) + " rows have a different number of " +
                       "fields than the header (" + std::to_string(header_.size()) + "; line " +
                       std::to_string(first_bad) + " has " + std::to_string(first_bad_fields) + ")";
    if (bad * 2 > rows && rows >= 2) fail(first_bad, what + ": file is corrupt");
    warnings_.push_back(path_ + ":" + std::to_string(first_bad) + ": " + what + "; those rows were skipped");
  }
}

}  // namespace npu
