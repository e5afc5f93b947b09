"""Independent check of X-Ray pivots, lights and glows through Blender's own glTF importer.

Run (Blender 3.4+, headless), after `levelgeom export FIXTURE OUT --lods --portals`:

    blender -b --factory-startup -noaudio --python-exit-code 1 \
        --python tools/blender/xray_objects_check.py -- OUT/level.glb \
        crates/xray/tests/data/before/world_triangles.txt

It imports level.glb with the plain glTF importer and checks, in Blender's Z-up space converted
back to glTF (x, y, z) = (X, Z, -Y):
  * every visual's mesh object has its world vertices where the conversion put them before
    pivots existed (the recorded baseline, within 1e-5), and its origin is the centre of its
    world bounding box for static visuals (MT_NORMAL) and LOD billboards;
  * custom properties `visual`, `model_type`, `shader_id`, `sector` arrived from the extras;
  * the fixture's sun is a SUN lamp shining along the record's direction (X-Ray (x, y, z) is
    Blender (x, z, y)), the glow an empty at the record's position with its radius;
  * material names fit Blender's 63 bytes.
Prints one line per check and `xray_objects_check: PASS` or exits 1.
"""
import pathlib
import sys

import bpy
import mathutils

try:
    import numpy

    if not hasattr(numpy, "bool"):
        numpy.bool = bool
except ImportError:
    pass


class Checks:
    """The checks run so far: one printed line each, the failed ones kept."""

    def __init__(self):
        self.failures = []

    def check(self, cond, what):
        print(("  ok   " if cond else "  FAIL ") + what)
        if not cond:
            self.failures.append(what)


def to_gltf(v):
    """Blender's Z-up (X, Y, Z) as glTF's (x, y, z) = (X, Z, -Y)."""
    return (v[0], v[2], -v[1])


def read_baseline(path):
    """The fixture's world triangles before pivots existed, by node name."""
    before = {}
    for line in pathlib.Path(path).read_text().splitlines():
        f = line.split()
        if f[0] != "fixture":
            continue
        v = [float(x) for x in f[3:]]
        before.setdefault(f[1], []).append([tuple(v[3 * k : 3 * k + 3]) for k in range(3)])
    return before


def import_glb(glb):
    """Import `glb` with Blender's own glTF importer into an empty scene; objects by name."""
    bpy.ops.wm.read_factory_settings(use_empty=True)
    bpy.ops.import_scene.gltf(filepath=glb)
    return {o.name: o for o in bpy.data.objects}


def nearest(p, pts):
    """The Chebyshev distance from `p` to the nearest of `pts`."""
    return min(max(abs(p[k] - q[k]) for k in range(3)) for q in pts)


def check_visual(c, ob, name, tris):
    """One visual's mesh object: world vertices as before pivots, origin, custom properties.
    Returns the worst vertex distance."""
    m = ob.matrix_world
    got = sorted(to_gltf(m @ v.co) for v in ob.data.vertices)
    want = sorted({v for t in tris for v in t})
    # the importer may merge or split vertices: compare both ways by nearest neighbour
    d = max(max(nearest(p, want) for p in got), max(nearest(q, got) for q in want))
    c.check(d <= 1e-5, f"{name}: world vertices as before pivots (max {d:.2e})")
    if name.endswith("_normal") or name.endswith("_lod"):
        lo = [min(p[k] for p in got) for k in range(3)]
        hi = [max(p[k] for p in got) for k in range(3)]
        centre = [(lo[k] + hi[k]) / 2 for k in range(3)]
        o = to_gltf(m.translation)
        e = max(abs(o[k] - centre[k]) for k in range(3))
        c.check(e <= 1e-5, f"{name}: origin at its box centre (off by {e:.2e})")
    for key in ("visual", "model_type", "shader_id", "sector"):
        c.check(key in ob, f"{name}: custom property {key}")
    c.check(ob.get("visual") == str(int(name[7:11])), f"{name}: visual = {ob.get('visual')}")
    return d


def check_visuals(c, obs, before):
    """Every visual of the baseline against its mesh object."""
    worst = 0.0
    for name, tris in sorted(before.items()):
        ob = obs.get(name)
        c.check(ob is not None and ob.type == "MESH", f"{name}: a mesh object")
        if ob is None:
            continue
        worst = max(worst, check_visual(c, ob, name, tris))
    print(f"worst vertex distance {worst:.2e}")


def check_sun(c):
    """The fixture's sun: one SUN lamp shining along the record's direction."""
    sun = [o for o in bpy.data.objects if o.type == "LIGHT" and o.data.type == "SUN"]
    c.check(len(sun) == 1, "one SUN lamp")
    if sun:
        d = sun[0].matrix_world.to_3x3() @ mathutils.Vector((0, 0, -1))
        x = (0.84031385, -0.42261827, 0.33950904)  # the fixture record, X-Ray space
        n = sum(k * k for k in x) ** 0.5
        want = mathutils.Vector((x[0] / n, x[2] / n, x[1] / n))  # Blender (x, z, y)
        c.check((d.normalized() - want).length < 1e-5, f"sun shines along {tuple(d)}")


def check_glow(c, obs):
    """The fixture's glow: an empty at the record's position with its radius."""
    glow = obs.get("glow_000")
    c.check(glow is not None and glow.type == "EMPTY", "glow_000 is an empty")
    if glow:
        p = glow.matrix_world.translation
        # the record's X-Ray (2.7498264, 0.24468422, -3.1375268) → Blender (x, z, y)
        want = (2.7498264, -3.1375268, 0.24468422)
        c.check(max(abs(p[k] - want[k]) for k in range(3)) < 1e-5, f"glow at {tuple(p)}")
        c.check(glow.get("radius") == "0.5", "glow radius 0.5")


def check_material_names(c):
    """Material names fit Blender's 63 bytes."""
    for mat in bpy.data.materials:
        c.check(len(mat.name.encode()) <= 63, f"material {mat.name!r} ≤ 63 bytes")


def main():
    argv = sys.argv[sys.argv.index("--") + 1 :] if "--" in sys.argv else sys.argv[1:]
    glb, baseline = argv[0], argv[1]
    c = Checks()
    before = read_baseline(baseline)
    obs = import_glb(glb)
    check_visuals(c, obs, before)
    check_sun(c)
    check_glow(c, obs)
    check_material_names(c)
    print("xray_objects_check: " + ("FAIL" if c.failures else "PASS"))
    return 1 if c.failures else 0


if __name__ == "__main__":
    sys.exit(main())
