//! WAV files of a WAD's sounds: the mono 16-bit PCM file [`extract`](crate::extract) writes
//! ([`write_mono16`]), and the RIFF/WAVE layout `replace --sound` reads, walked before the samples are decoded so an
//! error names the chunk and its byte offset, and the format values the game cannot play are
//! refused where they enter.
//!
//! Layout (Microsoft *Multimedia Programming Interface and Data Specifications 1.0*, 1991,
//! "RIFF" and "WAVE form"; the same walk as hound 3.5 `read.rs` `read_wave_header` /
//! `read_until_data`):
//!
//! ```text
//! +0   "RIFF"  u32 size  "WAVE"
//! +12  chunks: char[4] id, u32 size, size bytes, one pad byte when size is odd
//!      "fmt " +0 u16 format tag (1 PCM, 3 IEEE float, 0xFFFE extensible: the real tag is the
//!             first u16 of the sub-format GUID at +24), +2 u16 channels, +4 u32 sample rate,
//!             +8 u32 bytes per second, +12 u16 block align, +14 u16 bits per sample
//!      "data" the interleaved samples
//! ```
//!
//! What the game can play: assuming its PC build's audio library (`AAL_LoadResource`) plays
//! the sounds through DirectSound secondary buffers (the 2000-era DirectX 7), their rate must
//! lie between `DSBFREQUENCY_MIN` 100 and `DSBFREQUENCY_MAX` 100000 Hz (`dsound.h` before
//! `DIRECTSOUND_VERSION` 0x0900; Wine's `include/dsound.h` has the same two values). The
//! engine's own check is not known; a rate of 0 (what the issue found written into a WAD) is
//! outside any of them. The
//! sounds of a WAD are mono (SMPC, [`levelgeom_wad::smpc`]): mono is taken as it is, stereo
//! mixed down; more channels carry a speaker layout a plain mean would garble, and are refused.
//! Integer samples of 8, 16, 24 or 32 bits and 32-bit floats are converted; other depths (12,
//! 20 bits in a wider container) are refused rather than guessed.

/// A WAV that cannot be read, or that the game cannot play: what, and where (the message
/// names the RIFF chunk and its byte offset too).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{message}")]
pub struct WavError {
    /// The byte offset the message is about.
    pub offset: usize,
    /// What is wrong there.
    pub message: String,
}

type Result<T> = std::result::Result<T, WavError>;

/// The largest WAV `replace --sound` reads: 32 MiB (over three minutes of 44.1 kHz stereo
/// 16-bit; the game's sounds are effects of a few seconds).
pub const MAX_WAV_SIZE: u64 = 32 << 20;

/// The lowest sample rate the game's sound buffers take (`DSBFREQUENCY_MIN`).
pub const MIN_RATE: u32 = 100;
/// The highest sample rate the game's sound buffers take (`DSBFREQUENCY_MAX`, DirectX 7).
pub const MAX_RATE: u32 = 100_000;

/// The format of a WAV, as its `fmt ` chunk says, and where its samples are.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WavFormat {
    /// Floating-point samples (format tag 3), else integer PCM.
    pub float: bool,
    /// Interleaved channels (1 or 2).
    pub channels: u16,
    /// Frames per second.
    pub sample_rate: u32,
    /// Bits per sample (8, 16, 24 or 32).
    pub bits: u16,
    /// Byte offset of the `fmt ` chunk's header.
    pub fmt_at: usize,
    /// Byte offset of the `data` chunk's header.
    pub data_at: usize,
    /// Byte length of the `data` chunk's body.
    pub data_len: usize,
}

fn bad(offset: usize, message: impl Into<String>) -> WavError {
    WavError {
        offset,
        message: message.into(),
    }
}

