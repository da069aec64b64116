// The small tables every reader after them leans on: STRING_IDS (the text of the id-valued
// text columns of current schemas), ENUM_API_TYPE and ENUM_MODULE (API type and memory module
// names), META_DATA (versions, distributed args, environment, group names) and RANK_DEVICE_MAP (this
// database's rank and device).
#include <map>
#include <string>

#include "base/json_file.h"
#include "loaders/db/db_readers.h"
#include "loaders/parallel_groups.h"

namespace npu {

void read_string_ids(DbLoadContext& cx) {
  if (!cx.db.has_table("STRING_IDS")) return;
  ColumnPicker c(cx.db, "STRING_IDS");
  int id = c.add({"id"}), value = c.add({"value"});
  if (!c.has(id) || !c.has(value)) return;
  SqliteStmt st(cx.db, "SELECT " + c.select_list() + " FROM STRING_IDS", "STRING_IDS");
  while (st.step()) {
    int64_t k = st.i64(id);
    StrId v = cx.model.strings.intern(st.text(value));
    // Ids are small and dense in every export seen: index a vector, keep a map for the rest.
    if (k >= 0 && k < (int64_t{1} << 24)) {
      if (static_cast<size_t>(k) >= cx.dense_strings.size())
        cx.dense_strings.resize(static_cast<size_t>(k) + 1, kNone32);
      cx.dense_strings[static_cast<size_t>(k)] = v;
    } else {
      cx.strings[k] = v;
    }
  }
}

void read_enum(DbLoadContext& cx, const char* table, std::unordered_map<int64_t, std::string>& out) {
  if (!cx.db.has_table(table)) return;
  ColumnPicker c(cx.db, table);
  int id = c.add({"id"}), name = c.add({"name"});
  if (!c.has(id) || !c.has(name)) return;
  SqliteStmt st(cx.db, "SELECT " + c.select_list() + " FROM " + table, table);
  while (st.step()) out[st.i64(id)] = std::string(st.text(name));
}

void read_metadata(DbLoadContext& cx) {
  if (cx.db.has_table("META_DATA")) {
    ColumnPicker c(cx.db, "META_DATA");
    int name = c.add({"name"}), value = c.add({"value"});
    SqliteStmt st(cx.db, "SELECT " + c.select_list() + " FROM META_DATA", "META_DATA");
    while (st.step()) {
      std::string n(st.text(name)), v(st.text(value));
      auto j = parse_json_or_discard(v);  // too deep or invalid: not an object, skipped
      auto flat = [&](std::map<std::string, std::string>& into) {
        for (auto& [k, x] : j.items()) into[k] = x.is_string() ? x.get<std::string>() : x.dump();
      };
      if (n == "distributed_args" && j.is_object()) flat(cx.model.meta.distributed);
      else if (n == "ENV_VARIABLES" && j.is_object()) flat(cx.model.meta.env);
      else if (n == "parallel_group_info" && j.is_object())
        cx.model.meta.parallel_groups = parse_parallel_group_info(j);
      else if (n.find("version") != std::string::npos) cx.model.meta.versions[n] = v;
      else cx.model.meta.config[n] = v;
    }
  }
  if (cx.db.has_table("RANK_DEVICE_MAP")) {
    ColumnPicker c(cx.db, "RANK_DEVICE_MAP");
    int rank = c.add({"rankId"}), dev = c.add({"deviceId"});
    SqliteStmt st(cx.db, "SELECT " + c.select_list() + " FROM RANK_DEVICE_MAP", "RANK_DEVICE_MAP");
    if (st.step()) {
      if (c.has(rank) && int32_or(st, rank, -1) >= 0 && cx.model.meta.rank < 0)
        cx.model.meta.rank = int32_or(st, rank, -1);
      if (c.has(dev) && int32_or(st, dev, -1) >= 0) cx.model.meta.device = int32_or(st, dev, -1);
    }
  }
}

}  // namespace npu
