//! A synthetic, self-consistent level generator (tests, the demo, benchmarks).
//!
//! [`generate`] turns a small [`LevelSpec`] into a complete typed [`Level`] with **every**
//! chunk kind (INFO VERS WFPC TEXT FONT SPRT NAME SMPC AMPC SRPC TRAK STPC MAP LGHT LNFO LGPC
//! END) that passes [`crate::check::check`]. The world is an island of terrain tiles on a
//! `grid_w × grid_h` grid, surrounded by a ring of water tiles:
//!
//! * **TRAK model 0** is the collision-only water plane of real levels: 4 vertices at
//!   y = −2.75, no faces, one quad collision polygon of material 0x1E. Every water tile uses it.
//! * **TRAK model 1** is the swap alternative (a bridge deck of `2 · 12²` faces, so its
//!   single render batch needs a second batch flag at face 256).
//! * **One terrain model per island tile** (models 2..): a `s × s` grid of quads over the
//!   cell following [`terrain_height`], split into two triangles with the quad UV flags
//!   (0x800, 0x800|0x10); two of every three tiles carry a rock (textured top of four
//!   triangles around a centre vertex without 0x800, four flat-colour side quads), the
//!   others a double-sided plant (0x400) with a blended texture. Vertices are computed in
//!   world space and rotated into the tile's frame (rotations 0/1024/2048/3072 all occur),
//!   so neighbouring tiles meet exactly.
//! * Computed with [`crate::author`]: face planes `n = normalize((v1 − v0) × (v2 − v0))`,
//!   `d = n · v0`; smoothed vertex normals; bounding boxes grown
//!   by 1/128; batch flags at the first face, at every render-state change and every 256
//!   faces; collision polygons in game space (z mirrored) with planes encoded per spec
//!   docs/formats/argonaut-wad.md §12.4 (`n_q = round(127·n̂)`, `d = round(32·n_q·P)`), terrain triangles in group 0, rock
//!   walls in group 1, rock tops in group 2.
//! * TEXT: `pages` 256×256 pages (page 1 raw 16-bit, the others RLE, the last one with
//!   transparent texels), 16 texture entries of 64×64 per page, then four flat-colour entries.
//! * STPC: a rigid crate and a skinned two-bone totem (per-bone vertex counts 8 + 8), one
//!   animation record (2 frames, odd delta count 3 → padded later frames), the WFPC & 0x100
//!   cutscene tail, and a small script area.
//! * MAP: A and B records consistent, zones (island zone 1), vertex colours with one to three
//!   sets (the set count sometimes on a later entry than the first, docs/formats/argonaut-wad.md §12.1), one tile swap
//!   whose model-B block inherits the tile's set count, objects, a chain table with Y words,
//!   the view distance and the final u16.
//!
//! The output is a pure function of the spec (a fixed-seed PRNG), so it is deterministic.

use glam::Vec3 as V3;
use levelgeom_binary::WriteError;

use crate::ampc::Ampc;
use crate::author::{self, collision_polygon};
use crate::check::render_state;
use crate::font::{Font, Glyph, GLYPHS};
use crate::import::BOX_MARGIN;

mod font5x7;
mod routes;
mod zoned;
use crate::level::{Chunk, ChunkData, Level};
use crate::lght::{Lght, Light, LightBody};
use crate::lgpc::Lgpc;
use crate::lnfo::Lnfo;
use crate::map::{
    ChainPoint, ChainPolygon, ChainTable, ColourLayers, Map, MapObject, RouteNode, StratRecord,
    Tile, TileColours, TileSwap, TileTransform, Zone, ZONE_COUNT,
};
use crate::model::{self, CollisionPoly, Face, Model, ModelHeader, StpcHeaderExtra, Vec3, Vertex};
use crate::name::Name;
use crate::smpc::{CvgHeader, Smpc, Sound};
use crate::sprt::Sprt;
use crate::srpc::{SpeechRef, Srpc};
use crate::stpc::{AnimFrame, AnimHeader, Animation, Cutscene, CutsceneHead, Stpc, StpcTail};
use crate::tags::Tag;
use crate::text::{Effect, EffectBody, Effects, Text, TextureEntry, TexturePage};
use crate::trak::Trak;
use crate::wfpc::Wfpc;
pub use routes::{route_yaw, routes_level, RoutesFacts, ROUTES_PARAMS, ROUTE_POSITIONS};
pub use zoned::{zoned_level, ZONED_GRID, ZONED_TABLE};

/// The WFPC flags of generated levels: view distance (0x10), 0x80, STPC tail (0x100), tile
/// swaps (0x10000), SPRT table (0x100000), chain table (0x200000) with Y words (0x4000000),
/// wide colour pointers (0x10000000).
pub const WFPC_FLAGS: u32 =
    0x10 | 0x80 | 0x100 | 0x1_0000 | 0x10_0000 | 0x20_0000 | 0x400_0000 | 0x1000_0000;
/// Height of the water plane (model 0), local y.
pub const WATER_Y: f32 = -2.75;
/// Texture entries per page (a 4 × 4 grid of 64×64 rectangles).
pub const ENTRIES_PER_PAGE: usize = 16;
/// Flat-colour texture entries after the page entries.
pub const FLAT_ENTRIES: usize = 4;
/// Quads per side of the bridge deck (model 1): 2 · 12² = 288 faces.
pub const BRIDGE_SUBDIVISIONS: u32 = 12;
/// Peak height of the island's terrain above its base.
pub const PEAK: f32 = 1.5;
/// Terrain slope per unit of Manhattan distance from the island centre.
pub const SLOPE: f32 = 0.125;

/// What to generate.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelSpec {
    /// Grid width (cells).
    pub grid_w: u32,
    /// Grid height (cells).
    pub grid_h: u32,
    /// The island's first cell column.
    pub island_x: u32,
    /// The island's first cell row (cell z index; world z = −row).
    pub island_z: u32,
    /// Island width in cells.
    pub island_w: u32,
    /// Island height in cells.
    pub island_h: u32,
    /// Rings of water tiles around the island (clipped at the grid edge).
    pub water_rings: u32,
    /// Quads per side of a terrain tile (faces per tile = 2·s²).
    pub subdivisions: u32,
    /// Number of texture pages (at least 3: rock, raw sand, plants).
    pub pages: usize,
    /// Index of the island tile (row-major within the island) that gets the tile swap.
    pub swap_tile: usize,
    /// PRNG seed for colours and texels.
    pub seed: u64,
}

impl LevelSpec {
    /// The demo: a 6 × 5 island on a 16 × 16 grid, 4 pages.
    pub fn demo() -> LevelSpec {
        LevelSpec {
            grid_w: 16,
            grid_h: 16,
            island_x: 5,
            island_z: 5,
            island_w: 6,
            island_h: 5,
            water_rings: 2,
            subdivisions: 4,
            pages: 4,
            swap_tile: 8,
            seed: 0x5EED_0001,
        }
    }

