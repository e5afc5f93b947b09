//! Small `level.details` files for tests, written byte by byte from the engine's structures
//! (SkyLoaderr/xray-engine-repo `Editors/LevelEditor/Engine/DetailFormat.h`, 2005-07-05: the
//! writer's chunk order 0 header, 1 models (one chunk per model), 2 slots; `DetailHeader`; the
//! 16-byte `DetailSlot`; `xr_3da/DetailFormat.h` of 2002-11-25 for the 22-byte version 2 slot)
//! and xray_re-tools `xr_dm.cxx` `save_dm` for a model. They do not go through
//! [`super::Details::to_bytes`]. See docs/formats/xray-level.md §17.

/// One slot to write: floor `y_base` (metres), height (metres), four (model id, palette)
/// items (`None` empty).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GenSlot {
    /// Floor, metres (version 3 stores `(y + 200) / 0.2`, which must be whole).
    pub y_base: f32,
    /// Height, metres (version 3 stores `h / 0.1`).
    pub height: f32,
    /// Items.
    pub items: [Option<(u8, u16)>; 4],
}

fn chunk(out: &mut Vec<u8>, id: u32, body: &[u8]) {
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}

/// The one model of every generated file: shader `details\\set`, texture `detail\\grass`,
/// flags 1, scale 0.5–1.5, a vertical 1 × 1 m quad (4 vertices, 2 triangles).
pub fn model_bytes() -> Vec<u8> {
    let mut m = Vec::new();
    m.extend_from_slice(b"details\\set\0detail\\grass\0");
    m.extend_from_slice(&1u32.to_le_bytes());
    m.extend_from_slice(&0.5f32.to_le_bytes());
    m.extend_from_slice(&1.5f32.to_le_bytes());
    m.extend_from_slice(&4u32.to_le_bytes());
    m.extend_from_slice(&6u32.to_le_bytes());
    for (p, uv) in MODEL_VERTICES {
        for c in p.iter().chain(uv.iter()) {
            m.extend_from_slice(&c.to_le_bytes());
        }
    }
    for i in [0u16, 1, 2, 0, 2, 3] {
        m.extend_from_slice(&i.to_le_bytes());
    }
    m
}

/// The model's vertices: (position, UV).
pub const MODEL_VERTICES: [([f32; 3], [f32; 2]); 4] = [
    ([-0.5, 0.0, 0.0], [0.0, 1.0]),
    ([-0.5, 1.0, 0.0], [0.0, 0.0]),
    ([0.5, 1.0, 0.0], [1.0, 0.0]),
    ([0.5, 0.0, 0.0], [1.0, 1.0]),
];

/// A `level.details` of `version` (2 or 3) with one model and `slots` (row by row, `size_x`
/// per row) on a grid whose slot (0, 0) starts at `(-offs_x * 2, -offs_z * 2)`.
pub fn details_bytes(version: u32, offs: [i32; 2], size_x: u32, slots: &[GenSlot]) -> Vec<u8> {
    let size_z = slots.len() as u32 / size_x.max(1);
    let mut head = Vec::new();
    for w in [version, 1] {
        head.extend_from_slice(&w.to_le_bytes());
    }
    for w in offs {
        head.extend_from_slice(&w.to_le_bytes());
    }
    for w in [size_x, size_z] {
        head.extend_from_slice(&w.to_le_bytes());
    }
    let mut models = Vec::new();
    chunk(&mut models, 0, &model_bytes());
    let mut body = Vec::new();
    for s in slots {
        if version == 2 {
            body.extend_from_slice(&s.y_base.to_le_bytes());
            body.extend_from_slice(&(s.y_base + s.height).to_le_bytes());
            for it in s.items {
                let (id, pal) = it.unwrap_or((0xff, 0));
                body.push(id);
                body.extend_from_slice(&pal.to_le_bytes());
            }
            body.extend_from_slice(&0u16.to_le_bytes());
        } else {
            let y_base = ((s.y_base + 200.0) / 0.2).round() as u32 & 0xfff;
            let y_height = (s.height / 0.1).round() as u32 & 0xff;
            let id = |k: usize| u32::from(s.items[k].map_or(0x3f, |i| i.0) & 0x3f);
            // c_dir 8, c_hemi 8, c_r c_g c_b 0: the editor's color_editor() is w_qclr(0.5, 15) = 7;
            // any value will do for a test
            let lo = y_base | (y_height << 12) | (id(0) << 20) | (id(1) << 26);
            let hi = id(2) | (id(3) << 6) | (8 << 12) | (8 << 16);
            body.extend_from_slice(&lo.to_le_bytes());
            body.extend_from_slice(&hi.to_le_bytes());
            for it in s.items {
                body.extend_from_slice(&it.map_or(0, |i| i.1).to_le_bytes());
            }
        }
    }
    let mut out = Vec::new();
    chunk(&mut out, 0, &head);
    chunk(&mut out, 1, &models);
    chunk(&mut out, 2, &body);
    out
}

/// A 3 × 2 test grid with offset (1, 1) (slot (0, 0) covers x −2…0, z −2…0): slot 0 at floor
/// 0 with model 0 in full density (palette 0xFFFF), slot 1 empty, slot 2 at floor 1 m with
/// palette 0x1111, slots 3–5 at floor 0 with palette 0x00FF. Heights 1 m.
pub fn sample() -> Vec<GenSlot> {
    let s = |y: f32, item: Option<(u8, u16)>| GenSlot {
        y_base: y,
        height: 1.0,
        items: [item, None, None, None],
    };
    vec![
        s(0.0, Some((0, 0xffff))),
        s(0.0, None),
        s(1.0, Some((0, 0x1111))),
        s(0.0, Some((0, 0x00ff))),
        s(0.0, Some((0, 0x00ff))),
        s(0.0, Some((0, 0x00ff))),
    ]
}
