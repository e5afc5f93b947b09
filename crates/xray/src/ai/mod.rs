//! `level.ai`: the AI navigation nodes (docs/formats/xray-level.md §16).
//!
//! Not a chunk file: a `hdrNODES` header, then `count` node records to the end of the file.
//!
//! | field | bytes | versions |
//! |---|---|---|
//! | `u32 version, u32 count, f32 size, f32 size_y, Fbox aabb` | 40 | all |
//! | `xrGUID guid` (two `u64`) | 16 | 8 and later |
//!
//! Node records (`#pragma pack(1)`, little-endian, bit fields from the low bit up):
//!
//! | versions | bytes | layout |
//! |---|---|---|
//! | 5, 6 | 20 | `u8 data[11]` (four 21-bit links, light in the top 4 bits of `data[10]`), `u16 cover` (4 × 4 bits), `u16 plane`, `u24 xz`, `u16 y` |
//! | 7, 8, 9 | 21 | `u8 data[12]` (four 23-bit links, light in the top 4 bits of `data[11]`), `u16 cover`, `u16 plane`, `u24 xz`, `u16 y` |
//! | 10 | 23 | as 7–9 with a second `u16` cover (the low cover) after the first |
//! | 2, 3, 4 | — | not decoded: kept as bytes (see below) |
//!
//! Sources:
//! * The engine (SkyLoaderr/xray-engine-repo, `xrAI/xrLevel.h`): `hdrNODES` without a guid and
//!   `XRAI_CURRENT_VERSION = 5` with the 20-byte `NodeCompressed` (`u8 data[11]`, links
//!   `& 0x001fffff` at byte offsets 0, 2 (`>> 5`), 5 (`>> 2`), 7 (`>> 7`), `light() = data[10]
//!   >> 4`) on 2004-01-14 (`899aede6fd`); 6 on 2004-02-16 (`1d236d4147`, same node); 7 with the
//!   21-byte node (`u8 data[12]`, links `& 0x007fffff` at 0, 2 (`>> 7`), 5 (`>> 6`), 8 (`>> 5`),
//!   `light() = data[11] >> 4`, the 20-byte one kept as `NodeCompressed6`) on 2004-04-07
//!   (`70146f4124`); 8 with `xrGUID guid` appended to `hdrNODES` on 2005-04-04 (`ed1075080a`).
//!   `NodePosition` is `u8 data[5]`: `xz() = u24`, `y() = u16` at byte 3.
//! * Versions 2–4 had other nodes: until late 2003 a 20-byte `NodeCompressed` followed by a
//!   variable number of links (`links : 6`), in November 2003 (still version 3, then 4 on
//!   2003-11-11, `ab383e8b83`) a 22-byte one (`u16 plane; s16 x; u16 y; s16 z; u8 light; u8
//!   cover; NodeLink links[4]`). Because version 3 covers two layouts and no peer decodes
//!   either, their node bytes are kept whole and not interpreted.
//! * xray_re-tools `sources/xray_re/xr_level_ai.cxx` (2024-06-23 `65a0455`): reads the guid
//!   from version 8, the 21-byte node for 7–9 (`read_node_v8`) and a 23-byte one for 10
//!   (`read_node_v10`: `cover`, `low_cover`); `xr_ai_version.h` names the builds (2: 1098–1154,
//!   3: 1580, 4: 1623, 5: 1829, 6: 1844, 7: 1865, 8: 2215–2947, 9: 3120, 10: 3456+).
//! * Positions (`xrAI/level_graph_inline.h`, 2006-12-26 `ff3273feae`, and `level_graph.cpp`):
//!   `row_length = iFloor((max.z - min.z) / size + EPS_L + 1.5)`, `x = (xz / row_length) *
//!   size + min.x`, `z = (xz % row_length) * size + min.z`, `y = y / 65535 * size_y + min.y`.
//! * The plane is a `pvCompress`ed normal (`xrCore/_compressed_normal.cpp`, 2003-05-26
//!   `958fcb28f5`): three sign bits, 6 + 7 bits of a point on the octahedron ([`decompress_normal`]).

#[cfg(feature = "generate")]
pub mod generate;
pub mod scene;

