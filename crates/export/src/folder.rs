//! Writing a scene's export files into a folder, all or nothing.
//!
//! [`write_folder`] writes the chosen formats of one scene, one GLB and one OBJ per root, so
//! that `level.glb` holds only what the game shows (a viewer that ignores `extras.hidden`, such
//! as Blender, would otherwise draw the collision and both states of a swap tile):
//!
//! | file | when | contents |
//! |------|------|----------|
//! | `level.glb` | [`FolderOptions::gltf`] | the root named `level` (else every visible root but `collision`, `swap`, `objects`, `portals`; not written when there is none of those but a named root), every texture embedded |
//! | `collision.glb` | gltf, a root named `collision` | that tree (still marked hidden), the textures it uses |
//! | `swap.glb` | gltf, a root named `swap` | that tree (the alternative states of swap tiles) |
//! | `objects.glb` | gltf, a root named `objects` | that tree, the textures it uses |
//! | `portals.glb` | gltf, a root named `portals` | that tree (X-Ray portal polygons, still marked hidden) |
//! | `occluders.glb` | gltf, a root named `occluders` | that tree (X-Ray `level.hom` / `level.som` polygons, still marked hidden) |
//! | `ai.glb` | gltf, a root named `ai` | that tree (X-Ray `level.ai` nodes as quads, still marked hidden) |
//! | `details.glb` | gltf, a root named `details` | that tree (X-Ray `level.details` models, still marked hidden) |
//! | `objects_catalogue.glb` | gltf, a root named `objects_catalogue` | that tree, the textures it uses |
//! | `level.obj`, `level.mtl` | [`FolderOptions::obj`] | the root named `level`, or every visible root but `collision`/`swap`/`objects` |
//! | `collision.obj`, `collision.mtl` | obj, a root named `collision` | that tree, one `g` group per node |
//! | `swap.obj`, `swap.mtl` | obj, a root named `swap` | that tree |
//! | `objects.obj`, `objects.mtl` | obj, a root named `objects` | that tree |
//! | `portals.obj`, `portals.mtl` | obj, a root named `portals` | that tree, one `g` group per node |
//! | `occluders.obj`, `occluders.mtl` | obj, a root named `occluders` | that tree, one `g` group per node |
//! | `ai.obj`, `ai.mtl` | obj, a root named `ai` | that tree |
//! | `details.obj`, `details.mtl` | obj, a root named `details` | that tree, one `g` group per model |
//! | `objects_catalogue.obj`, `.mtl` | obj, a root named `objects_catalogue` | that tree |
//! | `NAME.png` | obj | every decoded texture ([`crate::texture_file_name`]) |
//! | anything | [`FolderOptions::extra_files`] | e.g. `preview_top.png`, `preview_persp.png` |
//! | `.levelgeom-export.json` | always | the manifest: which files this export wrote |
//!
//! A GLB of one root holds that tree's nodes, the meshes they use, the materials those use and
//! (but for `level.glb`, which embeds every texture of the scene) the textures those use, each
//! in scene order ([`subset`]).
//!
//! # All or nothing
//! Every file is first written into a fresh temporary folder beside the output folder; only when
//! all of them were written are they moved in (renames on the same file system). A failure on
//! the way (a texture that cannot be encoded, a full disk) leaves the output folder as it was.
//!
//! # Which folders are written
//! An output folder that does not exist, is empty, or holds a previous export of ours
//! (recognised by its manifest) is written; a previous export is replaced as a whole: the files
//! its manifest lists are removed, so no stale file of an earlier run (`objects.obj` after a
//! glTF-only export) is left, while files the user put there are kept. A folder holding
//! anything else is refused unless [`FolderOptions::force`] is set (then our files are moved in
//! beside what is there). No output ever replaces one of [`FolderOptions::protect`] (the
//! command's inputs).
//!
//! # Colour sets
//! [`FolderOptions::colour_set`] picks the vertex-colour set written: OBJ's one colour per `v`
//! line, and glTF's `COLOR_0`; with [`FolderOptions::all_colour_sets`] the glTF files also get
//! the other sets as `COLOR_1`, `COLOR_2`, … (in their order, the chosen one left out), else
//! only `COLOR_0` (Blender makes the last colour attribute it reads the active one).
//! A primitive with fewer sets writes its first set instead (counted in one warning), so every
//! vertex line carries a colour: a file mixing `v x y z` and `v x y z r g b` lines is read
//! differently by different importers. A set that no primitive has is an error, reported
//! before anything is written.

use std::borrow::Cow;
use std::fs;
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use levelgeom_binary::folder::{self as staged, FolderIoError, Staging};
use levelgeom_scene::{roots, Primitive, Scene, Texture, TextureSource};

