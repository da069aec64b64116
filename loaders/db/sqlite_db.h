// A read-only SQLite database and its prepared statements, for the profilers' .db exports.
// Columns are found by name (PRAGMA table_info), never by position, because the schemas
// drift between CANN/torch_npu versions. Every failure is a one-line LoadError naming the
// file and what was being read.
#pragma once
#include <cstdint>
#include <optional>
#include <sqlite3.h>
#include <string>
#include <string_view>
#include <vector>

namespace npu {

class SqliteDb;

class SqliteStmt {
 public:
  SqliteStmt(const SqliteDb& db, const std::string& sql, std::string what);
  ~SqliteStmt();
  SqliteStmt(const SqliteStmt&) = delete;
  SqliteStmt& operator=(const SqliteStmt&) = delete;

  bool step();  // next row; false at the end; throws LoadError on a read error
  // Column reads are inline: the big tables read tens of millions of cells.
  int type(int col) const { return sqlite3_column_type(stmt_, col); }  // SQLITE_NULL, SQLITE_INTEGER, ...
  bool null(int col) const { return type(col) == SQLITE_NULL; }
  bool is_integer(int col) const { return type(col) == SQLITE_INTEGER; }
  int64_t i64(int col) const { return sqlite3_column_int64(stmt_, col); }
  std::optional<int64_t> opt_i64(int col) const {  // nullopt for NULL
    if (null(col)) return std::nullopt;
    return i64(col);
  }
  // The integer, or `dflt` for NULL: one type check instead of two calls.
  int64_t i64_or(int col, int64_t dflt) const { return null(col) ? dflt : i64(col); }
  double f64(int col) const { return sqlite3_column_double(stmt_, col); }
  std::string_view text(int col) const {  // "" for NULL
    const unsigned char* t = sqlite3_column_text(stmt_, col);
    if (!t) return {};
    return {reinterpret_cast<const char*>(t), static_cast<size_t>(sqlite3_column_bytes(stmt_, col))};
  }

 private:
  const SqliteDb& db_;
  sqlite3_stmt* stmt_ = nullptr;
  std::string what_;
};

class SqliteDb {
 public:
  explicit SqliteDb(const std::string& path);  // opens read-only; throws if it is not SQLite
  ~SqliteDb();
  SqliteDb(const SqliteDb&) = delete;
  SqliteDb& operator=(const SqliteDb&) = delete;

  const std::string& path() const { return path_; }
  const std::vector<std::string>& tables() const { return tables_; }
  bool has_table(std::string_view name) const;
  // How many rows `table` holds, never fewer (0 when it does not exist): a size hint for reserving.
  // The rowid span (max - min + 1, two index lookups) where it is plausible, since count(*)
  // reads the whole table (0.8 s for the big tables of a 1 GB export); count(*) otherwise.
  uint64_t row_count(std::string_view table) const;
  // Column names of `table`, in order (empty when the table does not exist).
  std::vector<std::string> columns(std::string_view table) const;

  [[noreturn]] void fail(const std::string& what) const;  // LoadError with sqlite's message
  sqlite3* handle() const { return db_; }

 private:
  // Opens the private copy of the database (`db_fd`) and its log's committed part (`wal_bytes`
  // of `wal_fd`) in temp_dir_; SQLite's result code.
  int open_copy(int db_fd, int wal_fd, uint64_t wal_bytes);
  void close_all();  // the connection, the mapping and the private copy

  std::string path_;
  uint64_t bytes_ = 0;  // the database file's size when opened
  sqlite3* db_ = nullptr;
  void* map_ = nullptr;  // the database file mapped (private): what SQLite reads, without a log
  std::vector<std::string> tables_;
  std::string temp_dir_;  // the private copy of a database with a write-ahead log, removed at close
};

// The columns a query needs from one table, looked up by name among aliases; -1 when absent.
// `select_list()` gives "col1, col2, ..." with NULL for absent ones, so statement column i
// is always the i-th requested field whatever the schema.
class ColumnPicker {
 public:
  ColumnPicker(const SqliteDb& db, std::string table);
  // Adds a field: the first alias the table has. Returns the field's statement column index.
  int add(std::initializer_list<std::string_view> aliases);
  bool has(int field) const { return present_[static_cast<size_t>(field)]; }
  const std::string& name(int field) const { return picked_[static_cast<size_t>(field)]; }  // "" when absent
  // `alias`: the name the table has in the query (default: the table itself).
  std::string select_list(std::string_view alias = {}) const;
  const std::string& table() const { return table_; }
  std::vector<std::string> missing() const;  // first alias of each absent field

 private:
  std::string table_;
  std::vector<std::string> cols_;
  std::vector<std::string> picked_;  // column name or "" when absent
  std::vector<std::string> wanted_;
  std::vector<bool> present_;
};

}  // namespace npu