    /// A level of real size: a 96 × 96 grid, a 25 × 24 island (600 terrain models, ~26,000
    /// triangles), 30 pages.
    pub fn full_size() -> LevelSpec {
        LevelSpec {
            grid_w: 96,
            grid_h: 96,
            island_x: 36,
            island_z: 36,
            island_w: 25,
            island_h: 24,
            water_rings: 3,
            subdivisions: 4,
            pages: 30,
            swap_tile: 300,
            seed: 0x5EED_0096,
        }
    }

    /// The island centre in world coordinates (x, z).
    pub fn island_centre(&self) -> (f32, f32) {
        (
            self.island_x as f32 + self.island_w as f32 / 2.0,
            -(self.island_z as f32 + self.island_h as f32 / 2.0),
        )
    }
}

/// The terrain height at world (x, z): `max(0, PEAK − SLOPE·(|x − cx| + |z − cz|))` around
/// the island centre (cx, cz). Exact in f32 at the generator's grid points.
pub fn terrain_height(spec: &LevelSpec, x: f32, z: f32) -> f32 {
    let (cx, cz) = spec.island_centre();
    (PEAK - SLOPE * ((x - cx).abs() + (z - cz).abs())).max(0.0)
}

/// The rotation of island tile (cx, cz): `((cx + 2·cz) mod 4) · 1024`.
pub fn tile_rotation(cx: u32, cz: u32) -> u32 {
    (cx.wrapping_add(cz.wrapping_mul(2)) % 4) * 1024
}

/// What an island tile carries besides terrain: a rock for two of every three tiles.
pub fn has_rock(island_index: usize) -> bool {
    island_index % 3 != 2
}

/// Generate the level described by `spec`. Fails when the spec asks for more than the format
/// holds (e.g. so many subdivisions that a tile model passes 65,535 vertices); the error
/// names the field.
pub fn generate(spec: &LevelSpec) -> Result<Level, WriteError> {
    let mut g = Gen::new(spec);
    let text = g.text();
    let states: Vec<u32> = text.entries.iter().map(render_state).collect();
    let (trak, map) = g.world(&states)?;
    let stpc = g.stpc(&states)?;
    let chunks = vec![
        Chunk::new(Tag::INFO, ChunkData::Info(vec![1, 0, 0, 0]))?,
        Chunk::new(Tag::VERS, ChunkData::Vers(vec![1, 0, 0, 0]))?,
        Chunk::new(Tag::WFPC, ChunkData::Wfpc(Wfpc { flags: WFPC_FLAGS }))?,
        Chunk::new(Tag::TEXT, ChunkData::Text(text))?,
        Chunk::new(Tag::FONT, ChunkData::Font(font(g.font_entry(0))))?,
        Chunk::new(
            Tag::SPRT,
            ChunkData::Sprt(Sprt {
                material_base: 0,
                table: Some(vec![0, 1, 2]),
            }),
        )?,
        Chunk::new(Tag::NAME, ChunkData::Name(name()))?,
        Chunk::new(Tag::SMPC, ChunkData::Smpc(smpc()))?,
        Chunk::new(Tag::AMPC, ChunkData::Ampc(Ampc { raw: vec![0; 4] }))?,
        Chunk::new(
            Tag::SRPC,
            ChunkData::Srpc(Srpc {
                refs: vec![SpeechRef {
                    id: 1,
                    rate: 2048,
                    unknown_06: 0,
                    cvs_offset: 0,
                    cvs_size: 0x800,
                }],
            }),
        )?,
        Chunk::new(Tag::TRAK, ChunkData::Trak(trak))?,
        Chunk::new(Tag::STPC, ChunkData::Stpc(stpc))?,
        Chunk::new(Tag::MAP, ChunkData::Map(map))?,
        Chunk::new(Tag::LGHT, ChunkData::Lght(lght()))?,
        Chunk::new(Tag::LNFO, ChunkData::Lnfo(Lnfo { values: [0, 1] }))?,
        Chunk::new(Tag::LGPC, ChunkData::Lgpc(demo_strings()))?,
        Chunk::new(Tag::END, ChunkData::End(Vec::new()))?,
    ];
    Ok(Level::new(chunks))
}

/// The built-in demo WAD used by `levelgeom export --demo` ([`LevelSpec::demo`]). Never fails
/// for the built-in spec; the `Result` is [`generate`]'s and [`Level::to_bytes`]'s.
pub fn demo_level() -> Result<Vec<u8>, WriteError> {
    generate(&LevelSpec::demo())?.to_bytes()
}

/// A level of real size ([`LevelSpec::full_size`]). Never fails for the built-in spec.
pub fn full_size_level() -> Result<Level, WriteError> {
    generate(&LevelSpec::full_size())
}

// ------------------------------------------------------------------------------------------

/// SplitMix64: small, fast, deterministic.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: u32) -> u32 {
        (self.next() % u64::from(n.max(1))) as u32
    }
}

struct Gen<'a> {
    spec: &'a LevelSpec,
    rng: Rng,
    pages: usize,
}

/// The page indices of the fixed pages.
const PAGE_ROCK: usize = 0;
const PAGE_SAND: usize = 1;

fn entry_index(page: usize, k: usize) -> u16 {
    (page * ENTRIES_PER_PAGE + k) as u16
}

/// World → tile-local for a tile at (x, z) with rotation `rot` (multiples of 1024, exact).
fn to_local(p: Vec3, tile: Vec3, rot: u32) -> Vec3 {
    let (c, s) = cos_sin(rot);
    let dx = p[0] - tile[0];
    let dz = p[2] - tile[2];
    [dx * c + dz * s, p[1] - tile[1], -dx * s + dz * c]
}

fn cos_sin(rot: u32) -> (f32, f32) {
    match (rot / 1024) % 4 {
        0 => (1.0, 0.0),
        1 => (0.0, 1.0),
        2 => (-1.0, 0.0),
        _ => (0.0, -1.0),
    }
}

/// Export (model-local) space → game space: z mirrored.
fn game(p: Vec3) -> Vec3 {
    [p[0], p[1], -p[2]]
}

/// Builds one model: vertices, faces with render states, collision by group.
#[derive(Default)]
struct ModelBuilder {
    vertices: Vec<Vertex>,
    faces: Vec<(Face, u32)>,
    collision: [Vec<CollisionPoly>; 3],
}

impl ModelBuilder {
    fn vertex(&mut self, p: Vec3) -> u16 {
        self.vertices.push(Vertex {
            pos: p,
            normal: [0.0; 3],
        });
        (self.vertices.len() - 1) as u16
    }

