// A fixture for tools/check_frame.py (architecture.frame_refuses): a diagnostic that decides
// which step and which launch itself, three ways the check must refuse.
int steps_of(const RunModel& m) {
  if (m.meta.step_semantics == StepSemantics::LaunchedWork) return 1;
  Step pseudo = Step{kNoId, 0, 1, {}};
  std::unordered_map<int64_t, uint32_t> by_corr;
  return 0;
}