use crate::{gltf, obj, ExportError};

/// The manifest file name an export writes into its folder.
pub const MANIFEST: &str = ".levelgeom-export.json";

/// What [`write_folder`] writes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct FolderOptions {
    /// Write `level.glb` (and `collision.glb`, `swap.glb`, `objects.glb` for roots of those
    /// names).
    pub gltf: bool,
    /// Write `level.obj`/`.mtl` (and `collision.*`, `swap.*`, `objects.*` for roots of those
    /// names) and the PNG textures.
    pub obj: bool,
    /// Which vertex-colour set OBJ writes and glTF writes as `COLOR_0` (0 = the first).
    pub colour_set: usize,
    /// glTF: also write the other colour sets as `COLOR_1`, `COLOR_2`, … (see the module docs).
    pub all_colour_sets: bool,
    /// Write into a folder that holds files that are not a previous export of ours.
    pub force: bool,
    /// Paths no output may replace (the command's inputs).
    pub protect: Vec<PathBuf>,
    /// What the manifest records as the export's input (display text).
    pub input: String,
    /// More files to write with the others, `(name, bytes)` (e.g. preview pictures).
    pub extra_files: Vec<(String, Vec<u8>)>,
}

/// What [`write_folder`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Written {
    /// The files, in the order written, with their sizes in bytes (the manifest not included).
    pub files: Vec<(PathBuf, u64)>,
    /// Repairs the writers made and fallbacks taken, for the user.
    pub warnings: Vec<String>,
}

/// Why [`write_folder`] failed; nothing in the output folder was changed.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FolderError {
    /// The output folder holds files that are not a previous export (and `force` is off).
    #[error("the output folder {0} is not empty and holds no previous levelgeom export; choose another folder or pass --force")]
    NotOurs(PathBuf),
    /// The output path exists and is not a folder.
    #[error("the output path {0} exists and is not a folder")]
    NotAFolder(PathBuf),
    /// An output would replace an input of the command.
    #[error("refusing to overwrite the input {0} (a file this command reads); choose another output folder")]
    WouldOverwriteInput(PathBuf),
    /// A folder of the output's name blocks a file.
    #[error("cannot write {0}: a folder of that name is in the way")]
    FolderInTheWay(PathBuf),
    /// OBJ was asked for a colour set that no mesh has.
    #[error("--colour-set {asked} asked for, but the meshes have at most {sets} colour set(s) (numbered from 0)")]
    NoSuchColourSet {
        /// The set asked for.
        asked: usize,
        /// How many sets the richest primitive has.
        sets: usize,
    },
    /// An exporter failed.
    #[error(transparent)]
    Export(#[from] ExportError),
    /// A file to write besides the export's own ([`FolderOptions::extra_files`], or one of
    /// [`write_files`]) is no plain file name, or is named twice or like one of the others.
    #[error("the file name {0:?} is not a plain name, or clashes with another output file")]
    BadFileName(String),
    /// A file-system operation failed; `path` is the path it failed on.
    #[error("{what} {path}: {source}")]
    Io {
        /// What was being done (`cannot create`, `cannot write`, …).
        what: &'static str,
        /// The path the operation failed on.
        path: PathBuf,
        /// The error.
        #[source]
        source: io::Error,
    },
}

