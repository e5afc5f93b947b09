//! Small `level.ai` files for tests, written byte by byte from the engine's structures
//! (`xrAI/xrLevel.h`, SkyLoaderr/xray-engine-repo: `hdrNODES` 2004-01-14 `899aede6fd` and,
//! with `xrGUID guid`, 2005-04-04 `ed1075080a`; `NodeCompressed` of 20 bytes for versions 5–6,
//! 21 bytes for 7–9; the 23-byte node of version 10 from xray_re-tools `read_node_v10`). They
//! do not go through [`super::LevelAi::to_bytes`], so a round trip compares our reader and
//! writer against those layouts. See docs/formats/xray-level.md §16.

/// One node to write: the grid cell, the packed height, the plane normal, cover, light, links.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenNode {
    /// Grid column (along x).
    pub x: u32,
    /// Grid row (along z).
    pub z: u32,
    /// Packed height, 0–65535 over `size_y` from the box's minimum.
    pub y: u16,
    /// The plane's normal (compressed with `pvCompress`).
    pub normal: [f32; 3],
    /// Cover in the four directions, 0–15 each.
    pub cover: [u8; 4],
    /// Version 10: low cover, 0–15 each.
    pub low_cover: [u8; 4],
    /// Light, 0–15.
    pub light: u8,
    /// Links (node indices; `None` = no neighbour).
    pub links: [Option<u32>; 4],
}

/// The header of a generated file.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenHeader {
    /// Version (2–10).
    pub version: u32,
    /// Cell size.
    pub size: f32,
    /// Height range.
    pub size_y: f32,
    /// Box (min, max).
    pub aabb: [[f32; 3]; 2],
}

/// The guid every generated file of version 8+ carries: bytes 0x10, 0x11, … 0x1F.
pub const GUID: [u8; 16] = [
    0x10, 0x11, 0x12, 0x13, 0x14, 0x15, 0x16, 0x17, 0x18, 0x19, 0x1a, 0x1b, 0x1c, 0x1d, 0x1e, 0x1f,
];

/// `row_length` as `level_graph.cpp` computes it.
pub fn row_length(h: &GenHeader) -> u32 {
    ((h.aabb[1][2] - h.aabb[0][2]) / h.size + 0.001 + 1.5).floor() as u32
}

/// Put a 21- or 23-bit link into `data` the way `NodeCompressed::link(index, value)` does.
fn put_link(data: &mut [u8], version: u32, i: usize, value: u32) {
    let (offset, shift, mask) = if version <= 6 {
        ([0usize, 2, 5, 7][i], [0u32, 5, 2, 7][i], 0x001f_ffffu32)
    } else {
        ([0usize, 2, 5, 8][i], [0u32, 7, 6, 5][i], 0x007f_ffffu32)
    };
    let old = u32::from_le_bytes([
        data[offset],
        data[offset + 1],
        data[offset + 2],
        data[offset + 3],
    ]);
    let new = (old & !(mask << shift)) | ((value & mask) << shift);
    data[offset..offset + 4].copy_from_slice(&new.to_le_bytes());
}

fn cover_word(c: [u8; 4]) -> u16 {
    c.iter()
        .enumerate()
        .fold(0u16, |w, (k, v)| w | (u16::from(*v & 0xF) << (4 * k)))
}

/// A `level.ai` of `h.version` (5–10) with `nodes`.
pub fn ai_bytes(h: &GenHeader, nodes: &[GenNode]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&h.version.to_le_bytes());
    out.extend_from_slice(&(nodes.len() as u32).to_le_bytes());
    out.extend_from_slice(&h.size.to_le_bytes());
    out.extend_from_slice(&h.size_y.to_le_bytes());
    for c in h.aabb.iter().flatten() {
        out.extend_from_slice(&c.to_le_bytes());
    }
    if h.version >= 8 {
        out.extend_from_slice(&GUID);
    }
    let row = row_length(h);
    let data_len = if h.version <= 6 { 11 } else { 12 };
    let no_link = if h.version <= 6 {
        0x001f_ffff
    } else {
        0x007f_ffff
    };
    for n in nodes {
        let mut data = [0u8; 12];
        for (i, l) in n.links.iter().enumerate() {
            put_link(&mut data, h.version, i, l.unwrap_or(no_link));
        }
        data[data_len - 1] = (data[data_len - 1] & 0x0f) | (n.light << 4);
        out.extend_from_slice(&data[..data_len]);
        out.extend_from_slice(&cover_word(n.cover).to_le_bytes());
        if h.version >= 10 {
            out.extend_from_slice(&cover_word(n.low_cover).to_le_bytes());
        }
        out.extend_from_slice(&super::compress_normal(n.normal).to_le_bytes());
        out.extend_from_slice(&(n.x * row + n.z).to_le_bytes()[..3]);
        out.extend_from_slice(&n.y.to_le_bytes());
    }
    out
}

/// A `level.ai` of version 2, 3 or 4: the 40-byte header, then `node_bytes` as they are (no
/// peer decodes these nodes).
pub fn old_ai_bytes(h: &GenHeader, count: u32, node_bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    out.extend_from_slice(&h.version.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    out.extend_from_slice(&h.size.to_le_bytes());
    out.extend_from_slice(&h.size_y.to_le_bytes());
    for c in h.aabb.iter().flatten() {
        out.extend_from_slice(&c.to_le_bytes());
    }
    out.extend_from_slice(node_bytes);
    out
}

/// A test grid: cell 1 m, box (0, 0, 0)–(3, 2, 2) (4 columns × 3 rows), height range 2 m, and
/// four nodes: (0, 0) at y 0 facing up, cover (1, 2, 3, 4), light 15, linked to node 1;
/// (1, 0) at y 65535 (2 m), light 0; (2, 1) at y 32768 on a plane tilted to +x; (3, 2) at y 0.
pub fn sample(version: u32) -> (GenHeader, Vec<GenNode>) {
    let h = GenHeader {
        version,
        size: 1.0,
        size_y: 2.0,
        aabb: [[0.0, 0.0, 0.0], [3.0, 2.0, 2.0]],
    };
    let up = [0.0, 1.0, 0.0];
    let base = GenNode {
        x: 0,
        z: 0,
        y: 0,
        normal: up,
        cover: [0; 4],
        low_cover: [0; 4],
        light: 0,
        links: [None; 4],
    };
    let nodes = vec![
        GenNode {
            cover: [1, 2, 3, 4],
            low_cover: [5, 6, 7, 8],
            light: 15,
            links: [None, Some(1), None, None],
            ..base
        },
        GenNode {
            x: 1,
            y: 65535,
            links: [None, None, None, Some(0)],
            ..base
        },
        GenNode {
            x: 2,
            z: 1,
            y: 32768,
            normal: [0.6, 0.8, 0.0],
            light: 7,
            ..base
        },
        GenNode { x: 3, z: 2, ..base },
    ];
    (h, nodes)
}