    /// Add a triangle; if its plane faces away from `facing`, v1 and v2 are swapped.
    fn face(&mut self, mut ix: [u16; 3], flags: u16, texture: u16, state: u32, facing: Vec3) {
        let p = |i: u16| self.vertices[usize::from(i)].pos;
        let g = |i: u16| V3::from_array(p(i));
        let n = (g(ix[1]) - g(ix[0])).cross(g(ix[2]) - g(ix[0]));
        if n.dot(V3::from_array(facing)) < 0.0 {
            ix.swap(1, 2);
        }
        let Some((n, d)) = author::face_plane(p(ix[0]), p(ix[1]), p(ix[2])) else {
            return;
        };
        self.faces.push((
            Face {
                flags,
                indices: ix,
                texture,
                unknown_0a: 0,
                normal: n,
                d,
            },
            state,
        ));
    }

    /// Two triangles over a quad a-b-c-d (a: U0,V1; b: U1,V1; c: U1,V0; d: U0,V0).
    fn quad(&mut self, q: [u16; 4], texture: u16, state: u32, extra_flags: u16, facing: Vec3) {
        self.face(
            [q[0], q[1], q[2]],
            model::FACE_UV_QUAD | extra_flags,
            texture,
            state,
            facing,
        );
        self.face(
            [q[2], q[3], q[0]],
            model::FACE_UV_QUAD | model::FACE_UV_SECOND | extra_flags,
            texture,
            state,
            facing,
        );
    }

    fn finish(mut self, stpc: Option<StpcHeaderExtra>, bones: Vec<u16>) -> Model {
        let (mut faces, states): (Vec<Face>, Vec<u32>) = self.faces.into_iter().unzip();
        author::smooth_normals(&mut self.vertices, &faces);
        // Batch flags: first face, every render-state change, and at least every 256 faces.
        author::set_batch_flags(&mut faces, &states);
        let counts = self
            .collision
            .each_ref()
            .map(|g| u16::try_from(g.len()).unwrap_or(u16::MAX));
        let collision = self.collision.concat();
        let mut m = Model {
            header: ModelHeader {
                collision_counts: counts,
                stpc,
                ..ModelHeader::default()
            },
            bone_vertex_counts: bones,
            vertices: self.vertices,
            faces,
            collision,
        };
        m.sync_header(BOX_MARGIN);
        m
    }
}

