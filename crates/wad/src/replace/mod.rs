//! `replace`: edited strings, sounds, zones and route nodes back into a WAD, everything
//! else byte for byte.
//!
//! * **Strings** ([`strings`]: `strings.json` as [`crate::extract`] writes it; only
//!   `strings[].column`, `.row` and `.text` are read, and cells not listed keep their text):
//!   the LGPC string data is laid anew in its column-major order, each string ISO-8859-1
//!   encoded and NUL-terminated ([`crate::latin1::encode`]: a character past U+00FF or a NUL
//!   in a text is an error), and each stored length moves by the change of its string's length
//!   (so whatever the lengths count, NUL or not, they keep counting it). When every text is
//!   unchanged, the chunk is not touched.
//! * **Sounds** ([`sounds`]: `ID=IN.wav`, ID the SMPC index as a number or as the extracted
//!   file's stem `smpc_NNN`): a PCM WAV, converted to mono 16-bit first when it is not
//!   ([`sounds::read_wav`]). When its samples equal the decoding of the sound's own ADPCM (the
//!   WAV `extract` wrote), the sound is not touched; else the samples are encoded
//!   ([`crate::adpcm::encode`], the last block padded with silence to 28 samples) with the old
//!   stream's first and last flag bytes (its loop marks), the CVG header keeps its fields but
//!   for `audio_bytes` (the new ADPCM length) and `sample_rate` (the WAV's), and the entry's
//!   `data_size` follows.
//! * **Routes** ([`routes`]: `routes.json` as `export --objects` writes it): the MAP route
//!   nodes' positions, rotations and `next`/`prev` link words
//!   (docs/formats/argonaut-wad.md §18.5); the JSON must list the level's routes and nodes, no more and no fewer, and links
//!   stay inside the node list. Only the words that changed are written differently.
//! * The level is written by [`crate::Level::to_bytes`]: a chunk whose payload changed length
//!   gets its real size and the chunks after it move (nothing is overwritten); the others keep
//!   their size fields (a MAP declared 4 bytes too large stays so), and the header keeps its
//!   bias (`new length − 4 + bias`).
//! * **Zones** ([`zones`]: `zones.json` as `export --zones` writes it): the 32-entry zone table
//!   (each entry's `sees` list becomes its mask, `height` its i32) and the zone grid replace the
//!   MAP's, which keeps its size; nothing else in MAP changes, so only the table's 256 bytes and
//!   the grid's W·H × 4 bytes can differ.
//! * SRPC speech lives in `Music/ENGLISH.CVS`, outside the WAD: not replaced here.

pub mod json;
pub mod routes;
pub mod sounds;
pub mod strings;
pub mod zones;

use std::path::PathBuf;

use levelgeom_binary::WriteError;

use crate::level::Level;

pub use routes::{RoutesChange, RoutesError, MAX_ROUTES_SIZE};
pub use sounds::{read_wav, sound_id};
pub use strings::{strings_json, StringsError, MAX_STRINGS_SIZE};
pub use zones::{zones_json, ZonesChange, ZonesError, MAX_ZONES_SIZE};

/// What [`replace`] is asked to put in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplaceOptions {
    /// A `strings.json` to take the LGPC strings from.
    pub strings: Option<PathBuf>,
    /// `(SMPC index, WAV file)` pairs.
    pub sounds: Vec<(usize, PathBuf)>,
    /// A `routes.json` to take the MAP route nodes' positions, rotations and links from.
    pub routes: Option<PathBuf>,
    /// A `zones.json` to take the MAP zone table and grid from.
    pub zones: Option<PathBuf>,
}

/// What [`replace`] did.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplaceReport {
    /// The new WAD.
    pub bytes: Vec<u8>,
    /// Strings whose text changed, as `(column, row)`.
    pub strings_changed: Vec<(usize, usize)>,
    /// SMPC sounds that were re-encoded.
    pub sounds_changed: Vec<usize>,
    /// SMPC sounds given whose samples were those of the file already (kept as they were).
    pub sounds_unchanged: Vec<usize>,
    /// WAV files that were converted to mono 16-bit PCM first ([`read_wav`]), one line each.
    pub notes: Vec<String>,
    /// MAP route nodes moved, turned and relinked.
    pub routes_changed: RoutesChange,
    /// Zone-table entries and grid cells that changed.
    pub zones_changed: ZonesChange,
}