fn io_err(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> FolderError {
    let path = path.to_path_buf();
    move |source| FolderError::Io { what, path, source }
}

impl From<FolderIoError> for FolderError {
    fn from(e: FolderIoError) -> Self {
        FolderError::Io {
            what: e.what,
            path: e.path,
            source: e.source,
        }
    }
}

/// The largest number of colour sets any primitive has.
pub fn max_colour_sets(scene: &Scene) -> usize {
    scene
        .meshes
        .iter()
        .flat_map(|m| m.primitives.iter())
        .map(|p| p.colors.len())
        .max()
        .unwrap_or(0)
}

/// For OBJ's colour set `n` (n > 0): a copy of the scene in which every primitive that has
/// colours but fewer than `n + 1` sets gets copies of its first set up to set `n`, and how many
/// meshes needed that. `None` (use the scene as it is) when nothing changes.
fn with_colour_set(scene: &Scene, n: usize) -> (Option<Scene>, usize) {
    let short = |p: &Primitive| !p.colors.is_empty() && p.colors.len() <= n;
    let fell_back = scene
        .meshes
        .iter()
        .filter(|m| m.primitives.iter().any(short))
        .count();
    if fell_back == 0 {
        return (None, 0);
    }
    let mut copy = scene.clone();
    for p in copy.meshes.iter_mut().flat_map(|m| m.primitives.iter_mut()) {
        if short(p) {
            if let Some(first) = p.colors.first().cloned() {
                p.colors.resize(n + 1, first);
            }
        }
    }
    (Some(copy), fell_back)
}

/// The colour sets a glTF primitive gets: the chosen set `n` first (its first set when it has
/// fewer), then with `all` the others in their order. Returns whether it fell back.
fn choose_colour_sets(colors: &mut Vec<Vec<[f32; 4]>>, n: usize, all: bool) -> bool {
    if colors.is_empty() {
        return false;
    }
    let fell_back = n >= colors.len();
    let chosen = if fell_back { 0 } else { n };
    let set = colors.remove(chosen);
    if !all {
        colors.clear();
    }
    colors.insert(0, set);
    fell_back
}

/// The colour sets of a lent primitive put aside by [`lend_colour_sets`]: the index of the
/// chosen set, and the sets the part does not write (none with `all`).
type AsideSets = (usize, Vec<Vec<[f32; 4]>>);

/// [`choose_colour_sets`] for a primitive lent by the scene: the sets moved, not copied, and
/// those the part does not write kept aside, so that [`return_colour_sets`] puts everything
/// back as it was. `None` when the primitive has no colours (nothing moved).
fn lend_colour_sets(colors: &mut Vec<Vec<[f32; 4]>>, n: usize, all: bool) -> Option<AsideSets> {
    if colors.is_empty() {
        return None;
    }
    let chosen = if n >= colors.len() { 0 } else { n };
    let set = colors.remove(chosen);
    let rest = if all {
        Vec::new()
    } else {
        std::mem::take(colors)
    };
    colors.insert(0, set);
    Some((chosen, rest))
}

/// Undo [`lend_colour_sets`] (`all` as given to it): the sets back in their order.
fn return_colour_sets(colors: &mut Vec<Vec<[f32; 4]>>, aside: AsideSets, all: bool) {
    let (chosen, rest) = aside;
    if colors.is_empty() {
        return;
    }
    let set = colors.remove(0);
    if !all {
        *colors = rest;
    }
    colors.insert(chosen.min(colors.len()), set);
}

/// A scene of the trees under `roots` only: their nodes (each once, in scene order), the meshes
/// those place, the materials those use and the textures those use (every texture with
/// `all_textures`), each list in scene order and renumbered. A reference to something that
/// does not exist is dropped (the writers would only have warned about it). When everything is
/// kept the copy equals `scene` but for its warnings, so its files have the same bytes.
pub fn subset(scene: &Scene, roots: &[usize], all_textures: bool) -> Scene {
    match subset_cow(scene, roots, all_textures, &[], false).0 {
        Cow::Borrowed(s) => {
            let mut copy = s.clone();
            copy.warnings.clear();
            copy
        }
        Cow::Owned(s) => s,
    }
}

/// [`subset`], borrowing `scene` when the subset keeps all of it (in the same order), and the
/// scene texture index of every texture of the subset. A copied texture whose PNG is already
/// encoded (`encoded[i]` true for scene texture `i`) keeps its size but not its pixels: the
/// GLB writer embeds the given PNG and never reads them, so they are not copied.
///
/// With `lend`, a kept mesh whose material numbers the subset keeps is not copied: the part
/// gets an empty mesh in its place, and the third list names it `(scene mesh, part mesh)`
/// for [`swap_lent`] to move the scene's mesh in (and back) around the write.
fn subset_cow<'a>(
    scene: &'a Scene,
    roots: &[usize],
    all_textures: bool,
    encoded: &[bool],
    lend: bool,
) -> (Cow<'a, Scene>, Vec<usize>, Vec<(usize, usize)>) {
    let n = scene.nodes.len();
    let mut keep = vec![false; n];
    let mut stack: Vec<usize> = roots.iter().copied().filter(|&r| r < n).collect();
    while let Some(x) = stack.pop() {
        if !std::mem::replace(&mut keep[x], true) {
            stack.extend(scene.nodes[x].children.iter().copied().filter(|&c| c < n));
        }
    }
    let renumber = |kept: &[bool]| -> Vec<Option<usize>> {
        let mut next = 0;
        kept.iter()
            .map(|&k| {
                k.then(|| {
                    next += 1;
                    next - 1
                })
            })
            .collect()
    };
    let node_map = renumber(&keep);

    let mut mesh_keep = vec![false; scene.meshes.len()];
    for (x, node) in scene.nodes.iter().enumerate() {
        if let Some(m) = node.mesh.filter(|&m| keep[x] && m < mesh_keep.len()) {
            mesh_keep[m] = true;
        }
    }
    let mesh_map = renumber(&mesh_keep);

    let mut mat_keep = vec![false; scene.materials.len()];
    for (mi, mesh) in scene.meshes.iter().enumerate() {
        if mesh_keep[mi] {
            for m in mesh.primitives.iter().filter_map(|p| p.material) {
                if m < mat_keep.len() {
                    mat_keep[m] = true;
                }
            }
        }
    }
    let mat_map = renumber(&mat_keep);

    let mut tex_keep = vec![all_textures; scene.textures.len()];
    for (mi, m) in scene.materials.iter().enumerate() {
        if let Some(t) = m.texture.filter(|&t| mat_keep[mi] && t < tex_keep.len()) {
            tex_keep[t] = true;
        }
    }
    let tex_map = renumber(&tex_keep);

    let mut light_keep = vec![false; scene.lights.len()];
    for (x, node) in scene.nodes.iter().enumerate() {
        if let Some(l) = node.light.filter(|&l| keep[x] && l < light_keep.len()) {
            light_keep[l] = true;
        }
    }
    let light_map = renumber(&light_keep);
    let kept_textures: Vec<usize> = (0..tex_keep.len()).filter(|&i| tex_keep[i]).collect();
    let everything = [&keep, &mesh_keep, &mat_keep, &tex_keep, &light_keep]
        .iter()
        .all(|k| k.iter().all(|&x| x))
        && roots == scene.roots.as_slice()
        && no_dangling_references(scene);
    if everything {
        return (Cow::Borrowed(scene), kept_textures, Vec::new());
    }

    let nodes = scene
        .nodes
        .iter()
        .enumerate()
        .filter(|&(x, _)| keep[x])
        .map(|(_, node)| {
            let mut node = node.clone();
            node.mesh = node.mesh.and_then(|m| mesh_map.get(m).copied().flatten());
            node.light = node.light.and_then(|l| light_map.get(l).copied().flatten());
            node.children = node
                .children
                .iter()
                .filter_map(|&c| node_map.get(c).copied().flatten())
                .collect();
            node
        })
        .collect();
    let renumbered = |m: Option<usize>| m.and_then(|m| mat_map.get(m).copied().flatten());
    let mut lent = Vec::new();
    let meshes = scene
        .meshes
        .iter()
        .enumerate()
        .filter(|&(i, _)| mesh_keep[i])
        .enumerate()
        .map(|(at, (i, mesh))| {
            if lend
                && mesh
                    .primitives
                    .iter()
                    .all(|p| renumbered(p.material) == p.material)
            {
                lent.push((i, at));
                return levelgeom_scene::Mesh::default();
            }
            let mut mesh = mesh.clone();
            for p in &mut mesh.primitives {
                p.material = renumbered(p.material);
            }
            mesh
        })
        .collect();
    let materials = scene
        .materials
        .iter()
        .enumerate()
        .filter(|&(i, _)| mat_keep[i])
        .map(|(_, m)| {
            let mut m = m.clone();
            m.texture = m.texture.and_then(|t| tex_map.get(t).copied().flatten());
            m
        })
        .collect();
    let textures = scene
        .textures
        .iter()
        .enumerate()
        .filter(|&(i, _)| tex_keep[i])
        .map(|(i, t)| match &t.source {
            TextureSource::Rgba8 { width, height, .. } if encoded.get(i) == Some(&true) => {
                Texture {
                    name: t.name.clone(),
                    source: TextureSource::Rgba8 {
                        width: *width,
                        height: *height,
                        pixels: Vec::new(),
                    },
                }
            }
            _ => t.clone(),
        })
        .collect();
    let lights = scene
        .lights
        .iter()
        .enumerate()
        .filter(|&(i, _)| light_keep[i])
        .map(|(_, l)| l.clone())
        .collect();
    let part = Scene {
        lights,
        name: scene.name.clone(),
        meshes,
        materials,
        textures,
        nodes,
        roots: roots
            .iter()
            .filter_map(|&r| node_map.get(r).copied().flatten())
            .collect(),
        warnings: Vec::new(),
    };
    (Cow::Owned(part), kept_textures, lent)
}