use levelgeom_binary::{Problem, ReadError, Reader, Warning, Writer};

/// Bytes of the header before version 8.
pub const HEADER_SIZE: usize = 40;
/// Bytes of the guid of version 8 and later.
pub const GUID_SIZE: usize = 16;
/// The engine's `EPS_L`, in `row_length`.
const EPS_L: f32 = 0.001;

/// How a version's nodes are laid out.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize)]
pub enum Layout {
    /// Versions 5 and 6: 20 bytes, 21-bit links in `data[11]`.
    Links11,
    /// Versions 7 to 9: 21 bytes, 23-bit links in `data[12]`.
    Links12,
    /// Version 10: 23 bytes, a high and a low cover.
    Links12Covers2,
}

impl Layout {
    /// The layout of `version`, `None` for versions whose nodes are not decoded.
    pub fn of(version: u32) -> Option<Layout> {
        match version {
            5 | 6 => Some(Layout::Links11),
            7..=9 => Some(Layout::Links12),
            10 => Some(Layout::Links12Covers2),
            _ => None,
        }
    }

    /// Bytes per node.
    pub fn size(self) -> usize {
        match self {
            Layout::Links11 => 20,
            Layout::Links12 => 21,
            Layout::Links12Covers2 => 23,
        }
    }

    fn data_len(self) -> usize {
        match self {
            Layout::Links11 => 11,
            _ => 12,
        }
    }

    /// The link value meaning "no neighbour" (all bits of a link set).
    pub fn no_link(self) -> u32 {
        match self {
            Layout::Links11 => 0x001f_ffff,
            _ => 0x007f_ffff,
        }
    }
}

/// True for versions the engine or a peer wrote (2 to 10).
pub fn known_version(version: u32) -> bool {
    (2..=10).contains(&version)
}

/// The header (`hdrNODES`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Header {
    /// Format version.
    pub version: u32,
    /// Node count.
    pub count: u32,
    /// Cell size in metres (the distance between node centres).
    pub size: f32,
    /// Height range the 16-bit `y` spans.
    pub size_y: f32,
    /// Bounding box (min, max).
    pub aabb: [[f32; 3]; 2],
    /// Version 8 and later: the level's guid (matched against `game.graph`).
    pub guid: Option<[u8; GUID_SIZE]>,
}

impl Header {
    /// Bytes of this header.
    pub fn size(&self) -> usize {
        HEADER_SIZE + if self.guid.is_some() { GUID_SIZE } else { 0 }
    }

    /// Nodes per row of the grid (the engine's `m_row_length`).
    pub fn row_length(&self) -> u32 {
        let n = ((self.aabb[1][2] - self.aabb[0][2]) / self.size + EPS_L + 1.5).floor();
        if n.is_finite() && n >= 1.0 {
            n as u32
        } else {
            1
        }
    }
}

/// One decoded node. Every field is the stored bits, so writing it back is byte-exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Node {
    /// Links and light (`data[11]` of versions 5–6 use the first 11 bytes; the 12th is 0).
    pub data: [u8; 12],
    /// Cover in four directions, 4 bits each (version 10: the high cover).
    pub cover: u16,
    /// Version 10: the low cover; 0 otherwise.
    pub low_cover: u16,
    /// The compressed plane normal ([`decompress_normal`]).
    pub plane: u16,
    /// Packed grid cell: `x * row_length + z` (24 bits).
    pub xz: u32,
    /// Packed height: `y / 65535 * size_y + min.y`.
    pub y: u16,
}

impl Node {
    fn read(r: &mut Reader<'_>, layout: Layout) -> Result<Node, ReadError> {
        let mut data = [0u8; 12];
        data[..layout.data_len()].copy_from_slice(r.bytes(layout.data_len())?);
        let cover = r.u16()?;
        let low_cover = if layout == Layout::Links12Covers2 {
            r.u16()?
        } else {
            0
        };
        let plane = r.u16()?;
        let xz = r.bytes(3)?;
        let xz = u32::from_le_bytes([xz[0], xz[1], xz[2], 0]);
        let y = r.u16()?;
        Ok(Node {
            data,
            cover,
            low_cover,
            plane,
            xz,
            y,
        })
    }

