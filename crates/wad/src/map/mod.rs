//! MAP: the tile grid that places TRAK models, plus vertex colours, zones, objects and paths.
//!
//! The game reads MAP as a stream (`sub_42AC50`), so the true end of the chunk is where these
//! reads end. Layout, in file order (docs/formats/argonaut-wad.md §18, §5 and §12):
//!
//! | Part | Size | Meaning |
//! |---|---|---|
//! | header | 12 | `u32 N` tiles, `u32 W`, `u32 H` grid size |
//! | tiles "A" | N × 24 | [`Tile`]: `f32 x, y, z; u32 rot; u32 model; u32 anim_flag` (export space, x/z at cell centres) |
//! | params | 4 + n × 4 | `u32 n` + u32 list objects index (`section2_index`) |
//! | strat records | 4 + n × 90 | `u32 n` + [`StratRecord`]s ([`strats`]) |
//! | route nodes | 4 + n × 34 | `u32 n` + [`RouteNode`]s, chained into routes ([`routes`]) |
//! | zone table | 256 | 32 × [`Zone`] `{u32 visibility mask, i32 height}` ([`zones`]) |
//! | zone grid | W·H × 4 | zone number (0..31) per cell |
//! | transforms "B" | N × 24 | [`TileTransform`]: `i32 rx, ry, rz, x, y, z`, 20.12 fixed point, game space (z = −A.z), ry = A.rot |
//! | model indices | N × 4 | TRAK model per tile (= A.model) |
//! | tile swaps | 4 + n × 20 | only if `WFPC & 0x10000`: [`TileSwap`]; record k belongs to the k-th tile with `anim_flag ≠ 0` |
//! | vertex colours | … | per tile, [`TileColours`] (see below) |
//! | objects | 8 + n × 58 | `u32 object_count, u32 max_objects` + [`MapObject`]s |
//! | chain table | … | only if `WFPC & 0x200000`: [`ChainTable`] |
//! | view distance | 4 | only if `WFPC & 0x10`: u32 (default 200 when absent; a pool size, see [`Map::view_distance`]) |
//! | final | 2 | u16 |
//!
//! # Vertex colours (docs/formats/argonaut-wad.md §12.1)
//!
//! For tile i with model m = `model_indices[i]`: the first layer is `nVerts(m) × u32` RGBA
//! (0x80 = 1.0). The layer count is the **maximum of byte 3 over all entries of that first
//! layer**: 0 or 1 means one layer, k ≥ 2 means k layers. For the k-th flagged tile that has a
//! swap record, the same structure follows for the record's model B, but its layer count
//! starts from the running maximum (not reset): max(main count, its own first-layer maximum).
//! Colour blocks are stored as read (layers of u32 per vertex).
//!
//! # Chain table
//!
//! Layout taken from Rartrin's Croc 2 PC reader (`CameraPoints`; confidence \[M\] for TENG): `u32 arrays`;
//! per array `u32 polygons`; per polygon `u16 point_count, u16 flags`; per point `i32 x, i32 z`,
//! an `i32 y` when `WFPC & 0x4000000`, then `u16, i16`. Since only fixed-size fields follow
//! it, the table's byte range is known without parsing it; when the bytes do not parse as
//! this layout exactly they are kept raw ([`ChainTable::Raw`]).

pub mod links;
pub mod routes;
pub mod strats;
pub mod zones;

use crate::model::Vec3;
use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

pub use routes::{RouteNode, ROUTE_NODE_SIZE};
pub use strats::{StratRecord, STRAT_RECORD_SIZE};

/// WFPC bit: MAP has the view-distance word before the final u16.
pub const WFPC_VIEW_DISTANCE: u32 = 0x10;
/// WFPC bit: MAP has tile swaps and their extra colour blocks.
pub const WFPC_TILE_SWAPS: u32 = 0x10000;
/// WFPC bit: MAP has the chain table.
pub const WFPC_CHAINS: u32 = 0x200000;
/// WFPC bit: chain points carry a Y word.
pub const WFPC_CHAIN_Y: u32 = 0x4000000;

/// Size of an object record.
pub const OBJECT_SIZE: usize = 58;
/// Number of zones in the zone table.
pub const ZONE_COUNT: usize = 32;

