#include "loaders/db/sqlite_db.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <sqlite3.h>
#include <unistd.h>

#include <sys/mman.h>
#include <sys/stat.h>

#include "base/input_confinement.h"
#include "base/input_registry.h"
#include "base/load_error.h"
#include "loaders/db/sqlite_wal.h"

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

// The write-ahead log beside `path`, opened as an input (beneath the allowed folders when inputs
// are confined): -1 when there is none, or an empty one.
int open_wal(const std::string& path, const std::string& wal, uint64_t* size) {
  const int fd = open_confined(wal, O_RDONLY | O_NONBLOCK);
  if (fd < 0 && errno == ENOENT) return -1;
  if (fd < 0 && errno == EXDEV)
    throw LoadError::whole_file(path, "has a write-ahead log (" + wal + ") " + kOutsideAllowed);
  if (fd < 0)
    throw LoadError::whole_file(path,
                                "has a write-ahead log (" + wal + ") that cannot be read: " + std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size == 0) {
    const bool regular = S_ISREG(st.st_mode);
    ::close(fd);
    if (regular) return -1;
    throw LoadError::whole_file(path, "has a write-ahead log (" + wal + ") that is not a regular file: not read");
  }
  note_input_file(st);
  *size = static_cast<uint64_t>(st.st_size);
  return fd;
}

}  // namespace

SqliteDb::SqliteDb(const std::string& path) : path_(path) {
  // The database is opened once, as an input (beneath the allowed folders when confined), and
  // that descriptor is what SQLite reads: nothing opens the path again.
  struct stat st {};
  const int fd = open_input_file(path, &st);
  const FdCloser closer{fd};
  bytes_ = static_cast<uint64_t>(st.st_size);
  // SQLite takes a 0-byte file for an empty database; for a profiler export it means the
  // write never happened.
  if (bytes_ == 0) throw LoadError::whole_file(path, "empty file (0 bytes), not a SQLite database");
  // A write-ahead log beside it holds committed changes the database file alone does not (a
  // trace read short, silently). Then the database and the log's committed part are copied into
  // a private temporary folder and read there, where SQLite may write its -shm: the input folder
  // is never written. Otherwise the file is mapped and read in place.
  uint64_t wal_size = 0;
  const std::string wal = path + "-wal";
  const int wal_fd = open_wal(path, wal, &wal_size);
  const FdCloser wal_closer{wal_fd};
  const uint64_t wal_bytes = wal_fd < 0 ? 0 : wal_committed_bytes(wal_fd, wal_size, wal);
  int rc = SQLITE_OK;
  if (wal_bytes > 0) {
    rc = open_copy(fd, wal_fd, wal_bytes);
  } else {
    // Mapped private and read in place by SQLite's in-memory VFS (sqlite3_deserialize): no copy,
    // no second open by name. A file in WAL mode says so in its header (bytes 18-19 = 2), which
    // an in-memory database cannot follow: the mapped page is marked rollback mode (a private
    // copy of that page; the file is untouched), which reads the same tables.
    map_ = ::mmap(nullptr, bytes_, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map_ == MAP_FAILED) {
      map_ = nullptr;
      throw LoadError::whole_file(path, std::string("cannot be mapped to be read: ") + std::strerror(errno));
    }
    auto* bytes = static_cast<unsigned char*>(map_);
    if (bytes_ >= 100 && std::memcmp(bytes, "SQLite format 3", 16) == 0 && bytes[18] == 2 && bytes[19] == 2 &&
        ::mprotect(map_, 100, PROT_READ | PROT_WRITE) == 0) {  // the first page alone, copied on write
      bytes[18] = bytes[19] = 1;
      ::mprotect(map_, 100, PROT_READ);
    }
    rc = sqlite3_open_v2(":memory:", &db_, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, nullptr);
    if (rc == SQLITE_OK)
      rc = sqlite3_deserialize(db_, "main", bytes, static_cast<sqlite3_int64>(bytes_),
                               static_cast<sqlite3_int64>(bytes_), SQLITE_DESERIALIZE_READONLY);
  }
  if (rc != SQLITE_OK) {
    std::string msg = db_ ? sqlite3_errmsg(db_) : sqlite3_errstr(rc);
    close_all();
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
    close_all();
    throw;
  }
}

int SqliteDb::open_copy(int db_fd, int wal_fd, uint64_t wal_bytes) {
  std::error_code ec;
  std::string tmpl = (std::filesystem::temp_directory_path(ec) / "npu-advisor-wal-XXXXXX").string();
  if (ec || ::mkdtemp(tmpl.data()) == nullptr)
    throw LoadError::whole_file(path_,
                                "has a write-ahead log and no private temporary folder could be made to read "
                                "it in: " +
                                    (ec ? ec.message() : std::string(std::strerror(errno))));
  temp_dir_ = tmpl;
  const std::string copy = temp_dir_ + "/db";
  auto copy_of = [&](int from, const std::string& name, uint64_t n, const std::string& to) {
    const int out = ::open(to.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (out < 0) throw LoadError::whole_file(name, std::string("cannot be copied to be read: ") + std::strerror(errno));
    const FdCloser closer{out};
    copy_file_prefix(from, name, out, n);
  };
  try {
    copy_of(db_fd, path_, bytes_, copy);
    copy_of(wal_fd, path_ + "-wal", wal_bytes, copy + "-wal");
  } catch (...) {
    close_all();
    throw;
  }
  return sqlite3_open_v2((sqlite_uri(copy) + "?mode=ro").c_str(), &db_,
                         SQLITE_OPEN_READONLY | SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI, nullptr);
}

void SqliteDb::close_all() {
  sqlite3_close(db_);
  db_ = nullptr;
  if (map_) ::munmap(map_, bytes_);
  map_ = nullptr;
  if (!temp_dir_.empty()) {
    std::error_code ec;
    std::filesystem::remove_all(temp_dir_, ec);
    temp_dir_.clear();
  }
}

SqliteDb::~SqliteDb() { close_all(); }

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
    if (span.step()) {
      const int64_t n = span.i64_or(0, 0);
      if (n >= 0 && static_cast<uint64_t>(n) <= bytes_ / 4) return static_cast<uint64_t>(n);
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
