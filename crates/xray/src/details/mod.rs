//! `level.details`: the detail objects (grass) and the slot grid that places them
//! (docs/formats/xray-level.md §17).
//!
//! A chunk file:
//!
//! | chunk | payload |
//! |---|---|
//! | 0 `FSD_HEADER` | `u32 version, u32 object_count, i32 offs_x, i32 offs_z, u32 size_x, u32 size_z` |
//! | 1 `FSD_MESHES` | one chunk per model, id = model index: `sz shader, sz texture, u32 flags, f32 min_scale, f32 max_scale, u32 vertex_count, u32 index_count`, vertices (`Fvector P; f32 u, v`), `u16` indices |
//! | 2 `FSD_SLOTS` | `size_x × size_z` slots, row by row (`z * size_x + x`) |
//!
//! A version 3 slot is 16 bytes: two `u32` of bit fields from the low bit up (`y_base:12,
//! y_height:8, id0:6, id1:6` | `id2:6, id3:6, c_dir:4, c_hemi:4, c_r:4, c_g:4, c_b:4`) and four
//! `u16` palettes (`a0..a3`, 4 bits each); an id of 63 is empty. `y_base * 0.2 - 200` is the
//! slot's floor, `y_height * 0.1` its height. A version 2 slot is 22 bytes: `f32 y_min, y_max`,
//! four `{u8 id; u16 palette}` (id 255 is empty) and a `u16` colour.
//!
//! Slot `(x, z)` covers `[(x - offs_x) * 2, +2] × [(z - offs_z) * 2, +2]` metres.
//!
//! Sources:
//! * The engine (SkyLoaderr/xray-engine-repo): `Editors/LevelEditor/Engine/DetailFormat.h`
//!   (2005-07-05 `210b8fa0e9`: `DETAIL_VERSION 3`, `DetailHeader`, the 16-byte `DetailSlot`,
//!   `r_ybase() = y_base * .2 - 200`, `r_yheight() = y_height * .1`, `ID_Empty = 0x3f`,
//!   `DETAIL_SLOT_SIZE 2`, and the writer's chunk order in its comment); `xr_3da/DetailFormat.h`
//!   of 2002-11-25 (`2ecebf3d2b`: `DETAIL_VERSION 2`, the 22-byte slot `{float y_min, y_max;
//!   DetailItem items[4]; u16 color;}`, `DetailItem {u8 id; DetailPalette palette;}`);
//!   `xr_3da/xrRender_R1/DetailManager_CACHE.cpp` `QueryDB` (`linear_id = db_z * size_x + db_x`,
//!   `db_x = sx + offs_x`) and `cache_Task` (the box `sx * slot_size`…`+ slot_size`).
//! * xray_re-tools (2024-06-23 `65a0455`): `sources/xray_re/xr_details.h` (`details_header`,
//!   `detail_slot_v2`, `detail_slot_v3`, chunk ids), `xr_level_details.cxx` (versions 2 and 3;
//!   slots chunk a whole number of slots, `size_x * size_z` of them), `xr_dm.cxx` `load_dm`
//!   (the model record) and `xr_geom_buf.cxx` `xr_vbuf::load_dm` (position then UV).
//!   xray_re-tools adds 0.05 to the height; the engine does not, and wins.

#[cfg(feature = "generate")]
pub mod generate;
pub mod scene;

use levelgeom_binary::{Problem, ReadError, Reader, Warning, WriteError, Writer};

use crate::chunk::{self, Context, Framed};

/// `FSD_HEADER`.
pub const HEADER_CHUNK: u32 = 0;
/// `FSD_MESHES`.
pub const MESHES_CHUNK: u32 = 1;
/// `FSD_SLOTS`.
pub const SLOTS_CHUNK: u32 = 2;
/// Slot edge, metres (`DETAIL_SLOT_SIZE`).
pub const SLOT_SIZE: f32 = 2.0;
/// The empty id of a version 3 slot.
pub const EMPTY_V3: u8 = 0x3f;
/// The empty id of a version 2 slot.
pub const EMPTY_V2: u8 = 0xff;

/// `DetailHeader`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// 2 or 3.
    pub version: u32,
    /// Models in `FSD_MESHES`.
    pub object_count: u32,
    /// Slot index of x = 0.
    pub offs_x: i32,
    /// Slot index of z = 0.
    pub offs_z: i32,
    /// Slots along x.
    pub size_x: u32,
    /// Slots along z.
    pub size_z: u32,
}

