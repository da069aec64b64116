#!/usr/bin/env python3
"""The generated parts of docs/, from the one place each piece of knowledge lives.

    tools/gen_docs.py --check [--bin build/npu-advisor]   # exit 1 when a generated part is stale
    tools/gen_docs.py --write [--bin build/npu-advisor]   # rewrite them in place
    tools/gen_docs.py facts-table PREFIX [--depth N]      # print one table

Two kinds of generated part:
- In Markdown pages, a region between
      <!-- generated: COMMAND; do not edit -->
      <!-- end generated -->
  holds COMMAND's output. COMMAND is `facts-table PREFIX [--depth N]` (this script: the keys of
  facts/schema/*.json below PREFIX as a table) or `npu-advisor ARGS` (the built binary, --bin:
  e.g. the rules' parameter tables, which the rules declare).
- In docs/report.schema.json, `$defs.facts` and every `$defs.facts_*`: the facts document as
  JSON Schema, made from facts/schema/*.json with the validator's own reading of it
  (facts/facts_schema.cpp: unknown keys are refused, `[]` is every element, `*` every key of a map,
  `required` means present whenever the parent is, named types such as `evidence` are defined once).
Run by ctest (docs.generated) with --check.
"""
import argparse
import glob
import json
import os
import re
import shlex
import subprocess
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
MARK = re.compile(r"^<!-- generated: ([^\n]+?); do not edit -->\n(.*?)^<!-- end generated -->\n", re.S | re.M)
PLAIN = {"integer", "number", "string", "boolean", "null", "object", "array", "map", "any"}


class Schema:
    """facts/schema/*.json as the validator reads it, without expanding named types."""

    def __init__(self, root):
        self.sections, self.types, self.keys = [], {}, {}
        for f in sorted(glob.glob(os.path.join(root, "facts", "schema", "*.json"))):
            with open(f, encoding="utf-8") as fh:
                sec = json.load(fh)
            self.sections.append(sec)
            self.types.update(sec.get("types", {}))
            for k in sec.get("keys", []):
                self.keys[k["path"]] = k
        self.version = self.sections[0]["schema_version"] if self.sections else 1

    def children(self, path):
        """Direct children of path: object keys, its `[]` element, its `*` map value."""
        out = []
        for p in self.keys:
            if p == path or not p.startswith(path):
                continue
            rest = p[len(path):]
            if path == "":
                if "." not in p and "[" not in p:
                    out.append(p)
            elif rest == "[]" or re.fullmatch(r"\.[^.\[]+", rest):
                out.append(p)
        return out


def types_of(entry):
    return entry["type"].split("|")


# ---- Markdown tables -------------------------------------------------------------------------

def cell(text):
    return text.replace("|", "\\|").replace("\n", " ")


def facts_table(schema, prefix, depth, elsewhere=()):
    """The keys below prefix, down to depth levels, but for those below a prefix in elsewhere (the
    other tables of the same page)."""
    rows = []
    base = prefix
    for path, k in schema.keys.items():
        if base and not (path.startswith(base + ".") or path.startswith(base + "[]")):
            continue
        if any(len(e) > len(base) and (path.startswith(e + ".") or path.startswith(e + "[]")) for e in elsewhere):
            continue
        rel = path[len(base):].lstrip(".") if base else path
        if not rel or rel == "[]":
            continue
        if rel.startswith("[]."):
            rel = rel[3:]
        level = rel.count(".") + 1
        if level > depth:
            continue
        if rel.endswith("[]") and path[:-2] in schema.keys:
            continue  # the element of an array: its own row says the element's shape via children
        unit = k.get("unit", "")
        kind = k["type"] + (", required" if k.get("required") else "")
        rows.append((path, f"| `{rel}` | {cell(kind)} | {cell(unit)} | {cell(k['meaning'])} |"))
    if not rows:
        raise SystemExit(f"facts-table {prefix}: no schema keys below it")
    rows.sort(key=lambda r: r[0])
    return "| key | type | unit | meaning |\n|---|---|---|---|\n" + "\n".join(r for _, r in rows) + "\n"


def run_command(command, schema, binary, elsewhere=()):
    args = shlex.split(command)
    if args[0] == "facts-table":
        ap = argparse.ArgumentParser(prog="facts-table")
        ap.add_argument("prefix")
        ap.add_argument("--depth", type=int, default=99)
        a = ap.parse_args(args[1:])
        return facts_table(schema, a.prefix, a.depth, elsewhere)
    if args[0] == "npu-advisor":
        if not binary or not os.path.exists(binary):
            raise SystemExit(f"gen_docs: '{command}' needs the built binary (--bin; {binary} not found)")
        out = subprocess.run([binary] + args[1:], cwd=ROOT, capture_output=True, text=True, check=True).stdout
        return out if out.endswith("\n") else out + "\n"
    raise SystemExit(f"gen_docs: unknown generator command '{command}'")


