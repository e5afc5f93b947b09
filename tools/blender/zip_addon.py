"""Zip the Blender add-on for Edit > Preferences > Add-ons > Install.

    python3 tools/blender/zip_addon.py [OUT.zip]      # default: out/levelgeom_addon.zip

Deterministic: files in sorted order under `levelgeom_addon/`, fixed timestamps and modes, no
__pycache__, so the same sources give the same bytes.
"""
import sys
import zipfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
SRC = ROOT / "blender" / "levelgeom_addon"


def main():
    out = Path(sys.argv[1]) if len(sys.argv) > 1 else ROOT / "out" / "levelgeom_addon.zip"
    out.parent.mkdir(parents=True, exist_ok=True)
    files = sorted(
        p for p in SRC.rglob("*")
        if p.is_file() and "__pycache__" not in p.parts and p.suffix not in (".pyc", ".pyo")
    )
    tmp = out.with_name(out.name + ".tmp")
    with zipfile.ZipFile(tmp, "w") as z:
        for p in files:
            info = zipfile.ZipInfo(
                "levelgeom_addon/" + p.relative_to(SRC).as_posix(), date_time=(1980, 1, 1, 0, 0, 0)
            )
            info.compress_type = zipfile.ZIP_DEFLATED
            info.external_attr = 0o644 << 16
            info.create_system = 3
            z.writestr(info, p.read_bytes())
    tmp.replace(out)
    print(f"wrote {out} ({len(files)} files, {out.stat().st_size} bytes)")


main()
