//! The edit import: an edited export mapped back onto the base level's tiles.
//!
//! Each node of the edited file that names a tile (`tile_TTTT_mMMM`, extras `tile`/`model`)
//! is compared with what export wrote for that tile ([`super::matching`]):
//!
//! * **untouched** (same triangles, UVs, colours and materials): the tile's MAP records
//!   (A, B, model index, colour block, swap record) and its TRAK model stay byte for byte;
//! * **moved** by a translation to another cell centre and/or height and a quarter-turn yaw:
//!   only records A and B change (and the swap record's cell and height, docs/formats/argonaut-wad.md §18.10); the model,
//!   so its collision, moves with the placement;
//! * **moved off the grid, or reshaped**: the tile is removed and the node's triangles are cut
//!   into new tiles like new geometry ([`super::cut`]);
//! * **missing** from the file: the tile is removed (with `keep_tiles`: kept), and with it its
//!   collision, which lives in its model. Tiles without a node (collision-only tiles such as
//!   the water plane) are always kept.
//!
//! Nodes that name no tile (or a tile another node already took) are new geometry. New and
//! reshaped geometry gets derived collision (floors and walls, [`super::FLOOR_MIN_NY`]) whose
//! ground material and group are those of the nearest collision polygon of the same kind
//! (floor or wall; centroid distance) of the base: of the reshaped tile itself when it has
//! one, else of the whole level (material 0 and group 0/1 when the level has none).
//!
//! Models are never removed or renumbered (swap records and other tiles may share them); new
//! models are appended to TRAK. MAP refers to tiles only through the order of the swap list
//! (record k belongs to the k-th tile with an anim flag, docs/formats/argonaut-wad.md §18.10): removing a swap tile
//! drops its record, so the rest still pair up. No other part of MAP is known to name tiles:
//! objects hold positions and indices into the params and route-node lists (docs/formats/argonaut-wad.md §8), route
//! nodes and paths hold positions; the 90-byte strat records are only partly understood (a
//! tile index in them, none known, would not be renumbered). All of them stay byte for byte.
//!
//! A collision mesh that equals what export wrote (per `matNN_grpG` object) is "not edited":
//! collision follows the tiles. An object that differs replaces that (material, group) of the
//! level: its polygons are removed from every model the written tiles use, and the object's
//! triangles are cut into the cells they cover ([`super::collision`]).

use std::collections::{BTreeMap, BTreeSet};

use serde::Serialize;

use super::matching::{self, Motion, Reference};
use super::BaseParts;
use super::{
    base_parts, collision, cut, given_collision, map, CollisionTriangle, Frame, ImportError,
    ImportOptions, ImportSummary, IndexedTri, MeshTriangle, Zones, FLOOR_MIN_NY, MAX_GRID,
};
use crate::level::{ChunkData, Level};
use crate::model::Model;
use crate::probe::group_of;
use crate::scene::placement::Placement;
use crate::scene::{SceneOptions, TextView};

/// The tile a node of the edited file says it came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct TileSource {
    /// MAP tile index.
    pub tile: usize,
    /// TRAK model index, when the node says it.
    pub model: Option<u32>,
}

/// The triangles of one node of the edited file.
#[derive(Clone, Debug, PartialEq)]
pub struct MeshPart {
    /// The node's name (for the summary).
    pub name: String,
    /// The tile it came from, from its name or extras; `None` for new geometry.
    pub source: Option<TileSource>,
    /// Its triangles in export (world) space.
    pub triangles: Vec<MeshTriangle>,
    /// A swap tile's alternative state (`tile_TTTT_mBBB_swap`, as in export's `swap.glb`):
    /// compared with the export's, never imported.
    pub swap: bool,
}

/// A tile moved in a way the grid can express.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct MovedTile {
    /// Tile index in the base.
    pub tile: usize,
    /// Old position (record A).
    pub from: [f32; 3],
    /// New position.
    pub to: [f32; 3],
    /// Old yaw.
    pub rot_from: u32,
    /// New yaw.
    pub rot_to: u32,
}