/// One detail model.
#[derive(Clone, Debug, PartialEq)]
pub struct Model {
    /// Shader name (without its terminating zero).
    pub shader: Vec<u8>,
    /// Texture name.
    pub texture: Vec<u8>,
    /// Flags (`DO_NO_WAVING` = 1).
    pub flags: u32,
    /// Smallest scale.
    pub min_scale: f32,
    /// Largest scale.
    pub max_scale: f32,
    /// Vertices: position (model space), UV.
    pub vertices: Vec<([f32; 3], [f32; 2])>,
    /// Triangle list.
    pub indices: Vec<u16>,
    /// Bytes after the indices (kept).
    pub tail: Vec<u8>,
}

impl Model {
    fn read(r: &mut Reader<'_>) -> Result<Model, ReadError> {
        let shader = r.cstr()?.to_vec();
        let texture = r.cstr()?.to_vec();
        let flags = r.u32()?;
        let min_scale = r.f32()?;
        let max_scale = r.f32()?;
        let nv = r.u32()?;
        let ni = r.u32()?;
        let nv = r.count(nv, 20)?;
        let mut vertices = Vec::with_capacity(nv);
        for _ in 0..nv {
            vertices.push((r.f32s()?, r.f32s()?));
        }
        let ni = r.count(ni, 2)?;
        let mut indices = Vec::with_capacity(ni);
        for _ in 0..ni {
            indices.push(r.u16()?);
        }
        Ok(Model {
            shader,
            texture,
            flags,
            min_scale,
            max_scale,
            vertices,
            indices,
            tail: r.take_rest().to_vec(),
        })
    }

    fn write(&self, w: &mut Writer) {
        w.bytes(&self.shader);
        w.u8(0);
        w.bytes(&self.texture);
        w.u8(0);
        w.u32(self.flags);
        w.f32(self.min_scale);
        w.f32(self.max_scale);
        w.u32(self.vertices.len() as u32);
        w.u32(self.indices.len() as u32);
        for (p, uv) in &self.vertices {
            w.f32s(p);
            w.f32s(uv);
        }
        for i in &self.indices {
            w.u16(*i);
        }
        w.bytes(&self.tail);
    }
}

/// A version 3 slot (16 bytes), as stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SlotV3 {
    /// `y_base:12, y_height:8, id0:6, id1:6`.
    pub lo: u32,
    /// `id2:6, id3:6, c_dir:4, c_hemi:4, c_r:4, c_g:4, c_b:4`.
    pub hi: u32,
    /// Densities of each model in the slot's four quarters, 4 bits each.
    pub palette: [u16; 4],
}

impl SlotV3 {
    /// `y_base` (12 bits).
    pub fn y_base(&self) -> u32 {
        self.lo & 0xfff
    }
    /// `y_height` (8 bits).
    pub fn y_height(&self) -> u32 {
        (self.lo >> 12) & 0xff
    }
    /// Model id `i` (0–3); 63 is empty.
    pub fn id(&self, i: usize) -> u8 {
        let v = match i & 3 {
            0 => self.lo >> 20,
            1 => self.lo >> 26,
            2 => self.hi,
            _ => self.hi >> 6,
        };
        (v & 0x3f) as u8
    }
    /// Set model id `i`.
    pub fn set_id(&mut self, i: usize, id: u8) {
        let v = u32::from(id & 0x3f);
        match i & 3 {
            0 => self.lo = (self.lo & !(0x3f << 20)) | (v << 20),
            1 => self.lo = (self.lo & !(0x3f << 26)) | (v << 26),
            2 => self.hi = (self.hi & !0x3f) | v,
            _ => self.hi = (self.hi & !(0x3f << 6)) | (v << 6),
        }
    }
    /// Set `y_base` (clamped to 12 bits), keeping every other bit.
    pub fn set_y_base(&mut self, y: u32) {
        self.lo = (self.lo & !0xfff) | y.min(0xfff);
    }
}

/// A version 2 slot (22 bytes), as stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SlotV2 {
    /// Floor.
    pub y_min: f32,
    /// Top.
    pub y_max: f32,
    /// Four (model id, palette); id 255 is empty.
    pub items: [(u8, u16); 4],
    /// Colour word.
    pub color: u16,
}

/// The slots of either version.
#[derive(Clone, Debug, PartialEq)]
pub enum Slots {
    /// Version 2.
    V2(Vec<SlotV2>),
    /// Version 3.
    V3(Vec<SlotV3>),
}

