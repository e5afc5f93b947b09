//! `replace`: edited strings and sounds back into a WAD, everything else byte for byte.
//!
//! * **Strings** (`strings.json` as [`crate::extract`] writes it; only `strings[].column`,
//!   `.row` and `.text` are read, and cells not listed keep their text): the LGPC string data
//!   is laid anew in its column-major order, each string ISO-8859-1 encoded and NUL-terminated
//!   (a character past U+00FF or a NUL in a text is an error), and each stored length moves by
//!   the change of its string's length (so whatever the lengths count, NUL or not, they keep
//!   counting it). When every text is unchanged, the chunk is not touched.
//! * **Sounds** (`ID=IN.wav`, ID the SMPC index as a number or as the extracted file's stem
//!   `smpc_NNN`): a PCM WAV, converted to mono 16-bit first when it is not ([`read_wav`]). When its samples equal the decoding of the sound's own
//!   ADPCM (the WAV `extract` wrote), the sound is not touched; else the samples are encoded
//!   ([`levelgeom_wad::adpcm::encode`], the last block padded with silence to 28 samples) with
//!   the old stream's first and last flag bytes (its loop marks), the CVG header keeps its fields
//!   but for `audio_bytes` (the new ADPCM length) and `sample_rate` (the WAV's), and the entry's
//!   `data_size` follows.
//! * The level is written by [`levelgeom_wad::Level::to_bytes`]: a chunk whose payload changed
//!   length gets its real size and the chunks after it move (nothing is overwritten); the
//!   others keep their size fields (a MAP declared 4 bytes too large stays so), and the header
//!   keeps its bias (`new length − 4 + bias`).
//! * SRPC speech lives in `Music/ENGLISH.CVS`, outside the WAD: not replaced here.

use std::path::{Path, PathBuf};

use levelgeom_wad::level::ChunkData;
use serde_json::Value;

use crate::error::{Error, Result};
use crate::level::{Content, LevelFile};

/// What [`LevelFile::replace`] is asked to put in.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ReplaceOptions {
    /// A `strings.json` to take the LGPC strings from.
    pub strings: Option<PathBuf>,
    /// `(SMPC index, WAV file)` pairs.
    pub sounds: Vec<(usize, PathBuf)>,
}

/// What [`LevelFile::replace`] did.
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
}

/// Parse a `--sound` ID: `3` or `smpc_003`.
pub fn sound_id(id: &str) -> Option<usize> {
    id.strip_prefix("smpc_")
        .unwrap_or(id)
        .trim_end_matches(".wav")
        .parse()
        .ok()
}

fn bad(file: &Path, message: impl Into<String>) -> Error {
    Error::Unsupported {
        file: file.display().to_string(),
        message: message.into(),
    }
}

/// Read a PCM WAV as the mono 16-bit samples a WAD sound holds: `(samples, rate, note)`.
///
/// The file must be a regular file of at most [`crate::wav::MAX_WAV_SIZE`] bytes; its RIFF
/// chunks are walked and its format checked first ([`crate::wav::check`]: a sample rate,
/// channel count or bit depth the game cannot play is refused, naming the value, the chunk and
/// its offset). Mono 16-bit integer PCM is taken as it is (`note` is `None`); anything else is
/// converted ([`crate::wav::mono16`]) and `note` says from what. The sample rate is kept (the
/// CVG header takes the WAV's).
///
/// # Errors
/// [`Error::Io`] when the file cannot be read (or is no regular file, or too large);
/// [`Error::Unsupported`] for a malformed or unplayable WAV.
pub fn read_wav(path: &Path) -> Result<(Vec<i16>, u32, Option<String>)> {
    let bytes =
        levelgeom_binary::read_regular(path, crate::wav::MAX_WAV_SIZE).map_err(|source| {
            Error::Io {
                path: path.to_path_buf(),
                source,
            }
        })?;
    let f = crate::wav::check(&bytes, path)?;
    let samples = crate::wav::mono16(&bytes, &f, path)?;
    let plain = f.channels == 1 && f.bits == 16 && !f.float;
    let note = (!plain).then(|| {
        format!(
            "{}: {} channel(s), {}-bit {} at {} Hz converted to mono 16-bit PCM{}",
            path.display(),
            f.channels,
            f.bits,
            if f.float { "float" } else { "integer" },
            f.sample_rate,
            if f.channels > 1 {
                " (channels mixed down to their mean)"
            } else {
                ""
            }
        )
    });
    Ok((samples, f.sample_rate, note))
}

