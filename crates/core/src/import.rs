//! Putting edited geometry back into a level: mesh files (OBJ, glTF, GLB in export space)
//! through [`levelgeom_import`] into the engine's importer, and the engine's probe and sample
//! geometry.
//!
//! # Which triangles
//! * The render mesh is every visible root of the mesh file except `collision`, `swap`,
//!   `objects`, `objects_catalogue` and `portals`: the `level` root our exporter writes, and
//!   any object added beside it (a Blender object in any collection, parented or not). Swap
//!   alternatives (`…_swap` nodes, in our export the root `swap` and its own file) are left
//!   out: import writes one state per tile, and a kept swap tile keeps its alternative.
//! * Edit or rebuild: when nodes name tiles of the base (`tile_TTTT_mMMM`, extras
//!   `tile`/`model`, as export writes them), the triangles go to the engine's edit import
//!   ([`levelgeom_wad::import::edit`]) node by node, which keeps what was not edited; with
//!   [`ImportOptions::rebuild`], or when no node names a tile, every tile is cut from the
//!   whole mesh ([`levelgeom_wad::import::import`]). [`ImportSummary::mode`] says which.
//!   This module reads the mesh files and flattens them to world triangles (engine-neutral,
//!   [`levelgeom_import`]); grouping them by node and tile, choosing edit or rebuild and the
//!   report's wording are the WAD crate's ([`levelgeom_wad::import::mesh`]).
//! * Collision comes from `--collision C` (nodes or OBJ groups named `matNN_grpG` give the
//!   ground material NN and the collision group G; a file with a `collision` root, such as our
//!   `collision.glb`, gives that tree), else from a `collision` tree in the mesh file itself,
//!   else, for a mesh file named `level.*` (as our export names it), from the `collision.glb`
//!   or `collision.obj` beside it (the export writes the collision into a file of its own; the
//!   one of the mesh's own format first), else it is derived from the render mesh by the
//!   engine's importer. [`ImportReport::collision_from`] says which.
//! * Colours: our glTF writer stores the scene's display values converted to linear
//!   ([`levelgeom_scene::colour::srgb_to_linear`]), as glTF defines `COLOR_n`; colours read from
//!   a glTF/GLB mesh file (the format as [`levelgeom_import::detect_format`] finds it) are
//!   therefore converted back with [`levelgeom_scene::colour::linear_to_srgb`] before they go to
//!   the engine's importer, so export → import is exact after the byte quantisation. OBJ
//!   colours are display values already and are taken as they are.
//!
//! # X-Ray levels
//! [`LevelFile::import_xray`] reads the edited export (glTF/GLB, or OBJ: node names carry the
//! mapping there) and hands the scene to [`levelgeom_xray::import`], which does the engine's
//! work; the result is the level's four files in memory, written by
//! [`write_level_folder`] into a folder all or nothing. `--collision` is a mesh whose nodes
//! are named `mat{id}_sec{sector}`, as `export --collision` writes `collision.glb`.

use std::path::{Path, PathBuf};

use levelgeom_import::{world_triangles_limited, Imported, MeshFormat, MeshOptions, Triangle};
use levelgeom_scene::{roots, Scene};
use levelgeom_wad::import::mesh::{self as wad_mesh, is_swap};
use levelgeom_wad::import::{CollisionTriangle, MeshTriangle};

use crate::error::{Error, Result};
use crate::level::{Content, LevelFile};

pub use levelgeom_xray::import::Summary as XraySummary;

pub use levelgeom_wad::import::{ImportSummary, Zones};
pub use levelgeom_wad::probe::{ProbeHit, ProbeKind};

/// What [`LevelFile::import`] is asked to do.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ImportOptions {
    /// A separate collision mesh (`collision.obj` / `.glb` as our export writes it); without
    /// it the mesh file's own `collision` tree, else the `collision.*` beside a `level.*` mesh
    /// file, is used (see the module docs).
    pub collision: Option<PathBuf>,
    /// Rebuild: cut every tile from the whole mesh (the base's tiles are replaced, or kept
    /// with `keep_tiles`). Without it, and when the mesh names tiles of the base (an edited
    /// export), the import maps nodes back to their tiles ([`levelgeom_wad::import::edit`]).
    pub rebuild: bool,
    /// Rebuild: keep the base level's tiles and add the new ones (otherwise they are replaced).
    /// Edit: keep the tiles the mesh does not hold (otherwise they are removed).
    pub keep_tiles: bool,
    /// What happens to the zone (visibility) table.
    pub zones: Zones,
    /// The texture entry for materials that are not this level's `page_NN`/`flat_RRGGBB`.
    pub default_tex: Option<u16>,
    /// Let the grid grow past 256 cells a side or to more than 4× its cells (CLI
    /// `--allow-grow`); otherwise such a mesh is refused, saying by how much.
    pub allow_grow: bool,
}

/// What [`LevelFile::import`] made.
#[derive(Clone, Debug)]
pub struct ImportReport {
    /// The new level file's bytes.
    pub bytes: Vec<u8>,
    /// What the engine's importer did.
    pub summary: ImportSummary,
    /// Where the collision came from: the `--collision` file, the mesh file's own tree, the
    /// `collision.glb`/`collision.obj` found beside a `level.*` mesh file (`… (found beside the
    /// mesh file)`), or derived from the render mesh.
    pub collision_from: String,
    /// Things the mesh readers skipped, for the user.
    pub warnings: Vec<String>,
    /// The real paths of every file the import read besides the level: the mesh file, its
    /// MTL libraries or glTF buffers, the collision file and its companions. No output may be
    /// one of them.
    pub inputs: Vec<PathBuf>,
}

/// Read a mesh file (images are never decoded: no importer uses pixels); colours of a
/// glTF/GLB file are converted to the scene's display values (see the module docs). A file
/// whose meshes hold no triangle is refused: importing it would empty the level.
fn read(path: &Path) -> Result<Imported> {
    let (mut imported, _) = read_mesh(path, false)?;
    display_colours(path, &mut imported)?;
    Ok(imported)
}

/// [`read`] without the colour conversion ([`display_colours`]), with `defer` a GLB's
/// attributes other than POSITION left for [`levelgeom_import::Deferred::complete`] (see
/// [`levelgeom_import::read_mesh_deferred`]).
fn read_mesh(path: &Path, defer: bool) -> Result<(Imported, Option<levelgeom_import::Deferred>)> {
    let opts = MeshOptions {
        decode_images: false,
        ..MeshOptions::default()
    };
    let (imported, deferred) = if defer {
        levelgeom_import::read_mesh_deferred(path, &opts)?
    } else {
        (levelgeom_import::read_mesh_with(path, &opts)?, None)
    };
    let triangles: usize = imported
        .scene
        .meshes
        .iter()
        .flat_map(|m| &m.primitives)
        .map(|p| p.indices.len() / 3)
        .sum();
    if triangles == 0 {
        return Err(Error::Unsupported {
            file: path.display().to_string(),
            message: "the mesh file has no triangles (an empty file, or only points and lines);                       importing it would remove every tile, so it is refused"
                .into(),
        });
    }
    Ok((imported, deferred))
}