/// What an edit did to the base's tiles (indices are the base's unless said otherwise).
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct TileEdits {
    /// Tiles written unchanged (untouched nodes, and tiles without a node).
    pub kept: Vec<usize>,
    /// Tiles moved by a translation / quarter-turn yaw: only their placement changed.
    pub moved: Vec<MovedTile>,
    /// Tiles whose triangles changed: removed, their triangles cut into new tiles.
    pub reshaped: Vec<usize>,
    /// Tiles moved rigidly off the cell centres: removed, their triangles cut into new tiles.
    pub recut: Vec<usize>,
    /// Tiles the file no longer holds: removed with their collision.
    pub removed: Vec<usize>,
    /// How many of the base's tiles with geometry the file holds (untouched, moved, reshaped
    /// or re-cut).
    pub in_mesh: usize,
    /// Tiles the file does not hold, kept because of `keep_tiles`.
    pub missing_kept: Vec<usize>,
    /// New tiles, as indices of the written MAP.
    pub added: Vec<usize>,
    /// Nodes taken as new geometry.
    pub new_nodes: Vec<String>,
    /// Swap tiles whose swap record (and alternative) was kept.
    pub swaps_kept: Vec<usize>,
    /// Swap tiles removed, reshaped or recut: their swap record was dropped.
    pub swaps_dropped: Vec<usize>,
    /// Swap alternatives (`…_swap` nodes) that differ from the export's: not imported, the
    /// alternative model stays as it was.
    pub swap_edits_ignored: Vec<String>,
    /// What happened to the collision.
    pub collision: String,
    /// Collision objects (`matNN_grpG`) of the collision mesh that differ from the export's
    /// and replaced that material and group.
    pub collision_edited: Vec<String>,
}

/// What happens to one base tile.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Fate {
    Kept,
    Moved { pos: [f32; 3], rot: u32 },
    Removed,
}

/// The kind of a surface by its unit normal's y.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kind {
    Floor,
    Wall,
    Ceiling,
}

fn kind(ny: f64) -> Kind {
    if ny > f64::from(FLOOR_MIN_NY) {
        Kind::Floor
    } else if ny < -f64::from(FLOOR_MIN_NY) {
        Kind::Ceiling
    } else {
        Kind::Wall
    }
}

/// A base collision polygon in world space, for the nearest-polygon rule.
struct BasePoly {
    tile: usize,
    centroid: [f64; 3],
    kind: Kind,
    material: u8,
    group: u8,
}

fn base_polys(trak: &crate::trak::Trak, m: &crate::map::Map) -> Vec<BasePoly> {
    let mut out = Vec::new();
    for (ti, tile) in m.tiles.iter().enumerate() {
        let mi = m.model_indices.get(ti).copied().unwrap_or(tile.model);
        let Some(model) = trak.models.get(mi as usize) else {
            continue;
        };
        let place = Placement::tile(tile.pos[0], tile.pos[1], tile.pos[2], tile.rot, false);
        for (j, poly) in model.collision.iter().enumerate() {
            let Ok(c) = crate::scene::collision::corners(poly) else {
                continue;
            };
            if c.is_empty() {
                continue;
            }
            let w: Vec<[f64; 3]> = c.iter().map(|p| place.point64(*p)).collect();
            let n = crate::scene::collision::polygon_normal(&w);
            let len = crate::scene::collision::dot(n, n).sqrt();
            if !(len.is_finite() && len > 0.0) {
                continue;
            }
            let k = w.len() as f64;
            let centroid = [0, 1, 2].map(|a| w.iter().map(|p| p[a]).sum::<f64>() / k);
            out.push(BasePoly {
                tile: ti,
                centroid,
                kind: kind(n[1] / len),
                material: poly.material,
                group: group_of(model, j),
            });
        }
    }
    out
}

/// Material and group of the polygon of `kind` nearest to `c`, preferring tile `prefer`.
fn nearest(polys: &[BasePoly], c: [f64; 3], k: Kind, prefer: Option<usize>) -> Option<(u8, u8)> {
    let best = |only: Option<usize>| {
        polys
            .iter()
            .filter(|p| p.kind == k && only.is_none_or(|t| p.tile == t))
            .map(|p| {
                let d = [0, 1, 2].map(|a| p.centroid[a] - c[a]);
                (d[0] * d[0] + d[1] * d[1] + d[2] * d[2], p)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, p)| (p.material, p.group))
    };
    prefer.and_then(|t| best(Some(t))).or_else(|| best(None))
}

