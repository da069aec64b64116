// A SQLite write-ahead log beside a profiler's database, read as SQLite would read it: how much
// of it holds committed transactions (the format: sqlite.org/fileformat2.html, "The WAL File
// Format"). Only that part is copied to be read (sqlite_db.cpp): a log whose header or first
// frame is not valid holds nothing SQLite would apply, however large the file says it is (a
// sparse 2 GiB -wal of zeros is not copied).
#pragma once
#include <cstdint>
#include <string>

namespace npu {

// The bytes of the log open on `fd` (`size` bytes long) up to the end of its last valid commit
// frame: 0 when the header is not a WAL header or no frame commits. Throws LoadError naming
// `path` on a read error.
uint64_t wal_committed_bytes(int fd, uint64_t size, const std::string& path);

// Copies the first `n` bytes of `from` (`from_path`, for messages) to `to`; throws LoadError
// with the system's reason.
void copy_file_prefix(int from, const std::string& from_path, int to, uint64_t n);

}  // namespace npu