/// The colours of a glTF/GLB mesh file converted to the scene's display values (see the
/// module docs); an OBJ's are left as they are.
fn display_colours(path: &Path, imported: &mut Imported) -> Result<()> {
    if mesh_format(path)? == Some(MeshFormat::Gltf) {
        for p in imported
            .scene
            .meshes
            .iter_mut()
            .flat_map(|m| m.primitives.iter_mut())
        {
            for set in &mut p.colors {
                for c in set.iter_mut() {
                    *c = levelgeom_scene::colour::rgba_to_srgb(*c);
                }
            }
        }
    }
    Ok(())
}

/// True when a mesh file is an export of an X-Ray level: one of its nodes carries the X-Ray
/// `visual` index and `model_type` extras that the X-Ray export writes.
fn is_xray_export(scene: &levelgeom_scene::Scene) -> bool {
    scene.nodes.iter().any(|n| {
        let has = |k: &str| n.extras.iter().any(|(key, _)| key == k);
        has("visual") && has("model_type")
    })
}

/// The format [`levelgeom_import::detect_format`] finds for a file, from its name and first
/// bytes (enough for the magic, or the first keyword of a text file).
fn mesh_format(path: &Path) -> Result<Option<MeshFormat>> {
    let io = |source| Error::Input {
        path: path.to_path_buf(),
        source,
    };
    let mut f = levelgeom_binary::RegularFile::open(path).map_err(io)?;
    let len = f.len().min(64 * 1024);
    let head = f.read_slice(0, len).map_err(io)?;
    Ok(levelgeom_import::detect_format(
        &head,
        &path.display().to_string(),
    ))
}

/// The collision file an export wrote beside a mesh file named `level.*`: `collision.glb` or
/// `collision.obj`, the one of the mesh's own format first.
fn collision_beside(mesh: &Path) -> Result<Option<PathBuf>> {
    found_beside(
        mesh,
        roots::COLLISION,
        " (pass it with --collision to use it)",
    )
}

/// The file `STEM.glb` or `STEM.obj` an export wrote beside a mesh file named `level.*`, the
/// one of the mesh's own format first, under the rule of the mesh's companions: its real path
/// stays in the mesh's folder (a symbolic link out is an error, `hint` saying what to do).
fn found_beside(mesh: &Path, stem: &str, hint: &str) -> Result<Option<PathBuf>> {
    let is_level = mesh
        .file_stem()
        .is_some_and(|s| s.eq_ignore_ascii_case("level"));
    if !is_level {
        return Ok(None);
    }
    let dir = mesh.parent().unwrap_or(Path::new(""));
    let names = match mesh_format(mesh)? {
        Some(MeshFormat::Obj) => [format!("{stem}.obj"), format!("{stem}.glb")],
        _ => [format!("{stem}.glb"), format!("{stem}.obj")],
    };
    let Some(found) = names
        .iter()
        .map(|n| dir.join(n))
        // not `is_file`: a symlink out, a FIFO or a device of that name is found, and refused
        .find(|p| std::fs::symlink_metadata(p).is_ok_and(|m| !m.is_dir()))
    else {
        return Ok(None);
    };
    let io = |source| Error::Io {
        path: found.clone(),
        source,
    };
    let folder = std::fs::canonicalize(if dir.as_os_str().is_empty() {
        Path::new(".")
    } else {
        dir
    })
    .map_err(io)?;
    let real = std::fs::canonicalize(&found).map_err(io)?;
    if !real.starts_with(&folder) {
        return Err(Error::Unsupported {
            file: found.display().to_string(),
            message: format!(
                "found beside the mesh file, it resolves to {}, outside the mesh file's folder \
                 (through a symbolic link); not read{hint}",
                real.display()
            ),
        });
    }
    Ok(Some(found))
}

/// Where a triangle of a mesh file came from, for errors: `nodes[3] "tile_0012",
/// meshes[2].primitives[0], triangle 5` (glTF: the file's node and mesh indices; OBJ: the
/// object, and `, line 17` the `f` statement that made it).
fn locate(imported: &Imported, t: &Triangle) -> String {
    let mesh = imported.scene.nodes.get(t.node).and_then(|n| n.mesh);
    let line = match (&imported.obj_lines, mesh) {
        (Some(l), Some(m)) => l
            .line(m, t.primitive, t.index)
            .map(|l| format!(", line {l}"))
            .unwrap_or_default(),
        _ => String::new(),
    };
    format!(
        "nodes[{}] {:?}, meshes[{}].primitives[{}], triangle {}{line}",
        t.node,
        t.node_name,
        mesh.map_or_else(|| "?".to_string(), |m| m.to_string()),
        t.primitive,
        t.index
    )
}

/// Refuse a scene that places more than `Limits::max_instanced_triangles` triangles (every
/// node instancing a mesh counted; hidden nodes too), before an importer builds anything.
fn placed_within_limit(scene: &Scene, file: &Path) -> Result<()> {
    levelgeom_import::count_world_triangles(
        scene,
        None,
        true,
        levelgeom_binary::Limits::DEFAULT.max_instanced_triangles,
    )
    .map(|_| ())
    .map_err(|source| Error::TooManyTriangles {
        file: file.display().to_string(),
        source,
        note: String::new(),
    })
}

/// The world triangles under `root`, within what is left of the instanced-triangle budget.
fn flatten(
    scene: &Scene,
    root: Option<usize>,
    include_hidden: bool,
    budget: &mut usize,
    file: &Path,
) -> Result<Vec<Triangle>> {
    let tris = world_triangles_limited(scene, root, include_hidden, *budget).map_err(|source| {
        Error::TooManyTriangles {
            file: file.display().to_string(),
            source,
            note: format!(
                " (total over the file: limit {})",
                levelgeom_binary::Limits::DEFAULT.max_instanced_triangles
            ),
        }
    })?;
    *budget -= tris.len();
    Ok(tris)
}

/// The swap alternatives of a mesh file: every `…_swap` node, hidden ones included (at most
/// `Limits::max_instanced_triangles` placed).
fn swap_triangles(scene: &Scene, file: &Path) -> Result<Vec<Triangle>> {
    let mut budget = levelgeom_binary::Limits::DEFAULT.max_instanced_triangles;
    Ok(flatten(scene, None, true, &mut budget, file)?
        .into_iter()
        .filter(|t| is_swap(&t.node_name))
        .collect())
}

/// The swap file an export wrote beside a mesh file named `level.*`: `swap.glb` or `swap.obj`,
/// the one of the mesh's own format first (the companions' rule, as [`found_beside`] says).
fn swap_beside(mesh: &Path) -> Result<Option<PathBuf>> {
    found_beside(mesh, roots::SWAP, "")
}

/// Mesh triangles of flattened scene triangles, material names from `scene`.
fn mesh_triangles(scene: &Scene, tris: &[Triangle]) -> Vec<MeshTriangle> {
    tris.iter()
        .map(|t| MeshTriangle {
            positions: t.positions,
            uvs: t.uvs,
            colours: t.colours,
            material: t
                .material
                .and_then(|m| scene.materials.get(m))
                .map_or_else(String::new, |m| m.name.clone()),
        })
        .collect()
}

