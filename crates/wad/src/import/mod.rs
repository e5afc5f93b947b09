//! Import: put edited geometry back into a level (the inverse of [`crate::scene`]).
//!
//! [`import`] takes a base level, a world mesh in the exporter's space (README "Exporting an
//! Argonaut WAD": right-handed, +y up, one unit per cell, cells at x ∈ [0, W), z ∈ (−H, 0];
//! triangles counter-clockwise seen from their front, glTF's convention) and optional
//! collision triangles, and writes new TRAK models and the MAP tile part, keeping every rule of
//! docs/formats/argonaut-wad.md §21 (with docs/formats/argonaut-wad.md §12 where it corrects the seed) so that [`crate::check::check`] passes.
//! Everything else stays byte-identical: every chunk other than TRAK and MAP, and MAP's
//! params, strat records, route nodes, objects, chain table, view distance and final word (only the zone
//! table and grid change, per [`Zones`]); the file header keeps its bias
//! ([`Level::to_bytes`]).
//!
//! [`import`] is the whole-mesh cut (the CLI's `import --rebuild`). [`edit()`] (the CLI's
//! default for an edited export) maps nodes back onto the base's tiles through their names and
//! extras, keeps every tile that was not edited byte for byte, moves tiles whose move the grid
//! can express, and cuts only new and reshaped geometry with the steps below ([`edit`],
//! [`matching`]).
//!
//! The steps, one module each:
//! * [`uvfit`]: material name and UVs → texture entry, UV flags (0x800, 0x10, 0x20), corner
//!   rotation, double-sidedness (0x400);
//! * [`tiling`]: triangles → cells (by centroid) → tile models in the cell's frame (origin the
//!   cell centre, rotation 0), at most 8000 vertices each;
//! * [`collision`]: collision triangles → pieces in every cell they cover, within the ±8-unit
//!   range of their tile (clipped otherwise), encoded per docs/formats/argonaut-wad.md §12.4 with
//!   [`author::collision_polygon_fitted`] in game space (z negated);
//! * [`map`]: the MAP tile records, colours, swaps, grid and zones.
//!
//! # Conventions (the exact inverses of the exporter)
//! * Positions: `local = world − (cx + 0.5, y_band, −cz − 0.5)`; rotation 0, so the exporter's
//!   placement `X = x + vx` etc. gives the world position back to f32 rounding.
//! * Winding: a face is stored in the triangle's own counter-clockwise order (cyclically
//!   rotated for the UV fit) with the plane of that order, `n = normalize((v1 − v0) × (v2 −
//!   v0))`, `d = n · v0`; the exporter emits a face whose stored plane agrees with its order
//!   unchanged, so fronts survive export → import → export.
//! * Colours: `byte = round(c · 128)` clamped to 0..=255 per channel (1.0 → 0x80, which the
//!   exporter shows as 1.0); corners without colours get 0x80 (white). Byte 3 is 0: one colour
//!   set. The input alpha is ignored (the exporter writes 1.0).
//! * Collision: given triangles keep their material and group (0..=2); their surface normal is
//!   their counter-clockwise normal (the exporter orders collision corners counter-clockwise
//!   about the surface normal). Without collision triangles it is derived from the render
//!   mesh: faces with normal y > [`FLOOR_MIN_NY`] are floors (group 0), faces with normal y <
//!   −[`FLOOR_MIN_NY`] (ceilings) are skipped, the rest are walls (group 1); material 0.
//!   Triangles are not merged into quads.

use std::collections::BTreeMap;
use std::fmt;

use levelgeom_binary::WriteError;
use serde::Serialize;

use crate::author;
use crate::check::render_state;
use crate::level::{ChunkData, Level};
use crate::model::{CollisionPoly, Model};

/// Bounding-box margin (docs/formats/argonaut-wad.md §22: "1/128 margin is probably enough");
/// the generator re-uses it.
pub const BOX_MARGIN: f32 = 1.0 / 128.0;

pub mod collision;
pub mod edit;
pub mod map;
pub mod matching;
pub mod mesh;
pub mod tiling;
pub mod uvfit;

pub use edit::{edit, MeshPart, MovedTile, TileEdits, TileSource};

