#!/usr/bin/env python3
"""Find, rewrite and check the `§` citations of the format notes in code and tool comments.

The code cites sections of the project's format notes. Old style: `spec §12.4`, `Spec §2.3`,
`seed §8.1`, `spec (§3`, lists `seed §2, §3` and ranges `seed §8.1–8.3`; a bare `§N` means the
spec of the engine the file belongs to (`crates/wad`: the WAD, `crates/xray`: X-Ray), unless a
nearer `seed` on the same line says otherwise. New style, which this script writes and checks:
`docs/formats/argonaut-wad.md §12.4` and `docs/formats/xray-level.md §3`.

Mapping: the spec's sections keep their numbers (`spec §12.4` → `argonaut-wad.md §12.4`); the
WAD seed's section N is the page's §N+13 (`seed §8.1` → `argonaut-wad.md §21.1`, `seed §5.11`
→ `§18.11`). `seed` always means the WAD seed (the only seed the code cites).

Usage (from anywhere; the tree is the repository this file is in, or `--root DIR`):

    python3 tools/docs/citations.py            # check: every `docs/formats/PAGE.md §N` resolves
    python3 tools/docs/citations.py --strict   # ... and no old-style citation is left
    python3 tools/docs/citations.py --rewrite  # rewrite old style into new style, then check
    python3 tools/docs/citations.py --list     # print every old-style citation and its target

The check passes when each cited section is a heading of that page starting with `§N` (e.g.
`## §12.4 Collision planes`); it exits 1 naming file:line of each that does not. Citations of
other specifications (`glTF 2.0 §4.4`) are left alone, and so are `§` numbers right after a
notes file's own name (`` `shared/spec/argonaut-wad.md` with its §12 ``), which the script
lists as skipped. Searched: `crates/`, `tools/`, `blender/` (text files; `target/` skipped).
Standard library only.
"""

from __future__ import annotations

import argparse
import pathlib
import re
import sys
from dataclasses import dataclass

ROOT = pathlib.Path(__file__).resolve().parents[2]
SEARCHED = ("crates", "tools", "blender")
SUFFIXES = {".rs", ".py", ".md", ".toml", ".sh", ".txt", ".json"}
PAGES = {"wad": "docs/formats/argonaut-wad.md", "xray": "docs/formats/xray-level.md"}
SEED_OFFSET = 13  # seed §N is argonaut-wad.md §N+13

NUM = r"\d+(?:\.\d+)*"
# one reference: §N, optionally a range tail –M / -M / –§M
REF = re.compile(rf"§\s?({NUM})(?:\s?[–-]\s?§?({NUM}))?")
# what joins references of one list: ", ", "; ", " and ", "/", ", and ", " or "
JOIN = re.compile(r"^\s*(?:,|;|and|/|or|,\s*and|,\s*or)\s*$")
# an explicit source word right before a group: "spec ", "Seed ", "spec (", "seed's ("
PREFIX = re.compile(r"\b(spec|seed)('s)?(\s*)(\(?)\s*$", re.IGNORECASE)
PAGE_PREFIX = re.compile(r"docs/formats/([a-z0-9-]+\.md)\s*$")
# words that decide what a bare § on the same line refers to (the last one before it wins)
LOOKBACK = re.compile(
    r"\b(seed|spec)\b|(argonaut-wad\.md|xray-level\.md)|\b(glTF|KHR_\w+|RFC|ISO|IEEE|C\+\+|Rust)\b",
    re.IGNORECASE,
)


@dataclass
class Group:
    """Consecutive references that share one source (`seed §2, §3` is one group)."""

    start: int  # where the rewrite starts (the source word, or the first §)
    end: int  # end of the last reference
    refs: list[re.Match]
    source: str  # "spec", "seed", "page:NAME", "foreign", "file", "unknown"
    page: str | None  # the docs page (for "page:"), or None
    open_paren: str  # what replaces "spec (" / "the spec's (": "format notes (" / "format notes' ("


