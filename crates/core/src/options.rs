//! What a conversion or an export is asked to do.
//!
//! Options that belong to one engine are typed per engine ([`WadOptions`], [`XrayOptions`]);
//! giving the options of one engine for a level of the other is an
//! [`Error::OptionDoesNotApply`](crate::Error::OptionDoesNotApply), never silently ignored.

use std::path::PathBuf;

/// WAD options of [`EngineOptions`] (the engine's own scene options).
pub type WadOptions = levelgeom_wad::scene::SceneOptions;

/// Which kind of X-Ray visual `--only` exports (`static`, `trees`, `lods`, `collision`).
pub type XrayOnly = levelgeom_xray::Only;

/// X-Ray options of [`EngineOptions`].
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XrayOptions {
    /// Also make meshes of the LOD billboard quads (`--lods`).
    pub lods: bool,
    /// Write the baked vertex light as `COLOR_0` (`--vertex-light`) instead of `_LIGHT`.
    pub vertex_light: bool,
    /// Folder of game textures (`gamedata/textures`) to resolve texture names against
    /// (`--textures`). Textures are looked up in the level's folder first, then here, as the
    /// engine does; DDS and PNG files are decoded and embedded.
    pub textures: Option<PathBuf>,
    /// Also decode the further textures of each shader entry (lightmaps `lmap#N_1`,
    /// `lmap#N_2`, a terrain's `…_lm`) into PNG files named from material extras
    /// (`--lightmaps`); needs [`XrayOptions::textures`].
    pub lightmaps: bool,
    /// Also export the portal polygons (`--portals`): a hidden root `portals`, its own files
    /// `portals.glb` / `portals.obj`.
    pub portals: bool,
    /// Also export the `level.hom` / `level.som` polygons beside the level (`--occluders`): a
    /// hidden root `occluders`, its own files `occluders.glb` / `occluders.obj`.
    pub occluders: bool,
    /// Also export the `level.ai` nodes beside the level (`--ai`): a hidden root `ai` of small
    /// quads in the nodes' planes with light and cover attributes, its own files `ai.glb` /
    /// `ai.obj`.
    pub ai: bool,
    /// Also export the `level.details` models beside the level (`--details`): a hidden root
    /// `details`, its own files `details.glb` / `details.obj`, and the slots' density map
    /// `details_density.png`.
    pub details: bool,
    /// Export one kind only (`--only`): static geometry, trees, LOD billboards or the collision
    /// (which then needs no `--collision`); lights and glows are left out.
    pub only: Option<XrayOnly>,
}

/// What [`LevelFile::check_with`](crate::LevelFile::check_with) is asked to check besides the
/// format's own rules.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct CheckOptions {
    /// X-Ray: a `gamedata/textures` folder; every texture a shader entry names must be found
    /// there or in the level's folder (`check --textures`).
    pub textures: Option<PathBuf>,
}

/// What to convert: `collision` for every engine that has collision, and engine-specific
/// choices, of which at most the opened level's engine's may be set.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct EngineOptions {
    /// Also convert the collision (a hidden `collision` tree; its own files on export): WAD
    /// collision polygons, X-Ray `level.cform`.
    pub collision: bool,
    /// For Argonaut WADs.
    pub wad: Option<WadOptions>,
    /// For X-Ray levels.
    pub xray: Option<XrayOptions>,
}

/// Which files an export writes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Formats {
    /// `level.glb` (+ `collision.glb`, `swap.glb`, `objects.glb` when the scene has them).
    pub gltf: bool,
    /// `level.obj` + `.mtl` (+ collision/swap/objects files and PNG textures).
    pub obj: bool,
}

impl Default for Formats {
    fn default() -> Self {
        Formats {
            gltf: true,
            obj: true,
        }
    }
}

/// Everything [`LevelFile::export`](crate::LevelFile::export) is asked to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExportOptions {
    /// Which files.
    pub formats: Formats,
    /// Which vertex-colour set is written: OBJ's one set and glTF's `COLOR_0` (0 = first).
    pub colour_set: usize,
    /// glTF: also write the other colour sets as `COLOR_1`, `COLOR_2`, … (`--all-colour-sets`).
    pub all_colour_sets: bool,
    /// Write into a folder that holds files other than a previous export of ours.
    pub force: bool,
    /// Also write `preview_top.png` and `preview_persp.png` (see [`crate::RenderOptions`]).
    pub preview: bool,
    /// Engine-specific choices.
    pub engine: EngineOptions,
}
