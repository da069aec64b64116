// analysis.db's communication tables, the SQLite form of communication.json and
// communication_matrix.json (torch_npu's DB export): CommAnalyzerTime (elapse / transit / wait /
// synchronisation / idle per operator), CommAnalyzerBandwidth (per transport and packet size).
// Records come out in the shape of load_communication_ops (loaders/communication_loader.h), with
// {table, rowid} evidence.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace npu {

// The operators of CommAnalyzerTime (+ CommAnalyzerBandwidth); an empty array when the
// database has no CommAnalyzerTime table.
nlohmann::json load_comm_analyzer_ops(const std::string& analysis_db, int rank);

// The links of CommAnalyzerMatrix (src_rank -> dst_rank per operator), in the shape of
// load_communication_links; an empty array when the database has no such table. A rank id that
// is not an integer is a LoadError naming the file and rowid.
nlohmann::json load_comm_analyzer_links(const std::string& analysis_db);

}  // namespace npu