use collision::{Piece, WorldTri};
use tiling::{CellModel, PreparedFace};
use uvfit::{Entries, LookSource};

/// Derived collision: a face whose unit normal has y above this is a floor, below its
/// negation a ceiling (skipped), otherwise a wall.
pub const FLOOR_MIN_NY: f32 = 0.7;
/// The largest grid side an import may grow to.
pub const MAX_GRID: u32 = 4096;
/// The largest grid side an import grows to without [`ImportOptions::allow_grow`]: the game's
/// levels are 96 × 96 cells in every sample measured (spec `argonaut-wad.md` §8, ENG
/// `REVERSED/tools/verify_map.py` on 5 levels); the largest grid of all the game's levels is
/// not known to us, so 256 leaves room without letting a stray vertex make a 4096 × 4096 grid
/// (a 67 MB WAD).
pub const SANE_GRID_SIDE: u32 = 256;
/// Growing the grid to more than this many times its cells needs
/// [`ImportOptions::allow_grow`].
pub const SANE_GROWTH: u64 = 4;
/// The MAP colour word of white (0x80 per channel, byte 3 = 0).
pub const WHITE_WORD: u32 = 0x0080_8080;

/// One render triangle in export space.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct MeshTriangle {
    /// Corners, counter-clockwise seen from the front (glTF).
    pub positions: [[f32; 3]; 3],
    /// Corner UVs, top-left origin (glTF), if the mesh has them.
    pub uvs: Option<[[f32; 2]; 3]>,
    /// Corner colours as displayed (1.0 = 0x80 in the file), if the mesh has them.
    pub colours: Option<[[f32; 4]; 3]>,
    /// Material name (`page_NN[_blendK][_ds]`, `flat_RRGGBB…`, anything else = default).
    pub material: String,
}

/// One collision triangle in export space; its front (counter-clockwise side) is the surface.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct CollisionTriangle {
    /// Corners.
    pub positions: [[f32; 3]; 3],
    /// Ground material.
    pub material: u8,
    /// Collision group (0..=2).
    pub group: u8,
}

/// What happens to the zone (visibility) table.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub enum Zones {
    /// Zone grid all 0 and zone 0's mask all ones: everything visible from everywhere.
    Flat,
    /// Keep the table and grid; new tiles get the zone of their cell (cells added by growing
    /// the grid are zone 0).
    #[default]
    Keep,
}

/// Import options.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ImportOptions {
    /// Keep the base's tiles (and models) and add the new ones; otherwise replace them.
    pub keep_tiles: bool,
    /// The zone table.
    pub zones: Zones,
    /// The texture entry for materials that are not `page_NN`/`flat_RRGGBB` of this level
    /// (default entry 0).
    pub default_tex: Option<u16>,
    /// The largest UV difference (normalised page units) still counted as a fit.
    pub uv_tolerance: f32,
    /// Let the grid grow past [`SANE_GRID_SIDE`] cells a side or to more than [`SANE_GROWTH`]
    /// times its cells (otherwise [`ImportError::GridGrowth`]).
    pub allow_grow: bool,
    /// The most grid cells one collision triangle may touch
    /// ([`levelgeom_binary::Limits::max_cells_per_triangle`]).
    pub max_cells_per_triangle: u64,
}

impl Default for ImportOptions {
    fn default() -> ImportOptions {
        ImportOptions {
            keep_tiles: false,
            zones: Zones::Keep,
            default_tex: None,
            uv_tolerance: 1e-3,
            allow_grow: false,
            max_cells_per_triangle: levelgeom_binary::Limits::DEFAULT.max_cells_per_triangle,
        }
    }
}