/// What the level lacks for a replacement.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum LevelProblem {
    /// Strings given, no LGPC chunk.
    #[error("the WAD has no LGPC chunk to put strings into")]
    NoLgpc,
    /// The LGPC data is not `rows × cols` NUL-terminated strings.
    #[error("its LGPC string data does not split into rows × columns strings; strings cannot be replaced")]
    TableSplit,
    /// Zones or routes given, no MAP chunk.
    #[error("the WAD has no MAP chunk to put zones or routes into")]
    NoMap,
    /// Sounds given, no SMPC chunk.
    #[error("the WAD has no SMPC chunk to put sounds into")]
    NoSmpc,
    /// A sound index past the SMPC entries.
    #[error("--sound {id}: SMPC has {count} sounds (0..{last})", last = count.saturating_sub(1))]
    NoSuchSound {
        /// The index given.
        id: usize,
        /// The number of sounds.
        count: usize,
    },
    /// An SMPC entry that is no PSX ADPCM sound.
    #[error("--sound {id}: SMPC/sounds[{id}] has no CVG header (not a PSX ADPCM sound)")]
    NoCvgHeader {
        /// The index given.
        id: usize,
    },
}

/// Why a replacement failed; every variant names its file.
#[derive(Debug, thiserror::Error)]
pub enum ReplaceError {
    /// A strings JSON or WAV file could not be read (or is no regular file, or too large).
    #[error("cannot read or write {path}: {source}")]
    Io {
        /// The file.
        path: PathBuf,
        /// The OS error.
        #[source]
        source: std::io::Error,
    },
    /// The strings JSON is malformed or does not fit the table.
    #[error("{file}: {source}", file = file.display())]
    Strings {
        /// The strings JSON.
        file: PathBuf,
        /// What and where (byte offset and JSON path).
        #[source]
        source: StringsError,
    },
    /// The routes JSON is malformed or does not fit the level's routes.
    #[error("{file}: {source}", file = file.display())]
    Routes {
        /// The routes JSON.
        file: PathBuf,
        /// What and where (byte offset and JSON path).
        #[source]
        source: RoutesError,
    },
    /// The zones JSON is malformed or does not fit the MAP.
    #[error("{file}: {source}", file = file.display())]
    Zones {
        /// The zones JSON.
        file: PathBuf,
        /// What and where (byte offset and JSON path).
        #[source]
        source: ZonesError,
    },
    /// A WAV is malformed or unplayable.
    #[error("{file}: {source}", file = file.display())]
    Wav {
        /// The WAV file.
        file: PathBuf,
        /// What and where (RIFF chunk and byte offset).
        #[source]
        source: crate::wav::WavError,
    },
    /// A WAV's ADPCM would not fit the CVG header's u32 length.
    #[error("{file}: too long for the CVG header's u32", file = file.display())]
    WavTooLong {
        /// The WAV file.
        file: PathBuf,
    },
    /// The level lacks what the replacement needs.
    #[error("{file}: {source}")]
    Level {
        /// The level, as messages name it.
        file: String,
        /// What it lacks.
        #[source]
        source: LevelProblem,
    },
    /// The new level does not fit the format.
    #[error("{file}: {source}")]
    Write {
        /// The level, as messages name it.
        file: String,
        /// The field and why.
        #[source]
        source: WriteError,
    },
}

/// Put edited strings, sounds, zones and route nodes into `level` (see the module docs), named `file` in
/// messages; `level` itself is not changed, the new bytes are returned.
///
/// # Errors
/// [`ReplaceError`]: a file cannot be read, a bad JSON or WAV (naming the file and the
/// entry), a level without the chunk asked for or an SMPC index past its sounds, a new level
/// that does not fit the format.
pub fn replace(
    level: &Level,
    file: &str,
    opts: &ReplaceOptions,
) -> Result<ReplaceReport, ReplaceError> {
    let mut level = level.clone();
    let mut report = ReplaceReport::default();
    let lacks = |source| ReplaceError::Level {
        file: file.to_string(),
        source,
    };
    if let Some(path) = &opts.strings {
        report.strings_changed = strings::replace(&mut level, path, lacks)?;
    }
    if !opts.sounds.is_empty() {
        sounds::replace(&mut level, &opts.sounds, &mut report, lacks)?;
    }
    if let Some(path) = &opts.routes {
        report.routes_changed = routes::replace(&mut level, path, lacks)?;
    }
    if let Some(path) = &opts.zones {
        report.zones_changed = zones::replace(&mut level, path, lacks)?;
    }
    report.bytes = level.to_bytes().map_err(|source| ReplaceError::Write {
        file: file.to_string(),
        source,
    })?;
    Ok(report)
}