impl<'a> Gen<'a> {
    fn new(spec: &'a LevelSpec) -> Gen<'a> {
        Gen {
            spec,
            rng: Rng(spec.seed),
            pages: spec.pages.max(3),
        }
    }

    fn plant_page(&self) -> usize {
        self.pages - 1
    }

    fn flat_entry(&self, k: usize) -> u16 {
        (self.pages * ENTRIES_PER_PAGE + k) as u16
    }

    /// The texture entry of font glyph `k` (character `font5x7::FIRST + k`): after the flat
    /// colours, on the font page (page index `pages`, after the level's own).
    fn font_entry(&self, k: usize) -> u16 {
        self.flat_entry(FLAT_ENTRIES + k)
    }

    // ---- TEXT ------------------------------------------------------------------------

    fn text(&mut self) -> Text {
        let mut pages = Vec::with_capacity(self.pages);
        for p in 0..self.pages {
            let px = self.page_pixels(p);
            let page = if p == PAGE_SAND {
                TexturePage::raw16(256, 256, 1, px)
            } else {
                let format = 1 + (p % 7) as u8; // flags 0x81..0x87 as in real files
                match TexturePage::from_pixels16(256, 256, format, &px) {
                    Ok(t) => t,
                    Err(_) => TexturePage::raw16(256, 256, 1, px),
                }
            };
            pages.push(page);
        }
        let mut entries = Vec::with_capacity(self.pages * ENTRIES_PER_PAGE + FLAT_ENTRIES);
        for p in 0..self.pages {
            for k in 0..ENTRIES_PER_PAGE {
                let (cx, cy) = ((k % 4) as u8, (k / 4) as u8);
                let blend = if p == self.plant_page() { 0x1000 } else { 0 };
                entries.push(TextureEntry {
                    flags: blend,
                    page: p as u8,
                    extra: 0xFF,
                    u0: cx * 64,
                    u1: cx * 64 + 63,
                    v0: cy * 64,
                    v1: cy * 64 + 63,
                });
            }
        }
        let flats: [[u8; 3]; FLAT_ENTRIES] = [
            [0x70, 0x68, 0x60],
            [0x58, 0x50, 0x48],
            [0x80, 0x78, 0x60],
            [0x40, 0x40, 0x48],
        ];
        for c in flats {
            entries.push(TextureEntry {
                flags: crate::text::ENTRY_FLAT_COLOUR,
                page: 0,
                extra: 0xFF,
                u0: c[0],
                u1: c[1],
                v0: c[2],
                v1: 0,
            });
        }
        let (font_page, font_entries) = font_page(self.pages as u8);
        pages.push(font_page);
        entries.extend(font_entries);
        Text {
            palettes: Vec::new(),
            pages,
            entries,
            effects: Effects::List(vec![Effect {
                sprite: entry_index(self.plant_page(), 0),
                kind: 1,
                body: EffectBody::Bytes3([1, 2, 3]),
            }]),
        }
    }

    /// 256×256 ABGR1555 texels: per 64×64 rectangle a base colour with diagonal stripes
    /// (runs of 8 texels, which RLE compresses); the plant page has transparent texels.
    fn page_pixels(&mut self, p: usize) -> Vec<u16> {
        let (r0, g0, b0) = match p {
            PAGE_ROCK => (14u16, 13u16, 12u16),
            PAGE_SAND => (26, 23, 15),
            _ if p == self.plant_page() => (8, 22, 6),
            _ => (6 + (p as u16 % 5), 16 + (p as u16 % 7), 5 + (p as u16 % 3)),
        };
        let bases: Vec<(u16, u16, u16)> = (0..16)
            .map(|_| {
                let j = self.rng.below(4) as u16;
                (r0 + j, g0 + j, b0 + j / 2)
            })
            .collect();
        let mut px = Vec::with_capacity(256 * 256);
        for y in 0..256usize {
            for x in 0..256usize {
                let (r, g, b) = bases[(y / 64) * 4 + x / 64];
                let stripe = ((x + y) / 8) % 2 == 0;
                let (r, g, b) = if stripe {
                    (r, g, b)
                } else {
                    (
                        r.saturating_sub(2),
                        g.saturating_sub(2),
                        b.saturating_sub(1),
                    )
                };
                let transparent = p == self.plant_page() && {
                    let (lx, ly) = ((x % 64) as i32 - 32, (y % 64) as i32 - 32);
                    lx.abs() > 6 + (63 - (y % 64) as i32) / 3 || ly < -30
                };
                px.push(if transparent {
                    0
                } else {
                    0x8000 | (r.min(31)) | (g.min(31) << 5) | (b.min(31) << 10)
                });
            }
        }
        px
    }

    // ---- TRAK + MAP ------------------------------------------------------------------

    fn world(&mut self, states: &[u32]) -> Result<(Trak, Map), WriteError> {
        let spec = self.spec;
        let st = |e: u16| states.get(usize::from(e)).copied().unwrap_or(0);
        let mut models = vec![water_model()?, self.bridge_model(&st)?];
        // Island tiles (row-major), then water tiles.
        let mut tiles: Vec<(Tile, usize)> = Vec::new(); // tile + island index (usize::MAX = water)
        let mut ii = 0usize;
        for dz in 0..spec.island_h {
            for dx in 0..spec.island_w {
                let (cx, cz) = (
                    spec.island_x.saturating_add(dx),
                    spec.island_z.saturating_add(dz),
                );
                if cx >= spec.grid_w || cz >= spec.grid_h {
                    continue;
                }
                let rot = tile_rotation(cx, cz);
                let pos = [cx as f32 + 0.5, 0.0, -(cz as f32 + 0.5)];
                let model = models.len() as u32;
                models.push(self.terrain_model(pos, rot, ii, &st)?);
                tiles.push((
                    Tile {
                        pos,
                        rot,
                        model,
                        anim_flag: u32::from(ii == spec.swap_tile),
                    },
                    ii,
                ));
                ii += 1;
            }
        }
        let r = spec.water_rings;
        let (x0, z0) = (
            spec.island_x.saturating_sub(r),
            spec.island_z.saturating_sub(r),
        );
        let x1 = spec
            .island_x
            .saturating_add(spec.island_w)
            .saturating_add(r)
            .min(spec.grid_w);
        let z1 = spec
            .island_z
            .saturating_add(spec.island_h)
            .saturating_add(r)
            .min(spec.grid_h);
        for cz in z0..z1 {
            for cx in x0..x1 {
                let inside = cx >= spec.island_x
                    && cx < spec.island_x.saturating_add(spec.island_w)
                    && cz >= spec.island_z
                    && cz < spec.island_z.saturating_add(spec.island_h);
                if !inside {
                    tiles.push((
                        Tile {
                            pos: [cx as f32 + 0.5, 0.0, -(cz as f32 + 0.5)],
                            rot: 0,
                            model: 0,
                            anim_flag: 0,
                        },
                        usize::MAX,
                    ));
                }
            }
        }

        let mut swaps = Vec::new();
        let mut colours = Vec::with_capacity(tiles.len());
        for (ti, (t, island)) in tiles.iter().enumerate() {
            let m = &models[t.model as usize];
            let sets = if *island == usize::MAX {
                1
            } else {
                1 + (island % 3) // 1, 2 or 3 sets
            };
            let layers = self.colour_block(m, sets, ti % 2 == 1);
            let swap_layers = if t.anim_flag != 0 {
                let cell = [
                    (t.pos[0] - 0.5) as i32,
                    (t.pos[1] * 4096.0).round() as i32,
                    (-t.pos[2] - 0.5) as i32,
                ];
                swaps.push(TileSwap {
                    pos: cell,
                    model_a: t.model,
                    model_b: 1,
                });
                // Model B's own first layer says one set; the loader still reads the
                // tile's count (the running maximum is not reset, docs/formats/argonaut-wad.md §12.1).
                let mut l = self.colour_block(&models[1], 1, false);
                if let Some(first) = l.first_mut() {
                    for c in first.iter_mut() {
                        *c &= 0x00FF_FFFF;
                    }
                }
                while l.len() < layers.len() {
                    let extra = l[0].clone();
                    l.push(extra);
                }
                Some(l)
            } else {
                None
            };
            colours.push(TileColours {
                layers,
                swap_layers,
            });
        }

        let mut zone_grid = vec![0u32; (spec.grid_w as usize) * (spec.grid_h as usize)];
        for cz in z0..z1 {
            for cx in x0..x1 {
                zone_grid[(cz * spec.grid_w + cx) as usize] = 1;
            }
        }
        let mut zones = [Zone::default(); ZONE_COUNT];
        for z in zones.iter_mut().take(2) {
            *z = Zone {
                mask: 0b11,
                height: (WATER_Y * 4096.0) as i32,
            };
        }
        let transforms = tiles
            .iter()
            .map(|(t, _)| TileTransform {
                rot: [0, t.rot as i32, 0],
                pos: [
                    (f64::from(t.pos[0]) * 4096.0).round() as i32,
                    (f64::from(t.pos[1]) * 4096.0).round() as i32,
                    (-f64::from(t.pos[2]) * 4096.0).round() as i32,
                ],
            })
            .collect();
        let (cx, cz) = spec.island_centre();
        let fx = |v: f32| (f64::from(v) * 4096.0).round() as i32;
        let objects = (0..3u32)
            .map(|k| MapObject {
                rot: [0, (k * 1024) as u16, 0],
                pos: [fx(cx + k as f32), fx(PEAK + 0.5), fx(-cz)],
                script_offset: 4 + 16 * k,
                // object 1 starts on the route below (section4_index 0)
                fields: [
                    0,
                    u32::MAX,
                    4,
                    0,
                    0x8000,
                    0,
                    if k == 1 { 0 } else { u32::MAX },
                    0,
                ],
                flags: 0,
                extra: 0,
            })
            .collect();
        let corner = |x: f32, z: f32| ChainPoint {
            x: fx(x),
            z: fx(-z),
            y: Some(fx(1.0)),
            kind: 1,
            value: 0,
        };
        let (ix0, iz0) = (spec.island_x as f32, -(spec.island_z as f32));
        let (ix1, iz1) = (ix0 + spec.island_w as f32, iz0 - spec.island_h as f32);
        let chains = ChainTable::Parsed(vec![vec![ChainPolygon {
            flags: 0,
            points: vec![
                corner(ix0, iz0),
                corner(ix1, iz0),
                corner(ix1, iz1),
                corner(ix0, iz1),
            ],
        }]]);
        // one strat record naming object 0's script, and one route of two nodes that crosses
        // the island a cell above its peak (docs/formats/argonaut-wad.md §18.4, §18.5)
        let strat = StratRecord {
            flags: 8,
            script_offset: 4,
            range_min: [4096, 8192],
            ..StratRecord::default()
        };
        let route_node = |k: u16, x: f32, last: bool| RouteNode {
            next: u32::from(!last),
            prev: 0,
            rot: [0, k * 1024, 0],
            pos: [fx(x), fx(PEAK + 1.0), fx(-cz)],
            unknown_0x1a: 0,
            unknown_0x1e: 0,
        };
        let route = vec![
            route_node(0, spec.island_x as f32 + 0.5, false),
            route_node(1, (spec.island_x + spec.island_w) as f32 - 0.5, true),
        ];
        let map = Map {
            grid_w: spec.grid_w,
            grid_h: spec.grid_h,
            model_indices: tiles.iter().map(|(t, _)| t.model).collect(),
            tiles: tiles.into_iter().map(|(t, _)| t).collect(),
            params: vec![0, 1, 2],
            strat_records: vec![strat],
            route_nodes: route,
            zones,
            zone_grid,
            transforms,
            swaps: Some(swaps),
            colours,
            max_objects: 64,
            objects,
            chains: Some(chains),
            view_distance: Some(200),
            final_u16: 0,
        };
        Ok((Trak { models }, map))
    }

    /// Baked light per vertex; `sets` layers. The count marker (byte 3) goes on entry 0, or,
    /// when `marker_last`, on the last entry (the loader takes the maximum over the layer).
    fn colour_block(&mut self, m: &Model, sets: usize, marker_last: bool) -> ColourLayers {
        let light = V3::from_array(author::normalize_or_up([0.3, 1.0, 0.2]));
        let nv = m.vertices.len();
        let mut layers = Vec::with_capacity(sets);
        for s in 0..sets {
            let tint = [0u32, 8, 16][s % 3];
            let layer: Vec<u32> = m
                .vertices
                .iter()
                .map(|v| {
                    let l = V3::from_array(v.normal).dot(light).max(0.0);
                    let base = 0x40 + (l * 64.0) as u32 + self.rng.below(4);
                    let r = base.min(0xFF);
                    let g = (base + tint).min(0xFF);
                    let b = base.saturating_sub(tint / 2).min(0xFF);
                    r | (g << 8) | (b << 16)
                })
                .collect();
            layers.push(layer);
        }
        if sets >= 2 && nv > 0 {
            let at = if marker_last { nv - 1 } else { 0 };
            layers[0][at] |= (sets as u32) << 24;
        } else if nv > 0 && marker_last {
            layers[0][0] |= 1 << 24; // 1 means one set, like 0
        }
        layers
    }

    fn terrain_model(
        &mut self,
        tile: Vec3,
        rot: u32,
        island: usize,
        st: &dyn Fn(u16) -> u32,
    ) -> Result<Model, WriteError> {
        let spec = self.spec;
        let s = spec.subdivisions.max(1);
        let (cx, cz) = ((tile[0] - 0.5) as u32, (-tile[2] - 0.5) as u32);
        let mut b = ModelBuilder::default();
        let grid_pages = self.pages.saturating_sub(3).max(1);
        let page = if island % 5 == 0 || self.pages <= 3 {
            PAGE_SAND
        } else {
            2 + island % grid_pages
        };
        let tex = entry_index(page, (cx as usize + cz as usize) % ENTRIES_PER_PAGE);
        let world_at = |i: u32, j: u32| -> Vec3 {
            let x = cx as f32 + i as f32 / s as f32;
            let z = -(cz as f32) - j as f32 / s as f32;
            [x, terrain_height(spec, x, z), z]
        };
        for j in 0..=s {
            for i in 0..=s {
                b.vertex(to_local(world_at(i, j), tile, rot));
            }
        }
        let up = [0.0, 1.0, 0.0];
        let idx = |i: u32, j: u32| (j * (s + 1) + i) as u16;
        for j in 0..s {
            for i in 0..s {
                let q = [idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)];
                b.quad(q, tex, st(tex), 0, up);
            }
        }
        // Collision: one triangle per terrain face, group 0.
        let tris: Vec<[Vec3; 3]> = b
            .faces
            .iter()
            .map(|(f, _)| f.indices.map(|k| b.vertices[usize::from(k)].pos))
            .collect();
        for t in tris {
            let Some((n, _)) = model::face_plane(t[0], t[1], t[2]) else {
                continue;
            };
            b.collision[0].push(collision_polygon(&t.map(game), game(n), 0)?);
        }
        if has_rock(island) {
            self.rock(&mut b, tile, rot, (cx, cz), st)?;
        } else {
            self.plant(&mut b, tile, rot, (cx, cz), st);
        }
        Ok(b.finish(None, Vec::new()))
    }