/// What an import did.
#[derive(Clone, Debug, Default, PartialEq, Serialize)]
pub struct ImportSummary {
    /// `edit` ([`edit()`]: tiles mapped back through the nodes that name them) or `rebuild`
    /// ([`import`]: every tile cut from the mesh).
    pub mode: String,
    /// The zone table: `kept` or `flattened`.
    pub zones: String,
    /// What an edit did to the base's tiles ([`edit()`] only).
    pub edit: Option<TileEdits>,
    /// New tiles (render and collision-only).
    pub tiles: usize,
    /// New TRAK models.
    pub models: usize,
    /// Tiles of the base that were kept.
    pub kept_tiles: usize,
    /// Faces written.
    pub faces: usize,
    /// Vertices written.
    pub vertices: usize,
    /// Collision polygons written.
    pub polygons: usize,
    /// Render triangles dropped because they have no area.
    pub degenerate: usize,
    /// Collision triangles dropped because they have no area.
    pub collision_degenerate: usize,
    /// Collision pieces outside the grid's negative edges (dropped).
    pub collision_outside: usize,
    /// Collision polygons that are clipped parts of larger triangles.
    pub collision_clipped: usize,
    /// Where the collision came from: `given` or `derived`.
    pub collision_source: String,
    /// Textured triangles whose UVs fit an entry within the tolerance.
    pub uv_fits: usize,
    /// Textured triangles whose best entry is further off than the tolerance.
    pub uv_misfits: usize,
    /// The largest UV error of a fitted triangle.
    pub uv_max_error: f32,
    /// `page_NN` triangles without UVs (first entry of the page).
    pub uv_missing: usize,
    /// Triangles drawn with a flat-colour entry of their `flat_RRGGBB` material.
    pub flat: usize,
    /// Triangles that got the default entry.
    pub default_material: usize,
    /// Grid size of the base.
    pub grid_before: (u32, u32),
    /// Grid size written.
    pub grid_after: (u32, u32),
    /// Tiles without faces that only carry collision.
    pub collision_only_tiles: usize,
    /// Cells whose geometry needed more than one model (8000-vertex limit).
    pub split_cells: usize,
}

impl fmt::Display for ImportSummary {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if let Some(e) = &self.edit {
            writeln!(f, "{e}")?;
        } else if !self.mode.is_empty() {
            writeln!(f, "mode: {}", self.mode)?;
        }
        writeln!(
            f,
            "tiles: {} new ({} collision-only), {} kept; models: {} new",
            self.tiles, self.collision_only_tiles, self.kept_tiles, self.models
        )?;
        writeln!(
            f,
            "faces: {} ({} degenerate dropped), vertices: {}, cells split for the 8000-vertex limit: {}",
            self.faces, self.degenerate, self.vertices, self.split_cells
        )?;
        writeln!(
            f,
            "uvs: {} fit, {} misfit (largest error {:.6}), {} without uvs; {} flat-colour, {} default material",
            self.uv_fits,
            self.uv_misfits,
            self.uv_max_error,
            self.uv_missing,
            self.flat,
            self.default_material
        )?;
        writeln!(
            f,
            "collision ({}): {} polygons ({} clipped), {} degenerate dropped, {} outside the grid dropped",
            self.collision_source,
            self.polygons,
            self.collision_clipped,
            self.collision_degenerate,
            self.collision_outside
        )?;
        if !self.zones.is_empty() {
            writeln!(f, "zones: {}", self.zones)?;
        }
        if self.grid_before == self.grid_after {
            write!(f, "grid: {}×{}", self.grid_after.0, self.grid_after.1)
        } else {
            write!(
                f,
                "grid: grown from {}×{} to {}×{} (the mesh leaves the grid)",
                self.grid_before.0, self.grid_before.1, self.grid_after.0, self.grid_after.1
            )
        }
    }
}