def engine_of(rel: str, heading: str | None) -> str | None:
    """The engine whose spec a bare `§N` or `spec §N` in this file means."""
    low = rel.lower()
    if low.startswith("crates/wad/") or "wad" in pathlib.PurePosixPath(low).name:
        return "wad"
    if low.startswith("crates/xray/") or "xray" in pathlib.PurePosixPath(low).name:
        return "xray"
    if heading:
        h = heading.lower()
        wad = "wad" in h or "argonaut" in h
        xray = "x-ray" in h or "xray" in h
        if wad != xray:
            return "wad" if wad else "xray"
    return None


WAD_WORDS = re.compile(r"\b(seed|WAD|ENG|TRAK|MAP|STPC|TEXT|WFPC|tiles?)\b")
XRAY_WORDS = re.compile(r"\b(X-Ray|xray|OGF|xrLC|XRLC|geomx?|cform|blender-xray)\b")


def engine_of_words(line: str) -> str | None:
    """The engine a line talks about, when its words name only one (for pages about both)."""
    wad, xray = bool(WAD_WORDS.search(line)), bool(XRAY_WORDS.search(line))
    if wad != xray:
        return "wad" if wad else "xray"
    return None


def files(root: pathlib.Path):
    me = pathlib.Path(__file__).resolve()
    for top in SEARCHED:
        base = root / top
        if not base.is_dir():
            continue
        for p in sorted(base.rglob("*")):
            if not p.is_file() or p.suffix not in SUFFIXES or "target" in p.relative_to(root).parts:
                continue
            if p.resolve() == me or p.name == me.name:
                continue
            try:
                text = p.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            yield p, text


def groups_of(line: str) -> list[Group]:
    out: list[Group] = []
    for m in REF.finditer(line):
        if out and JOIN.match(line[out[-1].end : m.start()]):
            out[-1].refs.append(m)
            out[-1].end = m.end()
            continue
        before = line[: m.start()]
        pm = PAGE_PREFIX.search(before)
        xm = PREFIX.search(before)
        if pm:
            g = Group(pm.start(), m.end(), [m], "page:" + pm.group(1), "docs/formats/" + pm.group(1), "")
        elif xm:
            # "the spec (§3" reads on as "the format notes (docs/formats/… §3"
            paren = "format notes" + ("'" if xm.group(2) else "") + " (" if xm.group(4) else ""
            g = Group(xm.start(), m.end(), [m], xm.group(1).lower(), None, paren)
        else:
            last = None
            for k in LOOKBACK.finditer(before):
                last = k
            if last is None:
                source = "file"
            elif last.group(1):
                source = last.group(1).lower()
            elif last.group(2):
                source = "named"  # right after a notes file's own name: left alone
            else:
                source = "foreign"
            g = Group(m.start(), m.end(), [m], source, None, "")
        out.append(g)
    return out


def target(source: str, engine: str | None, number: str) -> tuple[str, str] | None:
    """(page, section number) an old-style reference points to."""
    if source == "seed":
        head, _, tail = number.partition(".")
        return PAGES["wad"], str(int(head) + SEED_OFFSET) + ("." + tail if tail else "")
    if source in ("spec", "file") and engine:
        return PAGES[engine], number
    return None


def section_numbers(page: pathlib.Path) -> set[str]:
    found = set()
    fenced = False
    for line in page.read_text(encoding="utf-8").split("\n"):
        if line.lstrip().startswith("```"):
            fenced = not fenced
            continue
        m = re.match(rf"^#{{1,6}}\s+§({NUM})\b", line) if not fenced else None
        if m:
            found.add(m.group(1))
    return found