/// A tile placement "A" (24 bytes, export space).
///
/// The loader (ENG-RE `REVERSED/decompiled/sub_42AC50.c`, the first loop) reads the six words
/// and uses x and z to file the tile into its cell's list, and the sixth word only to test it
/// against 0; the fourth and fifth (`rot`, `model`) it reads and drops (the B transforms and the
/// model indices carry them). ENG-RE's Python (`WAD/eng_wad/map_full_chunk.py`) reads the fourth
/// as a float (`unk_float`) and names the fifth `flags_or_id`, the sixth `nonzero_marker`.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tile {
    /// Position; x and z at cell centres (x ∈ [0, W), z ∈ (−H, 0]).
    pub pos: Vec3,
    /// Rotation about y in 4096ths of a turn (0/1024/2048/3072 in practice); not read by the
    /// loader.
    pub rot: u32,
    /// TRAK model index; not read by the loader.
    pub model: u32,
    /// The tile's flag word: non-zero puts the tile on the loader's list of swap tiles, the
    /// k-th such tile owning swap record k ([`TileSwap`]); its value is not used otherwise.
    pub anim_flag: u32,
}

/// One entry of the zone table (8 bytes; what the game does with it: [`zones`]).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Zone {
    /// Bit z set: the tiles and strats of zone z are drawn while the player is in this zone
    /// (0 = all zones; `sub_41E020`, `sub_42BF40`).
    pub mask: u32,
    /// Added to the y of the player's cell's first tile to give the level height strats read
    /// (20.12 fixed point; `sub_41E020`).
    pub height: i32,
}

/// A tile transform "B" (24 bytes, 20.12 fixed point, game space).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileTransform {
    /// Rotation rx, ry, rz (ry = A.rot; rx = rz = 0 in all known levels).
    pub rot: [i32; 3],
    /// Position (A.x, A.y, −A.z) × 4096.
    pub pos: [i32; 3],
}

/// A tile swap record (20 bytes; WFPC & 0x10000).
///
/// The loader (ENG-RE `REVERSED/decompiled/sub_42AC50.c`) reads five u32 and adds a pointer to
/// the model-index entry of the k-th flagged tile. `sub_553F10` finds the record of a strat by
/// comparing the strat's position `>> 12` (game space, whole units) with the first three words;
/// `sub_554090` then sets the tile's model to word 3 (first exchanging the tile's colour block
/// with the swap block when the tile shows word 4's model, WFPC & 0x10000000); word 4's model
/// sizes the swap colour block (`sub_42AC50`). The cell list it walks is `grid[x + z·W]` with
/// x = word 0 and z = word 2.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TileSwap {
    /// Words 0–2: cell column x, height y (whole units) and cell row z of the strat that
    /// triggers the swap, game space.
    pub pos: [i32; 3],
    /// Word 3: the normal model (A), the one `sub_554090` gives the tile.
    pub model_a: u32,
    /// Word 4: the alternative model (B); its colour block follows the tile's own.
    pub model_b: u32,
}

/// One colour block: layers of one u32 RGBA per vertex.
pub type ColourLayers = Vec<Vec<u32>>;

/// The vertex colours of one tile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct TileColours {
    /// The tile model's colour layers.
    pub layers: ColourLayers,
    /// For swap tiles: the layers of the swap's model B.
    pub swap_layers: Option<ColourLayers>,
}

/// A placed object (strat), 58 bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct MapObject {
    /// Rotation, 3 × u16 (4096ths of a turn).
    pub rot: [u16; 3],
    /// Position, 3 × i32 in 20.12 fixed point (game space).
    pub pos: [i32; 3],
    /// Offset of the strat script in the STPC script area.
    pub script_offset: u32,
    /// Eight u32 (ENG names: local_count, section2_index, stack_word_count, stack_arg_count,
    /// spawn_flags, extra_count, section4_index, spawn_aux); [`links`] resolves the
    /// section-2 and section-4 indices with their count.
    pub fields: [u32; 8],
    /// Flags (bit 1 = don't spawn).
    pub flags: u16,
    /// A second u16 of unknown use.
    pub extra: u16,
}

/// One point of a chain polygon.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct ChainPoint {
    /// X (fixed point).
    pub x: i32,
    /// Z (fixed point).
    pub z: i32,
    /// Y, present when WFPC & 0x4000000.
    pub y: Option<i32>,
    /// A u16 of unknown meaning (a point type in Croc 2).
    pub kind: u16,
    /// An i16 of unknown meaning.
    pub value: i16,
}