/// Why an import failed.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum ImportError {
    /// The base has no chunk of this kind.
    #[error("the base level has no {0} chunk")]
    MissingChunk(&'static str),
    /// TEXT has no texture entries, so faces cannot be given any.
    #[error("the base level's TEXT chunk has no texture entries")]
    NoTextureEntries,
    /// `default_tex` is not a texture entry.
    #[error("default texture {index} is not below the {entries} texture entries")]
    BadDefaultTexture {
        /// The option's value.
        index: u16,
        /// The number of entries.
        entries: usize,
    },
    /// A coordinate is NaN or infinite.
    #[error("{what} triangle {index}: a coordinate is not finite")]
    NotFinite {
        /// `mesh` or `collision`.
        what: &'static str,
        /// Triangle index.
        index: usize,
    },
    /// A triangle's centroid lies at negative x or positive z, where no cell can be added
    /// (the grid's origin is fixed: strats and objects are placed in its coordinates), or so
    /// far out that the grid would pass [`MAX_GRID`].
    #[error("mesh triangle {index}: centroid ({x:.3}, {z:.3}) is outside the cells a grid can have (x in [0, {MAX_GRID}), z in (-{MAX_GRID}, 0])")]
    OutsideGrid {
        /// Triangle index.
        index: usize,
        /// Centroid x.
        x: f32,
        /// Centroid z.
        z: f32,
    },
    /// An edit moves a tile (node `node`) to a cell no grid can have (negative x, positive z,
    /// or past [`MAX_GRID`]): e.g. a quarter turn about the world origin instead of the tile's
    /// centre.
    #[error("node {node} moves tile {tile} to ({x:.3}, {z:.3}), outside the cells a grid can have (x in [0, {MAX_GRID}), z in (-{MAX_GRID}, 0]); turn a tile about its own centre")]
    TileOutsideGrid {
        /// The node's name.
        node: String,
        /// The base tile index.
        tile: usize,
        /// New x.
        x: f32,
        /// New z.
        z: f32,
    },
    /// The mesh would grow the grid past a sane bound ([`SANE_GRID_SIDE`], [`SANE_GROWTH`])
    /// without [`ImportOptions::allow_grow`].
    #[error("the mesh grows the grid from {}×{} to {}×{} cells ({:.1}× the cells{}); pass --allow-grow to allow it", before.0, before.1, after.0, after.1, *after_cells as f64 / (*before_cells).max(1) as f64, if after.0.max(after.1) > SANE_GRID_SIDE { format!(", past {SANE_GRID_SIDE} cells a side") } else { String::new() })]
    GridGrowth {
        /// The base's grid.
        before: (u32, u32),
        /// The grid the mesh needs.
        after: (u32, u32),
        /// Cells before.
        before_cells: u64,
        /// Cells after.
        after_cells: u64,
    },
    /// One collision triangle touches more grid cells than the limit.
    #[error("{what} triangle {index}: its bounding box covers {cells} grid cells, more than the limit of {limit} (Limits::max_cells_per_triangle)")]
    TooManyCells {
        /// `collision`, or `mesh` when the collision is derived from it.
        what: &'static str,
        /// Triangle index.
        index: usize,
        /// Cells of its bounding box.
        cells: u64,
        /// The limit.
        limit: u64,
    },
    /// A collision group is not 0, 1 or 2.
    #[error("collision triangle {index}: group {group} is not 0, 1 or 2")]
    BadGroup {
        /// Triangle index.
        index: usize,
        /// The group.
        group: u8,
    },
    /// A value does not fit its field (a collision plane, a count).
    #[error(transparent)]
    Write(#[from] WriteError),
}

/// The MAP colour word of a displayed colour: `round(c · 128)` clamped per channel, byte 3 = 0.
pub fn colour_word(c: [f32; 4]) -> u32 {
    let b = |v: f32| {
        if v.is_finite() {
            (v * 128.0).round().clamp(0.0, 255.0) as u32
        } else {
            0x80
        }
    };
    b(c[0]) | (b(c[1]) << 8) | (b(c[2]) << 16)
}

fn finite3(p: &[[f32; 3]; 3]) -> bool {
    p.iter().flatten().all(|v| v.is_finite())
}

fn to64(p: [f32; 3]) -> [f64; 3] {
    p.map(f64::from)
}

/// What both imports ([`import`], [`edit`]) take from the base level: its TRAK, MAP and TEXT,
/// the texture entries UVs are fitted to (the default entry checked) and each entry's render
/// state.
pub(super) struct BaseParts<'a> {
    pub trak: &'a crate::trak::Trak,
    pub map: &'a crate::map::Map,
    pub text: &'a crate::text::Text,
    pub entries: Entries,
    pub states: Vec<u32>,
}