    fn rock(
        &mut self,
        b: &mut ModelBuilder,
        tile: Vec3,
        rot: u32,
        (cx, cz): (u32, u32),
        st: &dyn Fn(u16) -> u32,
    ) -> Result<(), WriteError> {
        let spec = self.spec;
        let half = 0.125 + 0.0625 * self.rng.below(2) as f32;
        let (ox, oz) = (
            cx as f32 + 0.375 + 0.125 * self.rng.below(3) as f32,
            -(cz as f32) - 0.375 - 0.125 * self.rng.below(3) as f32,
        );
        let ground = terrain_height(spec, ox, oz);
        let bottom = ground - 0.125;
        let top = ground + 0.25 + 0.125 * self.rng.below(2) as f32;
        let w = |x: f32, y: f32, z: f32| to_local([x, y, z], tile, rot);
        let corners = [
            (ox - half, oz + half),
            (ox + half, oz + half),
            (ox + half, oz - half),
            (ox - half, oz - half),
        ];
        // Top: 4 triangles around a centre vertex (no 0x800: corner mapping (a,V1)(b,V1)(a,V0)).
        let tex_top = entry_index(
            PAGE_ROCK,
            (cx as usize * 7 + cz as usize) % ENTRIES_PER_PAGE,
        );
        let c = b.vertex(w(ox, top, oz));
        let ring: Vec<u16> = corners
            .iter()
            .map(|&(x, z)| b.vertex(w(x, top, z)))
            .collect();
        let up_local = [0.0, 1.0, 0.0];
        for k in 0..4 {
            b.face(
                [c, ring[k], ring[(k + 1) % 4]],
                0,
                tex_top,
                st(tex_top),
                up_local,
            );
        }
        // Sides: flat colour quads, outward.
        let flat = self.flat_entry((cx + cz) as usize % FLAT_ENTRIES);
        let mut walls = Vec::new();
        for k in 0..4 {
            let (x0, z0) = corners[k];
            let (x1, z1) = corners[(k + 1) % 4];
            let out_world = author::normalize_or_up([x0 + x1 - 2.0 * ox, 0.0, z0 + z1 - 2.0 * oz]);
            let out = {
                let o = to_local(
                    [tile[0] + out_world[0], tile[1], tile[2] + out_world[2]],
                    tile,
                    rot,
                );
                [o[0], 0.0, o[2]]
            };
            let q = [
                b.vertex(w(x0, bottom, z0)),
                b.vertex(w(x1, bottom, z1)),
                b.vertex(w(x1, top, z1)),
                b.vertex(w(x0, top, z0)),
            ];
            b.quad(q, flat, st(flat), 0, out);
            let pts = q.map(|i| game(b.vertices[usize::from(i)].pos));
            walls.push(collision_polygon(&pts, game(out), 0)?);
        }
        b.collision[1].extend(walls);
        let top_pts: Vec<Vec3> = ring
            .iter()
            .map(|&i| game(b.vertices[usize::from(i)].pos))
            .collect();
        b.collision[2].push(collision_polygon(&top_pts, [0.0, 1.0, 0.0], 0)?);
        Ok(())
    }