/// Import an edited export (`parts`, one per node) into a copy of `base`, keeping what was not
/// edited (see the module docs). `collision` is a collision mesh (export's `collision.glb`, or
/// the file's `collision` tree): where it equals the export's, collision follows the tiles.
///
/// # Errors
/// As [`super::import`]; also a tile moved outside the cells a grid can have.
pub fn edit(
    base: &Level,
    parts: &[MeshPart],
    collision: Option<&[CollisionTriangle]>,
    opts: &ImportOptions,
) -> Result<(Level, ImportSummary), ImportError> {
    let BaseParts {
        trak,
        map: base_map,
        text,
        entries,
        states,
    } = base_parts(base, opts)?;
    let n = base_map.tiles.len();
    let scene = crate::scene::build(
        trak,
        base_map,
        None,
        &TextView::from_text(text),
        &SceneOptions {
            collision: collision.is_some(),
            ..SceneOptions::default()
        },
    );
    let reference: Reference = matching::reference(&scene, n);
    drop(scene);
    let mut sum = ImportSummary {
        mode: "edit".into(),
        grid_before: (base_map.grid_w, base_map.grid_h),
        collision_source: "follows the tiles".into(),
        ..ImportSummary::default()
    };
    let mut ed = TileEdits::default();

    let NodeFates {
        fate,
        new_tris,
        new_from,
    } = node_fates(parts, &reference, base_map, opts, &mut ed)?;
    let mut tris = derived_collision(trak, base_map, &new_tris, &new_from, &mut sum);
    let strip = match collision {
        Some(list) => edited_collision(list, &reference, &mut tris, &mut sum, &mut ed)?,
        None => BTreeSet::new(),
    };
    ed.collision = sum.collision_source.clone();

    // New tiles.
    let cut = cut(
        &new_tris,
        &tris,
        &Frame {
            entries: &entries,
            states: &states,
            first_model: trak.models.len(),
            grid_before: (base_map.grid_w, base_map.grid_h),
        },
        opts,
        &mut sum,
    )?;
    let mut grid = cut.grid;
    for f in &fate {
        if let Fate::Moved { pos, .. } = f {
            let (cx, cz) = (f64::from(pos[0]).floor(), (-f64::from(pos[2])).floor());
            grid = (grid.0.max(cx as u32 + 1), grid.1.max(cz as u32 + 1));
        }
    }

    let mut m = kept_tiles(base_map, &fate, &mut ed);
    let first_new = m.tiles.len();
    ed.added = (first_new..first_new + cut.tiles.len()).collect();
    sum.tiles = cut.tiles.len();
    sum.models = cut.models.len();
    sum.kept_tiles = first_new;
    sum.grid_after = grid;
    sum.zones = match opts.zones {
        Zones::Keep => "kept",
        Zones::Flat => "flattened",
    }
    .into();
    map::rebuild(&mut m, cut.tiles, true, opts.zones, grid);

    let models = trak_models(trak, &m, &strip, cut.models);
    let level = with_chunks(base, models, m)?;
    sum.edit = Some(ed);
    Ok((level, sum))
}

