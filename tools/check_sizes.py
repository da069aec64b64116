#!/usr/bin/env python3
"""Rooms that fit their job (docs/architecture.md): no source file of a layer over MAX_LINES lines
and no function over MAX_FUNCTION lines, C++ (.cpp, .h) and the report's JavaScript (.js).

    tools/check_sizes.py [--root REPO] [--max-lines 500] [--max-function 80] [--list N]

Run by ctest (architecture.file_sizes). A function is measured from the line of its opening
brace to the line of its closing one, nested lambdas and local functions included (ESLint's
max-lines-per-function counts the same way). Found by braces with comments, strings and
character literals blanked out: a `{` at namespace or class level whose statement so far holds a
`(` (a parameter list) and does not start with namespace/class/struct/enum/union/extern, or an
`=` initialiser, opens a function. In JavaScript every `function` and `=>` body is one, except
the file's wrapper `(function () { ... })()`, which is the file. Exit 1 with one line per
offender.
"""
import argparse
import os
import re
import sys

LAYERS = ["base", "model", "loaders", "facts", "rules", "compare", "reports", "views", "pipeline", "mcp",
          "collector", "cli"]


def blank(text, js):
    """The text with comments, strings and char literals replaced by spaces (newlines kept)."""
    out = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        two = text[i:i + 2]
        if two == "//":
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif two == "/*":
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif not js and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                out.append(c)
                i += 1
                continue
            end = ")" + m.group(1) + '"'
            j = text.find(end, i + m.end())
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c in "\"'" or (js and c == "`"):
            if c == "'" and not js and i > 0 and text[i - 1].isalnum():  # 1'000'000 digit separators
                out.append(" ")
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c:
                if text[j] == "\\":
                    j += 1
                elif text[j] == "\n" and c != "`":
                    break
                j += 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        else:
            out.append(c)
            i += 1
    return "".join(out)


NOT_A_FUNCTION = re.compile(r"^\s*(template\s*<.*>\s*)?(namespace|class|struct|enum|union|extern)\b", re.S)


def cpp_functions(code):
    """(name, first line, last line) of each function body at namespace or class level."""
    found = []
    stack = []  # per open brace: "fn" or "scope" or "block"
    stmt_start = 0
    line = 1
    fn_start = None
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c in ";":
            if "fn" not in stack:
                stmt_start = i + 1
        elif c == "{":
            inside_fn = "fn" in stack
            stmt = code[stmt_start:i]
            kind = "block"
            if not inside_fn:
                head = stmt.strip()
                if "(" in head and not NOT_A_FUNCTION.match(head) and not re.search(r"=\s*$", head) \
                        and not re.search(r"^[^(]*=", head):
                    kind = "fn"
                    fn_start = (line, head)
                else:
                    kind = "scope"
                stmt_start = i + 1
            stack.append(kind)
        elif c == "}":
            kind = stack.pop() if stack else "scope"
            if kind == "fn" and "fn" not in stack:
                first, head = fn_start
                name = re.sub(r"\s+", " ", head.split("(")[0]).strip().split(" ")[-1]
                found.append((name, first, line))
            if "fn" not in stack:
                stmt_start = i + 1
    return found


def js_functions(code):
    found = []
    stack = []  # (kind, line, name)
    line = 1
    for i, c in enumerate(code):
        if c == "\n":
            line += 1
        elif c == "{":
            before = code[max(0, i - 300):i].rstrip()
            kind = "block"
            name = ""
            if before.endswith("=>"):
                kind, name = "fn", "arrow"
            elif before.endswith(")"):
                # the matching "(" and what precedes it
                depth, j = 0, len(before) - 1
                while j >= 0:
                    if before[j] == ")":
                        depth += 1
                    elif before[j] == "(":
                        depth -= 1
                        if depth == 0:
                            break
                    j -= 1
                prefix = before[:max(j, 0)].rstrip()
                m = re.search(r"function\s*([\w$]*)\s*$", prefix)
                if m:
                    kind, name = "fn", m.group(1) or "anonymous"
                    if prefix.endswith("(function") and line <= 12:
                        kind = "wrapper"  # the file's own (function () { ... })()
                elif re.search(r"(^|[^\w$.])(if|for|while|switch|catch|with)\s*$", prefix):
                    kind = "block"
                elif re.search(r"[\w$]\s*$", prefix) and not re.search(r"(return|typeof|else)\s*$", prefix):
                    kind, name = "fn", re.search(r"([\w$]+)\s*$", prefix).group(1)  # method shorthand
            stack.append((kind, line, name))
        elif c == "}":
            if not stack:
                continue
            kind, first, name = stack.pop()
            if kind == "fn" and not any(k == "fn" for k, _, _ in stack):
                found.append((name, first, line))
    return found


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
    ap.add_argument("--max-lines", type=int, default=500)
    ap.add_argument("--max-function", type=int, default=80)
    ap.add_argument("--list", type=int, default=0, help="print the N longest functions and stop")
    args = ap.parse_args()
    root = os.path.abspath(args.root)
    problems, functions = [], []
    for layer in LAYERS:
        for dirpath, _, files in os.walk(os.path.join(root, layer)):
            for f in sorted(files):
                if not f.endswith((".cpp", ".h", ".js")):
                    continue
                path = os.path.join(dirpath, f)
                rel = os.path.relpath(path, root)
                with open(path, encoding="utf-8", errors="replace") as fh:
                    text = fh.read()
                n = text.count("\n")
                if n > args.max_lines:
                    problems.append(f"{rel}: {n} lines (the most is {args.max_lines}: split it by job)")
                js = f.endswith(".js")
                code = blank(text, js)
                for name, first, last in (js_functions(code) if js else cpp_functions(code)):
                    length = last - first + 1
                    functions.append((length, rel, first, name))
                    if length > args.max_function:
                        problems.append(f"{rel}:{first}: function {name} is {length} lines "
                                        f"(the most is {args.max_function}: split it by job)")
    if args.list:
        for length, rel, first, name in sorted(functions, reverse=True)[:args.list]:
            print(f"{length:5d} {rel}:{first} {name}")
        return 0
    if problems:
        print(f"{len(problems)} room(s) too big (tools/check_sizes.py):", file=sys.stderr)
        for p in problems:
            print("  " + p, file=sys.stderr)
        return 1
    print(f"check_sizes: {len(functions)} functions, none over {args.max_function} lines; no file over "
          f"{args.max_lines} lines")
    return 0


if __name__ == "__main__":
    sys.exit(main())