/// The render triangles of a mesh file (see the module docs): every visible root except the
/// collision, swap, objects, portals, occluders, ai and details roots, without swap alternatives (`…_swap`
/// nodes), at
/// most `Limits::max_instanced_triangles` placed. None at all is refused: a scene whose nodes
/// reach no mesh (all in a cycle, say) would otherwise remove every tile.
fn render_triangles(scene: &Scene, file: &Path) -> Result<Vec<Triangle>> {
    let budget = levelgeom_binary::Limits::DEFAULT.max_instanced_triangles;
    let skip = roots::NAMED.map(|n| scene.root(n));
    let starts: Vec<usize> = scene
        .roots
        .iter()
        .copied()
        .filter(|r| !skip.contains(&Some(*r)))
        .collect();
    // one pass over all the roots (a pass per root was quadratic in the nodes)
    let tris = levelgeom_import::world_triangles_under(scene, &starts, false, budget).map_err(
        |source| Error::TooManyTriangles {
            file: file.display().to_string(),
            source,
            note: String::new(),
        },
    )?;
    let tris: Vec<Triangle> = tris
        .into_iter()
        .filter(|t| !is_swap(&t.node_name))
        .collect();
    if tris.is_empty() {
        return Err(Error::Unsupported {
            file: file.display().to_string(),
            message: format!(
                "no visible render triangle is reached from the scene's {} root node(s) (nodes in \
                 a cycle, hidden, or only collision): importing it would remove every tile, so \
                 it is refused",
                scene.roots.len()
            ),
        });
    }
    Ok(tris)
}

/// Collision triangles of a scene: its `collision` tree, or every node named `matNN_grpG`;
/// with the triangles they came from (for errors).
fn collision_triangles(
    scene: &Scene,
    file: &Path,
) -> Result<(Vec<CollisionTriangle>, Vec<Triangle>)> {
    let mut budget = levelgeom_binary::Limits::DEFAULT.max_instanced_triangles;
    let tris = match scene.root(roots::COLLISION) {
        Some(r) => flatten(scene, Some(r), true, &mut budget, file)?,
        None => flatten(scene, None, true, &mut budget, file)?,
    };
    let file = file.display().to_string();
    let mut out = Vec::with_capacity(tris.len());
    let mut from = Vec::with_capacity(tris.len());
    let mut unnamed = 0usize;
    for t in tris {
        match levelgeom_wad::import::matching::collision_name(&t.node_name) {
            Some((material, group)) => {
                out.push(CollisionTriangle {
                    positions: t.positions,
                    material,
                    group,
                });
                from.push(t);
            }
            None => unnamed += 1,
        }
    }
    if out.is_empty() && unnamed > 0 {
        return Err(Error::Unsupported {
            file,
            message: format!(
                "none of its {unnamed} collision triangles is in an object named matNN_grpG \
                 (ground material NN, collision group G), as levelgeom's collision export names them"
            ),
        });
    }
    Ok((out, from))
}

/// A WAD import error, located: a triangle index becomes the file, node, mesh, primitive and
/// triangle it came from (the collision file's for collision triangles).
fn located(
    e: levelgeom_wad::import::ImportError,
    mesh: (&Path, &Imported, &[Triangle]),
    collision: Option<(&Path, &Imported, &[Triangle])>,
) -> Error {
    let (what, index) = e.triangle();
    let (file, imported, tris) = match (what, collision) {
        ("collision", Some(c)) => c,
        _ => mesh,
    };
    let at = index
        .and_then(|i| tris.get(i))
        .map(|t| format!(" (at {})", locate(imported, t)))
        .unwrap_or_default();
    Error::WadImport {
        file: file.display().to_string(),
        source: e,
        at,
    }
}

/// The largest |x| or |z| `probe` takes: 524288, where the WAD's tile positions end (MAP's
/// B transforms hold them as i32 in 20.12 fixed point, `round(A.pos · 4096)`:
/// 2³¹ / 4096 = 524288; see `levelgeom_wad::check`). Farther points are no point of any level.
pub const MAX_PROBE_COORD: f32 = 524_288.0;

impl LevelFile {
    /// Import the edited mesh file `mesh` (OBJ, glTF or GLB in export space) into this level
    /// and return the new file's bytes (nothing is written; see the CLI's `import`).
    ///
    /// # Errors
    /// The level is not a WAD; a mesh file cannot be read; the geometry cannot be put into the
    /// level (outside the grid, values that do not fit their fields).
    pub fn import(&self, mesh: &Path, opts: &ImportOptions) -> Result<ImportReport> {
        let Content::Wad(level) = &self.content else {
            return Err(Error::Unsupported {
                file: self.display_name(),
                message: format!(
                    "this import writes Argonaut WADs; this is {} (an X-Ray level is imported \
                     with LevelFile::import_xray into a folder)",
                    self.format().description()
                ),
            });
        };
        let imported = read(mesh)?;
        let mut warnings = imported.warnings.clone();
        let mut inputs = imported.inputs.clone();
        let render = render_triangles(&imported.scene, mesh)?;
        let nodes: Vec<usize> = render.iter().map(|t| t.node).collect();
        let triangles = mesh_triangles(&imported.scene, &render);
        let mut collision_file: Option<(PathBuf, Imported)> = None;
        let (collision, collision_tris, collision_from) = match &opts.collision {
            Some(c) => {
                let ci = read(c)?;
                warnings.extend(ci.warnings.iter().cloned());
                inputs.extend(ci.inputs.iter().cloned());
                let (ct, from) = collision_triangles(&ci.scene, c)?;
                collision_file = Some((c.clone(), ci));
                (Some(ct), from, Some(c.display().to_string()))
            }
            None if imported.scene.root(roots::COLLISION).is_some() => {
                let (ct, from) = collision_triangles(&imported.scene, mesh)?;
                (
                    Some(ct),
                    from,
                    Some(format!("the collision tree of {}", mesh.display())),
                )
            }
            None => match collision_beside(mesh)? {
                Some(c) => {
                    let ci = read(&c)?;
                    warnings.extend(ci.warnings.iter().cloned());
                    inputs.extend(ci.inputs.iter().cloned());
                    let (ct, from) = collision_triangles(&ci.scene, &c)?;
                    let label = format!("{} (found beside the mesh file)", c.display());
                    collision_file = Some((c, ci));
                    (Some(ct), from, Some(label))
                }
                None => (None, Vec::new(), None),
            },
        };
        let wad_opts = levelgeom_wad::import::ImportOptions {
            keep_tiles: opts.keep_tiles,
            zones: opts.zones,
            default_tex: opts.default_tex,
            allow_grow: opts.allow_grow,
            ..levelgeom_wad::import::ImportOptions::default()
        };
        let mut parts = wad_mesh::parts(&imported.scene, triangles, &nodes, false);
        let rebuilt = wad_mesh::rebuilds(&parts, opts.rebuild);
        if !rebuilt {
            // swap alternatives: the file's own `…_swap` nodes, else the swap file beside it
            let mut swap_parts = |scene: &Scene, file: &Path| -> Result<()> {
                let tris = swap_triangles(scene, file)?;
                let nodes: Vec<usize> = tris.iter().map(|t| t.node).collect();
                let mt = mesh_triangles(scene, &tris);
                parts.extend(wad_mesh::parts(scene, mt, &nodes, true));
                Ok(())
            };
            if imported.scene.nodes.iter().any(|n| is_swap(&n.name)) {
                swap_parts(&imported.scene, mesh)?;
            } else if let Some(sw) = swap_beside(mesh)? {
                let si = read(&sw)?;
                warnings.extend(si.warnings.iter().cloned());
                inputs.extend(si.inputs.iter().cloned());
                swap_parts(&si.scene, &sw)?;
            }
        }
        let result = wad_mesh::run(level, parts, collision.as_deref(), opts.rebuild, &wad_opts);
        // a rebuild's triangle indices are those of `render` and the collision file; an edit's
        // are of the new and reshaped triangles only, so its errors are not located
        let (new, summary) = result.map_err(|e| {
            if is_xray_export(&imported.scene) {
                // an X-Ray export lies in X-Ray's metres, not a WAD's grid cells
                return Error::XrayExportIntoWad {
                    file: mesh.display().to_string(),
                    source: e,
                };
            }
            let coll = match &collision_file {
                Some((p, ci)) => (p.as_path(), ci),
                None => (mesh, &imported),
            };
            if rebuilt {
                located(
                    e,
                    (mesh, &imported, &render),
                    Some((coll.0, coll.1, &collision_tris)),
                )
            } else {
                located(e, (mesh, &imported, &[]), None)
            }
        })?;
        warnings.extend(wad_mesh::removal_warning(&summary));
        let collision_from = wad_mesh::collision_from(&summary, collision_from);
        let bytes = new.to_bytes().map_err(|source| Error::Write {
            file: mesh.display().to_string(),
            source,
        })?;
        Ok(ImportReport {
            bytes,
            summary,
            collision_from,
            warnings,
            inputs,
        })
    }

