//! `extract`: a WAD's sounds, strings, level name and font as ordinary files, with a manifest.
//!
//! | file | from | what |
//! |---|---|---|
//! | `smpc_NNN.wav` | SMPC sound `NNN` | PSX ADPCM decoded ([`levelgeom_wad::adpcm`]), mono 16-bit PCM at the CVG header's rate |
//! | `srpc_NNN.wav` | SRPC speech entry `NNN`, with `--cvs` | the entry's slice of `Music/ENGLISH.CVS` decoded the same way, at `rate × 44100 / 4096` Hz |
//! | `strings.json`, `strings.csv` | LGPC | every string with its column (string number) and row (language; the last row is the `#nnn` voice id) |
//! | `font.png` | FONT + TEXT | the 256 glyphs in a 16 × 16 grid, each cell the glyph's texture-entry rectangle cut from its decoded page |
//! | `manifest.json` | all | every item: kind, file, chunk, byte offset, and its fields |
//!
//! * **Text encoding**: the string bytes are read as ISO-8859-1 (every byte one character
//!   U+0000..U+00FF), so any byte survives the round trip through UTF-8 JSON and back
//!   ([`crate::replace`] encodes the same way and refuses characters past U+00FF). Whether the
//!   game means Windows-1252 in 0x80..0x9F is not known **\[L\]**.
//! * **Sounds**: all samples of the whole blocks; a stream's trailing partial block (not
//!   audio) is left out. Entries without a 20-byte CVG header are listed, not decoded. The
//!   header's `channels` word is not settled (ENG-RE decodes every sound as mono): mono.
//! * **SRPC** entries point into `Music/ENGLISH.CVS`, a file outside the WAD: without `--cvs` they
//!   are listed in the manifest only.
//! * **SPRT** (sprite slots): what its table indexes is not settled, so no picture; its words
//!   are listed in the manifest.
//! * The folder is written all or nothing by the export folder machinery
//!   ([`levelgeom_export::folder`]): absent, empty or a previous output of ours, else only with
//!   `--force`; inputs are never overwritten.

use std::path::{Path, PathBuf};

use levelgeom_export::folder::{self, FolderOptions};
use levelgeom_wad::level::{ChunkData, Level};
use levelgeom_wad::scene::TextView;
use levelgeom_wad::Tag;
use serde_json::{json, Value};

use crate::error::{Error, Result};
use crate::level::{Content, LevelFile};

/// What [`LevelFile::extract`] is asked to do.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct ExtractOptions {
    /// Write into a folder that holds files other than a previous output of ours.
    pub force: bool,
    /// `Music/ENGLISH.CVS`, to decode the SRPC speech entries.
    pub cvs: Option<PathBuf>,
}

/// What [`LevelFile::extract`] wrote.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct ExtractReport {
    /// Files written, with their sizes (the folder manifest not included).
    pub files: Vec<(PathBuf, u64)>,
    /// The manifest (also written as `manifest.json`).
    pub manifest: Value,
    /// What could not be extracted, for the user.
    pub warnings: Vec<String>,
}

/// Decode ISO-8859-1 bytes.
pub fn latin1(bytes: &[u8]) -> String {
    bytes.iter().map(|&b| char::from(b)).collect()
}

/// The most bytes of `Music/ENGLISH.CVS` one SRPC entry may name: 16 MiB of PSX ADPCM (over
/// six minutes of speech at 44.1 kHz; the game's lines last seconds). A larger slice is
/// warned about and not decoded, so a hostile size never becomes a huge allocation.
pub const MAX_CVS_SLICE: u64 = 16 << 20;

/// The most bytes of `Music/ENGLISH.CVS` one `extract` reads, all entries together: 64 MiB
/// (entries past it are warned about and not decoded).
pub const MAX_CVS_TOTAL: u64 = 64 << 20;

/// The rate a sound's WAV is written at: the CVG header's, or 22050 Hz where it says 0.
pub fn wav_rate(header_rate: u32) -> u32 {
    if header_rate == 0 {
        22050
    } else {
        header_rate
    }
}