/// The [`BaseParts`] of `base`.
///
/// # Errors
/// A missing TRAK, MAP or TEXT chunk, no texture entries, or a default entry past them.
pub(super) fn base_parts<'a>(
    base: &'a Level,
    opts: &ImportOptions,
) -> Result<BaseParts<'a>, ImportError> {
    let trak = base.trak().ok_or(ImportError::MissingChunk("TRAK"))?;
    let map = base.map().ok_or(ImportError::MissingChunk("MAP"))?;
    let text = base.text().ok_or(ImportError::MissingChunk("TEXT"))?;
    if text.entries.is_empty() {
        return Err(ImportError::NoTextureEntries);
    }
    let default = opts.default_tex.unwrap_or(0);
    if usize::from(default) >= text.entries.len() {
        return Err(ImportError::BadDefaultTexture {
            index: default,
            entries: text.entries.len(),
        });
    }
    Ok(BaseParts {
        trak,
        map,
        text,
        entries: Entries::new(text, default),
        states: text.entries.iter().map(render_state).collect(),
    })
}

/// Import `mesh` (and `collision`, or collision derived from the mesh) into a copy of `base`.
/// See the module docs for every convention.
///
/// # Errors
/// [`ImportError`] names what is wrong: a missing chunk, no texture entries, a bad default
/// entry, non-finite coordinates, a triangle outside any possible grid, a bad group, or a
/// value that does not fit its field.
pub fn import(
    base: &Level,
    mesh: &[MeshTriangle],
    collision: Option<&[CollisionTriangle]>,
    opts: &ImportOptions,
) -> Result<(Level, ImportSummary), ImportError> {
    let BaseParts {
        trak,
        map: base_map,
        entries,
        states,
        ..
    } = base_parts(base, opts)?;
    let mut sum = ImportSummary {
        mode: "rebuild".into(),
        zones: match opts.zones {
            Zones::Keep => "kept",
            Zones::Flat => "flattened",
        }
        .into(),
        grid_before: (base_map.grid_w, base_map.grid_h),
        collision_source: if collision.is_some() {
            "given"
        } else {
            "derived"
        }
        .into(),
        ..ImportSummary::default()
    };

    let tris = match collision {
        Some(list) => given_collision(list, &mut sum)?,
        None => derive_collision(mesh, &mut sum),
    };
    let first_model = if opts.keep_tiles {
        trak.models.len()
    } else {
        0
    };
    let cut = cut(
        mesh,
        &tris,
        &Frame {
            entries: &entries,
            states: &states,
            first_model,
            grid_before: (base_map.grid_w, base_map.grid_h),
        },
        opts,
        &mut sum,
    )?;
    let (mut models, tiles, grid) = (cut.models, cut.tiles, cut.grid);
    sum.grid_after = grid;
    sum.tiles = tiles.len();
    sum.models = models.len();
    sum.kept_tiles = if opts.keep_tiles {
        base_map.tiles.len()
    } else {
        0
    };

    let mut level = base.clone();
    let mut new_map = base_map.clone();
    map::rebuild(&mut new_map, tiles, opts.keep_tiles, opts.zones, grid);
    for c in &mut level.chunks {
        match &mut c.data {
            ChunkData::Trak(t) => {
                if !opts.keep_tiles {
                    t.models.clear();
                }
                t.models.append(&mut models);
            }
            ChunkData::Map(m) => *m = std::mem::take(&mut new_map),
            _ => continue,
        }
        // New contents: the size fields say what is written (no inherited size quirk).
        let len = c.data.encode()?.len();
        c.declared_size = levelgeom_binary::fit(len, || format!("{}/size", c.tag.path_name()))?;
        c.original_len = len;
    }
    Ok((level, sum))
}

/// What [`cut`] needs besides the triangles: the texture look-up, render states, the index
/// of the first new model and the grid size before the cut.
pub(crate) struct Frame<'a> {
    pub(crate) entries: &'a Entries,
    pub(crate) states: &'a [u32],
    pub(crate) first_model: usize,
    pub(crate) grid_before: (u32, u32),
}

/// What [`cut`] made: new models, their tiles (model indices from `first_model`), and the
/// grid size that holds them and the old grid.
pub(crate) struct Cut {
    pub(crate) models: Vec<Model>,
    pub(crate) tiles: Vec<map::NewTile>,
    pub(crate) grid: (u32, u32),
}

