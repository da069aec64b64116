"""The tool's JSON as Python objects: every JSON object is a Record (a dict whose keys are also
attributes: `finding.title`, `report.facts.steps`), and the report, comparison and what-if
results are Records with a few methods of their own. Nothing is computed here: every field is
the tool's (docs/report.schema.json, docs/facts.md, docs/whatif.md)."""


class Record(dict):
    """A JSON object: a dict whose keys are also read as attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError("{} has no field {!r} (its fields: {})".format(
                type(self).__name__, name, ", ".join(sorted(self)))) from None

    def __dir__(self):
        return list(super().__dir__()) + [k for k in self if isinstance(k, str) and k.isidentifier()]

    @classmethod
    def wrap(cls, value):
        if isinstance(value, dict):
            return cls({k: Record.wrap(v) for k, v in value.items()})
        if isinstance(value, list):
            return [Record.wrap(v) for v in value]
        return value


class Finding(Record):
    """One finding: rank, rule, title, severity, category, observed, why, action, commands,
    saving_ns / saving_ratio (the estimated saving), confidence, evidence (file and byte or line)."""

    def __repr__(self):
        return "<Finding {} {}: {} (saves {:.1%})>".format(
            self.get("rank"), self.get("rule"), self.get("title"), self.get("saving_ratio") or 0.0)


def _pandas():
    try:
        import pandas
    except ImportError:
        raise ImportError("to_pandas() needs pandas (pip install pandas, or apt-get install "
                          "python3-pandas)") from None
    return pandas


def _scalars(row):
    return {k: v for k, v in row.items() if not isinstance(v, (dict, list))}


FINDING_COLUMNS = ["rank", "rule", "title", "severity", "category", "saving_ns", "saving_ratio",
                   "score_ns", "confidence", "observed", "action"]


def findings_frame(findings):
    pd = _pandas()
    return pd.DataFrame([{c: f.get(c) for c in FINDING_COLUMNS} for f in findings], columns=FINDING_COLUMNS)


def tables(report_json):
    """The report's tables as pandas DataFrames: findings, steps (the step facts' scalar fields),
    idle_causes and pools (the attribution of step time), operators (by type, when the run has
    them)."""
    pd = _pandas()
    facts = report_json.get("facts") or {}
    attribution = report_json.get("attribution") or {}
    steps = facts.get("steps") or []  # one object per step (docs/facts-steps.md)
    operators = (facts.get("operators") or {}).get("by_type") or []
    pools = attribution.get("pools") or {}
    return {
        "findings": findings_frame(report_json.get("findings") or []),
        "steps": pd.DataFrame([_scalars(s) for s in steps]),
        "idle_causes": pd.DataFrame(attribution.get("idle_causes") or [], columns=["cause", "ns"]),
        "pools": pd.DataFrame([dict(pool=k, **_scalars(v)) for k, v in pools.items()]),
        "operators": pd.DataFrame([_scalars(o) for o in operators]),
    }
