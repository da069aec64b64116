#!/usr/bin/env python3
"""One owner for "which step, which launch" (docs/architecture.md, "The frame").

    tools/check_frame.py [--root REPO]

Run by ctest (architecture.frame). Above the loaders, the format's step rule
(model.meta.step_semantics, StepSemantics) is read in facts/frame/ only; the pseudo-step of a run
without a schedule (a Step with id kNoId) is made there only, and so is every lookup of the step
that holds an event; and the Kineto correlation map is
built once per run, in the model (RunModel::finalize), never by a pass of its own. Exit 1 with one
line per offender.
"""
import argparse
import os
import re
import sys

ABOVE_LOADERS = ["facts", "rules", "compare", "reports", "views", "pipeline", "mcp", "collector", "cli"]
CHECKS = [
    (re.compile(r"\bStepSemantics\b|\bstep_semantics\b"), "reads the format's step rule (only facts/frame/ may)"),
    (re.compile(r"\bStep\s*\{\s*kNoId\b"), "makes a pseudo-step (only facts/frame/ may: one definition)"),
    (re.compile(r"\bstep_holding\s*\("), "looks up which step holds an event itself (the frame answers: step_of_host, ...)"),
    (re.compile(r"unordered_map<\s*int64_t\s*,\s*uint32_t\s*>\s+\w+\s*;|\bcorrelation\.by_id\s*\["),
     "builds a correlation map of its own (the model builds it once: RunModel::correlation)"),
]


STRING = re.compile(r'"(?:[^"\\]|\\.)*"')


def code_lines(text):
    """Lines with string literals and // comments dropped (the checks read code, not prose)."""
    for n, line in enumerate(text.splitlines(), 1):
        yield n, STRING.sub('""', line).split("//", 1)[0]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    root = os.path.abspath(ap.parse_args().root)
    bad = []
    for layer in ABOVE_LOADERS:
        for dirpath, _, files in os.walk(os.path.join(root, layer)):
            rel_dir = os.path.relpath(dirpath, root)
            if rel_dir.replace(os.sep, "/").startswith("facts/frame"):
                continue
            for name in sorted(files):
                if not name.endswith((".cpp", ".h")):
                    continue
                path = os.path.join(dirpath, name)
                with open(path, encoding="utf-8", errors="replace") as f:
                    text = f.read()
                for n, line in code_lines(text):
                    for pattern, why in CHECKS:
                        if pattern.search(line):
                            bad.append(f"{os.path.relpath(path, root)}:{n}: {why}")
    if bad:
        print(f"{len(bad)} place(s) outside the frame decide which step or which launch (tools/check_frame.py):")
        for b in bad:
            print("  " + b)
        return 1
    print("the frame is the one owner of steps and launches")
    return 0


if __name__ == "__main__":
    sys.exit(main())
