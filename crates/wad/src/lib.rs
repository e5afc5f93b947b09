//! Argonaut level WADs of *The Emperor's New Groove* (PC, 2000; German *Ein Königreich für ein Lama*).
//!
//! Layers (see `ARCHITECTURE` notes in the README):
//! * [`container`]: the raw chunk list — u32 header, reversed 4-byte tags, payload sizes, `END `,
//!   trailing bytes — which always round-trips byte for byte;
//! * one module per chunk (`trak`, `map`, `text`, …) with `read` and `write` side by side;
//! * [`level`]: the typed level, every chunk parsed into its model;
//! * [`check`]: the consistency rules a game-loadable level must keep;
//! * [`author`]: the computations a writer of new geometry needs (face planes, normals,
//!   batch flags, collision planes, bounding boxes);
//! * [`mod@info`]: the typed summary `levelgeom info` prints (text and JSON);
//! * `generate` (with the cargo feature `generate`): a synthetic, self-consistent level generator (tests, demo, benchmarks);
//! * [`scene`]: conversion to the engine-neutral scene model for export;
//! * [`mod@import`]: the way back, edited geometry into TRAK and MAP, with [`probe`] (collision
//!   heights as the engine finds them) and [`sample`] (geometry to try it with);
//! * [`mod@extract`] and [`mod@replace`]: sounds (WAV, [`wav`]), strings (JSON, CSV;
//!   [`latin1`]), name and font out of a level, and edited strings, sounds and MAP zones
//!   ([`map::zones`]) back in.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod adpcm;
pub mod ampc;
pub mod author;
pub mod check;
pub mod container;
pub mod extract;
pub mod font;
#[cfg(feature = "generate")]
pub mod generate;
pub mod import;
pub mod info;
pub mod latin1;
pub mod level;
pub mod lght;
pub mod lgpc;
pub mod lnfo;
pub mod map;
pub mod model;
pub mod name;
pub mod probe;
pub mod replace;
pub mod rle;
pub mod sample;
pub mod scene;
pub mod smpc;
pub mod sprt;
pub mod srpc;
pub mod stpc;
pub mod tags;
pub mod text;
pub mod trak;
pub mod wav;
pub mod wfpc;

/// True when `bytes` look like an Argonaut PC WAD: a u32 header, then a chunk tag.
pub fn sniff(bytes: &[u8]) -> bool {
    bytes.len() >= 12
        && bytes[4..8]
            .iter()
            .all(|b| b.is_ascii_uppercase() || *b == b' ')
}

pub use container::{locate, RawWad};
pub use info::{info, Info};
pub use level::{Chunk, ChunkData, Level};
pub use tags::Tag;
