// The shared context's bookkeeping: the input files each table stands for, provenance parts,
// and load phases.
#include "loaders/db/db_load_context.h"

#include <filesystem>

namespace npu {

uint16_t DbLoadContext::register_file(Role role, const std::string& table) {
  InputFile f;
  f.role_id = role;
  f.role = role_name(role);
  f.path = db.path();
  std::error_code ec;
  f.bytes = std::filesystem::file_size(db.path(), ec);
  f.status = InputFile::Status::Loaded;
  f.table = table;
  return model.add_file(std::move(f));
}

void DbLoadContext::missing(Role role, const std::string& table, const std::string& why) {
  InputFile f;
  f.role_id = role;
  f.role = role_name(role);
  f.status = InputFile::Status::Missing;
  f.note = "no " + table + " table in " + std::filesystem::path(db.path()).filename().string() + ": " + why;
  model.add_file(std::move(f));
}

uint16_t DbLoadContext::part(const std::string& table) {
  trace_tables.insert(table);
  return model.add_trace_part(db_file, table);
}

void DbLoadContext::phase_done(const char* name) {
  auto now = std::chrono::steady_clock::now();
  model.stats.add_phase(name, std::chrono::duration<double>(now - phase_start).count());
  phase_start = now;
}

}  // namespace npu
