"""levelgeom for Blender: import Argonaut WADs and X-Ray levels, export edited WADs and levels.

The add-on runs the `levelgeom` command-line tool (see the project's README): import
runs `levelgeom export` into a temporary folder and loads the GLBs with Blender's glTF importer;
export writes the level (and collision) collections as GLB and runs `levelgeom import` onto the
WAD, or the X-Ray level folder, the scene came from.
"""

bl_info = {
    "name": "levelgeom (Argonaut WAD, X-Ray level)",
    "author": "levelgeom",
    "version": (0, 2, 0),
    "blender": (3, 4, 0),
    "location": "File > Import > Argonaut level WAD / X-Ray level; "
    "File > Export > Argonaut level WAD / X-Ray level",
    "description": "Import The Emperor's New Groove WADs and S.T.A.L.K.E.R. levels through the "
    "levelgeom binary, and put edited meshes back into a WAD or a compiled X-Ray level",
    "category": "Import-Export",
}

import json
import os
import shutil
import tempfile
import traceback

import bpy
from bpy.props import BoolProperty, EnumProperty, StringProperty
from bpy_extras.io_utils import ExportHelper, ImportHelper

from . import runner, scene_io
from .runner import LevelgeomError


def _prefs(context):
    addon = context.preferences.addons.get(__name__)
    return addon.preferences if addon is not None else None


def binary(context):
    """The levelgeom executable to run (the preferences' path, else PATH), checked to be
    levelgeom (a wrong one is a LevelgeomError naming it, not a traceback)."""
    prefs = _prefs(context)
    return runner.check_binary(runner.find_binary(prefs.binary if prefs is not None else ""))


# what each importer reads, in the add-on's words (for refusing the other kind)
KIND_WORDS = {
    "wad": ("an Argonaut level WAD", "File > Import > Argonaut level WAD"),
    "xray": ("an X-Ray level", "File > Import > X-Ray level"),
}
KIND_OF_FORMAT = {"argonaut-wad": "wad", "xray-level": "xray"}


def _refuse_other_kind(exe, path, kind):
    """Raise a LevelgeomError in the add-on's words when `path` is a level of the other kind
    than the importer's (a WAD given to the X-Ray importer, an X-Ray level to the WAD one)."""
    found = KIND_OF_FORMAT.get(runner.level_format(exe, path))
    if found is not None and found != kind:
        what, menu = KIND_WORDS[found]
        expected = KIND_WORDS[kind][0]
        name = os.path.basename(path.rstrip(os.sep)) or path
        raise LevelgeomError(f"{name} is {what}, not {expected}: import it with {menu}")


class LEVELGEOM_AddonPreferences(bpy.types.AddonPreferences):
    bl_idname = __name__

    binary: StringProperty(
        name="levelgeom binary",
        description="Path of the levelgeom executable; empty: look it up on PATH",
        subtype="FILE_PATH",
        default="",
    )

    def draw(self, context):
        layout = self.layout
        layout.prop(self, "binary")
        try:
            layout.label(text="Using: " + runner.find_binary(self.binary), icon="CHECKMARK")
        except LevelgeomError as e:
            layout.label(text=str(e), icon="ERROR")


def _run_guarded(op, context, body):
    """Run body(); binary errors become ERROR reports, never a traceback in the UI."""
    try:
        return body()
    except LevelgeomError as e:
        op.report({"ERROR"}, str(e))
    except Exception as e:  # noqa: BLE001 - a report, not a traceback, for anything else too
        traceback.print_exc()
        op.report({"ERROR"}, f"levelgeom add-on: {type(e).__name__}: {e}")
    return {"CANCELLED"}