/// The largest `strings.json` `replace --strings` reads: 32 MiB (a level's strings, as
/// `extract` writes them, take a few hundred KB).
pub const MAX_STRINGS_SIZE: u64 = 32 << 20;

/// `at byte 0x… ($.path)` for the value at a JSON path of `text`, if it is there.
fn json_place(text: &[u8], path: &str) -> Option<String> {
    crate::json_path::offset_of(text, path).map(|at| format!("at byte 0x{at:08X} ({path})"))
}

/// Parse a strings JSON (as `replace --strings` does); an error names its byte offset and the
/// JSON path there.
///
/// # Errors
/// [`Error::Unsupported`]: not UTF-8, or not JSON.
pub fn strings_json(bytes: &[u8], path: &Path) -> Result<Value> {
    let text = std::str::from_utf8(bytes).map_err(|e| {
        let at = e.valid_up_to();
        bad(
            path,
            format!(
                "at byte 0x{at:08X} ({}): not UTF-8 (byte 0x{:02X}); a strings JSON is UTF-8 text",
                crate::json_path::path_at(bytes, at),
                bytes.get(at).copied().unwrap_or(0)
            ),
        )
    })?;
    serde_json::from_str(text).map_err(|e| {
        let at = crate::json_path::offset_of_line_column(bytes, e.line(), e.column());
        bad(
            path,
            format!(
                "at byte 0x{at:08X} ({}): not JSON: {e}",
                crate::json_path::path_at(bytes, at)
            ),
        )
    })
}

/// ISO-8859-1 encoding of a text (no NULs, nothing past U+00FF); the error says which
/// character.
fn latin1_bytes(text: &str) -> std::result::Result<Vec<u8>, String> {
    text.chars()
        .map(|c| match u8::try_from(u32::from(c)) {
            Ok(0) => Err("a NUL character ends a string in LGPC".to_string()),
            Ok(b) => Ok(b),
            Err(_) => Err(format!(
                "{c:?} (U+{:04X}) is not in ISO-8859-1, the WAD's text bytes",
                u32::from(c)
            )),
        })
        .collect()
}

