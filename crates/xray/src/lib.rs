//! S.T.A.L.K.E.R. (X-Ray engine) compiled levels: `level`, `level.geom`, `level.geomx`,
//! `level.cform`.
//!
//! * [`chunk`]: the `u32 id` + `u32 size` chunk container (bit 31 of the id = LZHUF-compressed),
//!   [`lzhuf`] its codec;
//! * [`geom`]: `level.geom`/`level.geomx` (vertex buffers with D3D9 declarations, index
//!   buffers, sliding-window tables); [`decl`] the declarations, [`vertex`] the codec that turns
//!   any declaration's bytes into positions/normals/UVs/colours and back, byte for byte;
//! * [`level`]: the `level` file (shaders, OGF v4 [`ogf`] visuals, portals, lights, glows,
//!   [`sectors`]); [`cform`]: the collision file, kept raw;
//! * [`check`]: consistency rules; [`scene`]: conversion to the engine-neutral scene for export;
//!   [`generate`]: small self-consistent levels for tests.
//!
//! Every reader is byte-exact: parse, then write an unchanged model, gives the input bytes.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod cform;
pub mod check;
pub mod chunk;
pub mod decl;
pub mod generate;
pub mod geom;
pub mod level;
pub mod lzhuf;
pub mod ogf;
pub mod scene;
pub mod sectors;
pub mod shaders;
pub mod vertex;

pub use geom::Geom;
pub use level::Level;
pub use scene::{to_scene, SceneOptions};

/// What kind of X-Ray file some bytes are, judged from their content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `level.geom` / `level.geomx`: chunk file with vertex (9) and index (10) buffer chunks.
    Geom,
    /// `level`: chunk file with shader (2) and visual (3) chunks.
    Level,
    /// `level.cform`: the collision header + vertices + triangles.
    Cform,
    /// Some other X-Ray chunk file.
    Chunks,
}

/// Classify `bytes`, or `None` if they are not an X-Ray file.
///
/// A file that starts with the 4-byte header chunk 1 is X-Ray even when damaged further on (so
/// that reading it reports where); otherwise the chunks must tile the file exactly.
pub fn kind(bytes: &[u8]) -> Option<Kind> {
    if cform::sniff(bytes) {
        return Some(Kind::Cform);
    }
    // An Argonaut WAD starts with `u32 length-4` then an ASCII tag; never take it for chunks.
    if bytes.len() >= 8 && bytes[4..8].iter().all(|b| b.is_ascii_uppercase() || *b == b' ') {
        return None;
    }
    let header_first = bytes.len() >= 12 && bytes[0..8] == [1, 0, 0, 0, 4, 0, 0, 0];
    let (ids, tiles) = chunk::scan_ids(bytes);
    if !header_first && (!tiles || ids.iter().any(|&i| i > 0xFFFF)) {
        return None;
    }
    if ids.contains(&geom::VB) || ids.contains(&geom::IB) {
        Some(Kind::Geom)
    } else if ids.contains(&level::SHADERS) || ids.contains(&level::VISUALS) {
        Some(Kind::Level)
    } else {
        Some(Kind::Chunks)
    }
}

/// True when `bytes` look like an X-Ray file (`level`, `level.geom(x)`, `level.cform` or
/// another chunk file whose chunks tile it exactly). False for Argonaut WADs.
pub fn sniff(bytes: &[u8]) -> bool {
    kind(bytes).is_some()
}