/// What the nodes say of the base tiles (the edits recorded in `ed`), and the new triangles
/// with the base tile each replaces.
fn node_fates(
    parts: &[MeshPart],
    reference: &Reference,
    base_map: &crate::map::Map,
    opts: &ImportOptions,
    ed: &mut TileEdits,
) -> Result<NodeFates, ImportError> {
    let n = base_map.tiles.len();
    let mut fate: Vec<Option<Fate>> = vec![None; n];
    let mut new_tris: Vec<MeshTriangle> = Vec::new();
    let mut new_from: Vec<Option<usize>> = Vec::new();
    for part in parts.iter().filter(|p| p.swap) {
        let same = part.source.is_some_and(|src| {
            reference.swaps.iter().any(|(t, tris)| {
                *t == src.tile && matching::same(tris, &part.triangles, opts.uv_tolerance)
            })
        });
        if !same {
            ed.swap_edits_ignored.push(part.name.clone());
        }
    }
    for part in parts.iter().filter(|p| !p.swap) {
        let src = part
            .source
            .map(|s| s.tile)
            .filter(|&t| t < n && !reference.tiles[t].is_empty() && fate[t].is_none());
        let Some(t) = src else {
            ed.new_nodes.push(part.name.clone());
            new_from.extend(std::iter::repeat_n(None, part.triangles.len()));
            new_tris.extend(part.triangles.iter().cloned());
            continue;
        };
        let tile = &base_map.tiles[t];
        match matching::classify(
            &reference.tiles[t],
            &part.triangles,
            tile.pos,
            tile.rot,
            opts.uv_tolerance,
        ) {
            Motion::Same => fate[t] = Some(Fate::Kept),
            Motion::Grid { pos, rot } => {
                let (fx, fz) = (f64::from(pos[0]).floor(), (-f64::from(pos[2])).floor());
                let range = 0.0..f64::from(MAX_GRID);
                if !range.contains(&fx) || !range.contains(&fz) {
                    return Err(ImportError::TileOutsideGrid {
                        node: part.name.clone(),
                        tile: t,
                        x: pos[0],
                        z: pos[2],
                    });
                }
                fate[t] = Some(Fate::Moved { pos, rot });
                ed.moved.push(MovedTile {
                    tile: t,
                    from: tile.pos,
                    to: pos,
                    rot_from: tile.rot,
                    rot_to: rot,
                });
            }
            m @ (Motion::OffGrid | Motion::Reshaped) => {
                fate[t] = Some(Fate::Removed);
                if m == Motion::OffGrid {
                    ed.recut.push(t);
                } else {
                    ed.reshaped.push(t);
                }
                new_from.extend(std::iter::repeat_n(Some(t), part.triangles.len()));
                new_tris.extend(part.triangles.iter().cloned());
            }
        }
    }
    ed.in_mesh = fate.iter().filter(|f| f.is_some()).count();
    for (t, f) in fate.iter_mut().enumerate() {
        if f.is_none() {
            if reference.tiles[t].is_empty() {
                *f = Some(Fate::Kept);
            } else if opts.keep_tiles {
                ed.missing_kept.push(t);
                *f = Some(Fate::Kept);
            } else {
                ed.removed.push(t);
                *f = Some(Fate::Removed);
            }
        }
    }
    let fate: Vec<Fate> = fate.into_iter().map(|f| f.unwrap_or(Fate::Kept)).collect();
    ed.kept = (0..n).filter(|&t| fate[t] == Fate::Kept).collect();
    Ok(NodeFates {
        fate,
        new_tris,
        new_from,
    })
}

/// What [`node_fates`] found.
struct NodeFates {
    /// Per base tile.
    fate: Vec<Fate>,
    /// The new triangles…
    new_tris: Vec<MeshTriangle>,
    /// …and the base tile each replaces.
    new_from: Vec<Option<usize>>,
}

/// Collision for the new triangles, its material and group taken from the nearest base
/// polygon of its kind (preferring the tile it replaces).
fn derived_collision(
    trak: &crate::trak::Trak,
    base_map: &crate::map::Map,
    new_tris: &[MeshTriangle],
    new_from: &[Option<usize>],
    sum: &mut ImportSummary,
) -> Vec<IndexedTri> {
    let polys = base_polys(trak, base_map);
    let mut tris = Vec::new();
    for (i, t) in new_tris.iter().enumerate() {
        let p = t.positions.map(|c| c.map(f64::from));
        if !p.iter().flatten().all(|v| v.is_finite()) {
            continue; // cut() names the triangle
        }
        let Some(nrm) = collision::tri_normal(&p) else {
            sum.collision_degenerate += 1;
            continue;
        };
        let k = kind(nrm[1]);
        if k == Kind::Ceiling {
            continue;
        }
        let c = [0, 1, 2].map(|a| (p[0][a] + p[1][a] + p[2][a]) / 3.0);
        let own = if k == Kind::Floor { 0 } else { 1 };
        let (material, group) =
            nearest(&polys, c, k, new_from.get(i).copied().flatten()).unwrap_or((0, own));
        tris.push((
            "mesh",
            i,
            collision::WorldTri {
                p,
                n: nrm,
                material,
                group,
            },
        ));
    }
    tris
}