def _import_level(op, context, path, export_args, kind):
    exe = binary(context)
    path = os.path.abspath(bpy.path.abspath(path))
    _refuse_other_kind(exe, path, kind)
    tmp = tempfile.mkdtemp(prefix="levelgeom-")
    try:
        out = os.path.join(tmp, "export")
        # the temporary folder is named in no message: it is gone when the user reads it
        ran = runner.run_full(exe, ["export", path, out, "--format", "gltf"] + export_args,
                              hidden={out: "the export", tmp: "the export"})
        counts = scene_io.import_export_folder(context, out)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    scene = context.scene
    scene["levelgeom_base"] = path
    scene["levelgeom_kind"] = kind
    if kind == "xray":
        # the level folder (level, level.geom, …) that File > Export > X-Ray level writes back onto
        scene["levelgeom_xray_base"] = path if os.path.isdir(path) else os.path.dirname(path)
    elif "levelgeom_xray_base" in scene:
        del scene["levelgeom_xray_base"]
    parts = [f"{counts[r]} {r} mesh(es)" for r in scene_io.COLLECTION_NAMES if counts[r]]
    name = os.path.basename(path.rstrip(os.sep))
    if name == "level" or os.path.isdir(path):  # an X-Ray level: its folder says which
        name = os.path.basename(os.path.dirname(path)) if name == "level" else name
    for w in ran.warnings:
        op.report({"WARNING"}, f"levelgeom: {w}")
    warned = f" ({len(ran.warnings)} warning(s))" if ran.warnings else ""
    op.report({"INFO"}, f"levelgeom: imported {name}: " + ", ".join(parts) + warned)
    return {"FINISHED"}


class IMPORT_SCENE_OT_levelgeom_wad(bpy.types.Operator, ImportHelper):
    """Import an Argonaut level WAD (The Emperor's New Groove) through levelgeom"""

    bl_idname = "import_scene.levelgeom_wad"
    bl_label = "Import Argonaut WAD"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ".wad"
    filter_glob: StringProperty(default="*.wad;*.WAD", options={"HIDDEN"})
    collision: BoolProperty(
        name="Collision", description="Also import the collision surfaces (hidden)", default=True
    )
    objects: BoolProperty(
        name="Objects", description="Also import the STPC object models", default=True
    )

    def execute(self, context):
        args = (["--collision"] if self.collision else []) + (["--objects"] if self.objects else [])
        return _run_guarded(
            self, context, lambda: _import_level(self, context, self.filepath, args, "wad")
        )


class IMPORT_SCENE_OT_levelgeom_xray(bpy.types.Operator, ImportHelper):
    """Import a S.T.A.L.K.E.R. X-Ray level (its `level` file, level.geom beside it) through levelgeom"""

    bl_idname = "import_scene.levelgeom_xray"
    bl_label = "Import X-Ray level"
    bl_options = {"REGISTER", "UNDO"}

    filename_ext = ""
    filter_glob: StringProperty(default="level;level.*", options={"HIDDEN"})
    textures: StringProperty(
        name="Textures",
        description="gamedata/textures folder to link textures from (optional)",
        subtype="DIR_PATH",
        default="",
    )
    lods: BoolProperty(name="LOD billboards", default=False)
    portals: BoolProperty(
        name="Portals",
        description="Also import the portal polygons between sectors (hidden collection)",
        default=False,
    )
    collision: BoolProperty(
        name="Collision",
        description="Also import level.cform (hidden collection `levelgeom collision`), to edit "
        "and write back with File > Export > X-Ray level, Collision: Collision collection",
        default=False,
    )
    occluders: BoolProperty(
        name="Occluders",
        description="Also import level.hom and level.som (hidden collection `levelgeom "
        "occluders`; they follow the edited visuals on export)",
        default=False,
    )
    ai: BoolProperty(
        name="AI nodes",
        description="Also import level.ai's nodes, one small quad each (hidden collection "
        "`levelgeom ai`; not written back: the export says which nodes an edit made stale)",
        default=False,
    )
    details: BoolProperty(
        name="Detail models",
        description="Also import level.details' detail models, each in its own space (hidden "
        "collection `levelgeom details`; not written back)",
        default=False,
    )

    def execute(self, context):
        def body():
            path = bpy.path.abspath(self.filepath)
            if not os.path.exists(path) and os.path.isdir(os.path.dirname(path)):
                path = os.path.dirname(path)  # the folder was chosen, not a file
            args = []
            if self.textures:
                args += ["--textures", bpy.path.abspath(self.textures)]
            if self.lods:
                args.append("--lods")
            if self.portals:
                args.append("--portals")
            if self.collision:
                args.append("--collision")
            if self.occluders:
                args.append("--occluders")
            if self.ai:
                args.append("--ai")
            if self.details:
                args.append("--details")
            return _import_level(self, context, path, args, "xray")

        return _run_guarded(self, context, body)