    fn write(&self, w: &mut Writer, layout: Layout) {
        w.bytes(&self.data[..layout.data_len()]);
        w.u16(self.cover);
        if layout == Layout::Links12Covers2 {
            w.u16(self.low_cover);
        }
        w.u16(self.plane);
        w.bytes(&self.xz.to_le_bytes()[..3]);
        w.u16(self.y);
    }

    /// Link `i` (0–3): a node index, or [`Layout::no_link`].
    pub fn link(&self, layout: Layout, i: usize) -> u32 {
        let at = |o: usize| {
            u32::from_le_bytes([
                self.data[o],
                self.data[o + 1],
                self.data[o + 2],
                self.data[o + 3],
            ])
        };
        let (offset, shift) = match layout {
            Layout::Links11 => [(0, 0), (2, 5), (5, 2), (7, 7)][i & 3],
            _ => [(0, 0), (2, 7), (5, 6), (8, 5)][i & 3],
        };
        (at(offset) >> shift) & layout.no_link()
    }

    /// Light, 0–15 (the top 4 bits of the last link byte).
    pub fn light(&self, layout: Layout) -> u8 {
        self.data[layout.data_len() - 1] >> 4
    }

    /// Cover in direction `i` (0–3), 0–15.
    pub fn cover(&self, i: usize) -> u8 {
        ((self.cover >> (4 * (i & 3))) & 0xF) as u8
    }

    /// Version 10: low cover in direction `i`.
    pub fn low_cover(&self, i: usize) -> u8 {
        ((self.low_cover >> (4 * (i & 3))) & 0xF) as u8
    }

    /// The node's centre in level (engine) space.
    pub fn position(&self, h: &Header) -> [f32; 3] {
        let row = h.row_length();
        [
            (self.xz / row) as f32 * h.size + h.aabb[0][0],
            f32::from(self.y) / 65535.0 * h.size_y + h.aabb[0][1],
            (self.xz % row) as f32 * h.size + h.aabb[0][2],
        ]
    }
}

/// The engine's `pvDecompress`: a 16-bit compressed unit vector to a unit vector.
pub fn decompress_normal(v: u16) -> [f32; 3] {
    let mut xbits = i32::from((v & 0x1f80) >> 7);
    let mut ybits = i32::from(v & 0x007f);
    if xbits + ybits >= 127 {
        xbits = 127 - xbits;
        ybits = 127 - ybits;
    }
    let (x, y, z) = (xbits as f32, ybits as f32, (126 - xbits - ybits) as f32);
    let adj = 1.0 / (x * x + y * y + z * z).sqrt();
    let mut n = [adj * x, adj * y, adj * z];
    for (k, mask) in [0x8000u16, 0x4000, 0x2000].iter().enumerate() {
        if v & mask != 0 {
            n[k] = -n[k];
        }
    }
    n
}

/// The engine's `pvCompress` (for tests and the generator): signs, then the projection on the
/// plane x + y + z = 1 in 126 steps, folded into a rectangle.
pub fn compress_normal(n: [f32; 3]) -> u16 {
    let mut v = 0u16;
    let mut t = n;
    for (k, mask) in [0x8000u16, 0x4000, 0x2000].iter().enumerate() {
        if t[k] < 0.0 {
            v |= mask;
            t[k] = -t[k];
        }
    }
    let w = 126.0 / (t[0] + t[1] + t[2]);
    let mut xbits = (t[0] * w).floor() as i32;
    let mut ybits = (t[1] * w).floor() as i32;
    if xbits >= 64 {
        xbits = 127 - xbits;
        ybits = 127 - ybits;
    }
    v | ((xbits as u16) << 7) | (ybits as u16 & 0x7f)
}

/// The node records.
#[derive(Clone, Debug, PartialEq)]
pub enum Nodes {
    /// Decoded nodes (versions 5–10), and the bytes after the last whole one.
    Decoded {
        /// The layout.
        layout: Layout,
        /// The nodes in file order.
        nodes: Vec<Node>,
        /// Bytes after the last whole node (kept; `check` reports them).
        tail: Vec<u8>,
    },
    /// Versions 2–4 (and unknown ones): every byte after the header, kept.
    Raw(Vec<u8>),
}

