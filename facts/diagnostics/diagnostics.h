// Diagnostics: pure functions from a loaded run to facts. One file per diagnostic; each
// writes its own section of the facts document (docs/facts.md) and records what it could
// not compute with Facts::unavailable().
#pragma once
#include "facts/device_tasks.h"
#include "facts/facts.h"
#include "facts/step_windows.h"
#include "model/model.h"

namespace npu {

// What every diagnostic may share, extracted once per run.
struct DiagnosticContext {
  const RunModel& model;
  DeviceTimeline device;
  std::vector<StepWindow> step_windows;  // where each of model.steps lies on the device
  explicit DiagnosticContext(const RunModel& m)
      : model(m), device(extract_device_timeline(m)), step_windows(device_step_windows(m, m.steps)) {}
};

void diagnose_run_context(const DiagnosticContext& ctx, Facts& facts);  // run_context.cpp: "run"
void diagnose_overlap(const DiagnosticContext& ctx, Facts& facts);      // overlap.cpp: "steps", "overall"
void diagnose_dispatch(const DiagnosticContext& ctx, Facts& facts);     // dispatch.cpp: "dispatch"
void diagnose_operators(const DiagnosticContext& ctx, Facts& facts);    // operators.cpp: "operators"
void diagnose_operator_health(const DiagnosticContext& ctx,
                              Facts& facts);                    // operator_health.cpp: "operator_health", "memory"
void diagnose_gpu(const DiagnosticContext& ctx, Facts& facts);  // gpu.cpp: "gpu" (Kineto GPU runs)
void diagnose_communication(const DiagnosticContext& ctx, Facts& facts);  // communication.cpp: "communication"
void diagnose_collectives(const DiagnosticContext& ctx,
                          Facts& facts);  // collectives.cpp: "collectives" (after communication)
// Reads "steps" and "dispatch": runs after them.
void diagnose_timeline(const DiagnosticContext& ctx, Facts& facts);  // timeline.cpp: "timeline"
// graph_execution.cpp: "graph_execution" (Ascend runs)
void diagnose_graph_execution(const DiagnosticContext& ctx, Facts& facts);

// Runs every diagnostic in order.
Facts compute_facts(const RunModel& model);

}  // namespace npu