/// The `(material, group)` pairs where the collision mesh `list` differs from what export
/// wrote: their triangles are added to `tris`, and the base models lose theirs.
fn edited_collision(
    list: &[CollisionTriangle],
    reference: &Reference,
    tris: &mut Vec<IndexedTri>,
    sum: &mut ImportSummary,
    ed: &mut TileEdits,
) -> Result<BTreeSet<(u8, u8)>, ImportError> {
    let mut strip: BTreeSet<(u8, u8)> = BTreeSet::new();
    let mut given: BTreeMap<(u8, u8), Vec<[[f32; 3]; 3]>> = BTreeMap::new();
    for t in list {
        given
            .entry((t.material, t.group))
            .or_default()
            .push(t.positions);
    }
    let exported: BTreeMap<(u8, u8), &Vec<[[f64; 3]; 3]>> =
        reference.collision.iter().map(|(k, v)| (*k, v)).collect();
    let keys: BTreeSet<(u8, u8)> = given.keys().chain(exported.keys()).copied().collect();
    for key in keys {
        let g = given.get(&key).map_or(&[][..], |v| v.as_slice());
        let e = exported.get(&key).map_or(&[][..], |v| v.as_slice());
        if !matching::same_collision(e, g) {
            strip.insert(key);
        }
    }
    if strip.is_empty() {
        sum.collision_source =
            "follows the tiles (the collision mesh is what export wrote: not edited)".into();
    } else {
        ed.collision_edited = strip
            .iter()
            .map(|(m, g)| format!("mat{m:02}_grp{g}"))
            .collect();
        sum.collision_source = format!(
            "follows the tiles, except {} replaced from the collision mesh",
            ed.collision_edited.join(", ")
        );
        let edited: Vec<CollisionTriangle> = list
            .iter()
            .filter(|t| strip.contains(&(t.material, t.group)))
            .cloned()
            .collect();
        tris.extend(given_collision(&edited, sum)?);
    }
    Ok(strip)
}

/// The MAP with the kept and moved tiles in their order and the swap records of the kept swap
/// tiles (the base's when no tile changed); the new tiles are added by the caller.
fn kept_tiles(base_map: &crate::map::Map, fate: &[Fate], ed: &mut TileEdits) -> crate::map::Map {
    let mut m = base_map.clone();
    let edited_tiles = fate.iter().any(|f| *f != Fate::Kept);
    if edited_tiles {
        m.tiles.clear();
        m.transforms.clear();
        m.model_indices.clear();
        m.colours.clear();
        let mut swaps = Vec::new();
        let mut flagged = 0usize;
        for (t, f) in fate.iter().enumerate() {
            let mut tile = base_map.tiles[t];
            let swap = if tile.anim_flag != 0 {
                flagged += 1;
                base_map.swaps.as_ref().and_then(|s| s.get(flagged - 1))
            } else {
                None
            };
            let (pos, rot) = match *f {
                Fate::Removed => {
                    if tile.anim_flag != 0 {
                        ed.swaps_dropped.push(t);
                    }
                    continue;
                }
                Fate::Kept => (None, tile.rot),
                Fate::Moved { pos, rot } => (Some(pos), rot),
            };
            let transform = match pos {
                Some(p) => {
                    tile.pos = p;
                    tile.rot = rot;
                    map::transform(p, rot)
                }
                None => base_map.transforms.get(t).copied().unwrap_or_default(),
            };
            if let Some(s) = swap {
                let mut s = *s;
                if let Some(p) = pos {
                    // docs/formats/argonaut-wad.md §18.10: {cellX, y (20.12), cellZ}
                    s.pos = [
                        (f64::from(p[0]) - 0.5).round() as i32,
                        (f64::from(p[1]) * 4096.0).round() as i32,
                        (-f64::from(p[2]) - 0.5).round() as i32,
                    ];
                }
                swaps.push(s);
                ed.swaps_kept.push(t);
            }
            m.tiles.push(tile);
            m.transforms.push(transform);
            m.model_indices
                .push(base_map.model_indices.get(t).copied().unwrap_or(tile.model));
            m.colours
                .push(base_map.colours.get(t).cloned().unwrap_or_default());
        }
        if let Some(s) = &mut m.swaps {
            // records beyond the flagged tiles belong to no tile: kept as they were
            swaps.extend(s.iter().skip(flagged).copied());
            *s = swaps;
        }
    } else {
        let mut flagged = 0usize;
        for (t, tile) in base_map.tiles.iter().enumerate() {
            if tile.anim_flag != 0 {
                flagged += 1;
                if base_map.swaps.as_ref().is_some_and(|s| s.len() >= flagged) {
                    ed.swaps_kept.push(t);
                }
            }
        }
    }
    m
}

/// The TRAK models: the base's (the edited collision objects in `strip` stripped from the
/// models `m` uses), then the new ones; `None` when nothing changed.
fn trak_models(
    trak: &crate::trak::Trak,
    m: &crate::map::Map,
    strip: &BTreeSet<(u8, u8)>,
    new_models: Vec<Model>,
) -> Option<Vec<Model>> {
    let mut models: Option<Vec<Model>> = None;
    if !strip.is_empty() {
        let mut ms = trak.models.clone();
        let used: BTreeSet<u32> = m.model_indices.iter().copied().collect();
        for mi in used {
            if let Some(model) = ms.get_mut(mi as usize) {
                strip_collision(model, strip);
            }
        }
        models = Some(ms);
    }
    if !new_models.is_empty() {
        models
            .get_or_insert_with(|| trak.models.clone())
            .extend(new_models);
    }
    models
}