/// Swap the meshes `lent` names (`(scene mesh, part mesh)`, [`subset_cow`]) between `scene`
/// and `part`: once to lend the scene's meshes to the part, once more to give them back.
fn swap_lent(scene: &mut Scene, part: &mut Scene, lent: &[(usize, usize)]) {
    for &(s, p) in lent {
        if let (Some(a), Some(b)) = (scene.meshes.get_mut(s), part.meshes.get_mut(p)) {
            std::mem::swap(a, b);
        }
    }
}

/// Every index in `scene` names something that exists (what [`subset`] would drop otherwise).
fn no_dangling_references(scene: &Scene) -> bool {
    let n = scene.nodes.len();
    scene.nodes.iter().all(|node| {
        node.mesh.is_none_or(|m| m < scene.meshes.len())
            && node.light.is_none_or(|l| l < scene.lights.len())
            && node.children.iter().all(|&c| c < n)
    }) && scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .all(|p| p.material.is_none_or(|m| m < scene.materials.len()))
        && scene
            .materials
            .iter()
            .all(|m| m.texture.is_none_or(|t| t < scene.textures.len()))
}

/// The roots of each file stem: `level` (`None`: every visible root, as the OBJ writer takes
/// it), then `collision`, `swap`, `objects`, `objects_catalogue`, `portals` when the scene has
/// them. `level` is left out when the scene has no root named `level` and no other visible
/// root, but a named one (e.g. an X-Ray `--only collision` export: no empty `level.glb`).
fn parts(scene: &Scene) -> Vec<(&'static str, Option<Vec<usize>>)> {
    let named = roots::NAMED.map(|n| scene.root(n));
    let level_roots = match scene.root(roots::LEVEL) {
        Some(r) => Some(vec![r]),
        None if named.iter().all(Option::is_none) => None,
        None => Some(
            scene
                .roots
                .iter()
                .copied()
                .filter(|&r| {
                    !named.contains(&Some(r)) && scene.nodes.get(r).is_some_and(|n| !n.hidden)
                })
                .collect(),
        ),
    };
    let mut out = Vec::new();
    if level_roots.as_ref().is_none_or(|r| !r.is_empty()) {
        out.push((roots::LEVEL, level_roots));
    }
    for (stem, root) in roots::NAMED.into_iter().zip(named) {
        if let Some(r) = root {
            out.push((stem, Some(vec![r])));
        }
    }
    out
}