/// A chain polygon: flags and points.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ChainPolygon {
    /// Flags.
    pub flags: u16,
    /// Points.
    pub points: Vec<ChainPoint>,
}

/// The chain table (WFPC & 0x200000).
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ChainTable {
    /// Parsed: arrays of polygons.
    Parsed(Vec<Vec<ChainPolygon>>),
    /// Bytes that did not parse as the known layout, kept verbatim.
    Raw(Vec<u8>),
}

/// The MAP chunk.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Map {
    /// Grid width W.
    pub grid_w: u32,
    /// Grid height H.
    pub grid_h: u32,
    /// The tile placements "A" (their count is the header's N).
    pub tiles: Vec<Tile>,
    /// Section 2: the u32 parameter list (objects point into it with `section2_index`).
    pub params: Vec<u32>,
    /// Section 3: the 90-byte strat records.
    pub strat_records: Vec<StratRecord>,
    /// Section 4: the 34-byte route nodes.
    pub route_nodes: Vec<RouteNode>,
    /// The 32-entry zone table.
    pub zones: [Zone; ZONE_COUNT],
    /// Zone number per cell, W·H entries, row z major (`cell = x + z·W`).
    pub zone_grid: Vec<u32>,
    /// The tile transforms "B" (N entries).
    pub transforms: Vec<TileTransform>,
    /// The TRAK model index per tile (N entries).
    pub model_indices: Vec<u32>,
    /// Tile swaps, present iff WFPC & 0x10000.
    pub swaps: Option<Vec<TileSwap>>,
    /// Vertex colours per tile (N entries).
    pub colours: Vec<TileColours>,
    /// The `max_objects` word.
    pub max_objects: u32,
    /// The placed objects.
    pub objects: Vec<MapObject>,
    /// The chain table, present iff WFPC & 0x200000.
    pub chains: Option<ChainTable>,
    /// The word before the final u16, present iff WFPC & 0x10 (200 when absent). Called the
    /// view distance in earlier notes; the decompile shows it sizes a pool of 72-byte records
    /// (`DAT_006DA328`: `sub_4280C0` allocates `n × 0x48` bytes and links them as a free list).
    pub view_distance: Option<u32>,
    /// The final u16, stored at `world + 0x0C`; strat scripts read it (`sub_550E60`, which
    /// pushes the values a script reads, gives it for value 0x90 as a 20.12 whole number).
    /// Meaning otherwise unknown.
    pub final_u16: u16,
}

fn alpha(c: u32) -> u8 {
    (c >> 24) as u8
}

/// The number of colour layers the loader reads for a block whose first layer is `first`,
/// given the running maximum `running` of byte 3 so far (start with 0 for a tile's main
/// block). Returns (layer count, new running maximum). docs/formats/argonaut-wad.md §12.1.
pub fn colour_layer_count(first: &[u32], running: u8) -> (usize, u8) {
    let m = first.iter().map(|&c| alpha(c)).fold(running, u8::max);
    (usize::from(m.max(1)), m)
}

fn read_layers(
    r: &mut Reader<'_>,
    verts: usize,
    running: u8,
) -> Result<(ColourLayers, u8), ReadError> {
    let n = r.count(verts as u64, 4)?;
    let mut first = Vec::with_capacity(n);
    for _ in 0..n {
        first.push(r.u32()?);
    }
    let (count, running) = colour_layer_count(&first, running);
    let more = count - 1;
    let total = (more as u64).saturating_mul(verts as u64);
    r.count(total, 4)?;
    let mut layers = Vec::with_capacity(count);
    layers.push(first);
    for _ in 0..more {
        let mut l = Vec::with_capacity(verts);
        for _ in 0..verts {
            l.push(r.u32()?);
        }
        layers.push(l);
    }
    Ok((layers, running))
}

fn write_layers(w: &mut Writer, layers: &ColourLayers) {
    for l in layers {
        for &c in l {
            w.u32(c);
        }
    }
}

fn len32(n: usize, field: &str) -> Result<u32, WriteError> {
    fit(n, || format!("MAP/{field}"))
}

