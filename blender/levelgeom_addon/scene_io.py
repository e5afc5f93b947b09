"""Importing a `levelgeom export` folder into collections, and exporting them back as GLB."""
import contextlib
import importlib
import inspect
import json
import os
import re
import struct

import bpy

# the collections, by role; collision, swap, portals, occluders, AI nodes and detail models are
# hidden at first (the game does not draw them as they are)
COLLECTION_NAMES = {
    "level": "levelgeom level",
    "collision": "levelgeom collision",
    "swap": "levelgeom swap",
    "objects": "levelgeom objects",
    "portals": "levelgeom portals",
    "occluders": "levelgeom occluders",
    "ai": "levelgeom ai",
    "details": "levelgeom details",
}
HIDDEN_ROLES = ("collision", "swap", "portals", "occluders", "ai", "details")
# which file of an export holds which role (anything else goes to the level collection)
ROLE_BY_FILE = {
    "level": "level",
    "collision": "collision",
    "swap": "swap",
    "objects": "objects",
    "portals": "portals",
    "occluders": "occluders",
    "ai": "ai",
    "details": "details",
}
FILE_ORDER = ("level", "collision", "swap", "objects", "portals", "occluders", "ai", "details")

_SUFFIX = re.compile(r"\.\d{3}$")


def base_name(name):
    """A name without Blender's `.001` suffix."""
    return _SUFFIX.sub("", name)


def numpy_shim():
    """Debian's numpy (1.24+) lacks `numpy.bool`, which Blender 3.4's glTF importer uses."""
    try:
        import numpy
    except ImportError:
        return
    # `hasattr(numpy, "bool")` itself warns (FutureWarning from numpy's module __getattr__):
    # look at the module's own attributes instead
    if "bool" not in vars(numpy):
        numpy.bool = bool


class _OrderedSet(dict):
    """A set that iterates in insertion order (what the importer's custom attribute code needs)."""

    def __init__(self, items=()):
        super().__init__((k, None) for k in items)

    def add(self, item):
        self.setdefault(item, None)

    def update(self, items):
        for item in items:
            self.setdefault(item, None)


def _gltf_mesh_module():
    for name in ("io_scene_gltf2.blender.imp.gltf2_blender_mesh", "io_scene_gltf2.blender.imp.mesh"):
        try:
            return importlib.import_module(name)
        except ImportError:
            continue
    return None


@contextlib.contextmanager
def gltf_custom_attribute_fix():
    """Blender's glTF importer (3.5 to at least 4.2; KhronosGroup/glTF-Blender-IO#2658) keeps the
    names of a mesh's custom attributes (`_HEMI`, `_SUN`, `_LIGHT` of X-Ray exports) in a `set`
    but their data in a list: when the set's hash order differs from the list's, the import fails
    ("all the input array dimensions ... must match") or attributes of one shape get each other's
    data. While this is active, that module's `set` keeps insertion order. Only applied when the
    importer still has the code of the bug; a fixed importer is left alone."""
    mod = _gltf_mesh_module()
    patch = False
    if mod is not None and "set" not in vars(mod):
        try:
            src = inspect.getsource(mod)
            patch = "attributes = set({})" in src and "enumerate(attributes)" in src
        except (OSError, TypeError):
            patch = False
    if patch:
        mod.set = _OrderedSet
    try:
        yield patch
    finally:
        if patch:
            del mod.set


def find_layer_collection(layer_collection, collection):
    if layer_collection.collection == collection:
        return layer_collection
    for child in layer_collection.children:
        found = find_layer_collection(child, collection)
        if found is not None:
            return found
    return None


def new_collection(scene, role):
    coll = bpy.data.collections.new(COLLECTION_NAMES[role])
    coll["levelgeom_role"] = role
    scene.collection.children.link(coll)
    scene["levelgeom_collection_" + role] = coll.name
    return coll


def role_collection(scene, role):
    """The collection of a role that the scene's last import made (or None)."""
    name = scene.get("levelgeom_collection_" + role)
    coll = bpy.data.collections.get(name) if name else None
    if coll is not None and coll.get("levelgeom_role") == role:
        return coll
    for c in scene.collection.children_recursive:
        if c.get("levelgeom_role") == role:
            return c
    return None


def _root(ob):
    while ob.parent is not None:
        ob = ob.parent
    return ob


def _role_in_level_file(ob):
    """Where an object of level.glb belongs. Exports before the split put collision and objects
    in trees `collision` and `objects` inside level.glb and the swap alternatives among the tiles."""
    root = base_name(_root(ob).name)
    if root in ("collision", "objects"):
        return root
    if ob.get("swap_state") == "alternative" or base_name(ob.name).endswith("_swap"):
        return "swap"
    return "level"


