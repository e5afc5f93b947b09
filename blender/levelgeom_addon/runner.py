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
