// Communication as a unit of its own (loaders/communication/): a rank's communication records
// into RunModel::communication (model/communication.h), called by the formats that have them
// once the run is loaded (they need the rank, meta.rank, and the file table):
//   - a text export's communication.json / communication_matrix.json (the inputs it registered as
//     Role::Communication and Role::CommunicationMatrix): loaders/torch_npu_text;
//   - a SQLite export's analysis.db (CommAnalyzerTime, and CommAnalyzerMatrix for the links):
//     loaders/db.
// The files' and tables' syntax: communication_files.h, analysis_db_tables.h; the cluster
// analysis reads the profiler's cluster files through communication_files.h too.
#pragma once
#include "model/model.h"

namespace npu {

// From the inputs registered as Role::Communication / Role::CommunicationMatrix, when loaded.
void load_communication_files(RunModel& model);

// From the analysis.db the run's step breakdown came from (Role::StepTraceTime with table
// StepTraceTime), when it has CommAnalyzerTime rows.
void load_communication_tables(RunModel& model);

}  // namespace npu