impl Slots {
    /// Number of slots.
    pub fn len(&self) -> usize {
        match self {
            Slots::V2(s) => s.len(),
            Slots::V3(s) => s.len(),
        }
    }
    /// True when there are none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Slot `i`'s floor and height in metres and its (model id, palette) items that are not
    /// empty.
    pub fn slot(&self, i: usize) -> Option<SlotView> {
        Some(match self {
            Slots::V2(s) => {
                let s = s.get(i)?;
                SlotView {
                    y_base: s.y_min,
                    height: s.y_max - s.y_min,
                    items: s
                        .items
                        .iter()
                        .filter(|(id, _)| *id != EMPTY_V2)
                        .copied()
                        .collect(),
                }
            }
            Slots::V3(s) => {
                let s = s.get(i)?;
                SlotView {
                    y_base: s.y_base() as f32 * 0.2 - 200.0,
                    height: s.y_height() as f32 * 0.1,
                    items: (0..4)
                        .filter(|&k| s.id(k) != EMPTY_V3)
                        .map(|k| (s.id(k), s.palette[k]))
                        .collect(),
                }
            }
        })
    }
}

/// A slot read through either version.
#[derive(Clone, Debug, PartialEq)]
pub struct SlotView {
    /// Floor, metres.
    pub y_base: f32,
    /// Height above the floor, metres.
    pub height: f32,
    /// The non-empty (model id, palette) pairs.
    pub items: Vec<(u8, u16)>,
}

impl SlotView {
    /// Density 0–1: the sum of the non-empty items' palette nibbles over the most there can
    /// be (4 items × 4 quarters × 15).
    pub fn density(&self) -> f32 {
        let sum: u32 = self
            .items
            .iter()
            .map(|(_, p)| (0..4).map(|k| u32::from((p >> (4 * k)) & 0xF)).sum::<u32>())
            .sum();
        sum as f32 / 240.0
    }
}

/// The payload of one chunk.
#[derive(Clone, Debug, PartialEq)]
pub enum Body {
    /// `FSD_HEADER` of 24 bytes.
    Header(Header),
    /// `FSD_MESHES`: the models' chunks.
    Models(Vec<Framed<Model>>),
    /// `FSD_SLOTS` and the bytes after the last whole slot.
    Slots {
        /// The slots.
        slots: Slots,
        /// Bytes after the last whole slot (kept).
        tail: Vec<u8>,
    },
    /// Any other chunk (or one whose layout is not known), verbatim.
    Raw(Vec<u8>),
}

/// A whole `level.details`.
#[derive(Clone, Debug, PartialEq)]
pub struct Details {
    /// The chunks in file order.
    pub chunks: Vec<Framed<Body>>,
}

impl Details {
    /// Parse. The slots are read by the header's version (2 or 3; another version keeps them
    /// as bytes); a chunk or model cut short is an error at its offset.
    pub fn read(bytes: &[u8]) -> Result<(Details, Vec<Warning>), ReadError> {
        let mut r = Reader::new(bytes);
        let mut warnings = Vec::new();
        let mut version = None;
        let chunks = chunk::read_all(&mut r, Context::Details, |head, body| {
            Ok(match head.id() {
                HEADER_CHUNK if body.remaining() == 24 => {
                    let h = Header {
                        version: body.u32()?,
                        object_count: body.u32()?,
                        offs_x: body.i32()?,
                        offs_z: body.i32()?,
                        size_x: body.u32()?,
                        size_z: body.u32()?,
                    };
                    version = Some(h.version);
                    Body::Header(h)
                }
                MESHES_CHUNK => {
                    Body::Models(chunk::read_all(body, Context::DetailModels, |_, m| {
                        Model::read(m)
                    })?)
                }
                SLOTS_CHUNK if matches!(version, Some(2 | 3)) => {
                    let size = if version == Some(2) { 22 } else { 16 };
                    let n = body.remaining() / size;
                    let slots = if version == Some(2) {
                        let mut v = Vec::with_capacity(n);
                        for i in 0..n {
                            v.push(body.within("slot", Some(i), |b| {
                                Ok(SlotV2 {
                                    y_min: b.f32()?,
                                    y_max: b.f32()?,
                                    items: [
                                        (b.u8()?, b.u16()?),
                                        (b.u8()?, b.u16()?),
                                        (b.u8()?, b.u16()?),
                                        (b.u8()?, b.u16()?),
                                    ],
                                    color: b.u16()?,
                                })
                            })?);
                        }
                        Slots::V2(v)
                    } else {
                        let mut v = Vec::with_capacity(n);
                        for i in 0..n {
                            v.push(body.within("slot", Some(i), |b| {
                                Ok(SlotV3 {
                                    lo: b.u32()?,
                                    hi: b.u32()?,
                                    palette: [b.u16()?, b.u16()?, b.u16()?, b.u16()?],
                                })
                            })?);
                        }
                        Slots::V3(v)
                    };
                    let tail = body.take_rest().to_vec();
                    if !tail.is_empty() {
                        warnings.push(body.warning_at(
                            body.pos() - tail.len(),
                            format!("{} bytes after the last whole slot (kept)", tail.len()),
                        ));
                    }
                    Body::Slots { slots, tail }
                }
                _ => Body::Raw(body.take_rest().to_vec()),
            })
        })?;
        Ok((Details { chunks }, warnings))
    }