/// Files written: `(name inside the output folder, bytes)`, in the order written.
type Sizes = Vec<(String, u64)>;

/// Whether [`choose_colour_sets`] would change any primitive of `scene`, and how many meshes
/// fall back to their first set.
fn colour_set_changes(scene: &Scene, n: usize, all: bool) -> (bool, usize) {
    let mut changes = false;
    let mut fell_back = 0;
    for mesh in &scene.meshes {
        let mut fell = false;
        for p in &mesh.primitives {
            if p.colors.is_empty() {
                continue;
            }
            let chosen = if n >= p.colors.len() { 0 } else { n };
            fell |= n >= p.colors.len();
            changes |= chosen != 0 || (!all && p.colors.len() > 1);
        }
        fell_back += usize::from(fell);
    }
    (changes, fell_back)
}

/// Create `dir/name`, hand `write` a buffered writer on it, flush; returns what `write` gave
/// and the file's size.
fn write_file<T>(
    dir: &Path,
    name: &str,
    write: impl FnOnce(&mut (dyn Write + Send)) -> Result<T, ExportError>,
) -> Result<(T, u64), FolderError> {
    let p = dir.join(name);
    let f = fs::File::create(&p).map_err(io_err("cannot write", &p))?;
    // small: the writers hand over pieces of 16 KiB and more, which then go straight through
    let mut w = io::BufWriter::with_capacity(16 << 10, f);
    let t = write(&mut w).map_err(|e| match e {
        ExportError::Write(source) => io_err("cannot write", &p)(source),
        other => FolderError::Export(other),
    })?;
    let f = w
        .into_inner()
        .map_err(|e| io_err("cannot write", &p)(e.into_error()))?;
    let size = f.metadata().map_err(io_err("cannot write", &p))?.len();
    Ok((t, size))
}

/// The file names of one export, in the order they are written (checked before anything is
/// written: inputs, folders in the way, extra files that clash).
fn planned_names(scene: &Scene, opts: &FolderOptions) -> Result<Vec<String>, FolderError> {
    let parts = parts(scene);
    let mut names = Vec::new();
    if opts.gltf {
        names.extend(parts.iter().map(|(stem, _)| format!("{stem}.glb")));
    }
    if opts.obj {
        for (stem, _) in &parts {
            names.push(format!("{stem}.obj"));
            names.push(format!("{stem}.mtl"));
        }
        names.extend(
            scene
                .textures
                .iter()
                .filter(|t| matches!(t.source, levelgeom_scene::TextureSource::Rgba8 { .. }))
                .map(crate::texture_file_name),
        );
    }
    for (name, _) in &opts.extra_files {
        if !is_plain_name(name) || names.iter().any(|n| n == name) {
            return Err(FolderError::BadFileName(name.clone()));
        }
        names.push(name.clone());
    }
    Ok(names)
}