def markdown_pages(schema, binary):
    """{path: (old text, new text)} of every docs page with a generated region."""
    pages = {}
    for f in sorted(glob.glob(os.path.join(ROOT, "docs", "*.md")) + [os.path.join(ROOT, "README.md")]):
        with open(f, encoding="utf-8") as fh:
            text = fh.read()
        if "<!-- generated: " not in text:
            continue
        # a table leaves out what another table of the page lists (dispatch vs dispatch.steps[])
        tables = [shlex.split(cmd)[1] for cmd, _ in MARK.findall(text) if cmd.startswith("facts-table ")]
        new = MARK.sub(lambda m: f"<!-- generated: {m.group(1)}; do not edit -->\n"
                                 f"{run_command(m.group(1), schema, binary, tables)}<!-- end generated -->\n", text)
        pages[f] = (text, new)
    return pages


# ---- JSON Schema of the facts -----------------------------------------------------------------

JSON_TYPE = {"map": "object"}


def def_name(t):
    return "facts_type_" + t


def node(schema, path, entry):
    desc = entry["meaning"] + (f" ({entry['unit']})" if entry.get("unit") else "")
    types = types_of(entry)
    if "any" in types:
        return {"description": desc}
    named = [t for t in types if t not in PLAIN]
    plain = [t for t in types if t in PLAIN]
    out = {"description": desc}
    body = {}
    if plain:
        jt = sorted({JSON_TYPE.get(t, t) for t in plain})
        body["type"] = jt[0] if len(jt) == 1 else jt
        if entry.get("unit") == "0..1" and "number" in plain:
            body["minimum"], body["maximum"] = 0, 1
    if "object" in plain or "map" in plain:
        kids = schema.children(path)
        if "map" in plain:
            value = path + ".*"
            body["additionalProperties"] = node(schema, value, schema.keys[value]) if value in schema.keys else False
        else:
            props = {}
            required = []
            for c in kids:
                if c.endswith("[]") or c.endswith(".*"):
                    continue
                key = c[len(path) + 1:] if path else c
                props[key] = node(schema, c, schema.keys[c])
                if schema.keys[c].get("required"):
                    required.append(key)
            body["properties"] = props
            if required:
                body["required"] = required
            body["additionalProperties"] = False
    if "array" in plain:
        elem = path + "[]"
        body["items"] = node(schema, elem, schema.keys[elem]) if elem in schema.keys else {}
    if named:
        refs = [{"$ref": f"#/$defs/{def_name(t)}"} for t in named]
        alts = refs + ([body] if body else [])
        if len(alts) == 1:
            out.update(alts[0])
        else:
            out["anyOf"] = alts
        return out
    out.update(body)
    return out


def named_type_def(schema, name):
    """A named type ({name: [{path: "" | ".key" | "[]"}]}) as a JSON Schema definition."""
    entries = {e["path"]: e for e in schema.types[name]}
    tmp = Schema.__new__(Schema)
    tmp.types = schema.types
    tmp.keys = {"@" + p: e for p, e in entries.items()}
    return node(tmp, "@", entries[""])


def facts_defs(schema):
    top = {}
    required = []
    defs = {}
    for c in schema.children(""):
        top[c] = node(schema, c, schema.keys[c])
        if schema.keys[c].get("required"):
            required.append(c)
    for c in sorted(top):
        if top[c].get("type") in ("object", ["null", "object"]) and "properties" in top[c]:
            defs[f"facts_{c}"] = top[c]
            top[c] = {"$ref": f"#/$defs/facts_{c}"}
    for t in sorted(schema.types):
        defs[def_name(t)] = named_type_def(schema, t)
    defs["facts"] = {
        "description": "The facts document (`npu-advisor facts RUN`), generated by tools/gen_docs.py from "
                       "facts/schema/*.json (docs/facts.md): do not edit, edit the schema files.",
        "type": "object",
        "required": sorted(required),
        "additionalProperties": False,
        "properties": dict(sorted(top.items())),
    }
    return dict(sorted(defs.items()))


def report_schema(schema):
    path = os.path.join(ROOT, "docs", "report.schema.json")
    with open(path, encoding="utf-8") as fh:
        old = fh.read()
    doc = json.loads(old)
    kept = {k: v for k, v in doc["$defs"].items() if not (k == "facts" or k.startswith("facts_"))}
    kept.update(facts_defs(schema))
    doc["$defs"] = dict(sorted(kept.items()))
    return path, old, json.dumps(doc, indent=2, ensure_ascii=False) + "\n"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--check", action="store_true")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--bin", default=os.path.join(ROOT, "build", "npu-advisor"))
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    schema = Schema(ROOT)
    if a.command:
        sys.stdout.write(run_command(shlex.join(a.command), schema, a.bin))
        return 0
    files = dict(markdown_pages(schema, a.bin))
    p, old, new = report_schema(schema)
    files[p] = (old, new)
    stale = [f for f, (o, n) in files.items() if o != n]
    if a.write:
        for f in stale:
            with open(f, "w", encoding="utf-8") as fh:
                fh.write(files[f][1])
        print(f"gen_docs: rewrote {len(stale)} of {len(files)} files")
        return 0
    if stale:
        for f in stale:
            print(f"gen_docs: {os.path.relpath(f, ROOT)} is stale: run tools/gen_docs.py --write "
                  "(the generated parts come from facts/schema/ and the rules' declarations)", file=sys.stderr)
        return 1
    print(f"gen_docs: {len(files)} files up to date")
    return 0


if __name__ == "__main__":
    sys.exit(main())