    /// The collision surfaces over and under the point (x, z) of export space, highest first,
    /// found the way the engine does (only the tiles of the cell that holds the point).
    ///
    /// # Errors
    /// [`Error::BadArgument`] for a coordinate that is not finite or lies beyond
    /// [`MAX_PROBE_COORD`]; [`Error::Unsupported`] when the level is not a WAD.
    pub fn probe(&self, x: f32, z: f32) -> Result<Vec<ProbeHit>> {
        for (name, v) in [("x", x), ("z", z)] {
            if !v.is_finite() || v.abs() > MAX_PROBE_COORD {
                return Err(Error::BadArgument {
                    argument: format!("probe {name}"),
                    message: format!(
                        "{v} is no point of a level: a coordinate is a finite number within ±{MAX_PROBE_COORD} (the range of the WAD's 20.12 fixed-point positions)"
                    ),
                });
            }
        }
        match &self.content {
            Content::Wad(level) => Ok(levelgeom_wad::probe::probe(level, x, z)),
            _ => Err(Error::Unsupported {
                file: self.display_name(),
                message: format!(
                    "probe reads the collision of Argonaut WADs; this is {}",
                    self.format().description()
                ),
            }),
        }
    }

    /// Sample geometry to import (seed `geom_demo`): blocks and a ramp built from this
    /// level's own texture entries (`plaza`: a larger paved square), as a scene whose
    /// materials and textures are this level's, ready for the OBJ writer.
    ///
    /// # Errors
    /// The level is not a WAD, or has no geometry to take textures from.
    pub fn sample(&self, plaza: bool) -> Result<Scene> {
        let Content::Wad(level) = &self.content else {
            return Err(Error::Unsupported {
                file: self.display_name(),
                message: format!(
                    "sample builds geometry for Argonaut WADs; this is {}",
                    self.format().description()
                ),
            });
        };
        let base = self.to_scene(&crate::EngineOptions::default())?;
        let tris = levelgeom_wad::sample::sample(level, plaza);
        Ok(levelgeom_wad::sample::scene(&base, &tris))
    }
}

/// What an X-Ray import puts into a level: the edited scene and its collision, where the
/// collision came from, the readers' warnings so far, and the name errors give the scene.
struct XrayEdit<'s> {
    scene: &'s Scene,
    collision: Option<&'s Scene>,
    collision_from: String,
    warnings: Vec<String>,
    source: String,
    /// The base's reference geometry when it was made beforehand.
    reference: Option<levelgeom_xray::import::Reference<'s>>,
    /// The base's vertex buffers re-encoded beforehand for the conversion
    /// ([`levelgeom_xray::import::Prepared::converted`]).
    converted: Option<levelgeom_xray::import::ConvertedAhead<'s>>,
    /// Chunks packed beforehand, for the written files' compressed chunks of equal value
    /// ([`levelgeom_xray::chunk::Packed`]); waited for when the files are written.
    packed_ahead: Option<PackedAhead<'s>>,
}

/// The chunks threads are packing beside the import, given when they are done.
type PackedAhead<'s> = Box<dyn FnOnce() -> Vec<Packed> + 's>;

/// A `level` chunk packed ahead.
type Packed = levelgeom_xray::chunk::Packed<levelgeom_xray::level::LevelChunk>;

/// The chunks of `which` that a conversion of the base (its `level.geom` `geom`, of build
/// `from`; `converted`: its vertex buffers re-encoded) to `to` will pack
/// ([`levelgeom_xray::import::convert::packed_chunks`]), packed; none when the conversion
/// packs none (or they cannot be made: the conversion itself reports why).
fn packed_ahead(
    geom: &levelgeom_xray::Geom,
    converted: Option<&levelgeom_xray::import::convert::Converted>,
    (from, to): (u16, u16),
    which: levelgeom_xray::import::convert::Packable,
) -> Vec<Packed> {
    levelgeom_xray::import::convert::packed_chunks(geom, converted, from, to, which)
        .unwrap_or_default()
        .into_iter()
        .filter_map(|c| levelgeom_xray::level::pack_ahead(c).ok())
        .collect()
}

/// At most how much [`grow_thread_heap`] grows a heap by (glibc's thread heaps hold 64 MiB).
const HEAP_AHEAD_MAX: usize = 48 << 20;

/// Let this thread's heap grow by `bytes` at once. glibc gives each thread but the main one a
/// heap of its own, which it grows with one `mprotect` per allocation past its top, page by
/// page (the pool's workers made ~5,000 such calls each in an import of the 2,000-visual
/// generated level: ~10 % of its time); it keeps what it made writable when memory is freed.
/// So blocks under its mmap threshold (128 KiB at least), allocated and freed here, leave
/// `bytes` writable for the allocations that follow. Only address space: the blocks are never
/// written, and glibc hands their pages back as it trims the freed top. Elsewhere (another
/// allocator) it costs a few hundred allocations.
fn grow_thread_heap(bytes: usize) {
    const BLOCK: usize = 96 << 10;
    let blocks: Vec<Vec<u8>> = (0..bytes.min(HEAP_AHEAD_MAX) / BLOCK)
        .map(|_| Vec::with_capacity(BLOCK))
        .collect();
    drop(std::hint::black_box(blocks));
}

