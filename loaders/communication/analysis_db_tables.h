// analysis.db's communication tables, the SQLite form of communication.json and
// communication_matrix.json (torch_npu's DB export): CommAnalyzerTime (elapse / transit / wait /
// synchronisation / idle per operator), CommAnalyzerBandwidth (per transport and packet size).
// Records come out as the model's communication rows (model/communication.h), with the table and
// rowid as their source.
#pragma once
#include <string>
#include <vector>

#include "model/communication.h"

namespace npu {

// The operators of CommAnalyzerTime (+ CommAnalyzerBandwidth); none when the database has no
// CommAnalyzerTime table.
std::vector<CommOp> load_comm_analyzer_ops(const std::string& analysis_db, int rank);

// The links of CommAnalyzerMatrix (src_rank -> dst_rank per operator); none when the database
// has no such table. A rank id that
// is not an integer is a LoadError naming the file and rowid.
std::vector<CommLink> load_comm_analyzer_links(const std::string& analysis_db);

}  // namespace npu