    /// Serialise (byte-exact for an unchanged parse).
    pub fn to_bytes(&self) -> Result<Vec<u8>, WriteError> {
        let mut w = Writer::new();
        for c in &self.chunks {
            chunk::write_framed(&mut w, Context::Details, c, |b, w| {
                match b {
                    Body::Header(h) => {
                        w.u32(h.version);
                        w.u32(h.object_count);
                        w.i32(h.offs_x);
                        w.i32(h.offs_z);
                        w.u32(h.size_x);
                        w.u32(h.size_z);
                    }
                    Body::Models(ms) => {
                        for m in ms {
                            chunk::write_framed(w, Context::DetailModels, m, |m, w| {
                                m.write(w);
                                Ok(())
                            })?;
                        }
                    }
                    Body::Slots { slots, tail } => {
                        match slots {
                            Slots::V2(v) => {
                                for s in v {
                                    w.f32(s.y_min);
                                    w.f32(s.y_max);
                                    for (id, p) in &s.items {
                                        w.u8(*id);
                                        w.u16(*p);
                                    }
                                    w.u16(s.color);
                                }
                            }
                            Slots::V3(v) => {
                                for s in v {
                                    w.u32(s.lo);
                                    w.u32(s.hi);
                                    for p in &s.palette {
                                        w.u16(*p);
                                    }
                                }
                            }
                        }
                        w.bytes(tail);
                    }
                    Body::Raw(b) => w.bytes(b),
                }
                Ok(())
            })?;
        }
        Ok(w.into_inner())
    }

    /// The header, when there is one.
    pub fn header(&self) -> Option<&Header> {
        self.chunks.iter().find_map(|c| match &c.value {
            Body::Header(h) => Some(h),
            _ => None,
        })
    }

    /// The models, in order.
    pub fn models(&self) -> Vec<&Model> {
        self.chunks
            .iter()
            .flat_map(|c| match &c.value {
                Body::Models(ms) => ms.iter().map(|m| &m.value).collect(),
                _ => Vec::new(),
            })
            .collect()
    }

    /// The slots, when decoded.
    pub fn slots(&self) -> Option<&Slots> {
        self.chunks.iter().find_map(|c| match &c.value {
            Body::Slots { slots, .. } => Some(slots),
            _ => None,
        })
    }

    /// The slots, mutable.
    pub fn slots_mut(&mut self) -> Option<&mut Slots> {
        self.chunks.iter_mut().find_map(|c| match &mut c.value {
            Body::Slots { slots, .. } => Some(slots),
            _ => None,
        })
    }

    /// Slot `i`'s grid cell (x, z).
    pub fn cell(&self, i: usize) -> Option<(u32, u32)> {
        let h = self.header()?;
        let sx = h.size_x.max(1) as usize;
        Some(((i % sx) as u32, (i / sx) as u32))
    }

    /// Slot `i`'s area in level space: (min x, min z), each 2 m on a side.
    pub fn slot_min(&self, i: usize) -> Option<[f32; 2]> {
        let h = self.header()?;
        let (x, z) = self.cell(i)?;
        Some([
            (i64::from(x) - i64::from(h.offs_x)) as f32 * SLOT_SIZE,
            (i64::from(z) - i64::from(h.offs_z)) as f32 * SLOT_SIZE,
        ])
    }

