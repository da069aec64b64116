#include "loaders/db/sqlite_db.h"

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <filesystem>
#include <sqlite3.h>
#include <unistd.h>

#include <sys/stat.h>

#include "base/input_registry.h"
#include "base/load_error.h"

namespace npu {

namespace {
std::string sql_name(std::string_view name) {
  std::string q = "\"";
  for (char c : name) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}
// "file:PATH", with the characters a URI path cannot hold escaped (the caller adds the query).
std::string sqlite_uri(const std::string& path) {
  std::string u = "file:";
  for (unsigned char c : path) {
    if (c == '%' || c == '?' || c == '#' || c < 0x21 || c >= 0x7f) {
      char esc[4];
      std::snprintf(esc, sizeof esc, "%%%02X", c);
      u += esc;
    } else {
      u += static_cast<char>(c);
    }
  }
  return u;
}
}  // namespace

SqliteDb::SqliteDb(const std::string& path) : path_(path) {
  // SQLite takes a 0-byte file for an empty database; for a profiler export it means the
  // write never happened.
  std::error_code ec;
  if (std::filesystem::is_regular_file(path, ec) && std::filesystem::file_size(path, ec) == 0)
    throw LoadError::whole_file(path, "empty file (0 bytes), not a SQLite database");
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) note_input_file(st);
  // Read-only, immutable and no mutex: we never write, one connection is used by one thread,
  // and the input folder must not change. A plain read-only open of a WAL-mode export creates
  // -shm/-wal files beside it, and fails in a read-only folder; immutable=1 takes no locks and
  // creates nothing (a -wal file left beside the database is then not read: see docs).
  // A write-ahead log beside it holds committed changes that immutable=1 would not see (a
  // trace read short, silently). Then the database and its log are copied into a private
  // temporary folder and read there, where SQLite may write its -shm: the input folder is
  // still never written.
  std::string open_uri = sqlite_uri(path) + "?mode=ro&immutable=1";
  const std::string wal = path + "-wal";
  if (std::filesystem::is_regular_file(wal, ec) && std::filesystem::file_size(wal, ec) > 0 && !ec) {
    std::string tmpl = (std::filesystem::temp_directory_path(ec) / "npu-advisor-wal-XXXXXX").string();
    if (ec || ::mkdtemp(tmpl.data()) == nullptr)
      throw LoadError::whole_file(
          path, "has a write-ahead log (" + wal + ") and no private temporary folder could be made to read it in");
    temp_dir_ = tmpl;
    const std::filesystem::path copy = std::filesystem::path(temp_dir_) / "db";
    std::filesystem::copy_file(path, copy, ec);
    if (!ec) std::filesystem::copy_file(wal, copy.string() + "-wal", ec);
    if (ec) {
      std::filesystem::remove_all(temp_dir_, ec);
      temp_dir_.clear();
      throw LoadError::whole_file(
          path, "has a write-ahead log (" + wal + ") that could not be copied to be read: " + ec.message());
    }
    open_uri = sqlite_uri(copy.string()) + "?mode=ro";
  }
  int rc =
      sqlite3_open_v2(open_uri.c_str(), &db_, SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nullptr);
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    sqlite3_close(db_);
    db_ = nullptr;
    if (!temp_dir_.empty()) std::filesystem::remove_all(temp_dir_, ec);
    throw LoadError::whole_file(path, "cannot open as SQLite: " + msg);
  }
  // Read through a memory map (no copy into SQLite's page cache): large exports load faster.
  sqlite3_exec(db_, "PRAGMA mmap_size = 17179869184", nullptr, nullptr, nullptr);
  // A non-SQLite file opens fine and fails at the first read: read the schema now, so a
  // garbage or truncated file is reported here, once.
  try {
    // Tables only: a profiler writes no views, and a view is a query that runs at every read (a
    // recursive or cross-joined "TASK" view never ends, or fills the memory). A database that
    // holds one is refused, naming it.
    SqliteStmt st(*this, "SELECT type, name FROM sqlite_master WHERE type IN ('table','view') ORDER BY name",
                  "the table list");
    std::string views;
    while (st.step()) {
      if (st.text(0) == "view") views += (views.empty() ? "" : ", ") + std::string(st.text(1));
      else tables_.emplace_back(st.text(1));
    }
    if (!views.empty())
      throw LoadError::whole_file(
          path, "holds views (" + views.substr(0, 200) + "): a profiler export has tables only; not read");
  } catch (...) {
    sqlite3_close(db_);
    db_ = nullptr;
    if (!temp_dir_.empty()) std::filesystem::remove_all(temp_dir_, ec);
    throw;
  }
}