/// A whole `level.ai`.
#[derive(Clone, Debug, PartialEq)]
pub struct LevelAi {
    /// The header.
    pub header: Header,
    /// The nodes.
    pub nodes: Nodes,
}

impl LevelAi {
    /// Parse. A header cut short is an error at its offset; nodes fewer than `count` are read
    /// as far as they go (with a warning); bytes after the last whole node are kept.
    pub fn read(bytes: &[u8]) -> Result<(LevelAi, Vec<Warning>), ReadError> {
        let mut r = Reader::new(bytes);
        let mut warnings = Vec::new();
        r.push("hdrNODES", None);
        let version = r.u32()?;
        let count = r.u32()?;
        let size = r.f32()?;
        let size_y = r.f32()?;
        let aabb = [r.f32s()?, r.f32s()?];
        let guid = if version >= 8 && known_version(version) {
            Some(r.array::<GUID_SIZE>()?)
        } else {
            None
        };
        r.pop();
        let header = Header {
            version,
            count,
            size,
            size_y,
            aabb,
            guid,
        };
        let nodes = match Layout::of(version) {
            Some(layout) => {
                let whole = r.remaining() / layout.size();
                let n = whole.min(count as usize);
                if n < count as usize {
                    warnings.push(r.warning_at(
                        r.pos(),
                        format!(
                            "the header counts {count} nodes; {whole} whole {}-byte nodes follow",
                            layout.size()
                        ),
                    ));
                }
                let mut nodes = Vec::with_capacity(n);
                for i in 0..n {
                    nodes.push(r.within("node", Some(i), |r| Node::read(r, layout))?);
                }
                let tail = r.take_rest().to_vec();
                if !tail.is_empty() {
                    warnings.push(r.warning_at(
                        r.pos() - tail.len(),
                        format!("{} bytes after the last node (kept)", tail.len()),
                    ));
                }
                Nodes::Decoded {
                    layout,
                    nodes,
                    tail,
                }
            }
            None => Nodes::Raw(r.take_rest().to_vec()),
        };
        Ok((LevelAi { header, nodes }, warnings))
    }

    /// Serialise (byte-exact for an unchanged parse).
    pub fn to_bytes(&self) -> Vec<u8> {
        let h = &self.header;
        let mut w = Writer::new();
        w.u32(h.version);
        w.u32(h.count);
        w.f32(h.size);
        w.f32(h.size_y);
        w.f32s(&h.aabb[0]);
        w.f32s(&h.aabb[1]);
        if let Some(g) = &h.guid {
            w.bytes(g);
        }
        match &self.nodes {
            Nodes::Decoded {
                layout,
                nodes,
                tail,
            } => {
                for n in nodes {
                    n.write(&mut w, *layout);
                }
                w.bytes(tail);
            }
            Nodes::Raw(b) => w.bytes(b),
        }
        w.into_inner()
    }

    /// The decoded nodes (empty for versions 2–4) and their layout.
    pub fn decoded(&self) -> Option<(Layout, &[Node])> {
        match &self.nodes {
            Nodes::Decoded { layout, nodes, .. } => Some((*layout, nodes)),
            Nodes::Raw(_) => None,
        }
    }

    /// The summary `info` shows.
    pub fn info(&self) -> AiInfo {
        let h = &self.header;
        let (layout, nodes) = match self.decoded() {
            Some((l, n)) => (Some(l), n),
            None => (None, &[][..]),
        };
        let mut light = [0usize; 16];
        let mut cover = [0usize; 16];
        for n in nodes {
            if let Some(l) = layout {
                light[n.light(l) as usize] += 1;
            }
            let c: u32 = (0..4).map(|i| u32::from(n.cover(i))).sum();
            cover[(c / 4) as usize] += 1;
        }
        AiInfo {
            version: h.version,
            builds: builds(h.version),
            count: h.count,
            cell_size: h.size,
            size_y: h.size_y,
            bbox: h.aabb,
            guid: h
                .guid
                .map(|g| g.iter().map(|b| format!("{b:02x}")).collect()),
            node_size: layout.map(Layout::size),
            decoded: layout.map(|_| nodes.len()),
            grid: [
                ((h.aabb[1][0] - h.aabb[0][0]) / h.size + EPS_L + 1.5).floor() as u32,
                h.row_length(),
            ],
            light: layout.map(|_| light),
            mean_cover: layout.map(|_| cover),
        }
    }

