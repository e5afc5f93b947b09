"""Is the workspace's declared minimum Rust version (`rust-version` in Cargo.toml) true of every
dependency in Cargo.lock, by what those dependencies declare?

    python3 tools/msrv.py            # exit 1 naming every package that declares a newer one

What it checks: `cargo metadata --locked` lists every package Cargo.lock resolves to, for every
target platform (a superset of what one machine builds), each with the `rust-version` its own
manifest declares. Every declared one must be at most the workspace's. A package that declares
none is held to the least its edition needs (2018: 1.31, 2021: 1.56, 2024: 1.85) and listed: past
that, Cargo itself cannot say what it needs.

What it does not check: that the code compiles with that toolchain. Only one (newer) toolchain is
installed where CI runs; the workspace's own code is held to the version by clippy's
`incompatible_msrv` lint (it knows the standard library's stabilisation versions), and a
dependency's declaration is taken at its word.
"""
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
# the Rust release that stabilised each edition: the least a package of that edition needs
EDITION_MINIMUM = {"2015": "1.0", "2018": "1.31", "2021": "1.56", "2024": "1.85"}


def version(text):
    """'1.85' or '1.85.1' as a comparable tuple (1, 85, 0) / (1, 85, 1)."""
    parts = [int(p) for p in text.split(".")]
    return tuple(parts + [0] * (3 - len(parts)))


def main():
    meta = json.loads(subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--locked"],
        cwd=ROOT, check=True, capture_output=True, text=True).stdout)
    ours = {p["id"] for p in meta["packages"] if p["source"] is None}
    # every member inherits the workspace's rust-version; a member that does not is an error too
    mine = {p["rust_version"] for p in meta["packages"] if p["id"] in ours}
    if len(mine) != 1 or None in mine:
        print(f"msrv: FAIL the workspace members declare rust-version {sorted(map(str, mine))}, not one")
        return 1
    declared = mine.pop()
    deps = [p for p in meta["packages"] if p["id"] not in ours]
    needs = [(p["name"], p["version"], p.get("rust_version") or EDITION_MINIMUM[p["edition"]]) for p in deps]
    newer = sorted(n for n in needs if version(n[2]) > version(declared))
    unknown = sorted(f"{p['name']} {p['version']} (edition {p['edition']})" for p in deps if not p.get("rust_version"))
    highest = max((p for p in deps if p.get("rust_version")), key=lambda p: version(p["rust_version"]))
    print(f"msrv: workspace rust-version {declared}; {len(deps)} packages in Cargo.lock, "
          f"{len(deps) - len(unknown)} declare one (highest: {highest['name']} {highest['version']} "
          f"needs {highest['rust_version']}), {len(unknown)} declare none")
    if unknown:
        print("msrv: no rust-version declared (held to their edition's only): " + ", ".join(unknown))
    for name, ver, rv in newer:
        print(f"msrv: FAIL {name} {ver} needs Rust {rv} > {declared}")
    return 1 if newer else 0


if __name__ == "__main__":
    sys.exit(main())
