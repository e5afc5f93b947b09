"""Importing a `levelgeom export` folder into collections, and exporting them back as GLB."""
import contextlib
import importlib
import inspect
import os
import re

import bpy

# the collections, by role; collision, swap and portals are hidden at first (the game does not
# draw them)
COLLECTION_NAMES = {
    "level": "levelgeom level",
    "collision": "levelgeom collision",
    "swap": "levelgeom swap",
    "objects": "levelgeom objects",
    "portals": "levelgeom portals",
}
HIDDEN_ROLES = ("collision", "swap", "portals")
# which file of an export holds which role (anything else goes to the level collection)
ROLE_BY_FILE = {
    "level": "level",
    "collision": "collision",
    "swap": "swap",
    "objects": "objects",
    "portals": "portals",
}
FILE_ORDER = ("level", "collision", "swap", "objects", "portals")

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
    if not hasattr(numpy, "bool"):
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
    applied, custom properties as extras, no images: import reads the page from the name)."""
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
        op(filepath=path, **kwargs)
    finally:
        view_layer.active_layer_collection = prev_active
        lc.exclude, lc.hide_viewport, coll.hide_viewport = saved
    return path


def mesh_count(coll):
    return sum(1 for o in coll.all_objects if o.type == "MESH") if coll else 0
