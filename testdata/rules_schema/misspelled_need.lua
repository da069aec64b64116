-- A rule whose `needs` names a key the facts schema does not have (testdata/rules_schema/README.md).
rule {
  id = "test.misspelled_need",
  title = "Needs a misspelled fact",
  category = "communication",
  needs = { "overall.comm_not_overlaped_ns" },
  doc = [[Test fixture: must fail to load.]],
}

function check(facts, p, emit)
  emit { observed = "never reached", saving_ns = 1 }
end