/// A mesh file being read, as an X-Ray import reads it, on a thread of its own while the level
/// it goes into is opened ([`open_for_import`]); [`LevelFile::import_xray_ahead`] takes it.
pub struct MeshAhead {
    path: PathBuf,
    read: crate::ahead::Ahead<MeshRead>,
}

/// What [`read_mesh`] gives when it defers.
type MeshRead = Result<(Imported, Option<levelgeom_import::Deferred>)>;

impl std::fmt::Debug for MeshAhead {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "MeshAhead({})", self.path.display())
    }
}

impl MeshAhead {
    /// Start reading `mesh` on a thread of its own (where none can be started, it is read
    /// when joined).
    fn start(mesh: &Path) -> MeshAhead {
        let path = mesh.to_path_buf();
        let read = crate::ahead::Ahead::start("read mesh", {
            let path = path.clone();
            move || {
                // the positions and indices read of a GLB, its document: about half the
                // file (20 MB of the 2,000-visual generated level's 38.6 MB export)
                let len = std::fs::metadata(&path).map_or(0, |m| m.len());
                grow_thread_heap(usize::try_from(len / 2).unwrap_or(usize::MAX));
                read_mesh(&path, true)
            }
        });
        MeshAhead { path, read }
    }

    /// The mesh file as read (a panic of the reading thread goes on here).
    fn join(self) -> MeshRead {
        self.read.join()
    }
}

/// [`crate::open`] of the level an import puts the mesh file `mesh` into; when it is an X-Ray
/// file, `mesh` is read meanwhile on a thread of its own, for
/// [`LevelFile::import_xray_ahead`] (an X-Ray import reads both before it compares them).
///
/// # Errors
/// As [`crate::open`]; the mesh file's errors come from the import.
pub fn open_for_import(path: &Path, mesh: &Path) -> Result<(LevelFile, Option<MeshAhead>)> {
    let limits = levelgeom_binary::Limits::DEFAULT;
    let (file, bytes, geoms) = crate::read_level(path, limits)?;
    let ahead =
        (crate::Engine::sniff(&bytes) == Some(crate::Engine::Xray)).then(|| MeshAhead::start(mesh));
    let level = crate::from_bytes(file, bytes, Some(geoms), limits)?;
    Ok((level, ahead))
}

/// True when `written` is the geom file `read` as it was read, without warnings: then writing
/// it gives the file's bytes (the writers' rule: an unchanged parse writes its input byte for
/// byte), which [`LevelFile::import_xray`] hands on as they are.
fn unchanged_geom(read: &levelgeom_xray::files::GeomFile, written: &levelgeom_xray::Geom) -> bool {
    // vertex bytes still shared with the file read compare equal without being read
    // (`VertexData`'s `==`: an unedited import's 16 MB at 2,000 visuals)
    read.warnings.is_empty() && read.geom.chunks == written.chunks
}

/// The bytes of a file an X-Ray import writes ([`XrayImportReport::files`]): made by the
/// import, or, for a file it left as it was, the input's own (shared with the opened level,
/// not copied).
#[derive(Clone, PartialEq, Eq)]
pub struct FileBytes(std::sync::Arc<Vec<u8>>);

impl std::ops::Deref for FileBytes {
    type Target = [u8];

    fn deref(&self) -> &[u8] {
        &self.0
    }
}

impl AsRef<[u8]> for FileBytes {
    fn as_ref(&self) -> &[u8] {
        &self.0
    }
}

impl From<Vec<u8>> for FileBytes {
    fn from(bytes: Vec<u8>) -> FileBytes {
        FileBytes(std::sync::Arc::new(bytes))
    }
}

impl PartialEq<Vec<u8>> for FileBytes {
    fn eq(&self, other: &Vec<u8>) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<[u8]> for FileBytes {
    fn eq(&self, other: &[u8]) -> bool {
        self.0[..] == *other
    }
}

impl std::fmt::Debug for FileBytes {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "FileBytes({} bytes)", self.0.len())
    }
}

/// The X-Ray importer's view of a level's files.
fn xray_base_of<'a>(
    files: &'a levelgeom_xray::LevelFiles,
    geom: &'a levelgeom_xray::Geom,
) -> levelgeom_xray::import::Base<'a> {
    levelgeom_xray::import::Base {
        level: &files.level,
        geom,
        geomx: files.geomx.as_ref().map(|g| &g.geom),
        cform: files.cform.as_ref().map(|c| &c.cform),
    }
}

/// What [`LevelFile::import_xray`] is asked to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct XrayImportOptions {
    /// A collision mesh (`collision.glb` / `.gltf` / `.obj` with nodes or groups named
    /// `mat{id}_sec{sector}`) that replaces `level.cform`; without it the cform follows the
    /// moved and removed visuals.
    pub collision: Option<PathBuf>,
    /// Remove every visual with geometry that the mesh file does not hold, even when the file
    /// looks like a partial export.
    pub delete_missing: bool,
    /// Write this XRLC build (4, 5, 8–14) instead of the base level's.
    pub to_version: Option<u16>,
    /// Convert to `to_version` even when that build cannot hold everything (13 → 14 quantises
    /// base UVs); without it such a conversion is refused, naming what would be lost.
    pub allow_loss: bool,
    /// Write a `level.details` that follows the edit: slots over removed geometry emptied,
    /// over moved geometry raised or lowered (`--details-follow`); without it the
    /// `level.details` is copied unchanged and reported stale.
    pub details_follow: bool,
}

/// What [`LevelFile::import_xray`] made.
#[derive(Clone, Debug)]
pub struct XrayImportReport {
    /// The new files, `(name, bytes)`: `level`, `level.geom`, and `level.geomx` /
    /// `level.cform` / `level.hom` / `level.som` when the level has them (the occluders only
    /// for a build whose engine reads them).
    pub files: Vec<(String, FileBytes)>,
    /// What the engine's importer did.
    pub summary: XraySummary,
    /// Where the collision came from (`--collision` file, or the base's cform).
    pub collision_from: String,
    /// Things the mesh readers skipped, and the importer's warnings.
    pub warnings: Vec<String>,
    /// The real paths of the mesh files read (the mesh, its companions, the collision file and
    /// its companions; empty for a conversion). No output may be one of them.
    pub inputs: Vec<PathBuf>,
}

/// Readers' warnings with the ones about non-scalar custom attributes (the exporter's `_LIGHT`,
/// one per mesh) folded into one line.
fn fold_reader_warnings(warnings: &[String]) -> Vec<String> {
    let (custom, mut rest): (Vec<&String>, Vec<&String>) = warnings
        .iter()
        .partition(|w| w.contains("custom attribute is not SCALAR"));
    let mut out: Vec<String> = rest.drain(..).cloned().collect();
    if !custom.is_empty() {
        out.push(format!(
            "{} custom vertex attribute(s) that are not scalars (such as _LIGHT) were not read; \
             visuals keep their own values, new meshes get the vertex colour or a neutral light",
            custom.len()
        ));
    }
    out
}