/// Cut render triangles and collision triangles into tiles of their cells (see the module
/// docs: [`tiling`], [`collision`]); counts go into `sum`.
pub(crate) fn cut(
    mesh: &[MeshTriangle],
    tris: &[IndexedTri],
    frame: &Frame<'_>,
    opts: &ImportOptions,
    sum: &mut ImportSummary,
) -> Result<Cut, ImportError> {
    let mut max = (0u32, 0u32);
    let mut cells = render_cells(mesh, frame, opts, sum, &mut max)?;
    let pieces = collision_cells(tris, opts, sum, &mut max)?;
    let grid = if cells.is_empty() && pieces.is_empty() {
        frame.grid_before
    } else {
        (
            frame.grid_before.0.max(max.0 + 1),
            frame.grid_before.1.max(max.1 + 1),
        )
    };
    check_growth(frame.grid_before, grid, opts)?;
    let (models, tiles) = models_and_tiles(&mut cells, &pieces, frame.first_model, sum)?;
    Ok(Cut {
        models,
        tiles,
        grid,
    })
}

/// A cell of the grid: (row z, column x, collision height band).
type CellKey = (u32, u32, i64);

/// Render triangles → cells (band 0), with the largest cell column and row in `max`.
fn render_cells(
    mesh: &[MeshTriangle],
    frame: &Frame<'_>,
    opts: &ImportOptions,
    sum: &mut ImportSummary,
    max: &mut (u32, u32),
) -> Result<BTreeMap<CellKey, Vec<PreparedFace>>, ImportError> {
    let entries = frame.entries;
    let states = frame.states;
    let mut cells: BTreeMap<CellKey, Vec<PreparedFace>> = BTreeMap::new();
    for (i, t) in mesh.iter().enumerate() {
        if !finite3(&t.positions) {
            return Err(ImportError::NotFinite {
                what: "mesh",
                index: i,
            });
        }
        let c = [0, 1, 2].map(|k| t.positions.iter().map(|p| f64::from(p[k])).sum::<f64>() / 3.0);
        let (fx, fz) = (c[0].floor(), (-c[2]).floor());
        if !(0.0..f64::from(MAX_GRID)).contains(&fx) || !(0.0..f64::from(MAX_GRID)).contains(&fz) {
            return Err(ImportError::OutsideGrid {
                index: i,
                x: c[0] as f32,
                z: c[2] as f32,
            });
        }
        let (cx, cz) = (fx as u32, fz as u32);
        let look = entries.look(&t.material, t.uvs.as_ref());
        match look.source {
            LookSource::Page | LookSource::Default => {
                if let Some(e) = look.error {
                    if e <= opts.uv_tolerance {
                        sum.uv_fits += 1;
                    } else {
                        sum.uv_misfits += 1;
                    }
                    sum.uv_max_error = sum.uv_max_error.max(e);
                }
                if look.source == LookSource::Default {
                    sum.default_material += 1;
                }
            }
            LookSource::PageNoUv => sum.uv_missing += 1,
            LookSource::Flat => sum.flat += 1,
        }
        let r = look.rotation;
        let colours = t
            .colours
            .map(|c| c.map(colour_word))
            .unwrap_or([WHITE_WORD; 3]);
        let face = PreparedFace {
            world: [0, 1, 2].map(|k| t.positions[(k + r) % 3]),
            colours: [0, 1, 2].map(|k| colours[(k + r) % 3]),
            texture: look.entry,
            flags: look.flags,
            state: states.get(usize::from(look.entry)).copied().unwrap_or(0),
        };
        max.0 = max.0.max(cx);
        max.1 = max.1.max(cz);
        cells.entry((cz, cx, 0)).or_default().push(face);
    }
    Ok(cells)
}