impl Tile {
    fn read(r: &mut Reader<'_>) -> Result<Tile, ReadError> {
        Ok(Tile {
            pos: r.f32s::<3>()?,
            rot: r.u32()?,
            model: r.u32()?,
            anim_flag: r.u32()?,
        })
    }
}

impl MapObject {
    /// Read a 58-byte object.
    pub fn read(r: &mut Reader<'_>) -> Result<MapObject, ReadError> {
        let rot = [r.u16()?, r.u16()?, r.u16()?];
        let pos = [r.i32()?, r.i32()?, r.i32()?];
        let script_offset = r.u32()?;
        let mut fields = [0u32; 8];
        for f in &mut fields {
            *f = r.u32()?;
        }
        Ok(MapObject {
            rot,
            pos,
            script_offset,
            fields,
            flags: r.u16()?,
            extra: r.u16()?,
        })
    }

    /// Write a 58-byte object.
    pub fn write(&self, w: &mut Writer) {
        for x in self.rot {
            w.u16(x);
        }
        for x in self.pos {
            w.i32(x);
        }
        w.u32(self.script_offset);
        for x in self.fields {
            w.u32(x);
        }
        w.u16(self.flags);
        w.u16(self.extra);
    }
}

impl ChainTable {
    fn parse(r: &mut Reader<'_>, with_y: bool) -> Result<Vec<Vec<ChainPolygon>>, ReadError> {
        let point_size = if with_y { 16 } else { 12 };
        let n = r.u32_count(4)?;
        let mut arrays = Vec::with_capacity(n);
        for _ in 0..n {
            let k = r.u32_count(4)?;
            let mut polys = Vec::with_capacity(k);
            for _ in 0..k {
                let count = r.u16()?;
                let flags = r.u16()?;
                let c = r.count(count, point_size)?;
                let mut points = Vec::with_capacity(c);
                for _ in 0..c {
                    let x = r.i32()?;
                    let z = r.i32()?;
                    let y = if with_y { Some(r.i32()?) } else { None };
                    points.push(ChainPoint {
                        x,
                        z,
                        y,
                        kind: r.u16()?,
                        value: r.i16()?,
                    });
                }
                polys.push(ChainPolygon { flags, points });
            }
            arrays.push(polys);
        }
        Ok(arrays)
    }

    fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        match self {
            ChainTable::Raw(b) => w.bytes(b),
            ChainTable::Parsed(arrays) => {
                w.u32(len32(arrays.len(), "chains/array count")?);
                for (a, polys) in arrays.iter().enumerate() {
                    w.u32(len32(
                        polys.len(),
                        &format!("chains/arrays[{a}]/polygon count"),
                    )?);
                    for (k, p) in polys.iter().enumerate() {
                        w.u16(fit(p.points.len(), || {
                            format!("MAP/chains/arrays[{a}]/polygons[{k}]/point count")
                        })?);
                        w.u16(p.flags);
                        for pt in &p.points {
                            w.i32(pt.x);
                            w.i32(pt.z);
                            if let Some(y) = pt.y {
                                w.i32(y);
                            }
                            w.u16(pt.kind);
                            w.i16(pt.value);
                        }
                    }
                }
            }
        }
        Ok(())
    }
}

/// The colour blocks of the `tiles` (one per tile, sized by its model's vertex count; a
/// swap colour block after it for the tiles with the anim flag that have a swap record).
fn read_colours(
    r: &mut Reader<'_>,
    tiles: &[Tile],
    model_indices: &[u32],
    swaps: Option<&[TileSwap]>,
    trak_vertex_counts: &[usize],
) -> Result<Vec<TileColours>, ReadError> {
    let n = tiles.len();
    let mut colours = Vec::with_capacity(n);
    let mut flagged = 0usize;
    for i in 0..n {
        colours.push(r.within("colours", Some(i), |r| {
            let m = model_indices[i];
            let verts = vertex_count(r, trak_vertex_counts, m)?;
            let (layers, running) = read_layers(r, verts, 0)?;
            let mut swap_layers = None;
            if tiles[i].anim_flag != 0 {
                let k = flagged;
                flagged += 1;
                if let Some(s) = swaps.and_then(|s| s.get(k)) {
                    let verts = vertex_count(r, trak_vertex_counts, s.model_b)?;
                    swap_layers = Some(read_layers(r, verts, running)?.0);
                }
            }
            Ok(TileColours {
                layers,
                swap_layers,
            })
        })?);
    }
    Ok(colours)
}

