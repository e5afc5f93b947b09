"""Edit an exported X-Ray level in Blender, import it back with levelgeom, and read the result
with an independent reader (blender-xray's level importer).

Run in headless Blender (3.4 or newer):

    LEVELGEOM_BIN=target/release/levelgeom blender -b --factory-startup -noaudio \
        --python-exit-code 1 --python tools/blender/xray_import_check.py -- WORKDIR [BLENDER_XRAY]

BLENDER_XRAY is the folder holding blender-xray's `io_scene_xray` package (default
`../shared/peers/blender-xray` beside the repository). Steps:

1. `levelgeom export` the real fixture (`crates/xray/tests/data/xray-v14-micro`) as GLB;
2. blender-xray imports the fixture itself: for every visual object (collection Normal,
   Tree Static, …) the set of its world-space vertex positions;
3. Blender's glTF importer opens our export; the edit a modder makes: visual 3 moved by
   (1, 0, 2) (Blender axes), visual 0 deleted, tree visual 12 copied 3 m along +y, a 1 m cube
   added with a material named after a texture of the level; exported as GLB with
   Include > Custom Properties (`export_extras`);
4. `levelgeom import` of that GLB into a new folder, `levelgeom check` of it;
5. blender-xray imports the new level: its visual objects must be the fixture's (step 2) with
   visual 0's removed, visual 3's moved by the offset, a tree at visual 12's positions + 3 m
   and a normal visual at the cube's 8 corners (positions within 2 mm, the unique positions of
   each object compared as sets, objects matched by collection and positions).

Prints one line per assertion and `xray_import_check: PASS` or `FAIL` (exit code 1).
blender-xray imports `requests` for its update checker, which Blender's Python lacks; a stub
module stands in for it (the checker is never called).
"""

import json
import os
import subprocess
import sys
import types

import addon_utils  # noqa: E402
import bpy  # noqa: E402  (Blender's module)

try:
    import numpy

    numpy.bool = bool  # Blender 3.4's glTF importer with Debian's numpy
except ImportError:
    pass

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
FIXTURE = os.path.join(REPO, "crates", "xray", "tests", "data", "xray-v14-micro")
TOL = 2e-3
OFFSET = (1.0, 0.0, 2.0)
TREE_SHIFT = (0.0, 3.0, 0.0)
CUBE_AT = (0.0, 0.0, 3.0)
FAILURES = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        FAILURES.append(what)


def run(*args):
    exe = os.environ.get("LEVELGEOM_BIN", "levelgeom")
    p = subprocess.run([exe, *args], capture_output=True, text=True)
    return p.returncode, p.stdout, p.stderr


def reset():
    bpy.ops.wm.read_factory_settings(use_empty=True)


def enable_xray(path):
    sys.modules.setdefault("requests", types.ModuleType("requests"))
    if path not in sys.path:
        sys.path.insert(0, path)
    addon_utils.enable("io_scene_xray", default_set=True)


def world_points(obj):
    m = obj.matrix_world
    return [tuple(m @ v.co) for v in obj.data.vertices]


def unique(points):
    out = []
    for p in points:
        if not any(max(abs(a - b) for a, b in zip(p, q)) <= TOL / 2 for q in out):
            out.append(p)
    return out


def same_set(a, b):
    if len(a) != len(b):
        return False
    return all(any(max(abs(x - y) for x, y in zip(p, q)) <= TOL for q in b) for p in a)


def shifted(points, d):
    return [tuple(p[k] + d[k] for k in range(3)) for p in points]


SKIP = {"CForm", "Glows", "Portals", "Sectors", "Lights"}


def xray_visuals(level_file, xray_path):
    """(collection, unique world positions) of every visual mesh blender-xray makes."""
    reset()
    enable_xray(xray_path)
    r = bpy.ops.xray_import.level(filepath=level_file)
    check(r == {"FINISHED"}, f"blender-xray imports {level_file}")
    out = []
    cform = 0
    for o in bpy.data.objects:
        if o.type != "MESH":
            continue
        cols = [c.name for c in o.users_collection]
        if "CForm" in cols:
            cform += sum(len(p.vertices) - 2 for p in o.data.polygons)
        if any(c in SKIP for c in cols):
            continue
        out.append((cols[0], unique(world_points(o))))
    return out, cform


def take(entries, collection, points):
    """Remove and return the entry of `collection` whose points equal `points`."""
    for i, (c, p) in enumerate(entries):
        if c == collection and same_set(p, points):
            return entries.pop(i)
    return None