class EXPORT_SCENE_OT_levelgeom_wad(bpy.types.Operator, ExportHelper):
    """Put the level (and collision) collections back into the WAD this scene was imported from"""

    bl_idname = "export_scene.levelgeom_wad"
    bl_label = "Export Argonaut WAD"
    bl_options = {"REGISTER"}

    filename_ext = ".wad"
    filter_glob: StringProperty(default="*.wad;*.WAD", options={"HIDDEN"})
    base: StringProperty(
        name="Base WAD",
        description="The WAD whose other chunks are kept; empty: the one this scene was imported from",
        subtype="FILE_PATH",
        default="",
    )
    collision_source: EnumProperty(
        name="Collision",
        items=[
            ("AUTO", "Collision collection", "The collision collection if it has meshes, "
             "else derived from the level mesh"),
            ("DERIVE", "Derive from the level", "Floors and walls from the level mesh "
             "(use after moving level geometry without editing the collision)"),
        ],
        default="AUTO",
    )
    zones: EnumProperty(
        name="Zones",
        items=[("keep", "Keep", "Keep the WAD's zone table; new tiles get the zone of their cell"),
               ("flat", "Flat", "Everything visible from everywhere")],
        default="keep",
    )
    keep_tiles: BoolProperty(
        name="Keep tiles",
        description="Keep the base WAD's tiles the scene no longer holds (with Rebuild: keep all of "
        "its tiles and add the new ones)",
        default=False,
    )
    rebuild: BoolProperty(
        name="Rebuild",
        description="Re-cut every tile from the meshes (for a level built from scratch) instead of "
        "keeping what was not edited (a levelgeom from before issue 23 always does)",
        default=False,
    )

    def invoke(self, context, event):
        base = context.scene.get("levelgeom_base", "")
        if base and not self.filepath:
            stem = os.path.splitext(os.path.basename(base))[0]
            self.filepath = os.path.join(os.path.dirname(base), stem + "_edited.wad")
        return ExportHelper.invoke(self, context, event)

    def execute(self, context):
        return _run_guarded(self, context, lambda: self._export(context))

    def _export(self, context):
        scene = context.scene
        base = bpy.path.abspath(self.base) if self.base else scene.get("levelgeom_base", "")
        if not base:
            raise LevelgeomError(
                "no base WAD: import the level with File > Import > Argonaut level WAD first, "
                "or give the Base WAD option"
            )
        if scene.get("levelgeom_kind", "wad") != "wad" and not self.base:
            raise LevelgeomError(
                "this scene is an X-Ray level: write it back with File > Export > X-Ray level"
            )
        # the level collection and every other mesh outside the collision, swap and objects
        # collections (a cube added with Shift+A lands in the active collection, unparented)
        level_obs, others = scene_io.level_export_objects(context)
        if not any(o.type == "MESH" for o in level_obs + others):
            raise LevelgeomError(
                f"no meshes to write: the collection {scene_io.COLLECTION_NAMES['level']!r} and the "
                "rest of the scene (outside the collision, swap and objects collections) hold none"
            )
        collision = scene_io.role_collection(scene, "collision")
        use_collision = self.collision_source == "AUTO" and scene_io.mesh_count(collision) > 0
        exe = binary(context)
        out = os.path.abspath(bpy.path.abspath(self.filepath))
        tmp = tempfile.mkdtemp(prefix="levelgeom-")
        try:
            level_glb = scene_io.export_objects_glb(context, level_obs + others, os.path.join(tmp, "level.glb"))
            # a root of its own in the GLB (an object outside the level tree) goes under `level`,
            # where import reads the level geometry
            scene_io.roots_under_level(level_glb)
            args = ["import", base, level_glb, out]
            if use_collision:
                args += ["--collision", scene_io.export_collection_glb(
                    context, collision, os.path.join(tmp, "collision.glb"))]
            args += ["--zones", self.zones, "--json", "--force"]
            if self.keep_tiles:
                args.append("--keep-tiles")
            # a levelgeom whose import has no --rebuild re-cuts every tile anyway
            if self.rebuild and "--rebuild" in runner.run(exe, ["import", "--help"]):
                args.append("--rebuild")
            result = runner.run_json(exe, args, hidden={tmp: "the exported scene"})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        for w in (result.get("warnings") or [])[:5]:
            self.report({"WARNING"}, f"levelgeom: {w}")
        meshes = [o.name for o in others]
        if meshes:
            shown = ", ".join(meshes[:5]) + (", …" if len(meshes) > 5 else "")
            self.report({"INFO"}, f"levelgeom: also wrote {len(meshes)} mesh(es) from outside the "
                        f"collection {scene_io.COLLECTION_NAMES['level']!r}: {shown}")
        label = f"collection {collision.name!r}" if use_collision else None
        line = runner.summary_text(result, label)
        self.report({"INFO"}, line)
        scene["levelgeom_last_import"] = str(result.get("output", out))
        scene["levelgeom_last_summary"] = line
        scene["levelgeom_last_result"] = json.dumps(result)
        return {"FINISHED"}