def _move(ob, coll):
    for c in list(ob.users_collection):
        if c != coll:
            c.objects.unlink(ob)
    if ob.name not in coll.objects:
        coll.objects.link(ob)


def _is_bare_empty(ob):
    return (
        ob.type == "EMPTY"
        and not ob.children
        and ob.matrix_world.translation.length < 1e-6
    )


def ordered_glbs(folder):
    files = [f for f in os.listdir(folder) if f.lower().endswith(".glb")]
    stems = {os.path.splitext(f)[0]: f for f in files}
    out = [stems.pop(s) for s in FILE_ORDER if s in stems]
    return [os.path.join(folder, f) for f in out + sorted(stems.values())]


def import_export_folder(context, folder):
    """Import every GLB `levelgeom export` wrote into `folder`; returns a dict of counts."""
    numpy_shim()
    scene = context.scene
    glbs = ordered_glbs(folder)
    if not glbs:
        raise RuntimeError(f"levelgeom export wrote no .glb into {folder}")
    colls = {}
    counts = {role: 0 for role in COLLECTION_NAMES}
    removed = 0
    for glb in glbs:
        file_role = ROLE_BY_FILE.get(os.path.splitext(os.path.basename(glb))[0], "level")
        before = {o.as_pointer() for o in bpy.data.objects}
        with gltf_custom_attribute_fix():
            bpy.ops.import_scene.gltf(filepath=glb)
        new = [o for o in bpy.data.objects if o.as_pointer() not in before]
        # tiles whose model has no faces arrive as empties at the origin: drop them
        while True:
            bare = [o for o in new if _is_bare_empty(o)]
            if not bare:
                break
            for o in bare:
                new.remove(o)
                bpy.data.objects.remove(o)
                removed += 1
        for ob in new:
            role = _role_in_level_file(ob) if file_role == "level" else file_role
            if role not in colls:
                colls[role] = new_collection(scene, role)
            _move(ob, colls[role])
            if ob.type == "MESH":
                counts[role] += 1
            if ob.get("hidden") in (True, 1, "true"):
                ob.hide_render = True
                ob.hide_set(True)
    view_layer = context.view_layer
    for role, coll in colls.items():
        if role in HIDDEN_ROLES:
            coll.hide_render = True
            lc = find_layer_collection(view_layer.layer_collection, coll)
            if lc is not None:
                lc.hide_viewport = True
    counts["removed_empties"] = removed
    return counts


def _operator_kwargs(op, wanted):
    """Only the options this Blender's operator has (they differ between 3.x and 4.x)."""
    props = op.get_rna_type().properties.keys()
    return {k: v for k, v in wanted.items() if k in props}


def export_collection_glb(context, coll, path):
    """Write every object of `coll` (hidden ones too) as GLB in export space (+Y up, modifiers
    applied, custom properties as extras, no images: import reads the page from the name).
    On Blender < 3.5 the colours go through point_domain_colours (see there)."""
    view_layer = context.view_layer
    lc = find_layer_collection(view_layer.layer_collection, coll)
    if lc is None:
        raise RuntimeError(f"collection {coll.name!r} is not in this scene's view layer")
    saved = (lc.exclude, lc.hide_viewport, coll.hide_viewport)
    prev_active = view_layer.active_layer_collection
    try:
        lc.exclude = False
        lc.hide_viewport = False
        coll.hide_viewport = False
        view_layer.active_layer_collection = lc
        op = bpy.ops.export_scene.gltf
        kwargs = _operator_kwargs(
            op,
            {
                "export_format": "GLB",
                "use_active_collection": True,
                "use_active_collection_with_nested": True,
                "use_selection": False,
                "use_visible": False,
                "use_renderable": False,
                "export_yup": True,
                "export_apply": True,
                "export_extras": True,
                "export_texcoords": True,
                "export_normals": True,
                "export_colors": True,
                "export_vertex_color": "ACTIVE",
                "export_materials": "EXPORT",
                "export_image_format": "NONE",
                "export_cameras": False,
                "export_lights": False,
                "export_animations": False,
                "export_skins": False,
                "export_morph": False,
            },
        )
        with point_domain_colours(coll.all_objects):
            op(filepath=path, **kwargs)
    finally:
        view_layer.active_layer_collection = prev_active
        lc.exclude, lc.hide_viewport, coll.hide_viewport = saved
    return path