def scan(root: pathlib.Path, rewrite: bool):
    """Walk the tree; return (new-style citations, old-style, skipped, unresolvable, rewritten files)."""
    new, old, skipped, unknown, changed = [], [], [], [], []
    for path, text in files(root):
        rel = path.relative_to(root).as_posix()
        heading = None
        lines = text.split("\n")
        dirty = False
        for i, line in enumerate(lines):
            if path.suffix == ".md" and line.startswith("#"):
                heading = line
            if "§" not in line:
                continue
            engine = engine_of(rel, heading) or engine_of_words(line)
            pieces, last_end, prev_page = [], 0, None
            for g in groups_of(line):
                where = f"{rel}:{i + 1}"
                numbers = []
                for m in g.refs:
                    numbers.append(m.group(1))
                    if m.group(2):
                        numbers.append(m.group(2))
                if g.source.startswith("page:"):
                    new.extend((where, g.page, n) for n in numbers)
                    prev_page = g.page
                    continue
                if g.source in ("foreign", "named"):
                    if g.source == "named":
                        skipped.append((where, line.strip()))
                    prev_page = None
                    continue
                mapped = [target(g.source, engine, n) for n in numbers]
                if any(t is None for t in mapped):
                    unknown.append((where, line.strip()))
                    prev_page = None
                    continue
                page = mapped[0][0]
                old.append((where, line[g.start : g.end], page))
                if not rewrite:
                    continue
                # rebuild the group's text: each § and range tail renumbered
                seg = line[g.refs[0].start() : g.end]
                base = g.refs[0].start()
                parts, pos, k = [], 0, 0
                for m in g.refs:
                    for idx in (1, 2):
                        if m.group(idx) is None:
                            continue
                        s, e = m.start(idx) - base, m.end(idx) - base
                        parts.append(seg[pos:s])
                        parts.append(mapped[k][1])
                        pos, k = e, k + 1
                parts.append(seg[pos:])
                body = "".join(parts)
                between = line[last_end : g.start]
                same = prev_page == page and JOIN.match(between or ",") and pieces
                lead = g.open_paren + ("" if same else page + " ")
                pieces.append(line[last_end : g.start] + lead + body)
                last_end = g.end
                prev_page = page
                new.extend((where, page, t[1]) for t in mapped)
            if rewrite and pieces:
                lines[i] = "".join(pieces) + line[last_end:]
                dirty = True
        if dirty:
            path.write_text("\n".join(lines), encoding="utf-8")
            changed.append(rel)
    return new, old, skipped, unknown, changed


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--root", type=pathlib.Path, default=ROOT, help="the tree (default: this repository)")
    ap.add_argument("--rewrite", action="store_true", help="rewrite old-style citations in place, then check")
    ap.add_argument("--strict", action="store_true", help="also fail when old-style citations are left")
    ap.add_argument("--list", action="store_true", help="list the old-style citations and their targets")
    args = ap.parse_args()
    root = args.root.resolve()

    new, old, skipped, unknown, changed = scan(root, args.rewrite)
    if args.rewrite:
        print(f"rewrote {len(old)} citations in {len(changed)} files")
        new, old, skipped, unknown, _ = scan(root, False)
    if args.list:
        for where, text, page in old:
            print(f"{where}: {text} -> {page}")
    for where, text in skipped:
        print(f"{where}: skipped (names a notes file itself): {text}")
    for where, text in unknown:
        print(f"{where}: cannot tell which page this § means: {text}")

    sections: dict[str, set[str]] = {}
    broken = []
    for where, page, number in new:
        if page not in sections:
            p = root / page
            sections[page] = section_numbers(p) if p.is_file() else set()
        if number not in sections[page]:
            broken.append(f"{where}: {page} §{number}: no heading starting with §{number}")
    for b in broken:
        print(b)
    print(
        f"{len(new)} citations of docs/formats checked, {len(broken)} broken; "
        f"{len(old)} old-style left, {len(skipped)} skipped, {len(unknown)} unresolvable"
    )
    if broken or (args.strict and (old or unknown)):
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