/// Write the files of one export into the folder `dir` as they are made (each through a
/// buffered writer, nothing held whole in memory); returns the files with their sizes, in
/// order, and the warnings of the writers.
fn render(
    scene: &mut Scene,
    source: Option<&dyn levelgeom_scene::PrimitiveSource>,
    opts: &FolderOptions,
    dir: &Path,
) -> Result<(Sizes, Vec<String>), FolderError> {
    let mut files: Vec<(String, u64)> = Vec::new();
    let mut warnings = Vec::new();
    let (obj_scene, fell_back) = if opts.obj {
        with_colour_set(scene, opts.colour_set)
    } else {
        (None, 0)
    };
    let parts = parts(scene);
    // Every decoded texture encoded once (in parallel), for the GLBs that embed it and for
    // its page file.
    let all: Vec<usize> = (0..scene.textures.len()).collect();
    let mut encoded = crate::encode_each(scene, &all);
    let has_png: Vec<bool> = encoded.iter().map(|e| matches!(e, Some(Ok(_)))).collect();
    let mut gltf_fell_back = 0usize;
    if opts.gltf {
        for (stem, roots) in &parts {
            let roots = roots.clone().unwrap_or_else(|| {
                scene
                    .roots
                    .iter()
                    .copied()
                    .filter(|&r| scene.nodes.get(r).is_some_and(|n| !n.hidden))
                    .collect()
            });
            let level = *stem == roots::LEVEL;
            let (part, kept, lent) = subset_cow(scene, &roots, level, &has_png, true);
            // `None`: the part is the whole scene
            let mut part = match part {
                Cow::Owned(p) => Some(p),
                Cow::Borrowed(_) => None,
            };
            if let Some(p) = &mut part {
                swap_lent(scene, p, &lent);
            }
            let whole = part.as_ref().unwrap_or(scene);
            let (changes, fell) = colour_set_changes(whole, opts.colour_set, opts.all_colour_sets);
            gltf_fell_back += fell;
            // the colour sets of lent meshes, kept aside while the part writes its choice
            let mut lent_colours = Vec::new();
            if changes {
                let p = part.get_or_insert_with(|| scene.clone());
                let mut is_lent = vec![false; p.meshes.len()];
                for &(_, at) in &lent {
                    if let Some(l) = is_lent.get_mut(at) {
                        *l = true;
                    }
                }
                for (m, lent) in p.meshes.iter_mut().zip(is_lent) {
                    for p in &mut m.primitives {
                        if lent {
                            lent_colours.push(lend_colour_sets(
                                &mut p.colors,
                                opts.colour_set,
                                opts.all_colour_sets,
                            ));
                        } else {
                            choose_colour_sets(
                                &mut p.colors,
                                opts.colour_set,
                                opts.all_colour_sets,
                            );
                        }
                    }
                }
            }
            let pngs: Vec<Option<&[u8]>> = kept
                .iter()
                .map(|&i| match encoded.get(i) {
                    Some(Some(Ok(b))) => Some(b.as_slice()),
                    _ => None,
                })
                .collect();
            let name = format!("{stem}.glb");
            let written = write_file(dir, &name, |out| {
                let part = part.as_ref().unwrap_or(scene);
                gltf::write_glb_from(part, source, &gltf::GltfOptions::default(), &pngs, out)
            });
            if let Some(p) = &mut part {
                let mut back = lent_colours.into_iter();
                for &(_, at) in &lent {
                    for prim in p
                        .meshes
                        .get_mut(at)
                        .into_iter()
                        .flat_map(|m| &mut m.primitives)
                    {
                        if let Some(Some(aside)) = back.next() {
                            return_colour_sets(&mut prim.colors, aside, opts.all_colour_sets);
                        }
                    }
                }
                swap_lent(scene, p, &lent);
            }
            let (w, size) = written?;
            warnings.extend(w.iter().map(|w| format!("{stem}.glb: {w}")));
            files.push((name, size));
        }
    }
    if fell_back > 0 || gltf_fell_back > 0 {
        warnings.push(format!(
            "--colour-set {}: {} mesh(es) have fewer sets; their first set is written",
            opts.colour_set,
            fell_back.max(gltf_fell_back)
        ));
    }
    if opts.obj {
        let scene = obj_scene.as_ref().unwrap_or(scene);
        for (stem, roots) in parts {
            let name = format!("{stem}.obj");
            let (o, size) = write_file(dir, &name, |out| {
                obj::write_obj(
                    scene,
                    &obj::ObjOptions {
                        roots,
                        mtl_file: format!("{stem}.mtl"),
                        colour_set: opts.colour_set,
                        groups: roots::GROUPED.contains(&stem),
                    },
                    out,
                )
                .map_err(ExportError::Write)
            })?;
            warnings.extend(o.warnings.iter().map(|w| format!("{stem}.obj: {w}")));
            files.push((name, size));
            let mtl = format!("{stem}.mtl");
            let ((), size) = write_file(dir, &mtl, |out| {
                out.write_all(o.mtl.as_bytes()).map_err(ExportError::Write)
            })?;
            files.push((mtl, size));
        }
        for (name, png) in crate::texture_files(scene, &all, &mut encoded)? {
            let p = dir.join(&name);
            fs::write(&p, &png).map_err(io_err("cannot write", &p))?;
            files.push((name, png.len() as u64));
        }
    }
    for (name, bytes) in &opts.extra_files {
        let p = dir.join(name);
        fs::write(&p, bytes).map_err(io_err("cannot write", &p))?;
        files.push((name.clone(), bytes.len() as u64));
    }
    Ok((files, warnings))
}

