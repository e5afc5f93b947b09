"""Finding and running the `levelgeom` binary (no bpy here, so it can be used outside Blender)."""
import json
import os
import shutil
import subprocess

BINARY_NAME = "levelgeom"


class LevelgeomError(Exception):
    """An error to show the user as a Blender report (never a traceback)."""


def find_binary(configured=""):
    """The binary to run: the preferences field if set, else `levelgeom` on PATH.

    Raises LevelgeomError with a message saying where it looked when there is none."""
    configured = (configured or "").strip()
    if configured:
        path = os.path.abspath(os.path.expanduser(configured))
        if os.path.isdir(path):
            path = os.path.join(path, BINARY_NAME + (".exe" if os.name == "nt" else ""))
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
        raise LevelgeomError(
            f"levelgeom binary not found at {configured!r} (the add-on preferences' path): "
            "point it at the `levelgeom` executable (cargo install --path crates/cli puts it "
            "in ~/.cargo/bin), or clear the field to use PATH"
        )
    found = shutil.which(BINARY_NAME)
    if found:
        return found
    raise LevelgeomError(
        "levelgeom binary not found: set its path in Edit > Preferences > Add-ons > "
        "levelgeom, or put `levelgeom` on PATH (cargo install --path crates/cli)"
    )


class Output:
    """What a successful run printed: stdout, and the warnings it printed on stderr."""

    def __init__(self, stdout, warnings):
        self.stdout = stdout
        self.warnings = warnings


WARNING_PREFIX = "levelgeom: warning: "


def _hide(text, hidden):
    """`text` with each key of `hidden` (a temporary path) replaced by its value."""
    for path, name in (hidden or {}).items():
        if path:
            text = text.replace(path.rstrip("/\\") + os.sep, name + "/").replace(path, name)
    return text


def stderr_warnings(stderr):
    """The warnings of a run's stderr: the `levelgeom: warning: …` lines (without the prefix)
    and the `… more warnings not shown` line."""
    out = []
    for line in stderr.splitlines():
        if line.startswith(WARNING_PREFIX):
            out.append(line[len(WARNING_PREFIX):])
        elif line.startswith("levelgeom: ") and line.endswith(" not shown"):
            out.append(line[len("levelgeom: "):])
    return out


def run_full(binary, args, timeout=600, hidden=None):
    """Run `binary args…`; returns its Output. Raises LevelgeomError with its stderr on failure.

    `hidden` maps temporary paths to the words the user sees instead (`{tmp: "the export"}`):
    applied to every message and warning, so no temporary path reaches the UI."""
    cmd = [binary] + [str(a) for a in args]
    what = f"levelgeom {args[0]}" if args else "levelgeom"
    try:
        proc = subprocess.run(cmd, stdin=subprocess.DEVNULL, capture_output=True, timeout=timeout)
    except FileNotFoundError:
        raise LevelgeomError(f"levelgeom binary not found: {binary}") from None
    except PermissionError:
        raise LevelgeomError(f"levelgeom binary is not executable: {binary}") from None
    except subprocess.TimeoutExpired:
        raise LevelgeomError(f"{what} did not finish within {timeout} s") from None
    except OSError as e:  # e.g. not an executable for this system (exec format error)
        raise LevelgeomError(f"{binary} cannot be run ({e.strerror or e}): {WRONG_BINARY}") from None
    stdout = _hide(proc.stdout.decode("utf-8", "replace"), hidden)
    stderr = _hide(proc.stderr.decode("utf-8", "replace").strip(), hidden)
    if proc.returncode != 0:
        msg = stderr or f"{what} exited with code {proc.returncode}"
        raise LevelgeomError(msg)
    return Output(stdout, stderr_warnings(stderr))


def run(binary, args, timeout=600, hidden=None):
    """Run `binary args…`; returns its stdout (see run_full)."""
    return run_full(binary, args, timeout, hidden).stdout