impl LevelFile {
    /// The X-Ray files of this level and its `level.geom` (an empty one for XRLC 4–12, whose
    /// geometry is inside `level`).
    fn xray_base(
        &self,
        what: &str,
    ) -> Result<(&levelgeom_xray::LevelFiles, &levelgeom_xray::Geom)> {
        static NO_GEOM: levelgeom_xray::Geom = levelgeom_xray::Geom { chunks: Vec::new() };
        let Content::XrayLevel(files) = &self.content else {
            return Err(Error::Unsupported {
                file: self.display_name(),
                message: format!(
                    "{what} is for X-Ray levels (`level` with its files); this is {}",
                    self.format().description()
                ),
            });
        };
        let geom = match &files.geom {
            Some(g) => &g.geom,
            None if files.level.is_old() => &NO_GEOM,
            None => {
                return Err(Error::Unsupported {
                    file: self.display_name(),
                    message: "no level.geom beside it (the visuals' geometry lives there)".into(),
                })
            }
        };
        Ok((files, geom))
    }

    /// Import the edited export `mesh` (glTF, GLB or OBJ, as `export` wrote it) into this X-Ray
    /// level (see [`levelgeom_xray::import`]) and return the new files' bytes (nothing is
    /// written; see [`write_level_folder`]).
    ///
    /// # Errors
    /// The level is not an X-Ray level with its `level.geom`; a mesh file cannot be read; the
    /// mesh file maps no node to a visual (exported without custom properties); another build
    /// than 4, 5, 8–14 (4–12 are written back in their own build: no `level.geom`); a
    /// `to_version` other than 4, 5, 8–14, or a lossy conversion without
    /// `allow_loss`; values that do not fit.
    pub fn import_xray(&self, mesh: &Path, opts: &XrayImportOptions) -> Result<XrayImportReport> {
        self.import_xray_read(mesh, None, opts)
    }

    /// [`LevelFile::import_xray`] of the mesh file `ahead` has been reading since
    /// [`open_for_import`] opened this level.
    ///
    /// # Errors
    /// As [`LevelFile::import_xray`].
    pub fn import_xray_ahead(
        &self,
        ahead: MeshAhead,
        opts: &XrayImportOptions,
    ) -> Result<XrayImportReport> {
        let mesh = ahead.path.clone();
        self.import_xray_read(&mesh, Some(ahead), opts)
    }

    /// [`LevelFile::import_xray`] of `mesh`, read by `ahead` when given.
    fn import_xray_read(
        &self,
        mesh: &Path,
        ahead: Option<MeshAhead>,
        opts: &XrayImportOptions,
    ) -> Result<XrayImportReport> {
        let (files, geom) = self.xray_base("import_xray")?;
        // the base's reference geometry depends on the base alone: made while the mesh file
        // is read (on failure the import makes it again, and reports in its own order)
        let (imported, mut reference) = match ahead {
            Some(ahead) => {
                let reference = levelgeom_xray::import::reference(xray_base_of(files, geom));
                (ahead.join(), reference)
            }
            None => {
                let mut reference = Ok(None);
                let imported = rayon::in_place_scope(|s| {
                    s.spawn(|_| {
                        // hollow: no vertex is decoded or held for it, so no heap is grown
                        reference = levelgeom_xray::import::reference(xray_base_of(files, geom));
                    });
                    read_mesh(mesh, true)
                });
                (imported, reference)
            }
        };
        let (mut imported, mut deferred) = imported?;
        // a GLB's other attributes are read for the meshes the import reads them of: not
        // those of visuals found unchanged (an unedited export reads none)
        if let Some(deferred) = &mut deferred {
            let which = match &mut reference {
                Ok(Some(r)) => levelgeom_xray::import::meshes_to_read(r, &imported.scene),
                _ => vec![true; imported.scene.meshes.len()],
            };
            deferred.complete(&mut imported.scene, &which)?;
        }
        display_colours(mesh, &mut imported)?;
        placed_within_limit(&imported.scene, mesh)?;
        let mut inputs = imported.inputs.clone();
        let mut warnings = fold_reader_warnings(&imported.warnings);
        let has_tree = imported
            .scene
            .nodes
            .iter()
            .any(|n| n.name.split('.').next() == Some(roots::COLLISION));
        if has_tree && opts.collision.is_none() {
            warnings.push(format!(
                "{} has a `collision` tree; it is not read (the level.cform follows the edited \
                 visuals): pass the file as --collision to replace the collision with it",
                mesh.display()
            ));
        }
        let (collision, collision_from) = match &opts.collision {
            Some(c) => {
                let ci = read(c)?;
                placed_within_limit(&ci.scene, c)?;
                warnings.extend(fold_reader_warnings(&ci.warnings));
                inputs.extend(ci.inputs.iter().cloned());
                (Some(ci.scene), c.display().to_string())
            }
            None => (
                None,
                files.cform.as_ref().map_or_else(
                    || "none (the level has no level.cform)".to_string(),
                    |c| format!("{} (following the edits)", c.path.display()),
                ),
            ),
        };
        let mut report = self.import_xray_scene(
            files,
            geom,
            XrayEdit {
                scene: &imported.scene,
                collision: collision.as_ref(),
                collision_from,
                warnings,
                source: mesh.display().to_string(),
                reference: reference.ok().flatten(),
                converted: None,
                packed_ahead: None,
            },
            opts,
        )?;
        report.inputs = inputs;
        // the mesh file's scene and bytes are freed while the files are written
        crate::export::drop_aside((imported, deferred, collision));
        Ok(report)
    }

    /// Write this level in the XRLC build `to_version` with nothing edited: its own scene
    /// imported back (every visual kept), then converted (see
    /// [`levelgeom_xray::import::convert`]); `allow_loss` as for `import --to-version`.
    ///
    /// # Errors
    /// Not an X-Ray level; a build not written; a lossy conversion without `allow_loss`.
    pub fn convert_xray(&self, to_version: u16, allow_loss: bool) -> Result<XrayImportReport> {
        let (files, geom) = self.xray_base("convert")?;
        let from = files.level.header().map_or(0, |h| h.version);
        std::thread::scope(|s| {
            use levelgeom_xray::import::convert::{Converted, Packable};
            // the vertex buffers' re-encoding and what the conversion packs (XRLC 12's
            // buffer chunks) follow from the base's level.geom alone: made on other threads
            // while the scene is made and imported back, and used where the import's own
            // buffers and chunks are equal to them
            let (conv_tx, conv_rx) = std::sync::mpsc::sync_channel(1);
            let vertex = s.spawn(move || {
                // only where they are packed: for other builds the import re-encodes them
                // itself; made here they were held beside the scene, raising the peak memory
                // of `--to-version 13` by 10–16 MB (2,000 visuals) and 42 MB (8,000), with no
                // CPU time saved (docs/benchmarks.md, round 5)
                let converted = (to_version == 12)
                    .then(|| Converted::new(geom, from, to_version).ok().flatten())
                    .flatten();
                // the import waits for this; a closed channel only means it went on without
                let _ = conv_tx.send(converted.clone());
                packed_ahead(
                    geom,
                    converted.as_ref(),
                    (from, to_version),
                    Packable::Vertex,
                )
            });
            let others =
                s.spawn(move || packed_ahead(geom, None, (from, to_version), Packable::Others));
            let scene = levelgeom_xray::to_scene(
                &files.level,
                geom,
                &levelgeom_xray::SceneOptions {
                    lods: true,
                    ..levelgeom_xray::SceneOptions::default()
                },
            )
            .map_err(|source| Error::XrayScene {
                file: self.display_name(),
                source,
            })?;
            let collision_from = files.cform.as_ref().map_or_else(
                || "none (the level has no level.cform)".to_string(),
                |c| format!("{} (converted)", c.path.display()),
            );
            self.import_xray_scene(
                files,
                geom,
                XrayEdit {
                    scene: &scene,
                    collision: None,
                    collision_from,
                    warnings: Vec::new(),
                    source: self.display_name(),
                    // the scene just made is the reference the import would make again
                    reference: levelgeom_xray::import::reference_of(
                        xray_base_of(files, geom),
                        &scene,
                    ),
                    converted: Some(Box::new(move || conv_rx.recv().ok().flatten())),
                    // a panic there only loses the head start
                    packed_ahead: Some(Box::new(move || {
                        let mut packed = vertex.join().unwrap_or_default();
                        packed.extend(others.join().unwrap_or_default());
                        packed
                    })),
                },
                &XrayImportOptions {
                    to_version: Some(to_version),
                    allow_loss,
                    ..XrayImportOptions::default()
                },
            )
        })
    }