    /// The consistency rules: a known version, a positive cell size, as many whole nodes as
    /// the header counts and no bytes after them, links to existing nodes, cells inside the
    /// grid, finite planes.
    pub fn check(&self) -> Vec<Problem> {
        let mut out = Vec::new();
        let h = &self.header;
        if !known_version(h.version) {
            out.push(
                Problem::new(
                    "hdrNODES",
                    format!("version {}; the engines wrote 2 to 10", h.version),
                )
                .at(0),
            );
        }
        if !(h.size.is_finite() && h.size > 0.0) {
            out.push(
                Problem::new("hdrNODES", format!("cell size {} is not positive", h.size)).at(8),
            );
        }
        if !(0..3).all(|k| h.aabb[0][k] <= h.aabb[1][k]) {
            out.push(Problem::new("hdrNODES", "the box's minimum exceeds its maximum").at(16));
        }
        let Some((layout, nodes)) = self.decoded() else {
            return out;
        };
        let base = h.size() as u64;
        let at = |i: usize| base + (i * layout.size()) as u64;
        if nodes.len() != h.count as usize {
            out.push(
                Problem::new(
                    "nodes",
                    format!(
                        "the header counts {} nodes; the file holds {} (the engine would read past its end)",
                        h.count,
                        nodes.len()
                    ),
                )
                .at(at(nodes.len())),
            );
        }
        if let Nodes::Decoded { tail, .. } = &self.nodes {
            if !tail.is_empty() {
                out.push(
                    Problem::new(
                        "nodes",
                        format!("{} bytes after the last whole node", tail.len()),
                    )
                    .warning()
                    .at(at(nodes.len())),
                );
            }
        }
        let cells = u64::from(self.info().grid[0]) * u64::from(h.row_length());
        for (i, n) in nodes.iter().enumerate() {
            let path = format!("node[{i}]");
            for k in 0..4 {
                let l = n.link(layout, k);
                if l != layout.no_link() && l as usize >= nodes.len() {
                    out.push(
                        Problem::new(
                            &path,
                            format!("link {k} is {l}, past the {} nodes", nodes.len()),
                        )
                        .at(at(i)),
                    );
                }
            }
            if u64::from(n.xz) >= cells {
                out.push(
                    Problem::new(
                        &path,
                        format!("cell {} is outside the {cells}-cell grid of the box", n.xz),
                    )
                    .at(at(i) + layout.size() as u64 - 5),
                );
            }
        }
        out
    }
}

/// The builds xray_re-tools names for a version (`xr_ai_version.h`).
pub fn builds(version: u32) -> Option<&'static str> {
    Some(match version {
        2 => "1098, 1114, 1154",
        3 => "1580",
        4 => "1623",
        5 => "1829",
        6 => "1844",
        7 => "1865",
        8 => "2215, 2945, 2947+ (Shadow of Chernobyl)",
        9 => "3120 (Clear Sky)",
        10 => "3456+ (Clear Sky, Call of Pripyat)",
        _ => return None,
    })
}

