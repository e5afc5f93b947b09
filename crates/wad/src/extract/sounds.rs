//! SMPC sounds and SRPC speech as WAV files.

use std::path::Path;

use serde_json::{json, Value};

use super::{ExtractError, Extracted};
use crate::level::Level;
use crate::srpc::Srpc;
use crate::tags::Tag;

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

fn wav(name: &str, samples: &[i16], rate: u32) -> Result<Vec<u8>, ExtractError> {
    crate::wav::write_mono16(samples, rate).map_err(|source| ExtractError::Wav {
        file: name.to_string(),
        source,
    })
}

/// The SMPC sounds: a WAV for each entry with a CVG header.
pub(super) fn smpc(level: &Level, out: &mut Extracted) -> Result<(), ExtractError> {
    let Some(s) = level.smpc() else {
        return Ok(());
    };
    let base = level.payload_offset(Tag::SMPC);
    for (i, (snd, at)) in s.sounds.iter().zip(s.entry_offsets()).enumerate() {
        let mut item = json!({
            "kind": "sound",
            "chunk": "SMPC",
            "index": i,
            "offset": base.map(|b| b + at),
            "adpcm_offset": base.map(|b| b + at + snd.adpcm_offset()),
            "adpcm_bytes": snd.adpcm.len(),
            "type": crate::latin1::decode(&snd.kind),
        });
        let Some(h) = snd.header else {
            out.warnings.push(format!(
                "SMPC/sounds[{i}]: {} bytes, no CVG header; not decoded",
                snd.adpcm.len()
            ));
            item["file"] = Value::Null;
            out.items.push(item);
            continue;
        };
        let samples = crate::adpcm::decode(&snd.adpcm);
        let rate = wav_rate(h.sample_rate);
        if h.sample_rate == 0 {
            out.warnings.push(format!(
                "SMPC/sounds[{i}]: sample rate 0; the WAV says {rate} Hz"
            ));
        }
        let name = format!("smpc_{i:03}.wav");
        let bytes = wav(&name, &samples, rate)?;
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
        out.files.push((name, bytes));
        out.items.push(item);
    }
    Ok(())
}

/// The SRPC speech entries: listed, and with the CVS file decoded from their slices of it.
/// Only the slices the entries name are read (a CVS archive is large, and a sparse or hostile
/// one may claim gigabytes): never the whole file.
pub(super) fn srpc(
    level: &Level,
    cvs: Option<&Path>,
    out: &mut Extracted,
) -> Result<(), ExtractError> {
    let Some(s) = level.srpc() else {
        return Ok(());
    };
    let base = level.payload_offset(Tag::SRPC);
    let io = |p: &Path| {
        let path = p.to_path_buf();
        move |source| ExtractError::Cvs { path, source }
    };
    let mut cvs = match cvs {
        Some(p) => Some((levelgeom_binary::RegularFile::open(p).map_err(io(p))?, p)),
        None => None,
    };
    let mut cvs_read = 0u64;
    for (i, r) in s.refs.iter().enumerate() {
        let mut item = json!({
            "kind": "speech",
            "chunk": "SRPC",
            "index": i,
            "offset": base.map(|b| b + Srpc::record_offset(i)),
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
                out.warnings.push(format!(
                    "SRPC/refs[{i}]: bytes {o}..{} lie past the end of the CVS file ({} bytes)",
                    o + n,
                    cvs.len()
                ));
            } else if n > MAX_CVS_SLICE {
                out.warnings.push(format!(
                    "SRPC/refs[{i}]: {n} bytes of speech, more than the {MAX_CVS_SLICE} one entry may have; not decoded"
                ));
            } else if cvs_read + n > MAX_CVS_TOTAL {
                out.warnings.push(format!(
                    "SRPC/refs[{i}]: the entries so far read {cvs_read} bytes of the CVS file, and {n} more would pass the {MAX_CVS_TOTAL} one extract reads; not decoded"
                ));
            } else {
                cvs_read += n;
                let slice = cvs.read_slice(o, n).map_err(io(p))?;
                let name = format!("srpc_{i:03}.wav");
                let rate = r.sample_rate_hz().round() as u32;
                let bytes = wav(&name, &crate::adpcm::decode(&slice), rate.max(1))?;
                item["file"] = json!(name);
                out.files.push((name, bytes));
            }
        }
        out.items.push(item);
    }
    Ok(())
}