/// A mono 16-bit WAV file.
pub fn wav_bytes(samples: &[i16], rate: u32) -> std::result::Result<Vec<u8>, hound::Error> {
    let spec = hound::WavSpec {
        channels: 1,
        sample_rate: rate,
        bits_per_sample: 16,
        sample_format: hound::SampleFormat::Int,
    };
    let mut cur = std::io::Cursor::new(Vec::new());
    {
        let mut w = hound::WavWriter::new(&mut cur, spec)?;
        for &s in samples {
            w.write_sample(s)?;
        }
        w.finalize()?;
    }
    Ok(cur.into_inner())
}

/// The file offset of a chunk's payload (`None` for a chunk that was not read from a file).
fn payload_offset(level: &Level, tag: Tag) -> Option<usize> {
    level.chunk(tag).and_then(|c| c.offset).map(|o| o + 8)
}

fn csv_cell(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

/// The SMPC chunk of a level.
pub(crate) fn smpc(level: &Level) -> Option<&levelgeom_wad::smpc::Smpc> {
    level.chunks.iter().find_map(|c| match &c.data {
        ChunkData::Smpc(s) => Some(s),
        _ => None,
    })
}

fn srpc(level: &Level) -> Option<&levelgeom_wad::srpc::Srpc> {
    level.chunks.iter().find_map(|c| match &c.data {
        ChunkData::Srpc(s) => Some(s),
        _ => None,
    })
}

fn name_chunk(level: &Level) -> Option<&levelgeom_wad::name::Name> {
    level.chunks.iter().find_map(|c| match &c.data {
        ChunkData::Name(n) => Some(n),
        _ => None,
    })
}

/// Files in memory `(name, bytes)`, manifest items, warnings.
type Extracted = (Vec<(String, Vec<u8>)>, Vec<Value>, Vec<String>);

/// The extracted files in memory and the manifest.
fn extract_files(level: &Level, opts: &ExtractOptions) -> Result<Extracted> {
    let mut files: Vec<(String, Vec<u8>)> = Vec::new();
    let mut items = Vec::new();
    let mut warnings = Vec::new();

    // Sounds.
    if let Some(s) = smpc(level) {
        let base = payload_offset(level, Tag::SMPC);
        let mut at = 4usize;
        for (i, snd) in s.sounds.iter().enumerate() {
            let entry = base.map(|b| b + at);
            let audio = base.map(|b| b + at + 8 + if snd.header.is_some() { 20 } else { 0 });
            at += 8 + snd.data_size();
            let mut item = json!({
                "kind": "sound",
                "chunk": "SMPC",
                "index": i,
                "offset": entry,
                "adpcm_offset": audio,
                "adpcm_bytes": snd.adpcm.len(),
                "type": latin1(&snd.kind),
            });
            let Some(h) = snd.header else {
                warnings.push(format!(
                    "SMPC/sounds[{i}]: {} bytes, no CVG header; not decoded",
                    snd.adpcm.len()
                ));
                item["file"] = Value::Null;
                items.push(item);
                continue;
            };
            let samples = levelgeom_wad::adpcm::decode(&snd.adpcm);
            let rate = wav_rate(h.sample_rate);
            if h.sample_rate == 0 {
                warnings.push(format!(
                    "SMPC/sounds[{i}]: sample rate 0; the WAV says {rate} Hz"
                ));
            }
            let name = format!("smpc_{i:03}.wav");
            let wav = wav_bytes(&samples, rate).map_err(|source| Error::Wav {
                file: name.clone(),
                source,
            })?;
            item["file"] = json!(name);
            item["samples"] = json!(samples.len());
            item["header"] = json!({
                "sample_rate": h.sample_rate,
                "u16_04": h.unknown_04,
                "u16_06": h.unknown_06,
                "channels": h.channels,
                "u16_0c": h.unknown_0c,
                "u16_0e": h.unknown_0e,
                "audio_bytes": h.audio_bytes,
            });
            files.push((name, wav));
            items.push(item);
        }
    }
    if let Some(s) = srpc(level) {
        let base = payload_offset(level, Tag::SRPC);
        // only the slices the SRPC entries name are read (a CVS archive is large, and a
        // sparse or hostile one may claim gigabytes): never the whole file
        fn io(p: &Path) -> impl FnOnce(std::io::Error) -> Error + '_ {
            move |source| Error::Io {
                path: p.to_path_buf(),
                source,
            }
        }
        let mut cvs = match &opts.cvs {
            Some(p) => Some((levelgeom_binary::RegularFile::open(p).map_err(io(p))?, p)),
            None => None,
        };
        let mut cvs_read = 0u64;
        for (i, r) in s.refs.iter().enumerate() {
            let mut item = json!({
                "kind": "speech",
                "chunk": "SRPC",
                "index": i,
                "offset": base.map(|b| b + 4 + 16 * i),
                "id": r.id,
                "rate": r.rate,
                "rate_hz": r.sample_rate_hz(),
                "u16_06": r.unknown_06,
                "cvs_offset": r.cvs_offset,
                "cvs_size": r.cvs_size,
                "file": Value::Null,
            });
            if let Some((cvs, p)) = &mut cvs {
                let (o, n) = (u64::from(r.cvs_offset), u64::from(r.cvs_size));
                if o.saturating_add(n) > cvs.len() {
                    warnings.push(format!(
                        "SRPC/refs[{i}]: bytes {o}..{} lie past the end of the CVS file ({} bytes)",
                        o + n,
                        cvs.len()
                    ));
                } else if n > MAX_CVS_SLICE {
                    warnings.push(format!(
                        "SRPC/refs[{i}]: {n} bytes of speech, more than the {MAX_CVS_SLICE} one entry may have; not decoded"
                    ));
                } else if cvs_read + n > MAX_CVS_TOTAL {
                    warnings.push(format!(
                        "SRPC/refs[{i}]: the entries so far read {cvs_read} bytes of the CVS file, and {n} more would pass the {MAX_CVS_TOTAL} one extract reads; not decoded"
                    ));
                } else {
                    cvs_read += n;
                    let slice = cvs.read_slice(o, n).map_err(io(p))?;
                    let name = format!("srpc_{i:03}.wav");
                    let rate = r.sample_rate_hz().round() as u32;
                    let wav = wav_bytes(&levelgeom_wad::adpcm::decode(&slice), rate.max(1))
                        .map_err(|source| Error::Wav {
                            file: name.clone(),
                            source,
                        })?;
                    item["file"] = json!(name);
                    files.push((name, wav));
                }
            }
            items.push(item);
        }
    }

    // Strings.
    if let Some(t) = level.lgpc() {
        let base = payload_offset(level, Tag::LGPC);
        let data_at = 12 + 4 * t.lengths.len();
        match t.table() {
            Some(table) => {
                let mut list = Vec::new();
                let mut at = data_at;
                let mut csv = String::from("column");
                for r in 0..t.rows() {
                    csv.push_str(&format!(",row_{r}"));
                }
                csv.push_str("\r\n");
                for (c, col) in table.iter().enumerate() {
                    csv.push_str(&c.to_string());
                    for (r, s) in col.iter().enumerate() {
                        let text = latin1(s);
                        csv.push(',');
                        csv.push_str(&csv_cell(&text));
                        list.push(json!({
                            "column": c,
                            "row": r,
                            "voice_id": r as u64 + 1 == t.rows(),
                            "offset": base.map(|b| b + at),
                            "text": text,
                        }));
                        at += s.len() + 1;
                    }
                    csv.push_str("\r\n");
                }
                let doc = json!({
                    "chunk": "LGPC",
                    "offset": base,
                    "rows": t.rows(),
                    "columns": t.cols,
                    "encoding": "ISO-8859-1 bytes as Unicode U+0000..U+00FF",
                    "strings": list,
                });
                let mut text = serde_json::to_string_pretty(&doc).unwrap_or_default();
                text.push('\n');
                files.push(("strings.json".into(), text.into_bytes()));
                files.push(("strings.csv".into(), csv.into_bytes()));
                items.push(json!({
                    "kind": "strings",
                    "chunk": "LGPC",
                    "offset": base,
                    "file": "strings.json",
                    "csv": "strings.csv",
                    "rows": t.rows(),
                    "columns": t.cols,
                }));
            }
            None => warnings.push(format!(
                "LGPC: the string data does not split into {} × {} NUL-terminated strings; not extracted",
                t.rows(),
                t.cols
            )),
        }
    }

    // The level name.
    if let Some(n) = name_chunk(level) {
        let end = n
            .bytes
            .iter()
            .position(|&b| b == 0)
            .unwrap_or(n.bytes.len());
        items.push(json!({
            "kind": "name",
            "chunk": "NAME",
            "offset": payload_offset(level, Tag::NAME).map(|o| o + 4),
            "count": n.count,
            "text": latin1(&n.bytes[..end]),
            "file": Value::Null,
        }));
    }

    // The font sheet.
    if let (Some(font), Some(text)) = (level.font(), level.text()) {
        let view = TextView::from_text(text);
        let rect = |g: &levelgeom_wad::font::Glyph| {
            let e = view.entries.get(usize::from(g.texture))?;
            if e.flags & 1 != 0 {
                return None; // a flat colour, no texels
            }
            let page = view.pages.get(usize::from(e.page))?;
            let px = page.rgba.as_ref().ok()?;
            let [u0, u1, v0, v1] = e.rect.map(u32::from);
            (u0 <= u1 && v0 <= v1 && u1 < page.width && v1 < page.height).then_some((
                px,
                page.width,
                u0,
                v0,
                u1 - u0 + 1,
                v1 - v0 + 1,
            ))
        };
        let cells: Vec<_> = font.glyphs.iter().map(rect).collect();
        let cw = cells.iter().flatten().map(|c| c.4).max().unwrap_or(0);
        let ch = cells.iter().flatten().map(|c| c.5).max().unwrap_or(0);
        if cw > 0 && ch > 0 {
            let (w, h) = (16 * cw, 16 * ch);
            let mut sheet = vec![0u8; (w * h * 4) as usize];
            for (i, c) in cells.iter().enumerate() {
                let Some((px, pw, u0, v0, gw, gh)) = c else {
                    continue;
                };
                let (ox, oy) = ((i as u32 % 16) * cw, (i as u32 / 16) * ch);
                for y in 0..*gh {
                    for x in 0..*gw {
                        let s = (((v0 + y) * pw + u0 + x) * 4) as usize;
                        let d = (((oy + y) * w + ox + x) * 4) as usize;
                        sheet[d..d + 4].copy_from_slice(&px[s..s + 4]);
                    }
                }
            }
            let png = levelgeom_export::png::encode_rgba8(w, h, &sheet).map_err(|source| {
                Error::Encode {
                    file: "font.png".into(),
                    source,
                }
            })?;
            files.push(("font.png".into(), png));
            items.push(json!({
                "kind": "font",
                "chunk": "FONT",
                "offset": payload_offset(level, Tag::FONT),
                "file": "font.png",
                "cell": [cw, ch],
                "layout": "16 x 16 cells, glyph code = row * 16 + column",
            }));
        } else {
            warnings.push("FONT: no glyph names a decodable texture rectangle; no font.png".into());
        }
    }
    if let Some(s) = level.sprt() {
        items.push(json!({
            "kind": "sprites",
            "chunk": "SPRT",
            "offset": payload_offset(level, Tag::SPRT),
            "material_base": s.material_base,
            "table": s.table,
            "file": Value::Null,
            "note": "what the table indexes is not settled: no picture",
        }));
    }
    Ok((files, items, warnings))
}

