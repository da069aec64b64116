"""The npu_advisor wheel's Python API (docs/python.md), run by scripts/python-check.sh with the
Python of a fresh venv the wheel was installed into, offline:

    NPU_ADVISOR_REPO=. venv/bin/python tests/python/test_api.py

and by ctest (python.api) on the source tree's package with the build's binary
(PYTHONPATH=python NPU_ADVISOR_BINARY=build/npu-advisor): then the installed-wheel test is skipped.

Each answer is checked against the tool itself: the installed `npu-advisor` command run directly
(the API must give exactly what the tool says, as Python objects), and the one thing a wrapper
adds, errors as exceptions, against the input's own faults. NPU_ADVISOR_EXPECT_PANDAS=1: the
venv has pandas (to_pandas() is tested), =0: it has none (to_pandas() must say it needs it);
unset: tested when pandas imports.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile
import unittest

import npu_advisor

REPO = os.path.abspath(os.environ.get("NPU_ADVISOR_REPO", "."))
SAMPLE = os.path.join(REPO, "testdata", "sample")
REAL = os.path.join(REPO, "..", "shared", "realdata")
REAL_INPUTS = ["kineto_h200/sync", "ascend_db/msinsight_full_db/msprof_0.db",
               "ascend_torch_npu/msinsight_pytorch_2rank/text/rank0_ascend_pt"]
# the installed command beside the venv's python, or the binary ctest gives
COMMAND = os.environ.get("NPU_ADVISOR_BINARY") or shutil.which("npu-advisor", path=os.path.dirname(sys.executable))


def tool_json(*args):
    """The installed command's own JSON, less the run's timing fields."""
    out = subprocess.run([COMMAND, *args, "-q"], check=True, stdout=subprocess.PIPE).stdout
    return drop_timings(json.loads(out))


TIMINGS = {"trace_mb_per_s", "trace_seconds", "load_seconds", "facts_seconds", "rules_seconds",
           "total_seconds", "wall_seconds"}


def drop_timings(v):
    if isinstance(v, dict):
        return {k: drop_timings(x) for k, x in v.items() if k not in TIMINGS}
    if isinstance(v, list):
        return [drop_timings(x) for x in v]
    return v


class Installed(unittest.TestCase):
    @unittest.skipIf(os.environ.get("NPU_ADVISOR_BINARY"), "the source tree's package, not an installed wheel")
    def test_the_binary_is_the_wheels_own_and_static(self):
        path = npu_advisor.binary()
        self.assertTrue(path.startswith(os.path.dirname(npu_advisor.__file__)), path)
        self.assertTrue(os.access(path, os.X_OK), path + " is not executable")
        with open(path, "rb") as f:
            self.assertEqual(f.read(4), b"\x7fELF")
        self.assertIsNotNone(COMMAND, "no npu-advisor command beside " + sys.executable)
        out = subprocess.run([COMMAND, "--version"], check=True, stdout=subprocess.PIPE, text=True).stdout
        self.assertEqual(out.strip(), npu_advisor.version())


class Analyze(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.report = npu_advisor.analyze(SAMPLE)
        cls.tool = tool_json("analyze", SAMPLE, "--format", "json")

    def test_findings_are_the_tools_as_objects(self):
        r = self.report
        self.assertEqual(len(r.findings), len(self.tool["findings"]))
        self.assertGreater(len(r.findings), 0)
        for mine, theirs in zip(r.findings, self.tool["findings"]):
            self.assertIsInstance(mine, npu_advisor.Finding)
            self.assertEqual(mine.title, theirs["title"])
            self.assertEqual(mine.rule, theirs["rule"])
            self.assertEqual(mine.saving_ns, theirs["saving_ns"])
            self.assertEqual(mine.evidence[0], theirs["evidence"][0])
        # the sample was generated with a host-bound step (testdata/sample's generator)
        self.assertEqual(r.findings[0].rule, "dispatch.host_bound")

    def test_facts_and_attribution(self):
        r = self.report
        self.assertEqual(drop_timings(r.facts), self.tool["facts"])
        self.assertEqual(r.attribution, self.tool["attribution"])
        self.assertEqual(r.attribution.parts.computing_ns, self.tool["attribution"]["parts"]["computing_ns"])
        self.assertEqual(len(r.facts.steps), len(self.tool["facts"]["steps"]))
        with self.assertRaises(AttributeError) as e:
            r.no_such_field
        self.assertIn("findings", str(e.exception))  # the message lists the fields there are

    def test_facts_command(self):
        self.assertEqual(drop_timings(npu_advisor.facts(SAMPLE)), tool_json("facts", SAMPLE))

    def test_to_pandas(self):
        expect = os.environ.get("NPU_ADVISOR_EXPECT_PANDAS")
        if expect is None:
            try:
                import pandas  # noqa: F401
            except ImportError:
                self.skipTest("pandas is not installed")
        if expect == "0":
            with self.assertRaises(ImportError) as e:
                self.report.to_pandas()
            self.assertIn("pandas", str(e.exception))
            return
        t = self.report.to_pandas()
        self.assertEqual(list(t["findings"]["title"]), [f["title"] for f in self.tool["findings"]])
        self.assertEqual(len(t["steps"]), len(self.tool["facts"]["steps"]))
        self.assertEqual(list(t["steps"]["id"]), [s["id"] for s in self.tool["facts"]["steps"]])
        causes = self.tool["attribution"]["idle_causes"]
        self.assertEqual(int(t["idle_causes"]["ns"].sum()), sum(c["ns"] for c in causes))

    def test_params_reach_the_tool(self):
        # a rule parameter the tool does not know is the tool's error, raised with its message
        with self.assertRaises(npu_advisor.NpuAdvisorError) as e:
            npu_advisor.analyze(SAMPLE, params={"no.such_rule.x": 1})
        self.assertEqual(e.exception.exit_code, 2)
        self.assertIn("no.such_rule", e.exception.message)


class CompareAndWhatif(unittest.TestCase):
    def test_compare(self):
        c = npu_advisor.compare(SAMPLE, SAMPLE)
        self.assertIsInstance(c, npu_advisor.Comparison)
        self.assertEqual(c, tool_json("compare", SAMPLE, SAMPLE, "--format", "json"))
        self.assertEqual(c.base.path, SAMPLE)

    def test_whatif(self):
        w = npu_advisor.whatif(SAMPLE, apply=["dataloader", "graphs"])
        self.assertIsInstance(w, npu_advisor.WhatIf)
        self.assertEqual(w.combined.transforms, ["dataloader", "graphs"])
        self.assertEqual(w, tool_json("whatif", SAMPLE, "--apply", "dataloader,graphs", "--format", "json"))
        self.assertEqual(npu_advisor.whatif(SAMPLE, apply="dataloader,graphs"), w)


class Errors(unittest.TestCase):
    def test_missing_path_names_it(self):
        with self.assertRaises(npu_advisor.NpuAdvisorError) as e:
            npu_advisor.analyze("/no/such/run")
        self.assertEqual(e.exception.exit_code, 2)
        self.assertEqual(e.exception.message, "/no/such/run: no such file or folder")
        self.assertIn("/no/such/run", str(e.exception))

    def test_bad_file_names_file_and_byte(self):
        with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as f:
            f.write('{"traceEvents": [1, 2,')
        try:
            with self.assertRaises(npu_advisor.NpuAdvisorError) as e:
                npu_advisor.facts(f.name)
            self.assertEqual(e.exception.exit_code, 2)
            self.assertTrue(e.exception.message.startswith(f.name + ": byte "), e.exception.message)
        finally:
            os.unlink(f.name)

    def test_unknown_transform(self):
        with self.assertRaises(npu_advisor.NpuAdvisorError) as e:
            npu_advisor.whatif(SAMPLE, apply=["teleport"])
        self.assertEqual(e.exception.exit_code, 2)
        self.assertIn("teleport", e.exception.message)


class RealData(unittest.TestCase):
    def test_real_inputs(self):
        seen = 0
        for p in REAL_INPUTS:
            path = os.path.realpath(os.path.join(REAL, p))
            if not os.path.exists(path):
                continue
            seen += 1
            with self.subTest(input=p):
                r = npu_advisor.analyze(path)
                tool = tool_json("analyze", path, "--format", "json")
                self.assertEqual([f.rule for f in r.findings], [f["rule"] for f in tool["findings"]])
                self.assertEqual(drop_timings(r.facts), tool["facts"])
        if os.environ.get("NPU_ADVISOR_REQUIRE_REALDATA") == "1":
            self.assertEqual(seen, len(REAL_INPUTS), "real inputs missing under " + REAL)


class NotebookView(unittest.TestCase):
    """The HTML of the views; tests/python/notebook_view_browser_test.py draws them in chromium."""

    @classmethod
    def setUpClass(cls):
        cls.report = npu_advisor.analyze(SAMPLE)

    def test_repr_html_is_the_report_in_a_frame(self):
        html = self.report._repr_html_()
        self.assertTrue(html.startswith('<iframe class="npu-advisor-report" sandbox="allow-scripts"'), html[:100])
        self.assertIn("srcdoc=\"&lt;!DOCTYPE html&gt;", html)
        page = self.report.html()
        self.assertIn('<section id="findings"', page)
        self.assertIn(self.report.findings[0].title.replace("'", "&#x27;")[:20], html)

    def test_timeline_of_a_drawn_step(self):
        drawn = [s["id"] for s in self.report.views.timeline.steps]
        v = self.report.timeline(drawn[-1])
        self.assertTrue(v.available)
        self.assertIn("main > section:not(#timeline)", v.html)
        self.assertIn('s.value = "%d"' % (len(drawn) - 1), v.html)
        with self.assertRaises(ValueError) as e:
            self.report.timeline(10 ** 6)
        self.assertIn(", ".join(str(s) for s in drawn), str(e.exception))

    def test_roofline_absent_says_so_present_is_shown(self):
        v = self.report.roofline()
        if '<section id="roofline"' in self.report.html():
            self.assertTrue(v.available)
            self.assertIn("main > section:not(#roofline)", v.html)
        else:
            self.assertFalse(v.available)
            self.assertIn("has no roofline section", v._repr_html_())
            self.assertIn("has no roofline section", repr(v))
        # the hook: a report page with a section id="roofline" is shown by roofline()
        page = self.report.html().replace('<section id="run"', '<section id="roofline" class="card">'
                                          '<h2>Roofline</h2></section><section id="run"', 1)
        object.__setattr__(self.report, "_page", page)
        try:
            v = self.report.roofline()
            self.assertTrue(v.available)
            self.assertIn("main > section:not(#roofline)", v.html)
        finally:
            object.__setattr__(self.report, "_page", None)


if __name__ == "__main__":
    unittest.main()