impl LevelFile {
    /// Put edited strings and sounds into the WAD (see the module docs); the file itself is
    /// not changed, the new bytes are returned.
    ///
    /// # Errors
    /// [`Error::Unsupported`] for X-Ray files, a WAD without the chunk asked for, a bad JSON or
    /// WAV (naming the file and the entry), an SMPC index past the sounds; [`Error::Io`] when
    /// a file cannot be read; [`Error::Write`] when the new level does not fit the format.
    pub fn replace(&self, opts: &ReplaceOptions) -> Result<ReplaceReport> {
        let Content::Wad(level) = &self.content else {
            return Err(Error::Unsupported {
                file: self.display_name(),
                message: "replace writes into Argonaut WADs only".into(),
            });
        };
        let mut level = (**level).clone();
        let mut report = ReplaceReport::default();

        if let Some(path) = &opts.strings {
            let bytes =
                levelgeom_binary::read_regular(path, MAX_STRINGS_SIZE).map_err(|source| {
                    Error::Io {
                        path: path.clone(),
                        source,
                    }
                })?;
            let doc = strings_json(&bytes, path)?;
            let list = doc["strings"].as_array().ok_or_else(|| {
                bad(
                    path,
                    format!(
                        "{}: no \"strings\" array (write it with levelgeom extract)",
                        // where `strings` is, else where the document starts
                        json_place(&bytes, "$.strings")
                            .or_else(|| json_place(&bytes, "$"))
                            .unwrap_or_else(|| "at byte 0x00000000 ($)".into())
                    ),
                )
            })?;
            let file = self.display_name();
            let t = level.lgpc_mut().ok_or_else(|| Error::Unsupported {
                file: file.clone(),
                message: "the WAD has no LGPC chunk to put strings into".into(),
            })?;
            let rows = usize::try_from(t.rows()).unwrap_or(usize::MAX);
            let mut cells: Vec<Vec<u8>> = match t.table() {
                Some(table) => table.into_iter().flatten().map(<[u8]>::to_vec).collect(),
                None => {
                    return Err(Error::Unsupported {
                        file,
                        message: "its LGPC string data does not split into rows × columns strings; strings cannot be replaced".into(),
                    })
                }
            };
            let old = cells.clone();
            for (k, s) in list.iter().enumerate() {
                // located only on error: finding an offset walks the text
                let at = |p: String| json_place(&bytes, &p).unwrap_or(p);
                let (Some(c), Some(r), Some(txt)) =
                    (s["column"].as_u64(), s["row"].as_u64(), s["text"].as_str())
                else {
                    return Err(bad(
                        path,
                        format!(
                            "{}: needs \"column\", \"row\" and \"text\"",
                            at(format!("$.strings[{k}]"))
                        ),
                    ));
                };
                let (c, r) = (c as usize, r as usize);
                let cols = cells.len() / rows.max(1);
                if r >= rows || c >= cols {
                    return Err(bad(
                        path,
                        format!(
                            "{}: column {c}, row {r} is outside the table ({cols} columns × {rows} rows)",
                            at(format!("$.strings[{k}]"))
                        ),
                    ));
                }
                cells[c * rows + r] = latin1_bytes(txt).map_err(|m| {
                    bad(path, format!("{}: {m}", at(format!("$.strings[{k}].text"))))
                })?;
            }
            if cells != old {
                let mut data = Vec::new();
                for (i, (new, was)) in cells.iter().zip(&old).enumerate() {
                    if new != was {
                        report.strings_changed.push((i / rows, i % rows));
                    }
                    let delta = new.len() as i64 - was.len() as i64;
                    if let Some(l) = t.lengths.get_mut(i) {
                        *l = u32::try_from(i64::from(*l) + delta).map_err(|_| {
                            bad(
                                path,
                                format!("string {i}: its length does not fit the u32 field"),
                            )
                        })?;
                    }
                    data.extend_from_slice(new);
                    data.push(0);
                }
                t.data = data;
            }
        }

        if !opts.sounds.is_empty() {
            let file = self.display_name();
            let smpc = level
                .chunks
                .iter_mut()
                .find_map(|c| match &mut c.data {
                    ChunkData::Smpc(s) => Some(s),
                    _ => None,
                })
                .ok_or_else(|| Error::Unsupported {
                    file: file.clone(),
                    message: "the WAD has no SMPC chunk to put sounds into".into(),
                })?;
            for (id, wav) in &opts.sounds {
                let n = smpc.sounds.len();
                let snd = smpc.sounds.get_mut(*id).ok_or_else(|| Error::Unsupported {
                    file: file.clone(),
                    message: format!(
                        "--sound {id}: SMPC has {n} sounds (0..{})",
                        n.saturating_sub(1)
                    ),
                })?;
                let Some(h) = snd.header.as_mut() else {
                    return Err(Error::Unsupported {
                        file: file.clone(),
                        message: format!("--sound {id}: SMPC/sounds[{id}] has no CVG header (not a PSX ADPCM sound)"),
                    });
                };
                let (samples, rate, note) = read_wav(wav)?;
                report.notes.extend(note);
                if samples == levelgeom_wad::adpcm::decode(&snd.adpcm) {
                    // the same sound: its ADPCM stays (only a new rate is taken)
                    if rate == crate::extract::wav_rate(h.sample_rate) {
                        report.sounds_unchanged.push(*id);
                    } else {
                        h.sample_rate = rate;
                        report.sounds_changed.push(*id);
                    }
                    continue;
                }
                let flags = levelgeom_wad::adpcm::BlockFlags::of(&snd.adpcm);
                let adpcm = levelgeom_wad::adpcm::encode(&samples, &flags);
                h.audio_bytes = u32::try_from(adpcm.len())
                    .map_err(|_| bad(wav, "too long for the CVG header's u32"))?;
                h.sample_rate = rate;
                snd.adpcm = adpcm;
                report.sounds_changed.push(*id);
            }
        }

        report.bytes = level.to_bytes().map_err(|source| Error::Write {
            file: self.display_name(),
            source,
        })?;
        Ok(report)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sound_ids() {
        assert_eq!(sound_id("3"), Some(3));
        assert_eq!(sound_id("smpc_012"), Some(12));
        assert_eq!(sound_id("smpc_001.wav"), Some(1));
        assert_eq!(sound_id("x"), None);
    }
}