# the roles whose collections are not level geometry (File > Export > Argonaut level WAD writes
# every other mesh of the scene)
NOT_LEVEL_ROLES = ("collision", "swap", "objects", "portals", "occluders", "ai", "details")
# roots of a level GLB that `levelgeom import` does not read as level geometry: a copy of
# `levelgeom_scene::roots::NAMED` (crates/scene/src/roots.rs), whose test checks the two agree
NOT_LEVEL_ROOTS = ("collision", "swap", "objects", "objects_catalogue", "portals", "occluders", "ai", "details")


def level_export_objects(context):
    """What the WAD export writes: (the level collection's objects, the other meshes). The other
    meshes are every mesh object of the view layer outside the collections levelgeom's imports
    made (level, collision, swap, objects, portals; those of an earlier import into the same
    scene too), in any collection, parented or not (Shift+A puts a new object in the active
    collection, unparented). Objects of a collection excluded from the view layer (its checkbox
    off) are not in the view layer, so not written."""
    scene = context.scene
    level = role_collection(scene, "level")
    level_obs = list(level.all_objects) if level is not None else []
    taken = {o.as_pointer() for o in level_obs}
    for role in NOT_LEVEL_ROLES:
        coll = role_collection(scene, role)
        if coll is not None:
            taken.update(o.as_pointer() for o in coll.all_objects)
    for coll in scene.collection.children_recursive:
        if coll.get("levelgeom_role"):
            taken.update(o.as_pointer() for o in coll.all_objects)
    others = [o for o in context.view_layer.objects if o.type == "MESH" and o.as_pointer() not in taken]
    return level_obs, others


def export_objects_glb(context, objects, path):
    """export_collection_glb for a list of objects: they are linked (not moved) into a temporary
    collection, which is exported and removed again; the scene is left as it was."""
    scene = context.scene
    tmp = bpy.data.collections.new("levelgeom export (temporary)")
    try:
        scene.collection.children.link(tmp)
        for ob in objects:
            tmp.objects.link(ob)
        return export_collection_glb(context, tmp, path)
    finally:
        bpy.data.collections.remove(tmp)


def _node_matrix(node):
    from mathutils import Matrix, Quaternion, Vector

    if "matrix" in node:
        a = node["matrix"]
        return Matrix([[a[r], a[4 + r], a[8 + r], a[12 + r]] for r in range(4)])
    t = Vector(node.get("translation", (0.0, 0.0, 0.0)))
    x, y, z, w = node.get("rotation", (0.0, 0.0, 0.0, 1.0))
    s = Vector(node.get("scale", (1.0, 1.0, 1.0)))
    return Matrix.LocRotScale(t, Quaternion((w, x, y, z)), s)


def _read_glb(path):
    with open(path, "rb") as f:
        data = f.read()
    magic, _version, _length = struct.unpack_from("<4sII", data, 0)
    json_len, json_type = struct.unpack_from("<I4s", data, 12)
    if magic != b"glTF" or json_type != b"JSON":
        raise RuntimeError(f"{os.path.basename(path)}: not a GLB")
    return json.loads(data[20 : 20 + json_len]), data[20 + json_len :]


def _write_glb(path, doc, rest):
    text = json.dumps(doc, separators=(",", ":")).encode("utf-8")
    text += b" " * (-len(text) % 4)
    head = struct.pack("<4sII", b"glTF", 2, 12 + 8 + len(text) + len(rest))
    with open(path, "wb") as f:
        f.write(head + struct.pack("<I4s", len(text), b"JSON") + text + rest)


def roots_under_level(path):
    """Make every root of the GLB at `path` other than `level` (or Blender's `level.001`) and the
    trees import does not read as level geometry (collision, swap, objects, portals) a child of
    the `level` root, its world placement unchanged, so that `levelgeom import` reads it with the
    level: a mesh added outside the level collection, unparented, comes out of Blender's exporter
    as a root of its own, and import reads only the `level` tree of a file that has one. Returns the names of the
    nodes moved (none when the file has no single `level` root)."""
    doc, rest = _read_glb(path)
    nodes = doc.get("nodes", [])
    scenes = doc.get("scenes", [])
    if not scenes:
        return []
    scene = scenes[doc.get("scene", 0)]
    roots = scene.get("nodes", [])
    # `level`, or `level.001` when the scene holds an earlier import's `level` too
    level = [r for r in roots if re.fullmatch(r"level(\.\d{3})?", nodes[r].get("name", ""))]
    if len(level) != 1:
        return []
    lv = level[0]
    moved = [r for r in roots if r != lv and nodes[r].get("name") not in NOT_LEVEL_ROOTS]
    if not moved:
        return []
    level_matrix = _node_matrix(nodes[lv])
    if any(k in nodes[lv] for k in ("matrix", "translation", "rotation", "scale")):
        inverse = level_matrix.inverted_safe()
        for r in moved:
            m = inverse @ _node_matrix(nodes[r])
            for k in ("translation", "rotation", "scale"):
                nodes[r].pop(k, None)
            nodes[r]["matrix"] = [m[row][col] for col in range(4) for row in range(4)]
    nodes[lv]["children"] = nodes[lv].get("children", []) + moved
    scene["nodes"] = [r for r in roots if r not in moved]
    _write_glb(path, doc, rest)
    return [nodes[r].get("name", f"node {r}") for r in moved]