    fn plant(
        &mut self,
        b: &mut ModelBuilder,
        tile: Vec3,
        rot: u32,
        (cx, cz): (u32, u32),
        st: &dyn Fn(u16) -> u32,
    ) {
        let spec = self.spec;
        let (ox, oz) = (cx as f32 + 0.5, -(cz as f32) - 0.5);
        let ground = terrain_height(spec, ox, oz);
        let tex = entry_index(
            self.plant_page(),
            self.rng.below(ENTRIES_PER_PAGE as u32) as usize,
        );
        let w = |x: f32, y: f32, z: f32| to_local([x, y, z], tile, rot);
        let h = 0.375;
        for (dx, dz) in [(0.25f32, 0.0f32), (0.0, 0.25)] {
            let q = [
                b.vertex(w(ox - dx, ground, oz - dz)),
                b.vertex(w(ox + dx, ground, oz + dz)),
                b.vertex(w(ox + dx, ground + h, oz + dz)),
                b.vertex(w(ox - dx, ground + h, oz - dz)),
            ];
            let facing = to_local([tile[0] - dz, tile[1], tile[2] + dx], tile, rot);
            b.quad(q, tex, st(tex), model::FACE_DOUBLE_SIDED, facing);
        }
    }

    fn bridge_model(&mut self, st: &dyn Fn(u16) -> u32) -> Result<Model, WriteError> {
        let s = BRIDGE_SUBDIVISIONS;
        let mut b = ModelBuilder::default();
        let tex = entry_index(PAGE_ROCK, 5);
        let y = 0.3 + PEAK;
        for j in 0..=s {
            for i in 0..=s {
                let x = -0.5 + i as f32 / s as f32;
                let z = 0.5 - j as f32 / s as f32;
                b.vertex([x, y, z]);
            }
        }
        let idx = |i: u32, j: u32| (j * (s + 1) + i) as u16;
        for j in 0..s {
            for i in 0..s {
                let q = [idx(i, j), idx(i + 1, j), idx(i + 1, j + 1), idx(i, j + 1)];
                b.quad(q, tex, st(tex), 0, [0.0, 1.0, 0.0]);
            }
        }
        let deck = [
            [-0.5, y, 0.5],
            [0.5, y, 0.5],
            [0.5, y, -0.5],
            [-0.5, y, -0.5],
        ]
        .map(game);
        b.collision[0].push(collision_polygon(&deck, [0.0, 1.0, 0.0], 0)?);
        Ok(b.finish(None, Vec::new()))
    }

    // ---- STPC ------------------------------------------------------------------------

    fn stpc(&mut self, states: &[u32]) -> Result<Stpc, WriteError> {
        let st = |e: u16| states.get(usize::from(e)).copied().unwrap_or(0);
        let crate_tex = entry_index(PAGE_ROCK, 2);
        let mut crate_b = ModelBuilder::default();
        add_box(
            &mut crate_b,
            [0.0, 0.25, 0.0],
            [0.25, 0.25, 0.25],
            crate_tex,
            st(crate_tex),
        );
        let top = [
            [-0.25, 0.5, 0.25],
            [0.25, 0.5, 0.25],
            [0.25, 0.5, -0.25],
            [-0.25, 0.5, -0.25],
        ]
        .map(game);
        crate_b.collision[0].push(collision_polygon(&top, [0.0, 1.0, 0.0], 0)?);
        let crate_model = crate_b.finish(Some(StpcHeaderExtra::default()), Vec::new());

        let flat = self.flat_entry(2);
        let mut totem_b = ModelBuilder::default();
        add_box(
            &mut totem_b,
            [0.0, 0.25, 0.0],
            [0.2, 0.25, 0.2],
            flat,
            st(flat),
        );
        let lower = totem_b.vertices.len() as u16;
        add_box(
            &mut totem_b,
            [0.0, 0.75, 0.0],
            [0.15, 0.25, 0.15],
            flat,
            st(flat),
        );
        let upper = totem_b.vertices.len() as u16 - lower;
        let totem = totem_b.finish(Some(StpcHeaderExtra::default()), vec![lower, upper]);

        let animation = skinned_animation();
        let cutscene = Cutscene {
            head: CutsceneHead {
                tag: *b"cut\0",
                count: 1,
                info_ptr: 0,
                object_ptr: 0,
            },
            infos: vec![[0, 0, 0, 0, 2, 0, 0, 0]],
            animations: vec![Animation {
                header: AnimHeader {
                    words: [0, 0, 1, 1, 0, 0, 2, 0],
                },
                a_block: Vec::new(),
                frame_table: None,
                delta_pointers: None,
                matrix_pointers: vec![0; 4],
                frames: vec![AnimFrame {
                    deltas: Vec::new(),
                    matrices: vec![identity(), identity()],
                }],
            }],
        };
        Ok(Stpc {
            models: vec![crate_model, totem],
            animation_count: 1,
            animations: vec![animation],
            tail: Some(StpcTail {
                cutscenes: vec![cutscene],
            }),
            rest: script_area(),
        })
    }
}

fn identity() -> [f32; 16] {
    let mut m = [0f32; 16];
    for k in 0..4 {
        m[k * 5] = 1.0;
    }
    m
}

/// One record: nA = 2, 2 frames with a frame table, nDelta = 3 (odd: later frames padded by
/// 2 bytes), 2 bones. Data = 8 + 16 + 8 + 8 + (24 + 128) + (8 + 128) = 328 bytes.
fn skinned_animation() -> Animation {
    let mut m1 = identity();
    m1[13] = 0.125; // lift the upper bone in frame 1
    Animation {
        header: AnimHeader {
            words: [2, 0, 2, 0, 3, 0, 2, 0],
        },
        a_block: vec![1, 0, 0, 0, 2, 0, 0, 0],
        frame_table: Some(vec![0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0]),
        delta_pointers: Some(vec![0; 8]),
        matrix_pointers: vec![0; 8],
        frames: vec![
            AnimFrame {
                deltas: (0..24).collect(),
                matrices: vec![identity(), identity()],
            },
            AnimFrame {
                deltas: vec![1, 0, 2, 0, 3, 0, 0, 0],
                matrices: vec![identity(), m1],
            },
        ],
    }
}

/// Croc 2 style: `u32 count`, per script `u32 len` + len words (opcode low 16, imm high 16).
fn script_area() -> Vec<u8> {
    let scripts: [&[u32]; 2] = [&[0x0001_0002, 0x0000_0003, 0], &[0x0004_0005, 0]];
    let mut v = Vec::new();
    v.extend_from_slice(&(scripts.len() as u32).to_le_bytes());
    for s in scripts {
        v.extend_from_slice(&(s.len() as u32).to_le_bytes());
        for w in s {
            v.extend_from_slice(&w.to_le_bytes());
        }
    }
    v
}