SqliteDb::~SqliteDb() {
  sqlite3_close(db_);
  if (!temp_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir_, ec);
  }
}

bool SqliteDb::has_table(std::string_view name) const {
  return std::find(tables_.begin(), tables_.end(), name) != tables_.end();
}

uint64_t SqliteDb::row_count(std::string_view table) const {
  if (!has_table(table)) return 0;
  // Profiler exports are written once, so the rowid span is the row count (or a little more
  // where rows were deleted). Tables WITHOUT ROWID fail to prepare this and are counted; a span
  // larger than the file could hold (sparse explicit ids) is not trusted either. Two subqueries:
  // SQLite answers a lone max(rowid) / min(rowid) from the b-tree's ends, but scans the whole
  // table for both in one aggregate.
  const std::string t = sql_name(table);
  try {
    SqliteStmt span(*this, "SELECT (SELECT max(rowid) FROM " + t + ") - (SELECT min(rowid) FROM " + t + ") + 1",
                    "the rowid span of " + std::string(table));
    std::error_code ec;
    const auto bytes = std::filesystem::file_size(path_, ec);
    if (span.step()) {
      const int64_t n = span.i64_or(0, 0);
      if (n >= 0 && !ec && static_cast<uint64_t>(n) <= bytes / 4) return static_cast<uint64_t>(n);
    }
  } catch (const LoadError&) {
    // no rowid: counted below
  }
  SqliteStmt st(*this, "SELECT count(*) FROM " + sql_name(table), "the row count of " + std::string(table));
  return st.step() ? static_cast<uint64_t>(std::max<int64_t>(0, st.i64(0))) : 0;
}

std::vector<std::string> SqliteDb::columns(std::string_view table) const {
  std::vector<std::string> out;
  if (!has_table(table)) return out;
  SqliteStmt st(*this, "PRAGMA table_info(" + sql_name(table) + ")", "the columns of " + std::string(table));
  while (st.step()) out.emplace_back(st.text(1));
  return out;
}

void SqliteDb::fail(const std::string& what) const {
  std::string msg = db_ ? sqlite3_errmsg(db_) : "no connection";
  if (msg == "file is not a database") msg = "not a SQLite database (or a damaged one)";
  throw LoadError::whole_file(path_, "SQLite error reading " + what + ": " + msg);
}

SqliteStmt::SqliteStmt(const SqliteDb& db, const std::string& sql, std::string what) : db_(db), what_(std::move(what)) {
  if (sqlite3_prepare_v2(db.handle(), sql.c_str(), static_cast<int>(sql.size()), &stmt_, nullptr) != SQLITE_OK)
    db.fail(what_);
}

SqliteStmt::~SqliteStmt() { sqlite3_finalize(stmt_); }

bool SqliteStmt::step() {
  int rc = sqlite3_step(stmt_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  db_.fail(what_);
}

ColumnPicker::ColumnPicker(const SqliteDb& db, std::string table)
    : table_(std::move(table)), cols_(db.columns(table_)) {}

int ColumnPicker::add(std::initializer_list<std::string_view> aliases) {
  std::string found;
  for (auto a : aliases) {
    auto it = std::find_if(cols_.begin(), cols_.end(), [&](const std::string& c) {
      return c.size() == a.size() && std::equal(c.begin(), c.end(), a.begin(), [](char x, char y) {
               return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
             });
    });
    if (it != cols_.end()) {
      found = *it;
      break;
    }
  }
  picked_.push_back(found);
  wanted_.emplace_back(*aliases.begin());
  present_.push_back(!found.empty());
  return static_cast<int>(picked_.size() - 1);
}

std::string ColumnPicker::select_list(std::string_view alias) const {
  std::string prefix = alias.empty() ? sql_name(table_) : std::string(alias);
  std::string s;
  for (size_t i = 0; i < picked_.size(); ++i) {
    if (i) s += ", ";
    s += picked_[i].empty() ? std::string("NULL") : prefix + "." + sql_name(picked_[i]);
  }
  return s;
}

std::vector<std::string> ColumnPicker::missing() const {
  std::vector<std::string> out;
  for (size_t i = 0; i < picked_.size(); ++i)
    if (!present_[i]) out.push_back(wanted_[i]);
  return out;
}

}  // namespace npu
