"""Import levelgeom exports into Blender and compare what arrived with what was written.

Run (Blender 3.4 from Debian; opt-in, too heavy for every CI run):
    blender -b --factory-startup -noaudio --python-exit-code 1 \
        --python tools/blender/import_check.py -- OUTDIR
OUTDIR is a folder written by `levelgeom export` (level.glb and/or level.obj).
For each file it imports into an empty scene and checks: at least one mesh object, the triangle
count equals the count in the file itself (the GLB's index accessors, read by glb.py, the OBJ's `f` lines; Blender's
OBJ importer silently drops bad faces), and, for the GLB, that vertex colours and UVs arrived.
Exits 1 on any mismatch.
"""
import sys
from pathlib import Path

import numpy

numpy.bool = bool  # Debian's numpy lacks the alias Blender 3.4's glTF importer uses

import bpy  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))  # `blender --python` does not add it
from glb import Glb  # noqa: E402  (tools/blender/glb.py)


def obj_triangles(path):
    n = 0
    for line in path.read_text().splitlines():
        if line.startswith("f "):
            n += len(line.split()) - 3
    return n


def scene_triangles():
    n = 0
    for ob in bpy.context.scene.objects:
        if ob.type == "MESH":
            ob.data.calc_loop_triangles()
            n += len(ob.data.loop_triangles)
    return n


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def main():
    out = Path(sys.argv[sys.argv.index("--") + 1])
    failures = 0
    for f in sorted(out.glob("*.glb")) + sorted(out.glob("*.obj")):
        reset()
        if f.suffix == ".glb":
            bpy.ops.import_scene.gltf(filepath=str(f))
            want = Glb(f).instanced_triangles()
        else:
            bpy.ops.wm.obj_import(filepath=str(f))
            want = obj_triangles(f)
        got = scene_triangles()
        meshes = [o for o in bpy.context.scene.objects if o.type == "MESH"]
        ok = bool(meshes) and got == want
        extra = ""
        if f.suffix == ".glb" and meshes:
            colours = sum(1 for o in meshes if len(o.data.color_attributes) > 0)
            uvs = sum(1 for o in meshes if len(o.data.uv_layers) > 0)
            extra = f", {colours} with vertex colours, {uvs} with UVs"
        print(f"{f.name}: {len(meshes)} mesh objects, {got} triangles (file: {want}){extra}")
        if not ok:
            print(f"{f.name}: MISMATCH")
            failures += 1
    if failures:
        sys.exit(1)


main()