    /// The summary `info` shows.
    pub fn info(&self) -> DetailsInfo {
        let h = self.header().copied();
        let models = self
            .models()
            .iter()
            .map(|m| ModelInfo {
                shader: String::from_utf8_lossy(&m.shader).into_owned(),
                texture: String::from_utf8_lossy(&m.texture).into_owned(),
                flags: m.flags,
                scale: [m.min_scale, m.max_scale],
                vertices: m.vertices.len(),
                triangles: m.indices.len() / 3,
            })
            .collect();
        let slots = self.slots();
        let occupied = slots.map(|s| {
            (0..s.len())
                .filter(|&i| s.slot(i).is_some_and(|v| !v.items.is_empty()))
                .count()
        });
        DetailsInfo {
            version: h.map(|h| h.version),
            models,
            grid: h.map(|h| [h.size_x, h.size_z]),
            offset: h.map(|h| [h.offs_x, h.offs_z]),
            slots: slots.map(Slots::len),
            occupied,
            area: h.map(|h| {
                let min = [-h.offs_x as f32 * SLOT_SIZE, -h.offs_z as f32 * SLOT_SIZE];
                [
                    min,
                    [
                        min[0] + h.size_x as f32 * SLOT_SIZE,
                        min[1] + h.size_z as f32 * SLOT_SIZE,
                    ],
                ]
            }),
        }
    }

    /// The consistency rules: a header of version 2 or 3, as many models as it counts, a slot
    /// chunk of `size_x × size_z` whole slots, model ids below the model count, indices inside
    /// their model's vertices.
    pub fn check(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let Some(h) = self.header() else {
            return vec![Problem::new("FSD_HEADER", "no 24-byte header chunk 0")];
        };
        if !matches!(h.version, 2 | 3) {
            out.push(Problem::new(
                "FSD_HEADER",
                format!("version {}; the engines wrote 2 and 3", h.version),
            ));
        }
        let models = self.models();
        if models.len() != h.object_count as usize {
            out.push(Problem::new(
                "FSD_MESHES",
                format!(
                    "{} models; the header counts {}",
                    models.len(),
                    h.object_count
                ),
            ));
        }
        for (i, m) in models.iter().enumerate() {
            if let Some(bad) = m
                .indices
                .iter()
                .find(|&&x| usize::from(x) >= m.vertices.len())
            {
                out.push(Problem::new(
                    format!("FSD_MESHES/model[{i}]"),
                    format!("index {bad} past its {} vertices", m.vertices.len()),
                ));
            }
        }
        if let Some(s) = self.slots() {
            let want = u64::from(h.size_x) * u64::from(h.size_z);
            if s.len() as u64 != want {
                out.push(Problem::new(
                    "FSD_SLOTS",
                    format!(
                        "{} slots; the header's grid is {} × {} = {want}",
                        s.len(),
                        h.size_x,
                        h.size_z
                    ),
                ));
            }
            for i in 0..s.len() {
                if let Some(v) = s.slot(i) {
                    if let Some((id, _)) = v
                        .items
                        .iter()
                        .find(|(id, _)| usize::from(*id) >= models.len())
                    {
                        out.push(Problem::new(
                            format!("FSD_SLOTS/slot[{i}]"),
                            format!("model id {id} past the {} models", models.len()),
                        ));
                    }
                }
            }
        }
        out
    }
}

/// Info on a `level.details`.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct DetailsInfo {
    /// Version (2 or 3).
    pub version: Option<u32>,
    /// The models.
    pub models: Vec<ModelInfo>,
    /// Slots along x and z.
    pub grid: Option<[u32; 2]>,
    /// `offs_x`, `offs_z`.
    pub offset: Option<[i32; 2]>,
    /// Slots stored.
    pub slots: Option<usize>,
    /// Slots with at least one model.
    pub occupied: Option<usize>,
    /// The grid's area in level space: (min x, min z), (max x, max z).
    pub area: Option<[[f32; 2]; 2]>,
}

/// One model in [`DetailsInfo`].
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct ModelInfo {
    /// Shader.
    pub shader: String,
    /// Texture.
    pub texture: String,
    /// Flags.
    pub flags: u32,
    /// Min and max scale.
    pub scale: [f32; 2],
    /// Vertices.
    pub vertices: usize,
    /// Triangles.
    pub triangles: usize,
}

/// Whether `bytes` look like a `level.details`: chunk 0 of 24 bytes first whose version word
/// is 2 or 3, then chunk 1 or 2.
pub fn sniff(bytes: &[u8]) -> bool {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    word(0) == Some(HEADER_CHUNK)
        && word(4) == Some(24)
        && matches!(word(8), Some(2 | 3))
        && matches!(
            word(32).map(|w| w & !chunk::COMPRESSED),
            Some(MESHES_CHUNK | SLOTS_CHUNK)
        )
}