/// An axis-aligned box (8 shared vertices, 12 outward triangles) centred at `c`.
fn add_box(b: &mut ModelBuilder, c: Vec3, h: Vec3, tex: u16, state: u32) {
    let base = b.vertices.len() as u16;
    for k in 0..8u16 {
        let sx = if k & 1 != 0 { 1.0 } else { -1.0 };
        let sy = if k & 2 != 0 { 1.0 } else { -1.0 };
        let sz = if k & 4 != 0 { 1.0 } else { -1.0 };
        b.vertex([c[0] + sx * h[0], c[1] + sy * h[1], c[2] + sz * h[2]]);
    }
    let v = |k: u16| base + k;
    let sides: [([u16; 4], Vec3); 6] = [
        ([v(0), v(1), v(3), v(2)], [0.0, 0.0, -1.0]),
        ([v(5), v(4), v(6), v(7)], [0.0, 0.0, 1.0]),
        ([v(4), v(0), v(2), v(6)], [-1.0, 0.0, 0.0]),
        ([v(1), v(5), v(7), v(3)], [1.0, 0.0, 0.0]),
        ([v(2), v(3), v(7), v(6)], [0.0, 1.0, 0.0]),
        ([v(4), v(5), v(1), v(0)], [0.0, -1.0, 0.0]),
    ];
    for (q, facing) in sides {
        b.quad(q, tex, state, 0, facing);
    }
}

fn water_model() -> Result<Model, WriteError> {
    let mut b = ModelBuilder::default();
    let corners = [
        [-0.5, WATER_Y, 0.5],
        [0.5, WATER_Y, 0.5],
        [0.5, WATER_Y, -0.5],
        [-0.5, WATER_Y, -0.5],
    ];
    for p in corners {
        b.vertex(p);
    }
    b.collision[0].push(collision_polygon(
        &corners.map(game),
        [0.0, 1.0, 0.0],
        model::MATERIAL_WATER,
    )?);
    Ok(b.finish(None, Vec::new()))
}

/// The demo's strings (LGPC): one language and the `#nnn` voice id per string, so `extract`,
/// `replace` and `info` have something to show on the demo.
pub const DEMO_STRINGS: [[&str; 2]; 3] = [
    ["Welcome to Synthetic Island!", "#001"],
    ["The lever opens the gate.", "#002"],
    ["Kuzco, over here!", "#003"],
];

/// [`DEMO_STRINGS`] as an LGPC chunk: strings column-major, each NUL-terminated, each length
/// counting its NUL (as [`modder_level`]'s strings).
fn demo_strings() -> Lgpc {
    let mut lengths = Vec::new();
    let mut data = Vec::new();
    for col in DEMO_STRINGS {
        for s in col {
            lengths.push(s.len() as u32 + 1);
            data.extend_from_slice(s.as_bytes());
            data.push(0);
        }
    }
    Lgpc {
        rows_minus_one: 1,
        cols: DEMO_STRINGS.len() as u32,
        unused: 0,
        lengths,
        data,
    }
}

/// The font page's cell: 16 × 16 texels, 16 cells a row.
const FONT_CELL: usize = 16;

/// A font glyph's rectangle on its page: the 5 × 7 glyph drawn at twice its size, 2 texels
/// from the cell's left edge and 1 from its top, with 2 texels of space on its right.
const FONT_GLYPH: (u8, u8) = (14, 16);

/// The font page (256 × 256, 16-bit, white glyphs on transparent texels) of the printable
/// ASCII characters in [`font5x7::GLYPHS_5X7`], cell `k` (row-major, 16 a row) holding
/// character `FIRST + k`, and one texture entry per glyph naming its rectangle on page `page`.
fn font_page(page: u8) -> (TexturePage, Vec<TextureEntry>) {
    let mut px = vec![0u16; 256 * 256];
    let mut entries = Vec::with_capacity(font5x7::GLYPHS_5X7.len());
    for (k, rows) in font5x7::GLYPHS_5X7.iter().enumerate() {
        let (cx, cy) = ((k % 16) * FONT_CELL, (k / 16) * FONT_CELL);
        for (gy, row) in rows.iter().enumerate() {
            for gx in 0..5 {
                if row & (0b10000 >> gx) == 0 {
                    continue;
                }
                for (dx, dy) in [(0, 0), (1, 0), (0, 1), (1, 1)] {
                    let (x, y) = (cx + 2 + 2 * gx + dx, cy + 1 + 2 * gy + dy);
                    px[y * 256 + x] = 0xFFFF; // opaque white (ABGR1555)
                }
            }
        }
        entries.push(TextureEntry {
            flags: 0,
            page,
            extra: 0xFF,
            u0: cx as u8,
            u1: cx as u8 + FONT_GLYPH.0 - 1,
            v0: cy as u8,
            v1: cy as u8 + FONT_GLYPH.1 - 1,
        });
    }
    let page = match TexturePage::from_pixels16(256, 256, 1, &px) {
        Ok(t) => t,
        Err(_) => TexturePage::raw16(256, 256, 1, px),
    };
    (page, entries)
}

/// The FONT chunk: glyph `c` names the font page's entry of character `c` (from `first`, the
/// entry of [`font5x7::FIRST`]); the codes outside printable ASCII name the space's.
fn font(first: u16) -> Font {
    let last = font5x7::FIRST as usize + font5x7::GLYPHS_5X7.len() - 1;
    Font {
        glyphs: (0..GLYPHS)
            .map(|c| Glyph {
                texture: if (usize::from(font5x7::FIRST)..=last).contains(&c) {
                    first + (c - usize::from(font5x7::FIRST)) as u16
                } else {
                    first
                },
                y_offset: 15,
                advance: u16::from(FONT_GLYPH.0),
                height: u16::from(FONT_GLYPH.1),
            })
            .collect(),
    }
}

fn name() -> Name {
    let mut bytes = b"Synthetic Island".to_vec();
    bytes.resize(32, 0);
    Name { count: 1, bytes }
}

fn smpc() -> Smpc {
    Smpc {
        sounds: vec![Sound {
            kind: *b"cvg ",
            header: Some(CvgHeader {
                sample_rate: 22050,
                unknown_04: 0,
                unknown_06: 0,
                channels: 1,
                unknown_0c: 0,
                unknown_0e: 0,
                audio_bytes: 32,
            }),
            adpcm: vec![0; 32],
        }],
    }
}

fn lght() -> Lght {
    Lght {
        lights: vec![
            Light {
                kind: 1,
                rgb: [0xFF, 0xF0, 0xE0],
                body: LightBody::Three([0.3, 1.0, 0.2]),
            },
            Light {
                kind: 2,
                rgb: [0x80, 0x80, 0xFF],
                body: LightBody::Five {
                    values: [10.0, 2.0, -10.0, 4.0, 1.0],
                    extra: 0,
                },
            },
        ],
    }
}

// ------------------------------------------------------------------------------------------
// The modder's level: the demo plus known objects with meshes, strings and a sound

/// Where the definitions of [`modder_level`] stand in its STPC payload, and what they name.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ModderFacts {
    /// Offset of each STPC model record in the payload (the crate, then the totem).
    pub model_offsets: Vec<u32>,
    /// Definition offsets: `direct` names the crate with one `0x00B2` operand; `delegating`
    /// names only `shared`, whose own operand names the totem; `plain` names nothing.
    pub direct: u32,
    /// See `direct`.
    pub delegating: u32,
    /// See `direct`.
    pub plain: u32,
    /// See `direct` (a block before every object's definition, so in no object's window).
    pub shared: u32,
    /// The index of the texture entry with [`MODDER_ENTRY_FLAGS`] (the last one; no face
    /// uses it).
    pub flag_entry: usize,
}

