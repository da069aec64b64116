-- A correct rule: fires when any communication is left exposed (testdata/rules_schema/README.md).
rule {
  id = "test.misspelled_key",
  title = "Exposed communication",
  category = "communication",
  needs = { "overall.comm_not_overlapped_ns" },
  doc = [[Test fixture: its fires fixture misspells a key.]],
}

function check(facts, p, emit)
  local exposed = facts.overall.comm_not_overlapped_ns
  if exposed > 0 then emit { observed = "exposed communication", saving_ns = exposed } end
end
