#!/usr/bin/env python3
"""Check the relative links of the project's Markdown (README.md, docs/**, tools/**/README.md).

Every `[text](target)` that is not a URL must name a file or folder of the repository, and a
`#fragment` must be the GitHub anchor of a heading in the target page. Exit 1 naming each broken
link (file:line), 0 when all resolve. Run by `.ci/run`; standard library only.
"""

import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)|!\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")


def anchor(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"`([^`]*)`", r"\1", heading)
    text = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", text)
    text = text.strip().lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def lines_outside_code(path: pathlib.Path):
    fenced = False
    for number, line in enumerate(path.read_text(encoding="utf-8").split("\n"), 1):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        if not fenced:
            yield number, line


def anchors_of(path: pathlib.Path) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    for _, line in lines_outside_code(path):
        m = HEADING.match(line)
        if not m:
            continue
        base = anchor(m.group(2))
        n = seen.get(base, 0)
        seen[base] = n + 1
        found.add(base if n == 0 else f"{base}-{n}")
    return found


def pages() -> list[pathlib.Path]:
    found = [ROOT / "README.md"]
    found += sorted((ROOT / "docs").rglob("*.md"))
    found += sorted((ROOT / "tools").rglob("README.md"))
    return [p for p in found if p.is_file()]


def main() -> int:
    broken = []
    checked = 0
    for page in pages():
        for number, line in lines_outside_code(page):
            for m in LINK.finditer(line):
                target = m.group(1) or m.group(2)
                if re.match(r"^[a-z][a-z0-9+.-]*:", target):
                    continue  # a URL or mailto: not checked (no network)
                checked += 1
                where = f"{page.relative_to(ROOT)}:{number}"
                path_part, _, fragment = target.partition("#")
                dest = (page.parent / path_part).resolve() if path_part else page
                if not dest.exists():
                    broken.append(f"{where}: {target}: no such file")
                    continue
                if ROOT not in dest.parents and dest != ROOT:
                    broken.append(f"{where}: {target}: outside the repository")
                    continue
                if fragment and dest.suffix == ".md" and fragment not in anchors_of(dest):
                    broken.append(f"{where}: {target}: no heading with anchor #{fragment}")
    for b in broken:
        print(b)
    print(f"check_links: {checked} links in {len(pages())} pages, {len(broken)} broken")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
