// libFuzzer target: the SQLite export loaders (loaders/db/db_export.h).
//
// The input is written to a scratch .db file and read as a profiler database, then as an
// analysis.db. Seeds (corpus/db) are small valid exports built from the documented schemas,
// so mutations reach page, schema and row decoding. A LoadError must be one line naming the
// file; anything else thrown, a crash, a hang or a sanitizer report is a bug.
#include <cstdint>
#include <exception>
#include <string>

#include "base/load_error.h"
#include "fuzz_util.h"
#include "loaders/db/db_export.h"
#include "loaders/db/format.h"
#include "model/model.h"

namespace {

template <typename Load>
void try_load(Load load, const std::string& path, uint64_t size) {
  try {
    npu::RunModel m;
    load(path, m);
    m.finalize();
    // Every location must decode to a registered file.
    for (const auto& s : m.slices)
      if (m.decode_loc(s.loc).file >= m.files.size()) npu_fuzz::finding("slice location names no file");
  } catch (const npu::LoadError& e) {
    npu_fuzz::check_load_error(e, path, size);
  } catch (const std::exception& e) {
    npu_fuzz::finding(std::string("non-LoadError exception: ") + e.what());
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static npu_fuzz::ScratchFile file(".db");
  if (size > (1u << 20)) return 0;
  file.write(data, size);
  try_load([](const std::string& p, npu::RunModel& m) { npu::load_profiler_db(p, m, npu::db_producer(p)); },
           file.path(), size);
  try_load(npu::load_analysis_db, file.path(), size);
  return 0;
}
