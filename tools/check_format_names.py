#!/usr/bin/env python3
"""Format knowledge stays in the format folders (docs/adding-a-format.md): no C++ source of facts/
or rules/ spells an input file's name. They look inputs up by role (model/role.h) and name a role
by role_name(); the file names are read from model/role.cpp, so a role added there is checked too.
Comments may name files (they explain, they do not look up). Exit 1, listing each place, when one
does."""
import pathlib
import re
import sys

root = pathlib.Path(sys.argv[1] if len(sys.argv) > 1 else pathlib.Path(__file__).resolve().parent.parent)
names = [n for n in re.findall(r'case Role::\w+: return "([^"]+)";', (root / "model/role.cpp").read_text())
         if "." in n]
if len(names) < 10:
    sys.exit(f"check_format_names: found only {len(names)} role names in model/role.cpp")
# A name on its own: not a part of a longer one (cluster_communication.json is the cluster
# analysis's file, not communication.json).
pattern = re.compile(r"(?<![A-Za-z0-9_])(" + "|".join(re.escape(n) for n in names) + r")")


def code_of(text):
    """The text without // and /* */ comments (string literals kept)."""
    out, i, n = [], 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            out.append(text[i:j + 1])
            i = j + 1
        elif text.startswith("//", i):
            j = text.find("\n", i)
            i = n if j < 0 else j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            out.append("\n" * text.count("\n", i, n if j < 0 else j))
            i = n if j < 0 else j + 2
        else:
            out.append(c)
            i += 1
    return "".join(out)


found = []
for layer in ("facts", "rules"):
    for path in sorted((root / layer).rglob("*")):
        if path.suffix not in (".cpp", ".h"):
            continue
        for lineno, line in enumerate(code_of(path.read_text(errors="replace")).splitlines(), 1):
            for m in pattern.finditer(line):
                found.append(f"  {path.relative_to(root)}:{lineno}: {m.group(1)}")
if found:
    print(f"{len(found)} input file name(s) spelled in facts/ or rules/ (look the input up by its role, "
          "model/role.h, and name it with role_name()):")
    print("\n".join(found))
    sys.exit(1)
print(f"facts/ and rules/ spell none of the {len(names)} role file names")