    /// The bytes of this level's `level` file when `written` is that file as it was read
    /// without warnings ([`unchanged_geom`]'s rule).
    fn unchanged_level(
        &self,
        files: &levelgeom_xray::LevelFiles,
        written: &levelgeom_xray::Level,
    ) -> Option<FileBytes> {
        (self.path == files.level_path && files.warnings.is_empty() && *written == files.level)
            .then(|| FileBytes(std::sync::Arc::clone(&self.bytes)))
    }

    /// The X-Ray import of `edit.scene` (named `edit.source` in errors) into `files`.
    fn import_xray_scene(
        &self,
        files: &levelgeom_xray::LevelFiles,
        geom: &levelgeom_xray::Geom,
        edit: XrayEdit<'_>,
        opts: &XrayImportOptions,
    ) -> Result<XrayImportReport> {
        let XrayEdit {
            scene,
            collision,
            collision_from,
            mut warnings,
            source,
            reference,
            converted,
            packed_ahead,
        } = edit;
        let base = xray_base_of(files, geom);
        let out = levelgeom_xray::import::import_prepared(
            base,
            scene,
            collision,
            &levelgeom_xray::import::ImportOptions {
                delete_missing: opts.delete_missing,
                to_version: opts.to_version,
                allow_loss: opts.allow_loss,
            },
            levelgeom_xray::import::Prepared {
                reference,
                converted,
            },
        )
        .and_then(|mut out| {
            levelgeom_xray::import::occluders::follow(
                &mut out,
                files.occluders.hom.as_ref().map(|h| &h.1),
                files.occluders.som.as_ref().map(|s| &s.1),
                Some(scene),
            )?;
            Ok(out)
        })
        .map_err(|e| Error::XrayImport {
            // a collision mesh's error names that file (`collision_from` is its path then)
            file: match (&e, collision) {
                (levelgeom_xray::import::ImportError::Collision(_), Some(_)) => {
                    collision_from.clone()
                }
                _ => source.clone(),
            },
            source: e,
        })?;
        let write = |name: &str, r: std::result::Result<Vec<u8>, levelgeom_binary::WriteError>| {
            r.map_err(|source| Error::Write {
                file: name.to_string(),
                source,
            })
        };
        let mut out = out;
        let ai_details = ai_details_out(files, &mut out, scene, base, opts, &mut warnings)?;
        let ahead = packed_ahead.map_or_else(Vec::new, |f| f());
        // a file the import left as it was read (without warnings: nothing tolerated, so
        // writing it gives its bytes) is its input's bytes, shared instead of written again
        let level = match self.unchanged_level(files, &out.level) {
            Some(bytes) => bytes,
            None => write("level", out.level.to_bytes_with(&ahead))?.into(),
        };
        let mut files_out = vec![("level".to_string(), level)];
        if !out.geom.chunks.is_empty() {
            let geom = match files.geom.as_ref().filter(|g| unchanged_geom(g, &out.geom)) {
                Some(g) => FileBytes(std::sync::Arc::clone(&g.bytes)),
                None => write("level.geom", out.geom.to_bytes())?.into(),
            };
            files_out.push(("level.geom".to_string(), geom));
        }
        if let Some(g) = &out.geomx {
            let geomx = match files.geomx.as_ref().filter(|x| unchanged_geom(x, g)) {
                Some(x) => FileBytes(std::sync::Arc::clone(&x.bytes)),
                None => write("level.geomx", g.to_bytes())?.into(),
            };
            files_out.push(("level.geomx".into(), geomx));
        }
        if let Some(c) = &out.cform {
            files_out.push((
                "level.cform".into(),
                write("level.cform", c.to_bytes())?.into(),
            ));
        }
        if let Some(h) = &out.hom {
            files_out.push(("level.hom".into(), write("level.hom", h.to_bytes())?.into()));
        }
        if let Some(s) = &out.som {
            files_out.push(("level.som".into(), write("level.som", s.to_bytes())?.into()));
        }
        files_out.extend(ai_details.into_iter().map(|(n, b)| (n, b.into())));
        warnings.extend(out.summary.warnings.iter().cloned());
        // XRLC 4–9 keep the collision inside `level`: say where it went
        let embedded = out.cform.is_none()
            && (files.cform.is_some() || collision.is_some())
            && out.summary.build_out <= 9;
        let collision_from = if embedded {
            format!(
                "{collision_from}, written inside `level` (XRLC {} keeps its collision there)",
                out.summary.build_out
            )
        } else {
            collision_from
        };
        let levelgeom_xray::import::Imported {
            level,
            geom,
            geomx,
            cform,
            hom,
            som,
            edits,
            summary,
        } = out;
        // what the files were made of is freed while they are written
        crate::export::drop_aside((level, geom, geomx, cform, hom, som, edits));
        Ok(XrayImportReport {
            files: files_out,
            summary,
            collision_from,
            warnings,
            inputs: Vec::new(),
        })
    }
}