def run_json(binary, args, timeout=600, hidden=None):
    """Run a `--json` command and parse what it prints."""
    out = run(binary, args, timeout, hidden)
    try:
        return json.loads(out)
    except ValueError:
        what = f"levelgeom {args[0]}" if args else "levelgeom"
        raise LevelgeomError(f"{what} --json printed no JSON: {out[:200]!r}") from None


WRONG_BINARY = (
    "point the add-on preferences' path (Edit > Preferences > Add-ons > levelgeom) at the "
    "`levelgeom` executable, or clear it to use PATH"
)
_CHECKED = {}


def check_binary(binary):
    """Make sure `binary` is levelgeom: its `--version` prints `levelgeom …`. Remembered per path
    and modification time. Raises LevelgeomError naming what it is instead."""
    try:
        key = (binary, os.stat(binary).st_mtime_ns)
    except OSError:
        key = (binary, None)
    if _CHECKED.get(key):
        return binary
    try:
        proc = subprocess.run([binary, "--version"], stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
    except subprocess.TimeoutExpired:
        raise LevelgeomError(f"{binary} is not levelgeom (asked for its version, it did not answer): {WRONG_BINARY}") from None
    except OSError as e:
        raise LevelgeomError(f"{binary} cannot be run ({e.strerror or e}): {WRONG_BINARY}") from None
    first = proc.stdout.decode("utf-8", "replace").strip().splitlines()[:1]
    if proc.returncode != 0 or not first or not first[0].startswith(BINARY_NAME + " "):
        said = first[0][:80] if first else f"nothing, exit code {proc.returncode}"
        raise LevelgeomError(f"{binary} is not levelgeom (asked for its version, it printed {said!r}): {WRONG_BINARY}")
    _CHECKED[key] = True
    return binary


def level_format(binary, path):
    """`argonaut-wad`, `xray-level` or another format name `levelgeom info` gives the file (or
    folder); None when it is not a level file levelgeom knows."""
    try:
        info = run_json(binary, ["info", path, "--json"])
    except LevelgeomError:
        return None
    return info.get("format") if isinstance(info, dict) else None


SUMMARY_KEYS = ("tiles", "models", "faces", "polygons", "uv_misfits", "degenerate")


def summary_text(result, collision_label=None):
    """One line for the UI from `levelgeom import --json`'s object: the main counts always,
    other counts when they are not zero."""
    out = os.path.basename(str(result.get("output", "?")))
    parts = [f"wrote {out}" + (f" ({result['bytes']} bytes)" if "bytes" in result else "")]
    summary = result.get("summary") or {}
    if isinstance(summary, dict):
        edit = summary.get("edit")
        if isinstance(edit, dict):
            parts.append(wad_edit_text(edit))
        grids = [summary.get("grid_before"), summary.get("grid_after")]
        if all(isinstance(g, list) and len(g) == 2 for g in grids) and grids[0] != grids[1]:
            parts.append("grid {}×{} -> {}×{}".format(*grids[0], *grids[1]))
        for k in SUMMARY_KEYS:
            if k in summary:
                parts.append(f"{k} {summary[k]}")
        for k, v in summary.items():
            if k in SUMMARY_KEYS or k.startswith("collision_source"):
                continue
            if k == "edit" or k.startswith("grid_"):
                continue
            if isinstance(v, list):
                # lists of tile indices (kept, moved, removed, … of an import that maps tiles
                # back): their count and the first indices
                if v and all(isinstance(x, (int, str)) for x in v):
                    parts.append(f"{k} {len(v)}{_indices(v)}")
            elif isinstance(v, bool) or not isinstance(v, (int, float)) or v:
                if isinstance(v, (int, float, str, bool)):
                    parts.append(f"{k} {v}")
    collision = result.get("collision")
    if collision:
        parts.append("collision: " + (collision_label or str(collision)))
    warnings = result.get("warnings") or []
    if warnings:
        parts.append(f"{len(warnings)} warning(s)")
    return "levelgeom: " + ", ".join(parts)


def wad_edit_text(edit):
    """What an import that maps tiles back did to the base's tiles (the summary's `edit` object):
    `base tiles: kept K, moved M (indices), reshaped …, removed …, added A`, the swap records
    dropped and where the collision came from, the zero counts left out but kept and moved."""
    def tiles(key):
        v = edit.get(key) or []
        return [x.get("tile") if isinstance(x, dict) else x for x in v]

    parts = [f"kept {len(tiles('kept'))}", f"moved {len(tiles('moved'))}{_indices(tiles('moved'))}"]
    for key in ("reshaped", "recut", "removed", "missing_kept"):
        if tiles(key):
            parts.append(f"{key.replace('_', ' ')} {len(tiles(key))}{_indices(tiles(key))}")
    if tiles("added"):
        parts.append(f"added {len(tiles('added'))}")
    if tiles("swaps_dropped"):
        parts.append(f"swap records dropped {len(tiles('swaps_dropped'))}{_indices(tiles('swaps_dropped'))}")
    text = "base tiles: " + ", ".join(parts)
    if edit.get("collision"):
        text += f"; collision {edit['collision']}"
    return text


def _indices(v, most=10):
    v = list(v or [])
    if not v:
        return ""
    shown = ", ".join(str(x) for x in v[:most]) + (", …" if len(v) > most else "")
    return f" ({shown})"


def xray_summary_lines(result):
    """The UI lines for `levelgeom import LEVEL_DIR … --json`'s object: first one line with the
    visuals kept/moved/edited/added/removed and the collision, then one line per added visual,
    shader entry added and visual whose vertex data was defaulted (at most 10 of each)."""
    out = os.path.basename(str(result.get("output", "?")).rstrip("/\\")) or "?"
    s = result.get("summary") or {}
    if not isinstance(s, dict):
        s = {}
    added = s.get("added") or []
    parts = [
        f"visuals {s.get('visuals_before', '?')} -> {s.get('visuals_after', '?')}",
        f"kept {s.get('kept', 0)}"
        + (f" ({s['kept_absent']} not in the file)" if s.get("kept_absent") else ""),
        f"moved {len(s.get('moved') or [])}{_indices(s.get('moved'))}",
        f"edited {len(s.get('edited') or [])}{_indices(s.get('edited'))}",
        f"added {len(added)}",
        f"removed {len(s.get('removed') or [])}{_indices(s.get('removed'))}",
    ]
    defaulted = s.get("defaulted") or []
    if defaulted:
        parts.append(f"defaulted vertex data in {len(defaulted)} visual(s)")
    c = s.get("collision") or {}
    mode = c.get("mode")
    if mode and mode != "none":
        parts.append(f"collision {mode} {c.get('faces_before', '?')} -> {c.get('faces_after', '?')}"
                     f" triangles" + (f", {c['ambiguous']} ambiguous" if c.get("ambiguous") else ""))
    conv = s.get("conversion")
    if isinstance(conv, dict):
        parts.append(f"converted XRLC {conv.get('from')} -> {conv.get('to')}"
                     + (f" (lost: {len(conv.get('lost') or [])})" if conv.get("lost") else ""))
    warnings = result.get("warnings") or []
    if warnings:
        parts.append(f"{len(warnings)} warning(s)")
    lines = [f"levelgeom: wrote {out}: " + ", ".join(parts)]
    for a in added[:10]:
        if isinstance(a, dict):
            lines.append(f"added visual {a.get('visual')} ({a.get('model_type')}) from "
                         f"{a.get('node')!r}: {a.get('from')}")
    for sh in (s.get("shaders_added") or [])[:10]:
        lines.append(f"shader entry added: {sh}")
    if isinstance(conv, dict):
        for x in (conv.get("lost") or [])[:10]:
            lines.append(f"lost (Allow loss): {x}")
    for d in defaulted[:10]:
        if isinstance(d, dict):
            lines.append(f"visual {d.get('visual')} ({d.get('node')!r}): defaulted "
                         + ", ".join(str(x) for x in d.get("attributes") or []))
    lines.extend(occluder_lines(s))
    lines.extend(stale_lines(s))
    return lines


def occluder_lines(s):
    """One line per companion file the import made follow (`hom`, `som` of the summary):
    what happened to its polygons, then what it left stale (polygons of reshaped visuals
    dropped, ambiguous ones kept in place) and a file the target build does not read."""
    lines = []
    for key, file in (("hom", "level.hom"), ("som", "level.som")):
        o = s.get(key)
        if not isinstance(o, dict) or o.get("mode") in (None, "", "none"):
            continue
        counts = ", ".join(f"{o[k]} {k}" for k in ("moved", "removed", "copied") if o.get(k))
        line = (f"{file}: {o['mode']} {o.get('polygons_before', '?')} -> "
                f"{o.get('polygons_after', '?')} polygons" + (f" ({counts})" if counts else ""))
        lines.append(line)
        stale = []
        if o.get("dropped"):
            stale.append(f"{o['dropped']} polygon(s) of reshaped visuals dropped (new occluders "
                         "are the SDK's work)")
        if o.get("ambiguous"):
            stale.append(f"{o['ambiguous']} polygon(s) on visuals changed differently, kept in place")
        if stale:
            lines.append(f"stale: {file}: " + "; ".join(stale))
        if o.get("note"):
            lines.append(f"{file} {o['note']}")
    return lines


def _points(v, total, most=5):
    """`(x, y, z), …` for the first `most` positions of `v` (level space, as the summary has
    them), with `, …` when `total` is more."""
    shown = [f"({', '.join(f'{c:g}' for c in p)})" for p in (v or [])[:most]
             if isinstance(p, (list, tuple)) and len(p) == 3]
    return ", ".join(shown) + (", …" if total > len(shown) else "")


def stale_lines(s):
    """The lines for what the import left stale in `level.ai` and `level.details` (`stale` of
    the summary): counts, then the first positions (level space) of each kind."""
    st = s.get("stale")
    if not isinstance(st, dict):
        return []
    lines = []
    a = st.get("ai")
    if isinstance(a, dict):
        if a.get("not_decoded"):
            lines.append("stale: level.ai: copied unchanged; its nodes are not decoded (versions "
                         "2-4), so what the edit left stale is not known")
        else:
            under, inside = a.get("under_changed", 0), a.get("inside_new", 0)
            lines.append(f"stale: level.ai: copied unchanged (rebuild it with xrAI): {under} "
                         f"node(s) under moved, edited or removed geometry, {inside} node(s) now "
                         "inside new geometry")
            if under:
                lines.append(f"level.ai: under changed geometry at "
                             f"{_points(a.get('under_changed_at'), under)}")
            if inside:
                lines.append(f"level.ai: inside new geometry at "
                             f"{_points(a.get('inside_new_at'), inside)}")
    d = st.get("details")
    if isinstance(d, dict):
        removed, moved = d.get("over_removed", 0), d.get("over_moved", 0)
        if d.get("followed"):
            lines.append(f"level.details: followed: {removed} slot(s) over removed geometry, "
                         f"{moved} over moved or edited geometry; {d.get('emptied', 0)} emptied, "
                         f"{d.get('shifted', 0)} raised or lowered")
        else:
            lines.append(f"stale: level.details: copied unchanged: {removed} slot(s) over removed "
                         f"geometry, {moved} over moved or edited geometry (Details follow "
                         "empties or moves them)")
        if removed:
            lines.append(f"level.details: over removed geometry at "
                         f"{_points(d.get('over_removed_at'), removed)}")
        if moved:
            lines.append(f"level.details: over moved geometry at "
                         f"{_points(d.get('over_moved_at'), moved)}")
    return lines