/// Whether `bytes` look like a `level.ai`: a known version, a positive finite cell size and
/// height range, an ordered box, and (for versions whose nodes are decoded) a length that is
/// the header plus exactly `count` whole nodes (or fewer bytes, a file cut short, when they do
/// not tile as chunks). Version 4 needs `count` 22-byte nodes; versions
/// 2 and 3 (two node layouts) at least 20 bytes per node.
pub fn sniff(bytes: &[u8]) -> bool {
    let word = |at: usize| {
        bytes
            .get(at..at + 4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    };
    let float = |at: usize| word(at).map(f32::from_bits);
    let Some(version) = word(0) else {
        return false;
    };
    if !known_version(version) || bytes.len() < HEADER_SIZE {
        return false;
    }
    let count = word(4).unwrap_or(0) as usize;
    let (Some(size), Some(size_y)) = (float(8), float(12)) else {
        return false;
    };
    if !(size.is_finite() && size > 0.01 && size < 100.0 && size_y.is_finite() && size_y >= 0.0) {
        return false;
    }
    let b: Vec<f32> = (0..6).filter_map(|k| float(16 + 4 * k)).collect();
    if b.len() != 6 || b.iter().any(|c| !c.is_finite()) || (0..3).any(|k| b[k] > b[k + 3]) {
        return false;
    }
    let nodes = bytes.len() - HEADER_SIZE;
    match Layout::of(version) {
        Some(l) => {
            let head = HEADER_SIZE + if version >= 8 { GUID_SIZE } else { 0 };
            let want = count.saturating_mul(l.size());
            // exactly the nodes counted; or fewer bytes (a file cut short, so that reading it
            // says where), unless the bytes are a chunk file
            bytes.len() >= head
                && (bytes.len() - head == want
                    || (bytes.len() - head < want && !crate::chunk::tiles(bytes)))
        }
        // the 22-byte node of 2003 (`ab383e8b83`); a chunk file that happens to start like
        // this header is left to the chunk readers
        None if version == 4 => nodes == count.saturating_mul(22) && !crate::chunk::tiles(bytes),
        // 20 bytes and more per node (a 20-byte node and its links, or the 22-byte one)
        None => {
            nodes >= count.saturating_mul(20)
                && (count > 0) == (nodes > 0)
                && !crate::chunk::tiles(bytes)
        }
    }
}

/// Info on a `level.ai` (what `levelgeom info` prints).
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct AiInfo {
    /// Format version.
    pub version: u32,
    /// The builds with this version, when known.
    pub builds: Option<&'static str>,
    /// Nodes the header counts.
    pub count: u32,
    /// Cell size, metres.
    pub cell_size: f32,
    /// Height range of the packed `y`.
    pub size_y: f32,
    /// Bounding box (min, max).
    pub bbox: [[f32; 3]; 2],
    /// Version 8+: the guid, hex.
    pub guid: Option<String>,
    /// Bytes per node, when decoded.
    pub node_size: Option<usize>,
    /// Nodes decoded (`None` for versions 2–4).
    pub decoded: Option<usize>,
    /// Grid size: cells along x, cells along z (`row_length`).
    pub grid: [u32; 2],
    /// Nodes per light value 0–15.
    pub light: Option<[usize; 16]>,
    /// Nodes per mean cover (the four directions' mean, 0–15, rounded down).
    pub mean_cover: Option<[usize; 16]>,
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn compressed_normals_by_hand() {
        // up: xbits 0, ybits 126 (w = 126 / 1)
        assert_eq!(compress_normal([0.0, 1.0, 0.0]), 126);
        assert_eq!(decompress_normal(126), [0.0, 1.0, 0.0]);
        // +z: both 0, z = 126
        assert_eq!(decompress_normal(0), [0.0, 0.0, 1.0]);
        // -x: sign bit 0x8000; xbits 126, ybits 0 fold (xbits ≥ 64) to 127 − 126 = 1 and
        // 127 − 0 = 127; unpacking sees 1 + 127 ≥ 127 and folds back to (126, 0)
        assert_eq!(compress_normal([-1.0, 0.0, 0.0]), 0x8000 | (1 << 7) | 127);
        let n = decompress_normal(0x8000 | (1 << 7) | 127);
        assert_eq!(n, [-1.0, 0.0, 0.0]);
    }

    #[test]
    fn links_of_the_21_byte_node_by_hand() {
        let mut n = Node {
            data: [0; 12],
            cover: 0,
            low_cover: 0,
            plane: 0,
            xz: 0,
            y: 0,
        };
        // link 1 = 5 starts at bit 7 of the u32 at byte 2: byte 2 gets 5 << 7 = 0x280 → 0x80,
        // byte 3 gets 0x02; light 9 is the top nibble of byte 11
        n.data[2] = 0x80;
        n.data[3] = 0x02;
        n.data[11] = 0x90;
        assert_eq!(n.link(Layout::Links12, 1), 5);
        // link 0 is the low 23 bits of 0x0280_0000: bit 23 and up are link 1's
        assert_eq!(n.link(Layout::Links12, 0), 0);
        assert_eq!(n.light(Layout::Links12), 9);
    }
}