/// The manifest of a previous export in `dir`: the file names it lists, or `None` when there is
/// no (readable) manifest.
fn previous_export(dir: &Path) -> Option<Vec<String>> {
    let text = fs::read_to_string(dir.join(MANIFEST)).ok()?;
    let v: serde_json::Value = serde_json::from_str(&text).ok()?;
    if v.get("tool")?.as_str()? != "levelgeom" {
        return None;
    }
    let files = v.get("files")?.as_array()?;
    Some(
        files
            .iter()
            .filter_map(|f| f.as_str())
            // only plain names inside the folder: a manifest never makes us touch other places
            .filter(|f| is_plain_name(f))
            .map(str::to_string)
            .collect(),
    )
}

/// A bare file name that stays inside its folder (no separators, not `.`/`..`): what a
/// manifest may list.
pub fn is_plain_name(name: &str) -> bool {
    !name.is_empty()
        && name != "."
        && name != ".."
        && !name.contains(['/', '\\'])
        && Path::new(name).file_name().is_some_and(|n| n == name)
}

fn same_file(a: &Path, b: &Path) -> bool {
    match (fs::canonicalize(a), fs::canonicalize(b)) {
        (Ok(x), Ok(y)) => x == y,
        _ => false,
    }
}

/// Write the export files of `scene` into `outdir` (see the module docs), all or nothing.
///
/// The scene is borrowed mutably only to lend its meshes to the GLB of a part that keeps them
/// as they are (instead of copying them); they are given back after each file, so on return
/// the scene is as it was.
///
/// # Errors
/// [`FolderError`]: nothing in `outdir` was changed.
pub fn write_folder(
    scene: &mut Scene,
    outdir: &Path,
    opts: &FolderOptions,
) -> Result<Written, FolderError> {
    write_folder_from(scene, None, outdir, opts)
}

/// [`write_folder`] of a scene that may hold hollow primitives
/// ([`levelgeom_scene::Primitive::hollow`]), filled by `source` as the GLBs reach them
/// ([`gltf::write_glb_from`]); only the glTF writer reads a source, so OBJ is refused for such
/// a scene.
///
/// # Errors
/// As [`write_folder`]; [`ExportError::NeedsData`] (nothing written) when a hollow primitive
/// is needed up front: OBJ asked for, or a GLB that would bake a node matrix into one.
pub fn write_folder_from(
    scene: &mut Scene,
    source: Option<&dyn levelgeom_scene::PrimitiveSource>,
    outdir: &Path,
    opts: &FolderOptions,
) -> Result<Written, FolderError> {
    let hollow = scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .any(|p| p.hollow.is_some());
    if hollow && opts.obj {
        return Err(FolderError::Export(ExportError::NeedsData {
            what: "the OBJ writer".into(),
        }));
    }
    let plan = |scene: &Scene| {
        if (opts.obj || opts.gltf) && opts.colour_set > 0 {
            let sets = max_colour_sets(scene);
            if opts.colour_set >= sets {
                return Err(FolderError::NoSuchColourSet {
                    asked: opts.colour_set,
                    sets,
                });
            }
        }
        planned_names(scene, opts)
    };
    write_staged(outdir, opts, scene, plan, |scene, dir| {
        render(scene, source, opts, dir)
    })
}