/// The strings of [`modder_level`]'s LGPC: two strings in two languages and the voice ids.
pub const MODDER_STRINGS: [[&str; 3]; 2] = [
    ["Pull the lever!", "Zieh den Hebel!", "#101"],
    ["Wrong lever!", "Falscher Hebel!", "#102"],
];

/// The glyphs of [`modder_level`] given metrics of their own (the demo's are 15, 14, 16 for
/// every glyph): character, y offset, advance, height, chosen by hand.
pub const MODDER_GLYPHS: [(u8, u16, u16, u16); 2] = [(b'A', 16, 13, 18), (b'i', 11, 6, 12)];

/// The flags of the texture entry [`modder_level`] appends to TEXT (`ModderFacts::flag_entry`):
/// cut-out (0x2), padded border (0x4), double width (0x8), double height (0x10), generated page
/// (0x20), mode 3 (bits 8–10), blend mode 2 (bits 12–14), and two bits without a known meaning,
/// 0x40 and 0x8000.
pub const MODDER_ENTRY_FLAGS: u16 =
    0x0002 | 0x0004 | 0x0008 | 0x0010 | 0x0020 | 0x0040 | 0x0300 | 0x2000 | 0x8000;

/// The sine of [`modder_level`]'s second sound: frequency, amplitude, sample rate, samples.
pub const MODDER_SINE: (f64, f64, u32, usize) = (440.0, 16000.0, 22050, 28 * 100);

/// The samples of [`MODDER_SINE`]: `round(A·sin(2π·f·n/rate))`.
pub fn modder_sine() -> Vec<i16> {
    let (f, a, rate, n) = MODDER_SINE;
    (0..n)
        .map(|k| a * (std::f64::consts::TAU * f * k as f64 / f64::from(rate)).sin())
        .map(|v| v.round() as i16)
        .collect()
}

/// The demo level ([`LevelSpec::demo`]) with what a modder extracts: four MAP objects whose
/// definitions reference STPC meshes the `0x00B2` way (object 0: the crate directly, yaw
/// 1024; object 1: the totem through a shared block, yaw 0; object 2: nothing, a marker;
/// object 3: the crate again through object 0's definition, yaw 512), a third light (type 4),
/// LGPC with [`MODDER_STRINGS`], SMPC with a second sound, [`modder_sine`] encoded as PSX
/// ADPCM, the FONT metrics of [`MODDER_GLYPHS`] and one more texture entry, flagged
/// [`MODDER_ENTRY_FLAGS`]. The demo itself ([`demo_level`]) is not changed.
pub fn modder_level() -> Result<(Level, ModderFacts), WriteError> {
    let mut level = generate(&LevelSpec::demo())?;
    let stpc = level.stpc_mut().expect("the demo has STPC");
    let (payload, model_offsets) = stpc.encode_with_model_offsets()?;
    let base = payload.len() - stpc.rest.len();
    let at = |k: usize| (base + stpc.rest.len() + k) as u32;
    // each block: u16 opcode, u16 0, u32 operand (+ a plain word)
    let word = |v: &mut Vec<u8>, lo: u16, hi: u16| {
        v.extend_from_slice(&lo.to_le_bytes());
        v.extend_from_slice(&hi.to_le_bytes());
    };
    let mut defs = Vec::new();
    let shared = at(defs.len());
    word(&mut defs, 0x00B2, 0);
    defs.extend_from_slice(&model_offsets[1].to_le_bytes());
    let direct = at(defs.len());
    word(&mut defs, 0x0001, 0x0002);
    word(&mut defs, 0x00B2, 0);
    defs.extend_from_slice(&model_offsets[0].to_le_bytes());
    let delegating = at(defs.len());
    word(&mut defs, 0x00B2, 0);
    defs.extend_from_slice(&shared.to_le_bytes());
    let plain = at(defs.len());
    word(&mut defs, 0x0003, 0x0000);
    word(&mut defs, 0x0000, 0x0000);
    stpc.rest.extend_from_slice(&defs);

    let map = level.map_mut().expect("the demo has MAP");
    let proto = map.objects[0];
    let fx = |v: f32| (f64::from(v) * 4096.0).round() as i32;
    let place = |def: u32, yaw: u16, x: f32, y: f32, z: f32| MapObject {
        rot: [0, yaw, 0],
        pos: [fx(x), fx(y), fx(-z)],
        script_offset: def,
        ..proto
    };
    map.objects = vec![
        place(direct, 1024, 5.5, 1.0, -5.5),
        place(delegating, 0, 6.25, 1.5, -4.75),
        place(plain, 0, 7.0, 0.5, -6.0),
        place(direct, 512, 4.5, 1.25, -6.5),
    ];
    if let Some(l) = level.lght_mut() {
        l.lights.push(Light {
            kind: 4,
            rgb: [0x40, 0x20, 0x10],
            body: LightBody::Five {
                values: [6.0, 3.0, -6.0, 1.0, 5.0],
                extra: 2,
            },
        });
    }
    if let Some(t) = level.lgpc_mut() {
        let mut lengths = Vec::new();
        let mut data = Vec::new();
        for col in MODDER_STRINGS {
            for s in col {
                lengths.push(s.len() as u32 + 1);
                data.extend_from_slice(s.as_bytes());
                data.push(0);
            }
        }
        *t = Lgpc {
            rows_minus_one: 2,
            cols: MODDER_STRINGS.len() as u32,
            unused: 0,
            lengths,
            data,
        };
    }
    let sine = crate::adpcm::encode(&modder_sine(), &crate::adpcm::BlockFlags::default());
    for c in &mut level.chunks {
        if let ChunkData::Smpc(s) = &mut c.data {
            let mut snd = s.sounds[0].clone();
            if let Some(h) = &mut snd.header {
                h.audio_bytes = sine.len() as u32;
            }
            snd.adpcm = sine.clone();
            s.sounds.push(snd);
        }
    }
    if let Some(f) = level.font_mut() {
        for (c, y_offset, advance, height) in MODDER_GLYPHS {
            let g = &mut f.glyphs[usize::from(c)];
            (g.y_offset, g.advance, g.height) = (y_offset, advance, height);
        }
    }
    let mut flag_entry = 0;
    if let Some(t) = level.text_mut() {
        flag_entry = t.entries.len();
        t.entries.push(TextureEntry {
            flags: MODDER_ENTRY_FLAGS,
            page: 0,
            extra: 0xFF,
            u0: 0,
            u1: 63,
            v0: 0,
            v1: 63,
        });
    }
    let facts = ModderFacts {
        model_offsets,
        direct,
        delegating,
        plain,
        shared,
        flag_entry,
    };
    Ok((level, facts))
}
