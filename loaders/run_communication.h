// Reads a rank's communication records into RunModel::communication once the run is loaded:
// communication.json / communication_matrix.json of a text export, else the SQLite export's
// analysis.db (CommAnalyzerTime, and CommAnalyzerMatrix for the links).
#pragma once
#include "model/input.h"
#include "model/model.h"

namespace npu {

// Needs the rank (meta.rank) and the file table, so it runs after the rest of the load.
void load_run_communication(const Detection& d, RunModel& model);

}  // namespace npu