/// Collision triangles → pieces per cell and height band, with the largest cell column and
/// row in `max`; cells outside the grid's limits are counted and left out.
fn collision_cells(
    tris: &[IndexedTri],
    opts: &ImportOptions,
    sum: &mut ImportSummary,
    max: &mut (u32, u32),
) -> Result<BTreeMap<CellKey, Vec<Piece>>, ImportError> {
    let mut pieces: BTreeMap<CellKey, Vec<Piece>> = BTreeMap::new();
    for (what, i, t) in tris {
        let span = collision::cell_span(t);
        if span > opts.max_cells_per_triangle {
            return Err(ImportError::TooManyCells {
                what,
                index: *i,
                cells: span,
                limit: opts.max_cells_per_triangle,
            });
        }
        for (cx, cz) in collision::cells(t) {
            let ok = |v: i64| (0..i64::from(MAX_GRID)).contains(&v);
            if !ok(cx) || !ok(cz) {
                sum.collision_outside += 1;
                continue;
            }
            let (cx, cz) = (cx as u32, cz as u32);
            for (band, piece) in collision::pieces(t, i64::from(cx), i64::from(cz)) {
                max.0 = max.0.max(cx);
                max.1 = max.1.max(cz);
                pieces.entry((cz, cx, band)).or_default().push(piece);
            }
        }
    }
    Ok(pieces)
}

/// Refuse a grid grown from `before` to `grid` beyond sane limits, unless
/// [`ImportOptions::allow_grow`].
fn check_growth(
    before: (u32, u32),
    grid: (u32, u32),
    opts: &ImportOptions,
) -> Result<(), ImportError> {
    let cells_of = |g: (u32, u32)| u64::from(g.0) * u64::from(g.1);
    let (before_cells, after_cells) = (cells_of(before), cells_of(grid));
    if !opts.allow_grow
        && grid != before
        && (after_cells > SANE_GROWTH.saturating_mul(before_cells.max(1))
            || grid.0.max(grid.1) > SANE_GRID_SIDE)
    {
        return Err(ImportError::GridGrowth {
            before,
            after: grid,
            before_cells,
            after_cells,
        });
    }
    Ok(())
}

/// Models and tiles, cell by cell (row z, then x, then band); model indices from
/// `first_model`.
fn models_and_tiles(
    cells: &mut BTreeMap<CellKey, Vec<PreparedFace>>,
    pieces: &BTreeMap<CellKey, Vec<Piece>>,
    first_model: usize,
    sum: &mut ImportSummary,
) -> Result<(Vec<Model>, Vec<map::NewTile>), ImportError> {
    let mut keys: Vec<CellKey> = cells.keys().chain(pieces.keys()).copied().collect();
    keys.sort_unstable();
    keys.dedup();
    let mut models: Vec<Model> = Vec::new();
    let mut tiles: Vec<map::NewTile> = Vec::new();
    for key @ (cz, cx, band) in keys {
        let y = (band as f64 * collision::BAND_HEIGHT) as f32;
        let origin = tiling::cell_origin(cx, cz, y);
        let mut cell_models = match cells.get_mut(&key) {
            Some(faces) => {
                let (m, degenerate) = tiling::build_models(origin, faces);
                sum.degenerate += degenerate;
                m
            }
            None => Vec::new(),
        };
        if cell_models.len() > 1 {
            sum.split_cells += 1;
        }
        if let Some(ps) = pieces.get(&key) {
            let polys = encode_pieces(ps, origin, sum)?;
            if cell_models.is_empty() {
                cell_models.push(collision_only(ps, origin));
                sum.collision_only_tiles += 1;
            }
            attach(&mut cell_models[0].model, polys)
                .map_err(|e| e.within(&format!("TRAK/models[{}]", first_model + models.len())))?;
        }
        for cm in cell_models {
            let index = first_model + models.len();
            let model = u32::try_from(index)
                .map_err(|_| WriteError::invalid("TRAK/model count", "too many models"))?;
            sum.faces += cm.model.faces.len();
            sum.vertices += cm.model.vertices.len();
            sum.polygons += cm.model.collision.len();
            tiles.push(map::NewTile {
                pos: origin,
                model,
                colours: cm.colours,
            });
            models.push(cm.model);
        }
    }
    Ok((models, tiles))
}