/// The chain table (with WFPC's chain bit): parsed when it parses whole, raw otherwise; it
/// ends where the fixed fields after it begin.
fn read_chains(r: &mut Reader<'_>, wfpc: u32) -> Result<Option<ChainTable>, ReadError> {
    let fixed_tail = 2 + if wfpc & WFPC_VIEW_DISTANCE != 0 { 4 } else { 0 };
    Ok(if wfpc & WFPC_CHAINS != 0 {
        Some(r.within("chains", None, |r| {
            let len = r.remaining().checked_sub(fixed_tail).ok_or_else(|| {
                r.invalid("chain table: the chunk ends before the fixed fields that follow it")
            })?;
            let mut s = r.sub(len)?;
            let raw = s.rest();
            match ChainTable::parse(&mut s, wfpc & WFPC_CHAIN_Y != 0) {
                Ok(t) if s.is_empty() => Ok(ChainTable::Parsed(t)),
                _ => Ok(ChainTable::Raw(raw.to_vec())),
            }
        })?)
    } else {
        None
    })
}

impl Map {
    /// Read a MAP payload. `wfpc` selects the optional parts; `trak_vertex_counts` (one per
    /// TRAK model, [`crate::trak::Trak::vertex_counts`]) sizes the colour blocks.
    pub fn read(
        r: &mut Reader<'_>,
        wfpc: u32,
        trak_vertex_counts: &[usize],
    ) -> Result<Map, ReadError> {
        let n_at = r.pos();
        let n = r.u32()?;
        let grid_w = r.u32()?;
        let grid_h = r.u32()?;
        let n = r.count(n, 24).map_err(|mut e| {
            e.offset = n_at as u64;
            e
        })?;
        let mut tiles = Vec::with_capacity(n);
        for i in 0..n {
            tiles.push(r.within("tiles", Some(i), Tile::read)?);
        }
        let params = r.within("params", None, |r| {
            let k = r.u32_count(4)?;
            (0..k).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()
        })?;
        let strat_records = r.within("strat_records", None, |r| {
            let k = r.u32_count(STRAT_RECORD_SIZE)?;
            (0..k)
                .map(|i| r.within("strat_records", Some(i), StratRecord::read))
                .collect::<Result<Vec<_>, _>>()
        })?;
        let route_nodes = r.within("route_nodes", None, |r| {
            let k = r.u32_count(ROUTE_NODE_SIZE)?;
            (0..k)
                .map(|i| r.within("route_nodes", Some(i), RouteNode::read))
                .collect::<Result<Vec<_>, _>>()
        })?;
        let mut zones = [Zone::default(); ZONE_COUNT];
        r.within("zones", None, |r| {
            for z in &mut zones {
                *z = Zone {
                    mask: r.u32()?,
                    height: r.i32()?,
                };
            }
            Ok(())
        })?;
        let zone_grid = r.within("zone_grid", None, |r| {
            let cells = u64::from(grid_w) * u64::from(grid_h);
            let k = r.count(cells, 4)?;
            (0..k).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()
        })?;
        let transforms = r.within("transforms", None, |r| {
            r.count(n as u64, 24)?;
            (0..n)
                .map(|_| {
                    Ok(TileTransform {
                        rot: [r.i32()?, r.i32()?, r.i32()?],
                        pos: [r.i32()?, r.i32()?, r.i32()?],
                    })
                })
                .collect::<Result<Vec<_>, ReadError>>()
        })?;
        let model_indices = r.within("model_indices", None, |r| {
            r.count(n as u64, 4)?;
            (0..n).map(|_| r.u32()).collect::<Result<Vec<_>, _>>()
        })?;
        let swaps = if wfpc & WFPC_TILE_SWAPS != 0 {
            Some(r.within("swaps", None, |r| {
                let k = r.u32_count(20)?;
                (0..k)
                    .map(|_| {
                        Ok(TileSwap {
                            pos: [r.i32()?, r.i32()?, r.i32()?],
                            model_a: r.u32()?,
                            model_b: r.u32()?,
                        })
                    })
                    .collect::<Result<Vec<_>, ReadError>>()
            })?)
        } else {
            None
        };
        let colours = read_colours(
            r,
            &tiles,
            &model_indices,
            swaps.as_deref(),
            trak_vertex_counts,
        )?;
        let (max_objects, objects) = r.within("objects", None, |r| {
            let count_at = r.pos();
            let count = r.u32()?;
            let max = r.u32()?;
            let k = r.count(count, OBJECT_SIZE).map_err(|mut e| {
                e.offset = count_at as u64;
                e
            })?;
            let mut v = Vec::with_capacity(k);
            for i in 0..k {
                v.push(r.within("objects", Some(i), MapObject::read)?);
            }
            Ok((max, v))
        })?;
        let chains = read_chains(r, wfpc)?;
        let view_distance = if wfpc & WFPC_VIEW_DISTANCE != 0 {
            Some(r.within("view_distance", None, |r| r.u32())?)
        } else {
            None
        };
        let final_u16 = r.within("final", None, |r| r.u16())?;
        Ok(Map {
            grid_w,
            grid_h,
            tiles,
            params,
            strat_records,
            route_nodes,
            zones,
            zone_grid,
            transforms,
            model_indices,
            swaps,
            colours,
            max_objects,
            objects,
            chains,
            view_distance,
            final_u16,
        })
    }

