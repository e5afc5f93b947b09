"""List Rust functions longer than a limit (issue 25: split long pipelines).

Usage: python3 tools/fn_lengths.py [--limit N] [ROOT ...]

Scans ``crates/*/src`` (default) for ``fn`` items and prints
``LINES PATH:LINE NAME`` for every function body longer than the limit
(150 lines by default), longest first. ``generate`` modules are skipped:
generators and format tables are allowed to be long. The brace matcher
skips string, char and comment text, which is enough for this codebase.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

FN = re.compile(r"^\s*(?:pub(?:\([^)]*\))?\s+)?(?:const\s+)?(?:async\s+)?(?:unsafe\s+)?fn\s+(\w+)")


def strip_code(text: str) -> str:
    """Blank out comments, strings and char literals, keeping newlines."""
    out: list[str] = []
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            out.append(" " * (j - i))
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "r" and re.match(r'r#*"', text[i:]) and not text[i - 1 : i].isalnum():
            hashes = re.match(r"r(#*)\"", text[i:]).group(1)
            end = '"' + hashes
            j = text.find(end, i + 2 + len(hashes))
            j = n if j < 0 else j + len(end)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            j = min(j + 1, n)
            out.append(re.sub(r"[^\n]", " ", text[i:j]))
            i = j
        elif c == "'":
            m = re.match(r"'(?:\\.[^']*|[^'\\])'", text[i:])
            if m:
                out.append(" " * len(m.group(0)))
                i += len(m.group(0))
            else:
                out.append(c)
                i += 1
        else:
            out.append(c)
            i += 1
    return "".join(out)


def functions(path: Path) -> list[tuple[int, int, str]]:
    """Return (length, first line, name) for each fn with a body in the file."""
    lines = strip_code(path.read_text(encoding="utf-8")).split("\n")
    found = []
    for start, line in enumerate(lines):
        m = FN.match(line)
        if not m:
            continue
        depth, opened = 0, False
        for end in range(start, len(lines)):
            for ch in lines[end]:
                if ch == ";" and not opened and depth == 0:
                    break
                if ch == "{":
                    depth += 1
                    opened = True
                elif ch == "}":
                    depth -= 1
            else:
                if opened and depth == 0:
                    found.append((end - start + 1, start + 1, m.group(1)))
                    break
                continue
            break
    return found


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--limit", type=int, default=150)
    parser.add_argument("roots", nargs="*", type=Path)
    args = parser.parse_args()
    roots = args.roots or sorted(Path("crates").glob("*/src"))
    rows = []
    for root in roots:
        for path in sorted(root.rglob("*.rs")):
            if "generate" in path.parts or path.stem == "generate":
                continue
            for length, line, name in functions(path):
                if length > args.limit:
                    rows.append((length, f"{path}:{line}", name))
    for length, where, name in sorted(rows, reverse=True):
        print(f"{length:5} {where} {name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