/// A collision triangle with where it came from (`collision` or `mesh`, and its index there),
/// for errors.
pub(crate) type IndexedTri = (&'static str, usize, WorldTri);

/// Collision triangles given by the user, checked (finite, group 0..=2); degenerate ones are
/// counted and dropped.
pub(crate) fn given_collision(
    list: &[CollisionTriangle],
    sum: &mut ImportSummary,
) -> Result<Vec<IndexedTri>, ImportError> {
    let mut tris = Vec::with_capacity(list.len());
    for (i, t) in list.iter().enumerate() {
        if !finite3(&t.positions) {
            return Err(ImportError::NotFinite {
                what: "collision",
                index: i,
            });
        }
        if t.group > 2 {
            return Err(ImportError::BadGroup {
                index: i,
                group: t.group,
            });
        }
        let p = t.positions.map(to64);
        match collision::tri_normal(&p) {
            Some(n) => tris.push((
                "collision",
                i,
                WorldTri {
                    p,
                    n,
                    material: t.material,
                    group: t.group,
                },
            )),
            None => sum.collision_degenerate += 1,
        }
    }
    Ok(tris)
}

/// Collision derived from render triangles: floors (group 0) and walls (group 1), material 0;
/// ceilings are skipped, degenerate triangles counted and dropped (see the module docs).
pub(crate) fn derive_collision(mesh: &[MeshTriangle], sum: &mut ImportSummary) -> Vec<IndexedTri> {
    let mut tris = Vec::new();
    for (i, t) in mesh.iter().enumerate() {
        let p = t.positions.map(to64);
        let Some(n) = collision::tri_normal(&p) else {
            sum.collision_degenerate += 1;
            continue;
        };
        let ny = n[1] as f32;
        if ny < -FLOOR_MIN_NY {
            continue;
        }
        let group = if ny > FLOOR_MIN_NY { 0 } else { 1 };
        tris.push((
            "mesh",
            i,
            WorldTri {
                p,
                n,
                material: 0,
                group,
            },
        ));
    }
    tris
}

/// Encode pieces as collision polygons of a tile at `origin` (game space: z negated).
fn encode_pieces(
    ps: &[Piece],
    origin: [f32; 3],
    sum: &mut ImportSummary,
) -> Result<Vec<(u8, CollisionPoly)>, ImportError> {
    let o = to64(origin);
    let mut out = Vec::with_capacity(ps.len());
    for p in ps {
        let corners: Vec<[f32; 3]> = p
            .corners
            .iter()
            .map(|c| {
                [
                    (c[0] - o[0]) as f32,
                    (c[1] - o[1]) as f32,
                    -((c[2] - o[2]) as f32),
                ]
            })
            .collect();
        let n = [p.n[0] as f32, p.n[1] as f32, -(p.n[2] as f32)];
        let poly = author::collision_polygon_fitted(&corners, n, p.material)?;
        if p.clipped {
            sum.collision_clipped += 1;
        }
        out.push((p.group, poly));
    }
    Ok(out)
}

/// A model without vertices or faces carrying only collision; its box holds the pieces.
fn collision_only(ps: &[Piece], origin: [f32; 3]) -> CellModel {
    let o = to64(origin);
    let pts = ps
        .iter()
        .flat_map(|p| p.corners.iter())
        .map(|c| [0, 1, 2].map(|k| (c[k] - o[k]) as f32));
    let mut model = Model::default();
    if let Some((lo, hi)) = author::bounds(pts) {
        let (lo, hi) = author::grow(lo, hi, BOX_MARGIN);
        model.header.centre = author::box_centre(lo, hi);
        model.header.corners = author::box_corners(lo, hi);
    }
    CellModel {
        model,
        colours: Vec::new(),
    }
}

/// Give `model` these polygons, sorted by group, and the three group counts.
fn attach(model: &mut Model, mut polys: Vec<(u8, CollisionPoly)>) -> Result<(), WriteError> {
    polys.sort_by_key(|(g, _)| *g);
    let mut counts = [0u16; 3];
    for (g, _) in &polys {
        let c = &mut counts[usize::from(*g).min(2)];
        *c = c.checked_add(1).ok_or_else(|| {
            WriteError::invalid(
                "collision counts",
                "more than 65,535 collision polygons in one group of one cell",
            )
        })?;
    }
    model.collision = polys.into_iter().map(|(_, p)| p).collect();
    model.header.collision_counts = counts;
    let has_vertices = !model.vertices.is_empty();
    let (centre, corners) = (model.header.centre, model.header.corners);
    model.sync_header(BOX_MARGIN);
    if !has_vertices {
        model.header.centre = centre;
        model.header.corners = corners;
    }
    Ok(())
}