/// `base` with the TRAK models `models` (when some) and the MAP `m` (when it differs); the
/// size fields of new contents say what is written (no inherited size quirk).
fn with_chunks(
    base: &Level,
    mut models: Option<Vec<Model>>,
    mut m: crate::map::Map,
) -> Result<Level, ImportError> {
    let mut level = base.clone();
    for c in &mut level.chunks {
        match &mut c.data {
            ChunkData::Trak(t) => match models.take() {
                Some(ms) => t.models = ms,
                None => continue,
            },
            ChunkData::Map(old) => {
                if *old == m {
                    continue;
                }
                *old = std::mem::take(&mut m);
            }
            _ => continue,
        }
        // New contents: the size fields say what is written (no inherited size quirk).
        let len = c.data.encode()?.len();
        c.declared_size = levelgeom_binary::fit(len, || format!("{}/size", c.tag.path_name()))?;
        c.original_len = len;
    }
    Ok(level)
}

/// Remove the collision polygons of the `(material, group)` pairs in `strip` from a model,
/// keeping the order of the rest and recounting the three groups.
fn strip_collision(model: &mut Model, strip: &BTreeSet<(u8, u8)>) {
    let mut counts = [0u16; 3];
    let polys = std::mem::take(&mut model.collision);
    for (j, p) in polys.into_iter().enumerate() {
        let g = group_of(model, j);
        if strip.contains(&(p.material, g)) {
            continue;
        }
        counts[usize::from(g).min(2)] += 1;
        model.collision.push(p);
    }
    model.header.collision_counts = counts;
}

/// A list of tile indices, shortened after 20.
fn list(v: &[usize]) -> String {
    let mut s: Vec<String> = v.iter().take(20).map(|t| t.to_string()).collect();
    if v.len() > 20 {
        s.push(format!("… ({} in all)", v.len()));
    }
    if s.is_empty() {
        "none".into()
    } else {
        s.join(", ")
    }
}

impl std::fmt::Display for TileEdits {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "mode: edit (tiles mapped back through their nodes); {} kept, {} moved, {} reshaped, {} re-cut, {} removed, {} added",
            self.kept.len(),
            self.moved.len(),
            self.reshaped.len(),
            self.recut.len(),
            self.removed.len(),
            self.added.len()
        )?;
        for m in &self.moved {
            writeln!(
                f,
                "  moved tile {}: ({}, {}, {}) yaw {} → ({}, {}, {}) yaw {}",
                m.tile,
                m.from[0],
                m.from[1],
                m.from[2],
                m.rot_from,
                m.to[0],
                m.to[1],
                m.to[2],
                m.rot_to
            )?;
        }
        if !self.reshaped.is_empty() {
            writeln!(f, "  reshaped tiles (new models): {}", list(&self.reshaped))?;
        }
        if !self.recut.is_empty() {
            writeln!(
                f,
                "  tiles moved off the cell centres (re-cut): {}",
                list(&self.recut)
            )?;
        }
        if !self.removed.is_empty() {
            writeln!(f, "  removed tiles: {}", list(&self.removed))?;
        }
        if !self.missing_kept.is_empty() {
            writeln!(
                f,
                "  tiles not in the mesh, kept: {}",
                list(&self.missing_kept)
            )?;
        }
        if !self.added.is_empty() {
            writeln!(
                f,
                "  new tiles: {} (from {} new node(s) and the re-cut tiles)",
                list(&self.added),
                self.new_nodes.len()
            )?;
        }
        if !self.swap_edits_ignored.is_empty() {
            writeln!(
                f,
                "  swap alternatives edited, not imported (they stay as they were): {}",
                self.swap_edits_ignored.join(", ")
            )?;
        }
        write!(
            f,
            "swap tiles: {} kept, {} dropped{}",
            self.swaps_kept.len(),
            self.swaps_dropped.len(),
            if self.swaps_dropped.is_empty() {
                String::new()
            } else {
                format!(
                    " (tiles {}: removed or reshaped)",
                    list(&self.swaps_dropped)
                )
            }
        )
    }
}