def main():
    argv = sys.argv[sys.argv.index("--") + 1:] if "--" in sys.argv else sys.argv[1:]
    if not argv:
        print("usage: ... xray_import_check.py -- WORKDIR [BLENDER_XRAY]")
        sys.exit(2)
    work = os.path.abspath(argv[0])
    xray_path = os.path.abspath(
        argv[1] if len(argv) > 1 else os.path.join(REPO, "..", "shared", "peers", "blender-xray")
    )
    os.makedirs(work, exist_ok=True)
    exp = os.path.join(work, "exp")
    code, _, err = run("export", FIXTURE, exp, "--format", "gltf", "--collision", "--force")
    check(code == 0, f"levelgeom export of the fixture ({err.strip()[:200]})")

    base, base_cform = xray_visuals(os.path.join(FIXTURE, "level"), xray_path)

    # the edit
    reset()
    bpy.ops.import_scene.gltf(filepath=os.path.join(exp, "level.glb"))
    obs = {o.name: o for o in bpy.data.objects}
    v0 = unique(world_points(obs["visual_0000_normal"]))
    v3 = unique(world_points(obs["visual_0003_normal"]))
    v12 = unique(world_points(obs["visual_0012_tree_st"]))
    from mathutils import Matrix

    o = obs["visual_0003_normal"]
    o.matrix_world = Matrix.Translation(OFFSET) @ o.matrix_world
    bpy.data.objects.remove(obs["visual_0000_normal"], do_unlink=True)
    t = obs["visual_0012_tree_st"]
    c = t.copy()
    t.users_collection[0].objects.link(c)
    c.parent = t.parent
    c.matrix_world = Matrix.Translation(TREE_SHIFT) @ t.matrix_world
    bpy.ops.mesh.primitive_cube_add(size=1.0, location=CUBE_AT)
    cube = bpy.context.active_object
    cube.data.materials.append(bpy.data.materials.new("ston\\ston_beton04"))
    cube_points = unique(world_points(cube))
    edited = os.path.join(work, "edited.glb")
    bpy.ops.export_scene.gltf(filepath=edited, export_format="GLB", export_extras=True)

    out = os.path.join(work, "out")
    code, text, err = run("import", FIXTURE, edited, out, "--json", "--force")
    check(code == 0, f"levelgeom import ({err.strip()[:300]})")
    summary = json.loads(text)["summary"] if code == 0 else {}
    check(summary.get("moved") == [3], f"summary moved {summary.get('moved')}")
    check(summary.get("removed") == [0], f"summary removed {summary.get('removed')}")
    check(len(summary.get("added", [])) == 2, "summary: two visuals added")
    code, text, err = run("check", out)
    check(code == 0, f"levelgeom check of the new level ({(text + err).strip()[:300]})")

    new, new_cform = xray_visuals(os.path.join(out, "level"), xray_path)
    expect = list(base)
    check(take(expect, "Normal", v0) is not None, "visual 0 is in blender-xray's import of the fixture")
    moved = take(expect, "Normal", v3)
    check(moved is not None, "visual 3 is in blender-xray's import of the fixture")
    tree = next((p for c, p in base if c == "Tree Static" and same_set(p, v12)), None)
    check(tree is not None, "visual 12 is in blender-xray's import of the fixture")
    expect.append(("Normal", shifted(v3, OFFSET)))
    expect.append(("Tree Static", shifted(v12, TREE_SHIFT)))
    expect.append(("Normal", cube_points))
    got = list(new)
    for col, pts in expect:
        check(take(got, col, pts) is not None, f"{col} object with {len(pts)} positions found")
    check(not got, f"no other visual objects ({[(c, len(p)) for c, p in got]})")
    coll = summary.get("collision", {})
    check(
        new_cform == coll.get("faces_after"),
        f"blender-xray reads {new_cform} collision triangles, the summary says {coll.get('faces_after')} "
        f"(fixture {base_cform})",
    )
    added = coll.get("added", 0)
    check(
        added >= 12 and new_cform == base_cform - coll.get("removed", 0) + added,
        f"collision: the cube's 12 triangles (and the tree copy's) added: {added} added, "
        f"{coll.get('removed')} removed, fixture {base_cform}, blender-xray reads {new_cform}",
    )
    print("xray_import_check: " + ("PASS" if not FAILURES else f"FAIL ({len(FAILURES)})"))
    sys.exit(1 if FAILURES else 0)


main()