class EXPORT_SCENE_OT_levelgeom_xray(bpy.types.Operator):
    """Write the level (and, when asked, collision) collection back into the X-Ray level this
    scene was imported from, as a new level folder"""

    bl_idname = "export_scene.levelgeom_xray"
    bl_label = "Export X-Ray level"
    bl_options = {"REGISTER"}

    filepath: StringProperty(
        name="Output folder",
        description="The folder for the new level, level.geom, level.geomx, level.cform "
        "(never the base level's own folder)",
        subtype="DIR_PATH",
        default="",
    )
    directory: StringProperty(subtype="DIR_PATH", options={"HIDDEN", "SKIP_SAVE"})
    filter_folder: BoolProperty(default=True, options={"HIDDEN"})
    base: StringProperty(
        name="Base level",
        description="The X-Ray level folder whose data is kept; empty: the one this scene was "
        "imported from",
        subtype="DIR_PATH",
        default="",
    )
    collision_source: EnumProperty(
        name="Collision",
        items=[
            ("FOLLOW", "Follow the visuals", "Keep level.cform; the triangles of moved and "
             "deleted visuals move and go with them"),
            ("COLLECTION", "Collision collection", "Replace level.cform from the collision "
             "collection (import the level with Collision on; objects named matN_secS)"),
        ],
        default="FOLLOW",
    )
    build: EnumProperty(
        name="Build",
        description="The XRLC build to write (--to-version)",
        items=[
            ("SAME", "Same as the base", "Write the base level's build"),
            ("13", "XRLC 13", "level.geom with FLOAT2 base UVs (lossless from 14)"),
            ("14", "XRLC 14", "level.geom with SHORT2 base UVs + fractions (SoC release, CS, "
             "CoP; from 13 this quantises UVs and needs Allow loss)"),
            ("12", "XRLC 12", "builds 1580–2218 (the layout of 1935–2218): geometry inside "
             "level, LZHUF-compressed"),
            ("11", "XRLC 11", "builds 1558, 1569: SHORT4 static UVs (lossy: needs Allow loss)"),
            ("10", "XRLC 10", "build 1475"),
            ("9", "XRLC 9", "build 1472: collision inside level"),
            ("8", "XRLC 8", "builds 1114, 1154: FVF vertices, indices in each visual"),
            ("5", "XRLC 5", "build 1098: FVF vertices, separate shader and texture tables"),
            ("4", "XRLC 4", "builds 1096/1097 (as reported by blender-xray's users)"),
        ],
        default="SAME",
    )
    allow_loss: BoolProperty(
        name="Allow loss",
        description="Convert the build even when the target cannot hold everything "
        "(--allow-loss; what is lost is in the report)",
        default=False,
    )
    details_follow: BoolProperty(
        name="Details follow",
        description="Empty the detail slots over removed visuals and raise or lower those over "
        "moved ones (--details-follow); off: level.details is copied and its stale slots reported",
        default=False,
    )
    delete_missing: BoolProperty(
        name="Delete missing",
        description="Remove every visual the level collection does not hold, even when it looks "
        "like a partial import (e.g. no LOD billboards)",
        default=False,
    )

    def invoke(self, context, event):
        base = context.scene.get("levelgeom_xray_base", "")
        if base and not self.filepath:
            self.filepath = os.path.join(os.path.dirname(base.rstrip(os.sep)),
                                         os.path.basename(base.rstrip(os.sep)) + "_edited") + os.sep
        context.window_manager.fileselect_add(self)
        return {"RUNNING_MODAL"}

    def execute(self, context):
        return _run_guarded(self, context, lambda: self._export(context))

    def _export(self, context):
        scene = context.scene
        base = bpy.path.abspath(self.base) if self.base else scene.get("levelgeom_xray_base", "")
        if not base:
            raise LevelgeomError(
                "no base X-Ray level: import the level with File > Import > X-Ray level first, "
                "or give the Base level option"
            )
        base = os.path.abspath(base)
        out = bpy.path.abspath(self.filepath or self.directory)
        if not out:
            raise LevelgeomError("no output folder given")
        out = os.path.abspath(out).rstrip(os.sep) or os.sep
        level = scene_io.role_collection(scene, "level")
        if level is None or scene_io.mesh_count(level) == 0:
            raise LevelgeomError(f"no meshes in the collection {scene_io.COLLECTION_NAMES['level']!r}")
        collision = None
        if self.collision_source == "COLLECTION":
            collision = scene_io.role_collection(scene, "collision")
            if collision is None or scene_io.mesh_count(collision) == 0:
                raise LevelgeomError(
                    f"Collision: Collision collection, but the collection "
                    f"{scene_io.COLLECTION_NAMES['collision']!r} has no meshes (import the level "
                    "with Collision on)"
                )
        exe = binary(context)
        tmp = tempfile.mkdtemp(prefix="levelgeom-")
        try:
            # export_extras: the node extras (`visual`, …) that map objects back to visuals
            level_glb = scene_io.export_collection_glb(context, level, os.path.join(tmp, "level.glb"))
            args = ["import", base, level_glb, out]
            if collision is not None:
                args += ["--collision", scene_io.export_collection_glb(
                    context, collision, os.path.join(tmp, "collision.glb"))]
            if self.delete_missing:
                args.append("--delete-missing")
            if self.details_follow:
                args.append("--details-follow")
            if self.build != "SAME":
                args += ["--to-version", self.build]
                if self.allow_loss:
                    args.append("--allow-loss")
            args += ["--json", "--force"]
            result = runner.run_json(exe, args, hidden={tmp: "the exported scene"})
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        warnings = result.get("warnings") or []
        for w in warnings[:5]:
            self.report({"WARNING"}, f"levelgeom: {w}")
        lines = runner.xray_summary_lines(result)
        for line in lines[1:]:
            self.report({"INFO"}, "levelgeom: " + line)
        self.report({"INFO"}, lines[0])
        scene["levelgeom_last_import"] = str(result.get("output", out))
        scene["levelgeom_last_summary"] = "\n".join(lines)
        scene["levelgeom_last_result"] = json.dumps(result)
        return {"FINISHED"}