/// The `level.ai` and `level.details` an X-Ray import writes, and what it left stale in them
/// (into `out.summary.stale`; see [`levelgeom_xray::import::stale`]). In the same build both
/// are copied (the details followed with `details_follow`); into another build neither is
/// written (their versions belong to the build), with a warning naming them.
fn ai_details_out(
    files: &levelgeom_xray::LevelFiles,
    out: &mut levelgeom_xray::import::Imported,
    edited: &levelgeom_scene::Scene,
    base: levelgeom_xray::import::Base<'_>,
    opts: &XrayImportOptions,
    warnings: &mut Vec<String>,
) -> Result<Vec<(String, Vec<u8>)>> {
    let ad = &files.ai_details;
    if ad.ai.is_none() && ad.details.is_none() {
        return Ok(Vec::new());
    }
    if out.summary.build_in != out.summary.build_out {
        for p in ad.paths() {
            warnings.push(format!(
                "{}: not written: its version belongs to XRLC {}'s build, not XRLC {}'s (rebuild it \
                 with the SDK for the new build)",
                p.display(),
                out.summary.build_in,
                out.summary.build_out
            ));
        }
        return Ok(Vec::new());
    }
    let (report, followed) = levelgeom_xray::import::stale::stale(
        base,
        edited,
        &out.summary,
        ad.ai.as_ref().map(|a| &a.1),
        ad.details.as_ref().map(|d| &d.1),
        opts.details_follow,
    )
    .map_err(|source| Error::XrayScene {
        file: files.level_path.display().to_string(),
        source,
    })?;
    out.summary.stale = Some(report);
    let mut written = Vec::new();
    if let Some((_, a)) = &ad.ai {
        written.push(("level.ai".to_string(), a.to_bytes()));
    }
    if let Some((_, d)) = &ad.details {
        let d = followed.as_ref().unwrap_or(d);
        let bytes = d.to_bytes().map_err(|source| Error::Write {
            file: "level.details".into(),
            source,
        })?;
        written.push(("level.details".to_string(), bytes));
    }
    Ok(written)
}

/// `files` with the empty name field of an XRLC 4–10 `level` header filled with the name of
/// the folder they go into (as xrLC wrote the level's name there); `None` when there is
/// nothing to fill (a 4-byte header, or the source's name kept).
pub fn named_xray_level(
    files: &[(String, FileBytes)],
    outdir: &Path,
) -> Option<Vec<(String, FileBytes)>> {
    let name = outdir.file_name()?.to_string_lossy().into_owned();
    let k = files.iter().position(|(n, _)| n == "level")?;
    let mut bytes = files[k].1.to_vec();
    if !levelgeom_xray::level::fill_header_name(&mut bytes, &name) {
        return None;
    }
    let mut out = files.to_vec();
    out[k].1 = bytes.into();
    Some(out)
}

fn same_file(a: &Path, b: &Path) -> bool {
    levelgeom_binary::same_file(a, b)
}

/// Write `files` (`(name, bytes)`) into the folder `outdir`, all or nothing: every file goes
/// into a fresh temporary folder beside it first and is moved in only when all were written.
/// `outdir` may be absent or empty; an existing folder with anything in it is written only
/// with `force` (its other files stay). No file of `protect` (the inputs) and no folder that
/// holds one of them is ever written into. Returns the paths written with their sizes.
///
/// # Errors
/// [`Error::Io`] naming the path: the folder is an input's folder, is not empty (without
/// `force`), is not a folder, or cannot be written (then it is left as it was).
pub fn write_level_folder<B: AsRef<[u8]>>(
    outdir: &Path,
    files: &[(String, B)],
    protect: &[PathBuf],
    force: bool,
) -> Result<Vec<(PathBuf, u64)>> {
    use levelgeom_binary::folder::{self, Existing, FolderIoError, Staging};
    let err = |path: &Path, kind: std::io::ErrorKind, msg: &str| Error::Io {
        path: path.to_path_buf(),
        source: std::io::Error::new(kind, msg.to_string()),
    };
    let io = |e: FolderIoError| Error::Io {
        path: e.path,
        source: e.source,
    };
    for p in protect {
        let dir = p
            .parent()
            .filter(|d| !d.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        if same_file(outdir, p) || same_file(outdir, dir) {
            return Err(err(
                outdir,
                std::io::ErrorKind::AlreadyExists,
                "is the folder of an input; choose another output folder (the input level is never overwritten)",
            ));
        }
    }
    match folder::inspect(outdir).map_err(io)? {
        Existing::NotAFolder => {
            return Err(err(
                outdir,
                std::io::ErrorKind::AlreadyExists,
                "exists and is not a folder",
            ))
        }
        Existing::NotEmpty if !force => {
            return Err(err(
                outdir,
                std::io::ErrorKind::AlreadyExists,
                "the folder is not empty; choose another output folder or pass --force",
            ));
        }
        Existing::Absent | Existing::Empty | Existing::NotEmpty => {}
    }
    // what is in the way, before anything is written
    if let Some(to) = folder::folder_in_the_way(outdir, files.iter().map(|(n, _)| n.as_str())) {
        return Err(err(
            &to,
            std::io::ErrorKind::AlreadyExists,
            "a folder is in the way",
        ));
    }
    let tmp = Staging::beside(outdir).map_err(io)?;
    for (name, bytes) in files {
        tmp.write(name, bytes.as_ref()).map_err(io)?;
    }
    let names: Vec<String> = files.iter().map(|(n, _)| n.clone()).collect();
    tmp.commit(&names, &[]).map_err(io)?;
    Ok(files
        .iter()
        .map(|(n, b)| (outdir.join(n), b.as_ref().len() as u64))
        .collect())
}

/// What [`LevelFile::write_sample`] wrote.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct SampleReport {
    /// The files (OBJ first, then MTL and the texture pages), with their sizes.
    pub files: Vec<(PathBuf, u64)>,
    /// Triangles of the sample.
    pub triangles: usize,
    /// Materials it uses.
    pub materials: usize,
}

impl LevelFile {
    /// Write [`LevelFile::sample`] as `obj` with its MTL (`<stem>.mtl`) and the texture pages
    /// it uses beside it. Everything is encoded before the first file is written; existing
    /// files are replaced only with `force`.
    ///
    /// # Errors
    /// As [`LevelFile::sample`]; an existing output without `force`; I/O.
    pub fn write_sample(&self, plaza: bool, obj: &Path, force: bool) -> Result<SampleReport> {
        use levelgeom_export::obj::{to_obj, ObjOptions};
        let scene = self.sample(plaza)?;
        let stem = obj
            .file_stem()
            .map_or_else(|| "sample".into(), |s| s.to_string_lossy().into_owned());
        let mtl = format!("{stem}.mtl");
        let o = to_obj(
            &scene,
            &ObjOptions {
                mtl_file: mtl.clone(),
                ..ObjOptions::default()
            },
        );
        let dir = obj
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .map_or_else(|| PathBuf::from("."), PathBuf::from);
        let mut files = vec![
            (obj.to_path_buf(), o.obj.into_bytes()),
            (dir.join(&mtl), o.mtl.into_bytes()),
        ];
        let pngs = levelgeom_export::encode_textures_subset(&scene, Some(&o.textures)).map_err(
            |source| Error::Encode {
                file: self.display_name(),
                source,
            },
        )?;
        files.extend(pngs.into_iter().map(|(n, b)| (dir.join(n), b)));
        // the OBJ, its MTL and its pages: all or nothing
        levelgeom_binary::write_group(&files, &[self.path()], force).map_err(|e| Error::Io {
            path: e.path,
            source: e.source,
        })?;
        Ok(SampleReport {
            files: files
                .iter()
                .map(|(p, b)| (p.clone(), b.len() as u64))
                .collect(),
            triangles: scene.mesh_triangle_count(),
            materials: scene.materials.len(),
        })
    }
}
