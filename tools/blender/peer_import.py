"""blender-xray's level import timed inside Blender, for the peer bench
(`cargo bench -p levelgeom --bench peer`, crates/cli/benches/peer.rs).

Run in headless Blender (3.4 or newer), with a system PATH (under pyenv Blender could pick up
the wrong Python):

    env PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
      blender -b --factory-startup -noaudio --python-exit-code 1 \
      --python tools/blender/peer_import.py -- LEVEL_FILE BLENDER_XRAY RESULT_JSON

LEVEL_FILE is an X-Ray `level` file (its `level.geom` beside it), BLENDER_XRAY the folder
holding blender-xray's `io_scene_xray` package. The scene is emptied and the add-on enabled first (not timed); then
`bpy.ops.xray_import.level` is timed alone (`time.perf_counter` around the operator call:
Blender's start-up, the add-on's registration and the exit are outside it). RESULT_JSON gets
`{"import_s": seconds, "result": [...], "objects": n, "meshes": n, "vertices": n}`: the
operator's result and what it made, so that the bench can check the level was really read.
Exit code 1 when the operator does not finish or makes no mesh.
blender-xray imports `requests` for its update checker, which Blender's Python lacks; a stub
module stands in for it (the checker is never called), as in xray_import_check.py.
"""

import json
import sys
import time
import types

import addon_utils  # noqa: E402  (Blender's module)
import bpy  # noqa: E402  (Blender's module)


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else []
    if len(argv) != 3:
        print("usage: ... peer_import.py -- LEVEL_FILE BLENDER_XRAY RESULT_JSON")
        sys.exit(2)
    level, xray_path, result = argv
    sys.modules.setdefault("requests", types.ModuleType("requests"))
    sys.path.insert(0, xray_path)
    bpy.ops.wm.read_factory_settings(use_empty=True)
    addon_utils.enable("io_scene_xray", default_set=True)

    start = time.perf_counter()
    r = bpy.ops.xray_import.level(filepath=level)
    seconds = time.perf_counter() - start

    meshes = [o for o in bpy.data.objects if o.type == "MESH"]
    doc = {
        "import_s": seconds,
        "result": sorted(r),
        "objects": len(bpy.data.objects),
        "meshes": len(meshes),
        "vertices": sum(len(m.vertices) for m in bpy.data.meshes),
    }
    with open(result, "w", encoding="utf-8") as f:
        json.dump(doc, f)
    print(f"peer_import: {json.dumps(doc)}", flush=True)
    sys.exit(0 if r == {"FINISHED"} and meshes else 1)


main()