def menu_import_wad(self, context):
    self.layout.operator(IMPORT_SCENE_OT_levelgeom_wad.bl_idname, text="Argonaut level WAD (.wad)")


def menu_import_xray(self, context):
    self.layout.operator(IMPORT_SCENE_OT_levelgeom_xray.bl_idname, text="X-Ray level (level)")


def menu_export_wad(self, context):
    self.layout.operator(EXPORT_SCENE_OT_levelgeom_wad.bl_idname, text="Argonaut level WAD (.wad)")


def menu_export_xray(self, context):
    self.layout.operator(EXPORT_SCENE_OT_levelgeom_xray.bl_idname, text="X-Ray level (level)")


CLASSES = (
    LEVELGEOM_AddonPreferences,
    IMPORT_SCENE_OT_levelgeom_wad,
    IMPORT_SCENE_OT_levelgeom_xray,
    EXPORT_SCENE_OT_levelgeom_wad,
    EXPORT_SCENE_OT_levelgeom_xray,
)


def register():
    for cls in CLASSES:
        bpy.utils.register_class(cls)
    bpy.types.TOPBAR_MT_file_import.append(menu_import_wad)
    bpy.types.TOPBAR_MT_file_import.append(menu_import_xray)
    bpy.types.TOPBAR_MT_file_export.append(menu_export_wad)
    bpy.types.TOPBAR_MT_file_export.append(menu_export_xray)


def unregister():
    bpy.types.TOPBAR_MT_file_export.remove(menu_export_xray)
    bpy.types.TOPBAR_MT_file_export.remove(menu_export_wad)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import_xray)
    bpy.types.TOPBAR_MT_file_import.remove(menu_import_wad)
    for cls in reversed(CLASSES):
        bpy.utils.unregister_class(cls)