impl LevelFile {
    /// Write a WAD's sounds, strings, name and font into `outdir` with `manifest.json`, all
    /// or nothing (see the module docs).
    ///
    /// # Errors
    /// [`Error::Unsupported`] for X-Ray files; [`Error::Folder`] when the folder cannot be
    /// written (it is then left as it was); [`Error::Io`] when `--cvs` cannot be read.
    pub fn extract(&self, outdir: &Path, opts: &ExtractOptions) -> Result<ExtractReport> {
        let Content::Wad(level) = &self.content else {
            return Err(Error::Unsupported {
                file: self.display_name(),
                message: "extract reads Argonaut WADs (sounds, strings, font); X-Ray levels hold none of these".into(),
            });
        };
        let (mut files, items, warnings) = extract_files(level, opts)?;
        let manifest = json!({
            "tool": "levelgeom extract",
            "file": self.display_name(),
            "items": items,
        });
        let mut text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
        text.push('\n');
        files.push(("manifest.json".into(), text.into_bytes()));
        let mut protect = vec![self.path.clone()];
        protect.extend(opts.cvs.iter().cloned());
        let written = folder::write_files(
            outdir,
            &files,
            &FolderOptions {
                force: opts.force,
                protect,
                input: self.display_name(),
                ..FolderOptions::default()
            },
        )?;
        let mut all = warnings;
        all.extend(written.warnings);
        Ok(ExtractReport {
            files: written.files,
            manifest,
            warnings: all,
        })
    }
}
