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


def run(binary, args, timeout=600):
    """Run `binary args…`; returns its stdout. Raises LevelgeomError with its stderr on failure."""
    cmd = [binary] + [str(a) for a in args]
    try:
        proc = subprocess.run(
            cmd,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            timeout=timeout,
        )
    except FileNotFoundError:
        raise LevelgeomError(f"levelgeom binary not found: {binary}")
    except PermissionError:
        raise LevelgeomError(f"levelgeom binary is not executable: {binary}")
    except subprocess.TimeoutExpired:
        raise LevelgeomError(f"levelgeom {args[0]} did not finish within {timeout} s")
    stdout = proc.stdout.decode("utf-8", "replace")
    stderr = proc.stderr.decode("utf-8", "replace").strip()
    if proc.returncode != 0:
        msg = stderr or f"levelgeom {args[0]} exited with code {proc.returncode}"
        raise LevelgeomError(msg)
    return stdout


def run_json(binary, args, timeout=600):
    """Run a `--json` command and parse what it prints."""
    out = run(binary, args, timeout)
    try:
        return json.loads(out)
    except ValueError:
        raise LevelgeomError(f"levelgeom {args[0]} --json printed no JSON: {out[:200]!r}")


SUMMARY_KEYS = ("tiles", "models", "faces", "polygons", "uv_misfits", "degenerate")


def summary_text(result, collision_label=None):
    """One line for the UI from `levelgeom import --json`'s object: the main counts always,
    other counts when they are not zero."""
    out = os.path.basename(str(result.get("output", "?")))
    parts = [f"wrote {out}" + (f" ({result['bytes']} bytes)" if "bytes" in result else "")]
    summary = result.get("summary") or {}
    if isinstance(summary, dict):
        for k in SUMMARY_KEYS:
            if k in summary:
                parts.append(f"{k} {summary[k]}")
        for k, v in summary.items():
            if k in SUMMARY_KEYS or k.startswith("collision_source"):
                continue
            if isinstance(v, bool) or not isinstance(v, (int, float)) or v:
                if isinstance(v, (int, float, str, bool)):
                    parts.append(f"{k} {v}")
    collision = result.get("collision")
    if collision:
        parts.append("collision: " + (collision_label or str(collision)))
    warnings = result.get("warnings") or []
    if warnings:
        parts.append(f"{len(warnings)} warning(s)")
    return "levelgeom: " + ", ".join(parts)


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
    return lines