    /// Write the payload in file order. Optional parts are written when present (their
    /// presence must agree with WFPC; [`crate::check`] reports disagreement). Fails, naming
    /// the field (`MAP/tile count`), when a list is too long for its u32/u16 count.
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(len32(self.tiles.len(), "tile count")?);
        w.u32(self.grid_w);
        w.u32(self.grid_h);
        for t in &self.tiles {
            w.f32s(&t.pos);
            w.u32(t.rot);
            w.u32(t.model);
            w.u32(t.anim_flag);
        }
        w.u32(len32(self.params.len(), "params/count")?);
        for &p in &self.params {
            w.u32(p);
        }
        w.u32(len32(self.strat_records.len(), "strat_records/count")?);
        for d in &self.strat_records {
            d.write(w);
        }
        w.u32(len32(self.route_nodes.len(), "route_nodes/count")?);
        for p in &self.route_nodes {
            p.write(w);
        }
        for z in &self.zones {
            w.u32(z.mask);
            w.i32(z.height);
        }
        for &z in &self.zone_grid {
            w.u32(z);
        }
        for t in &self.transforms {
            for x in t.rot {
                w.i32(x);
            }
            for x in t.pos {
                w.i32(x);
            }
        }
        for &m in &self.model_indices {
            w.u32(m);
        }
        if let Some(s) = &self.swaps {
            w.u32(len32(s.len(), "swaps/count")?);
            for x in s {
                for p in x.pos {
                    w.i32(p);
                }
                w.u32(x.model_a);
                w.u32(x.model_b);
            }
        }
        for c in &self.colours {
            write_layers(w, &c.layers);
            if let Some(l) = &c.swap_layers {
                write_layers(w, l);
            }
        }
        w.u32(len32(self.objects.len(), "objects/count")?);
        w.u32(self.max_objects);
        for o in &self.objects {
            o.write(w);
        }
        if let Some(c) = &self.chains {
            c.write(w)?;
        }
        if let Some(v) = self.view_distance {
            w.u32(v);
        }
        w.u16(self.final_u16);
        Ok(())
    }

    /// The grid cell of a tile position as the loader computes it (docs/formats/argonaut-wad.md §12.6):
    /// `(int)(x − 0.5) − (int)(z + 0.5) · W`, or `None` outside the grid.
    pub fn cell_of(&self, pos: Vec3) -> Option<usize> {
        let cx = (pos[0] - 0.5).trunc();
        let cz = -(pos[2] + 0.5).trunc();
        let in_range = |v: f32, max: u32| v.is_finite() && v >= 0.0 && v < max as f32;
        if !in_range(cx, self.grid_w) || !in_range(cz, self.grid_h) {
            return None;
        }
        (cz as usize)
            .checked_mul(self.grid_w as usize)?
            .checked_add(cx as usize)
    }
}

fn vertex_count(r: &Reader<'_>, counts: &[usize], model: u32) -> Result<usize, ReadError> {
    counts.get(model as usize).copied().ok_or_else(|| {
        r.invalid(format!(
            "model index {model} is not below the {} TRAK models",
            counts.len()
        ))
    })
}