/// Write the files `(name, bytes)` into `outdir` as an export folder with its manifest, all or
/// nothing (the rules of the module docs; [`FolderOptions::gltf`], [`FolderOptions::obj`] and
/// the colour sets do not apply): for commands whose files are no scene (`extract`).
///
/// # Errors
/// [`FolderError`]: nothing in `outdir` was changed.
pub fn write_files(
    outdir: &Path,
    files: &[(String, Vec<u8>)],
    opts: &FolderOptions,
) -> Result<Written, FolderError> {
    let plan = |_: &()| {
        let mut names: Vec<String> = Vec::with_capacity(files.len());
        for (name, _) in files.iter().chain(&opts.extra_files) {
            if !is_plain_name(name) || names.contains(name) {
                return Err(FolderError::BadFileName(name.clone()));
            }
            names.push(name.clone());
        }
        Ok(names)
    };
    write_staged(outdir, opts, &mut (), plan, |_, dir| {
        let mut sizes = Vec::with_capacity(files.len());
        for (name, bytes) in files.iter().chain(&opts.extra_files) {
            let p = dir.join(name);
            fs::write(&p, bytes).map_err(io_err("cannot write", &p))?;
            sizes.push((name.clone(), bytes.len() as u64));
        }
        Ok((sizes, Vec::new()))
    })
}

/// The folder rule of the module docs, then `plan` names the files (checked against the
/// inputs and folders in the way), `stage` writes them into a temporary folder, the manifest
/// is added and everything is moved in. Both get `what` (what is written).
fn write_staged<S>(
    outdir: &Path,
    opts: &FolderOptions,
    what: &mut S,
    plan: impl FnOnce(&S) -> Result<Vec<String>, FolderError>,
    stage: impl FnOnce(&mut S, &Path) -> Result<(Sizes, Vec<String>), FolderError>,
) -> Result<Written, FolderError> {
    // What is in the way, before any work.
    let previous = match staged::inspect(outdir)? {
        staged::Existing::NotAFolder => return Err(FolderError::NotAFolder(outdir.to_path_buf())),
        staged::Existing::Absent => Vec::new(),
        found => {
            let previous = previous_export(outdir);
            if previous.is_none() && found == staged::Existing::NotEmpty && !opts.force {
                return Err(FolderError::NotOurs(outdir.to_path_buf()));
            }
            previous.unwrap_or_default()
        }
    };
    for name in plan(what)? {
        let target = outdir.join(name);
        if opts.protect.iter().any(|p| same_file(&target, p)) {
            return Err(FolderError::WouldOverwriteInput(target));
        }
        if target.is_dir() {
            return Err(FolderError::FolderInTheWay(target));
        }
    }

    let tmp = Staging::beside(outdir)?;
    let (files, warnings) = stage(what, tmp.path())?;
    let manifest = serde_json::json!({
        "tool": "levelgeom",
        "version": env!("CARGO_PKG_VERSION"),
        "input": opts.input,
        "files": files.iter().map(|(n, _)| n.as_str()).collect::<Vec<_>>(),
    });
    let manifest = serde_json::to_vec_pretty(&manifest).unwrap_or_default();
    tmp.write(MANIFEST, &manifest)?;
    let mut moved: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    moved.push(MANIFEST.to_string());
    tmp.commit(&moved, &previous)?;

    Ok(Written {
        files: files
            .iter()
            .map(|(n, size)| (outdir.join(n), *size))
            .collect(),
        warnings,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Lending a primitive's colour sets gives what choosing gives, and returning them gives
    /// the sets back in their order, for every choice (the first set when `n` is past them),
    /// with and without the other sets, and for no sets at all.
    #[test]
    fn lent_colour_sets_are_the_choice_and_come_back() {
        let set = |k: u8| vec![[f32::from(k) / 8.0, 0.5, 1.0, 1.0]; 3];
        for count in 0..4u8 {
            let original: Vec<Vec<[f32; 4]>> = (0..count).map(set).collect();
            for n in 0..5 {
                for all in [false, true] {
                    let mut chosen = original.clone();
                    choose_colour_sets(&mut chosen, n, all);
                    let mut lent = original.clone();
                    let aside = lend_colour_sets(&mut lent, n, all);
                    assert_eq!(lent, chosen, "{count} sets, n {n}, all {all}");
                    // hand-checked: the first written set is set n (0 when n is past them)
                    if count > 0 {
                        let first = if usize::from(count) > n { n } else { 0 };
                        assert_eq!(lent[0], set(first as u8));
                        assert_eq!(lent.len(), if all { usize::from(count) } else { 1 });
                    }
                    if let Some(aside) = aside {
                        return_colour_sets(&mut lent, aside, all);
                    }
                    assert_eq!(lent, original, "{count} sets, n {n}, all {all}: back");
                }
            }
        }
    }
}
