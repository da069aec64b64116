"""npu_advisor: the npu-advisor tool from Python (docs/python.md).

    import npu_advisor
    report = npu_advisor.analyze("PROFILER_OUTPUT")     # runs `npu-advisor analyze --format json`
    report.findings[0].title, report.facts, report.attribution
    report.to_pandas()["findings"]                      # when pandas is installed
    report                                              # in Jupyter: the HTML report inline
    report.timeline(step=3); report.roofline()          # one section of it
    npu_advisor.compare(base, new); npu_advisor.whatif(path, apply=["dataloader"])
    npu_advisor.facts(path)

Every call runs the npu-advisor binary (the static one inside this wheel, or $NPU_ADVISOR_BINARY);
its errors are raised as NpuAdvisorError with the tool's one-line message and exit code.
"""
import os
import tempfile

from . import _html
from ._objects import Finding, Record, findings_frame, tables
from ._run import NpuAdvisorError, binary, options, run, run_json

__all__ = ["analyze", "facts", "compare", "whatif", "version", "binary", "run",
           "Report", "Comparison", "WhatIf", "Finding", "Record", "HtmlView", "NpuAdvisorError"]
HtmlView = _html.HtmlView


def version():
    """The binary's version, e.g. '0.1.0'."""
    return run("--version").strip()


class Report(Record):
    """`npu-advisor analyze --format json` of a run (docs/report.schema.json) as a Record:
    findings (a list of Finding, best saving first), facts, attribution, summary, warnings,
    unavailable, verdicts, input, views. In Jupyter it shows as the HTML report."""

    def __init__(self, document, path, args):
        super().__init__(Record.wrap(document))
        self["findings"] = [Finding(f) for f in self.get("findings", [])]
        object.__setattr__(self, "_path", path)
        object.__setattr__(self, "_args", args)
        object.__setattr__(self, "_page", None)

    @property
    def path(self):
        return self._path

    def __repr__(self):
        return "<Report of {}: {} findings{}>".format(
            self._path, len(self.findings),
            "; top: " + self.findings[0].title if self.findings else "")

    def to_pandas(self):
        """A dict of pandas DataFrames: findings, steps, idle_causes, pools, operators."""
        return tables(self)

    def html(self):
        """The self-contained HTML report of the run (`npu-advisor analyze PATH -o report.html`
        with this report's options), made once and kept."""
        if self._page is None:
            with tempfile.TemporaryDirectory(prefix="npu-advisor-") as tmp:
                out = os.path.join(tmp, "report.html")
                run("analyze", self._path, "-q", "-o", out, *self._args)
                with open(out, encoding="utf-8") as f:
                    object.__setattr__(self, "_page", f.read())
        return self._page

    def save_html(self, path):
        with open(path, "w", encoding="utf-8") as f:
            f.write(self.html())
        return path

    def _repr_html_(self):
        return _html.iframe(self.html(), 900)

    def section(self, section_id, height=600):
        """One section of the HTML report (summary, timeline, steps, dispatch, operators, modules,
        findings, checks, run, roofline, ...) as an HtmlView; `available` False when the report
        has no such section."""
        page = self.html()
        if not _html.has_section(page, section_id):
            return HtmlView(None, section_id, note="the report of {} has no {} section (no element "
                            'id="{}" in its HTML)'.format(self._path, section_id, section_id))
        return HtmlView(_html.section_page(page, section_id), section_id, height)

    def timeline(self, step=None, height=560):
        """The step timeline chart (host threads, device streams, launch lines) of step `step` (a
        step id, as in facts.steps; the report draws a few chosen steps: views.timeline.steps);
        the first drawn step when None."""
        drawn = [s.get("id") for s in ((self.get("views") or {}).get("timeline") or {}).get("steps") or []]
        if not drawn:
            return HtmlView(None, "timeline", note="the report of {} has no step timeline (the run "
                            "has no host and device events of steps)".format(self._path))
        if step is None:
            index = 0
        elif step in drawn:
            index = drawn.index(step)
        else:
            raise ValueError("step {!r} is not drawn on the timeline of {}: the drawn steps are {}".format(
                step, self._path, ", ".join(str(s) for s in drawn)))
        view = self.section("timeline", height)
        if view.available:
            view.page = _html.section_page(self.html(), "timeline", _html.pick_step_script(index))
        view.title = "timeline of step {}".format(drawn[index])
        return view

    def roofline(self, height=600):
        """The roofline chart: the report's section with id="roofline" (docs/python.md); a view
        saying the report has none when its HTML has no such section."""
        view = self.section("roofline", height)
        if not view.available:
            view.note += ": this npu-advisor ({}) draws no roofline chart for it".format(version())
        return view


class Comparison(Record):
    """`npu-advisor compare BASE NEW --format json` (docs/compare-gate.md) as a Record."""

    def __repr__(self):
        return "<Comparison of {} and {}>".format(self.get("base", {}).get("path"), self.get("new", {}).get("path"))


class WhatIf(Record):
    """`npu-advisor whatif PATH --apply ... --format json` (docs/whatif.md) as a Record."""

    def __repr__(self):
        combined = self.get("combined") or {}
        return "<WhatIf {}: saves {} ns of {} ns>".format(
            "+".join(combined.get("transforms") or []), combined.get("saving_ns"), self.get("measured_step_ns"))


def analyze(path, rules=None, no_builtin_rules=False, params=None, config=None, threads=None):
    """Analyzes a run (a profiler output folder or trace file): a Report. `rules`: folders of
    more rules; `params`: {"RULE_ID.PARAM": value} overrides; `config`: a file of such lines."""
    args = options(rules=rules, no_builtin_rules=no_builtin_rules, params=params, config=config,
                   threads=threads)
    path = os.fspath(path)
    return Report(run_json("analyze", path, "--format", "json", "-q", *args), path, args)


def facts(path, threads=None):
    """The facts of a run (`npu-advisor facts PATH`, docs/facts.md) as a Record."""
    return Record.wrap(run_json("facts", os.fspath(path), "-q", *options(threads=threads)))


def compare(base, new, keep_warmup=False, rules=None, no_builtin_rules=False, threads=None):
    """Compares two runs (folders, trace files or facts files): a Comparison."""
    args = options(rules=rules, no_builtin_rules=no_builtin_rules, keep_warmup=keep_warmup, threads=threads)
    return Comparison(Record.wrap(run_json("compare", os.fspath(base), os.fspath(new), "--format", "json",
                                           "-q", *args)))


WHATIF_TRANSFORMS = ("dataloader", "graphs", "syncs", "pinned", "tf32", "bf16", "gc", "compile")


def whatif(path, apply=(), threads=None):
    """Replays the run's steps with the fixes in `apply` (any of WHATIF_TRANSFORMS) applied
    together: a WhatIf."""
    if isinstance(apply, str):
        apply = [a for a in apply.split(",") if a]
    args = ["--apply", ",".join(apply)] if apply else []
    return WhatIf(Record.wrap(run_json("whatif", os.fspath(path), "--format", "json", "-q", *args,
                                       *options(threads=threads))))
