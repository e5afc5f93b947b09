//! `extract`: a WAD's sounds, strings, level name and font as ordinary files, with a manifest.
//!
//! | file | from | what |
//! |---|---|---|
//! | `smpc_NNN.wav` | SMPC sound `NNN` | PSX ADPCM decoded ([`crate::adpcm`]), mono 16-bit PCM at the CVG header's rate |
//! | `srpc_NNN.wav` | SRPC speech entry `NNN`, with a CVS file | the entry's slice of `Music/ENGLISH.CVS` decoded the same way, at `rate × 44100 / 4096` Hz |
//! | `strings.json`, `strings.csv` | LGPC | every string with its column (string number) and row (language; the last row is the `#nnn` voice id) |
//! | `font.png` | FONT + TEXT | the 256 glyphs in a 16 × 16 grid, each cell the glyph's texture-entry rectangle cut from its decoded page ([`FontSheet`]: the pixels; the caller encodes them) |
//! | `font.json` | FONT (+ TEXT) | per glyph: code, character, texture entry, y offset, advance, height ([`crate::font::Glyph`]), the entry's page and rectangle, and its cell in `font.png` as `[x, y, width, height]`; the same list is in the manifest's font item |
//! | `manifest.json` | all | every item: kind, file, chunk, byte offset, and its fields ([`Extracted::manifest`]) |
//!
//! * **Text encoding**: the string bytes are read as ISO-8859-1 ([`crate::latin1`]), so any
//!   byte survives the round trip through UTF-8 JSON and back ([`crate::replace`] encodes the
//!   same way and refuses characters past U+00FF).
//! * **Sounds**: all samples of the whole blocks; a stream's trailing partial block (not
//!   audio) is left out. Entries without a 20-byte CVG header are listed, not decoded. The
//!   header's `channels` word is not settled (ENG-RE decodes every sound as mono): mono.
//! * **SRPC** entries point into `Music/ENGLISH.CVS`, a file outside the WAD: without it they
//!   are listed in the manifest only.
//! * **SPRT** (sprite slots): what its table indexes is not settled, so no picture; its words
//!   are listed in the manifest.
//! * Every offset comes from the chunk's own layout ([`crate::Level::payload_offset`],
//!   [`crate::smpc::Smpc::entry_offsets`], [`crate::srpc::Srpc::record_offset`],
//!   [`crate::lgpc::Lgpc::data_offset`], [`crate::name::TEXT_OFFSET`]).

mod font;
mod sounds;
mod strings;

use std::path::{Path, PathBuf};

use serde_json::{json, Value};

use crate::level::Level;
use crate::tags::Tag;

pub use font::FontSheet;
pub use sounds::{wav_rate, MAX_CVS_SLICE, MAX_CVS_TOTAL};

/// The name the font sheet is written under.
pub const FONT_FILE: &str = "font.png";
/// The name the glyph metrics are written under.
pub const FONT_METRICS_FILE: &str = "font.json";

/// Why an extraction failed.
#[derive(Debug, thiserror::Error)]
pub enum ExtractError {
    /// The CVS file could not be opened or read.
    #[error("cannot read or write {path}: {source}")]
    Cvs {
        /// The CVS file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// A sound's samples do not fit a WAV file.
    #[error("{file}: {source}")]
    Wav {
        /// The WAV file's name.
        file: String,
        /// The WAV writer's error.
        #[source]
        source: hound::Error,
    },
}

/// What [`extract`] took out of a level, in memory.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Extracted {
    /// The WAV, JSON and CSV files as `(name, bytes)`, in manifest order.
    pub files: Vec<(String, Vec<u8>)>,
    /// The font sheet, to be written as [`FONT_FILE`] (its manifest item is in `items`).
    pub font: Option<FontSheet>,
    /// The manifest's items.
    pub items: Vec<Value>,
    /// What could not be extracted, for the user.
    pub warnings: Vec<String>,
}

impl Extracted {
    /// The manifest (`manifest.json`) of an extraction of the file called `file`.
    pub fn manifest(&self, file: &str) -> Value {
        json!({
            "tool": "levelgeom extract",
            "file": file,
            "items": self.items,
        })
    }
}

/// Take the sounds, strings, name and font out of `level` (see the module docs); `cvs` is
/// `Music/ENGLISH.CVS`, to decode the SRPC speech entries.
///
/// # Errors
/// [`ExtractError::Cvs`] when the CVS file cannot be read; [`ExtractError::Wav`] when a sound
/// does not fit a WAV file.
pub fn extract(level: &Level, cvs: Option<&Path>) -> Result<Extracted, ExtractError> {
    let mut out = Extracted::default();
    sounds::smpc(level, &mut out)?;
    sounds::srpc(level, cvs, &mut out)?;
    strings::lgpc(level, &mut out);
    strings::name(level, &mut out);
    font::font(level, &mut out);
    if let Some(s) = level.sprt() {
        out.items.push(json!({
            "kind": "sprites",
            "chunk": "SPRT",
            "offset": level.payload_offset(Tag::SPRT),
            "material_base": s.material_base,
            "table": s.table,
            "file": Value::Null,
            "note": "what the table indexes is not settled: no picture",
        }));
    }
    Ok(out)
}