/// A mono 16-bit PCM WAV file of `samples` at `rate` Hz (the canonical 44-byte header, as
/// hound 3.5 writes it).
///
/// # Errors
/// hound's, when the samples do not fit a WAV (over 4 GiB).
pub fn write_mono16(samples: &[i16], rate: u32) -> std::result::Result<Vec<u8>, hound::Error> {
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

fn u16_at(b: &[u8], at: usize) -> u16 {
    u16::from_le_bytes([b[at], b[at + 1]])
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes([b[at], b[at + 1], b[at + 2], b[at + 3]])
}

/// A chunk id as text for messages (`'fmt '`, or hex when not printable).
fn id_text(id: &[u8]) -> String {
    if id.iter().all(|b| b.is_ascii_graphic() || *b == b' ') {
        format!("'{}'", String::from_utf8_lossy(id))
    } else {
        format!(
            "0x{}",
            id.iter().map(|b| format!("{b:02X}")).collect::<String>()
        )
    }
}

/// Walk the RIFF chunks of `bytes` and check the format against what the game can play.
///
/// # Errors
/// [`WavError`] naming the chunk and its byte offset: no RIFF/WAVE header,
/// a chunk running past the end of the file, no `fmt ` before `data`, a format tag other than
/// PCM or float, and a sample rate, channel count or bit depth the game cannot play (saying
/// which, and what it takes).
pub fn check(bytes: &[u8]) -> Result<WavFormat> {
    if bytes.len() < 12 || &bytes[0..4] != b"RIFF" || &bytes[8..12] != b"WAVE" {
        let first = &bytes[..bytes.len().min(12)];
        return Err(bad(
            0,
            format!(
                "at 0x00000000: no RIFF/WAVE header (\"RIFF\", size, \"WAVE\"); the first bytes are {}",
                first.iter().map(|b| format!("{b:02X}")).collect::<Vec<_>>().join(" ")
            ),
        ));
    }
    let mut at = 12usize;
    let mut fmt: Option<WavFormat> = None;
    while at < bytes.len() {
        if bytes.len() - at < 8 {
            return Err(bad(
                at,
                format!(
                    "at 0x{at:08X}: {} stray byte(s) where a chunk header (8 bytes) should be, and no 'data' chunk before them",
                    bytes.len() - at
                ),
            ));
        }
        let id = &bytes[at..at + 4];
        let size = u32_at(bytes, at + 4) as usize;
        let body = at + 8;
        let left = bytes.len() - body;
        let name = id_text(id);
        if id == b"data" {
            let Some(mut f) = fmt else {
                return Err(bad(
                    at,
                    format!("RIFF chunk 'data' at 0x{at:08X}: no 'fmt ' chunk before it says what the samples are"),
                ));
            };
            if size > left {
                return Err(bad(
                    at,
                    format!("RIFF chunk 'data' at 0x{at:08X}: declares {size} bytes of samples, the file has {left} after its header"),
                ));
            }
            let frame = usize::from(f.channels) * usize::from(f.bits / 8);
            if size % frame != 0 {
                return Err(bad(
                    at,
                    format!("RIFF chunk 'data' at 0x{at:08X}: {size} bytes are not a whole number of {frame}-byte frames ({} channel(s) of {} bits)", f.channels, f.bits),
                ));
            }
            f.data_at = at;
            f.data_len = size;
            return Ok(f);
        }
        if size > left {
            return Err(bad(
                at,
                format!("RIFF chunk {name} at 0x{at:08X}: declares {size} bytes, the file has {left} after its header"),
            ));
        }
        if id == b"fmt " {
            fmt = Some(format_of(&bytes[body..body + size], at)?);
        }
        // a chunk of odd size is followed by a pad byte (RIFF spec); a missing last pad ends the walk
        at = body + size + (size & 1);
    }
    Err(bad(
        bytes.len(),
        format!(
            "at 0x{:08X} (the end of the file): no 'data' chunk{}",
            bytes.len(),
            if fmt.is_none() {
                " and no 'fmt ' chunk"
            } else {
                ""
            }
        ),
    ))
}

/// The `fmt ` chunk's body, checked (the chunk header is at `at`).
fn format_of(body: &[u8], at: usize) -> Result<WavFormat> {
    let here = format!("RIFF chunk 'fmt ' at 0x{at:08X}");
    if body.len() < 16 {
        return Err(bad(
            at,
            format!(
                "{here}: {} bytes, less than the 16 of a PCM format",
                body.len()
            ),
        ));
    }
    let mut tag = u16_at(body, 0);
    if tag == 0xFFFE {
        // WAVE_FORMAT_EXTENSIBLE: cbSize at +16, the sub-format GUID at +24
        if body.len() < 40 {
            return Err(bad(
                at,
                format!(
                    "{here}: an extensible format (tag 0xFFFE) of {} bytes, less than its 40",
                    body.len()
                ),
            ));
        }
        tag = u16_at(body, 24);
    }
    let float = match tag {
        1 => false,
        3 => true,
        t => {
            return Err(bad(
                at + 8,
                format!("{here} +0: format tag 0x{t:04X} is neither PCM (1) nor float (3); compressed WAVs are not read"),
            ))
        }
    };
    let channels = u16_at(body, 2);
    let sample_rate = u32_at(body, 4);
    let bits = u16_at(body, 14);
    if channels == 0 || channels > 2 {
        return Err(bad(
            at + 8 + 2,
            format!("{here} +2: {channels} channels; the game's sounds are mono, and replace takes mono or stereo (mixed down)"),
        ));
    }
    if !(MIN_RATE..=MAX_RATE).contains(&sample_rate) {
        return Err(bad(
            at + 8 + 4,
            format!("{here} +4: sample rate {sample_rate} Hz; the game plays {MIN_RATE} to {MAX_RATE} Hz"),
        ));
    }
    let depth_ok = if float {
        bits == 32
    } else {
        matches!(bits, 8 | 16 | 24 | 32)
    };
    if !depth_ok {
        return Err(bad(
            at + 8 + 14,
            format!(
                "{here} +14: {bits}-bit {} samples; replace converts 8-, 16-, 24- or 32-bit integer and 32-bit float samples",
                if float { "float" } else { "integer" }
            ),
        ));
    }
    Ok(WavFormat {
        float,
        channels,
        sample_rate,
        bits,
        fmt_at: at,
        data_at: 0,
        data_len: 0,
    })
}

/// The samples of a checked WAV's `data` chunk as mono 16-bit: a stereo frame mixed down to
/// the mean of its channels (rounded to nearest, ties away from zero), 8-bit samples
/// (unsigned, offset 128) shifted up (`s · 256`), 24- and 32-bit ones rounded down to 16 bits
/// (`round(s / 2^(bits−16))`), float samples scaled by 32768 and rounded (not finite: 0);
/// every result clamped to −32768…32767. Allocates two bytes per frame, no more.
pub fn mono16(bytes: &[u8], f: &WavFormat) -> Result<Vec<i16>> {
    let data = &bytes[f.data_at + 8..f.data_at + 8 + f.data_len];
    let width = usize::from(f.bits / 8);
    let channels = usize::from(f.channels);
    let frames = data.len() / (width * channels);
    let mut out: Vec<i16> = Vec::new();
    out.try_reserve_exact(frames).map_err(|_| {
        bad(
            f.data_at,
            format!(
                "RIFF chunk 'data' at 0x{:08X}: no memory for its {frames} frames",
                f.data_at
            ),
        )
    })?;
    let sample = |s: &[u8]| -> f64 {
        match (f.float, width) {
            (true, _) => {
                let v = f64::from(f32::from_le_bytes([s[0], s[1], s[2], s[3]])) * 32768.0;
                if v.is_finite() {
                    v
                } else {
                    0.0
                }
            }
            (false, 1) => (f64::from(s[0]) - 128.0) * 256.0,
            (false, 2) => f64::from(i16::from_le_bytes([s[0], s[1]])),
            (false, 3) => f64::from(i32::from_le_bytes([0, s[0], s[1], s[2]]) >> 8) / 256.0,
            _ => f64::from(i32::from_le_bytes([s[0], s[1], s[2], s[3]])) / 65536.0,
        }
    };
    for frame in data.chunks_exact(width * channels) {
        let sum: f64 = frame.chunks_exact(width).map(sample).sum();
        let mean = sum / channels as f64;
        out.push(mean.round().clamp(-32768.0, 32767.0) as i16);
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A canonical 44-byte-header PCM WAV, laid out by hand from the RIFF spec.
    fn wav(tag: u16, channels: u16, rate: u32, bits: u16, data: &[u8]) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend_from_slice(b"RIFF");
        b.extend_from_slice(&(36 + data.len() as u32).to_le_bytes());
        b.extend_from_slice(b"WAVEfmt ");
        b.extend_from_slice(&16u32.to_le_bytes());
        b.extend_from_slice(&tag.to_le_bytes());
        b.extend_from_slice(&channels.to_le_bytes());
        b.extend_from_slice(&rate.to_le_bytes());
        let align = channels * bits.div_ceil(8);
        b.extend_from_slice(&(rate * u32::from(align)).to_le_bytes());
        b.extend_from_slice(&align.to_le_bytes());
        b.extend_from_slice(&bits.to_le_bytes());
        b.extend_from_slice(b"data");
        b.extend_from_slice(&(data.len() as u32).to_le_bytes());
        b.extend_from_slice(data);
        b
    }

    fn err(bytes: &[u8]) -> String {
        check(bytes).unwrap_err().to_string()
    }

    #[test]
    fn refuses_what_the_game_cannot_play_naming_the_value_and_offset() {
        let e = err(&wav(1, 1, 0, 16, &[0, 0]));
        assert!(
            e.contains("'fmt ' at 0x0000000C +4: sample rate 0 Hz"),
            "{e}"
        );
        let e = err(&wav(1, 1, 100_001, 16, &[0, 0]));
        assert!(
            e.contains("sample rate 100001 Hz; the game plays 100 to 100000"),
            "{e}"
        );
        let e = err(&wav(1, 3, 22050, 16, &[0; 6]));
        assert!(e.contains("+2: 3 channels"), "{e}");
        let e = err(&wav(1, 1, 22050, 12, &[0, 0]));
        assert!(e.contains("+14: 12-bit integer samples"), "{e}");
        let e = err(&wav(3, 1, 22050, 64, &[0; 8]));
        assert!(e.contains("64-bit float"), "{e}");
        let e = err(&wav(2, 1, 22050, 4, &[0; 8]));
        assert!(e.contains("format tag 0x0002"), "{e}");
        // the limits themselves are playable
        check(&wav(1, 1, 100, 16, &[0, 0])).unwrap();
        check(&wav(1, 2, 100_000, 8, &[0, 0])).unwrap();
    }

    #[test]
    fn structural_errors_name_the_chunk_and_offset() {
        assert!(err(b"RIFX\0\0\0\0WAVE").contains("at 0x00000000: no RIFF/WAVE header"));
        let mut b = wav(1, 1, 22050, 16, &[1, 0, 2, 0]);
        b[40..44].copy_from_slice(&100u32.to_le_bytes());
        let e = err(&b);
        assert!(
            e.contains("'data' at 0x00000024: declares 100 bytes of samples, the file has 4"),
            "{e}"
        );
        let mut b = wav(1, 1, 22050, 16, &[1, 0, 2, 0]);
        b[16..20].copy_from_slice(&0xFFFF_FFF0u32.to_le_bytes());
        let e = err(&b);
        assert!(
            e.contains("'fmt ' at 0x0000000C: declares 4294967280 bytes"),
            "{e}"
        );
        let b = wav(1, 2, 22050, 16, &[1, 0, 2, 0, 3, 0]);
        let e = err(&b);
        assert!(
            e.contains("6 bytes are not a whole number of 4-byte frames"),
            "{e}"
        );
        let mut b = wav(1, 1, 22050, 16, &[]);
        b.truncate(36);
        assert!(err(&b).contains("at 0x00000024 (the end of the file): no 'data' chunk"));
        // data before fmt
        let mut b = b"RIFF\0\0\0\0WAVEdata\x02\0\0\0\0\0".to_vec();
        b.extend_from_slice(&wav(1, 1, 8000, 16, &[])[12..]);
        assert!(err(&b).contains("'data' at 0x0000000C: no 'fmt ' chunk before it"));
    }

    #[test]
    fn conversion_to_mono_16() {
        // stereo 16-bit: (100 + 301) / 2 = 200.5 -> 201 (ties away from zero); (-3 + -4)/2 = -3.5 -> -4
        let mut d = Vec::new();
        for s in [100i16, 301, -3, -4] {
            d.extend_from_slice(&s.to_le_bytes());
        }
        let b = wav(1, 2, 22050, 16, &d);
        let f = check(&b).unwrap();
        assert_eq!(mono16(&b, &f).unwrap(), vec![201, -4]);
        // 8-bit unsigned: 0 -> -32768, 128 -> 0, 255 -> 32512
        let b = wav(1, 1, 22050, 8, &[0, 128, 255]);
        let f = check(&b).unwrap();
        assert_eq!(mono16(&b, &f).unwrap(), vec![-32768, 0, 32512]);
        // 24-bit 0x123456 -> round(0x123456 / 256) = 0x1234 + round(0x56/256) = 4660
        let b = wav(1, 1, 22050, 24, &[0x56, 0x34, 0x12]);
        let f = check(&b).unwrap();
        assert_eq!(mono16(&b, &f).unwrap(), vec![4660]);
        // float 0.5 -> 16384, 2.0 clamped, NaN -> 0
        let mut d = Vec::new();
        for s in [0.5f32, 2.0, f32::NAN] {
            d.extend_from_slice(&s.to_le_bytes());
        }
        let b = wav(3, 1, 22050, 32, &d);
        let f = check(&b).unwrap();
        assert_eq!(mono16(&b, &f).unwrap(), vec![16384, 32767, 0]);
    }
}