def colour_fix_needed():
    """Blender's glTF exporter before 3.5 reads face-corner colours by vertex index instead of
    corner index (KhronosGroup/glTF-Blender-IO#1815, #1841, #1856; fixed for 3.5): each corner
    gets the colour of another corner. Point-domain colours it reads right."""
    return bpy.app.version < (3, 5, 0)


def _split_vertices_by_colour(me, name):
    """Give every corner colour of a vertex its own vertex (the geometry is unchanged)."""
    import bmesh

    bm = bmesh.new()
    try:
        bm.from_mesh(me)
        layer = bm.loops.layers.color.get(name) or bm.loops.layers.float_color.get(name)
        if layer is None:
            return
        for v in list(bm.verts):
            groups = {}
            for loop in v.link_loops:
                groups.setdefault(tuple(loop[layer]), []).append(loop)
            for loops in list(groups.values())[1:]:
                for loop in loops:
                    bmesh.utils.loop_separate(loop)
        bm.to_mesh(me)
    finally:
        bm.free()


def _corner_colours(me, name):
    import numpy

    attr = me.color_attributes[name]
    colours = numpy.empty(len(me.loops) * 4, dtype=numpy.float32)
    attr.data.foreach_get("color", colours)
    vertex = numpy.empty(len(me.loops), dtype=numpy.int32)
    me.loops.foreach_get("vertex_index", vertex)
    return colours.reshape(-1, 4), vertex


def point_colour_copy(me):
    """A copy of mesh `me` whose render colour attribute, a face-corner one, is a point-domain
    FLOAT_COLOR attribute of the same name and the same values as the exporter reads them
    (`color`, linear floats): vertices whose corners differ in colour are split first, so that
    no corner changes colour. None when `me` has no face-corner render colour."""
    import numpy

    index = me.color_attributes.render_color_index
    if index < 0 or index >= len(me.color_attributes):
        return None
    attr = me.color_attributes[index]
    if attr.domain != "CORNER":
        return None
    name = attr.name
    copy = me.copy()
    colours, vertex = _corner_colours(copy, name)
    per_vertex = numpy.ones((len(copy.vertices), 4), dtype=numpy.float32)
    per_vertex[vertex] = colours
    if not numpy.array_equal(per_vertex[vertex], colours):
        _split_vertices_by_colour(copy, name)
        colours, vertex = _corner_colours(copy, name)
        per_vertex = numpy.ones((len(copy.vertices), 4), dtype=numpy.float32)
        per_vertex[vertex] = colours
    copy.color_attributes.remove(copy.color_attributes[name])
    point = copy.color_attributes.new(name, "FLOAT_COLOR", "POINT")
    point.data.foreach_set("color", per_vertex.ravel())
    found = copy.color_attributes.find(name)
    copy.color_attributes.render_color_index = found
    copy.color_attributes.active_color_index = found
    return copy


@contextlib.contextmanager
def point_domain_colours(objects):
    """While active, on Blender < 3.5 (colour_fix_needed), every mesh object of `objects` whose
    render colours are face-corner ones shows a point_colour_copy of its mesh, under the mesh's
    own name; afterwards the objects get their meshes (and names) back and the copies are
    removed. Yields the number of meshes replaced. Nothing changes on 3.5 and later."""
    swapped = []  # (original mesh, copy, its objects, original name)
    try:
        if colour_fix_needed():
            by_mesh = {}
            for ob in objects:
                if ob.type == "MESH" and ob.data is not None:
                    by_mesh.setdefault(ob.data.as_pointer(), (ob.data, []))[1].append(ob)
            for me, obs in by_mesh.values():
                copy = point_colour_copy(me)
                if copy is None:
                    continue
                name = me.name
                swapped.append((me, copy, obs, name))
                me.name = name[:40] + " (levelgeom original)"
                copy.name = name
                for ob in obs:
                    ob.data = copy
        yield len(swapped)
    finally:
        for me, copy, obs, name in reversed(swapped):
            for ob in obs:
                ob.data = me
            bpy.data.meshes.remove(copy)
            me.name = name


def mesh_count(coll):
    return sum(1 for o in coll.all_objects if o.type == "MESH") if coll else 0
