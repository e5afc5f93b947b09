//! `SMPC`: sound samples as PC `cvg ` entries (ENG `smpc_chunk.py`; hdc0 `cvg2wav.py`, docs/formats/argonaut-wad.md §5/§7).
//!
//! ```text
//! offset | size      | meaning
//!      0 |         4 | u32 n
//!        |           | n entries:
//!        |         4 |   type, the bytes "cvg " (63 76 67 20; NOT reversed like chunk tags)
//!        |         4 |   u32 data_size
//!        | data_size |   data: a 20-byte PC CVG header, then PSX ADPCM
//!        |           |     +0  u32 sample_rate
//!        |           |     +4  u16, +6 u16   (unknown)
//!        |           |     +8  u32 channels?
//!        |           |     +12 u16, +14 u16  (unknown)
//!        |           |     +16 u32 audio_bytes (= data_size − 20)
//!        |           |     +20 ADPCM (16-byte blocks, 28 samples each)
//! ```
//!
//! An entry whose data is shorter than 20 bytes keeps its data without a parsed header. The
//! type bytes are kept whatever they are.

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

/// The type bytes of a PC sound entry.
pub const CVG: [u8; 4] = *b"cvg ";

/// The 20-byte PC CVG header.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CvgHeader {
    /// +0: sample rate in Hz.
    pub sample_rate: u32,
    /// +4: unknown.
    pub unknown_04: u16,
    /// +6: unknown.
    pub unknown_06: u16,
    /// +8: channel count (probably).
    pub channels: u32,
    /// +12: unknown.
    pub unknown_0c: u16,
    /// +14: unknown.
    pub unknown_0e: u16,
    /// +16: ADPCM byte count (`data_size − 20` in the samples; kept as stored).
    pub audio_bytes: u32,
}

/// One sound entry.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Sound {
    /// The type bytes (`"cvg "`).
    pub kind: [u8; 4],
    /// The CVG header, when the data has at least 20 bytes.
    pub header: Option<CvgHeader>,
    /// The bytes after the header (PSX ADPCM), or all data when there is no header.
    pub adpcm: Vec<u8>,
}

/// The size of an entry's head: the type bytes and the u32 `data_size`.
pub const ENTRY_HEAD: usize = 8;

/// The size of the PC CVG header at the start of an entry's data.
pub const CVG_HEADER: usize = 20;

impl Sound {
    /// The `data_size` field this entry writes.
    pub fn data_size(&self) -> usize {
        self.adpcm.len() + self.adpcm_offset() - ENTRY_HEAD
    }

    /// Where the ADPCM starts, counted from the entry's first byte (its type bytes): after the
    /// head and, when there is one, the CVG header.
    pub fn adpcm_offset(&self) -> usize {
        ENTRY_HEAD + if self.header.is_some() { CVG_HEADER } else { 0 }
    }
}

/// The SMPC chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Smpc {
    /// The entries in file order.
    pub sounds: Vec<Sound>,
}

impl Smpc {
    /// Read the payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Smpc, ReadError> {
        let n = r.u32_count(8)?;
        let mut sounds = Vec::with_capacity(n);
        for i in 0..n {
            sounds.push(r.within("sounds", Some(i), |r| {
                let kind = r.array::<4>()?;
                let size_at = r.pos();
                let size = r.u32()?;
                let size = r.count(size, 1).map_err(|mut e| {
                    e.offset = size_at as u64;
                    e
                })?;
                let mut d = r.sub(size)?;
                let header = if size >= CVG_HEADER {
                    Some(CvgHeader {
                        sample_rate: d.u32()?,
                        unknown_04: d.u16()?,
                        unknown_06: d.u16()?,
                        channels: d.u32()?,
                        unknown_0c: d.u16()?,
                        unknown_0e: d.u16()?,
                        audio_bytes: d.u32()?,
                    })
                } else {
                    None
                };
                Ok(Sound {
                    kind,
                    header,
                    adpcm: d.take_rest().to_vec(),
                })
            })?);
        }
        Ok(Smpc { sounds })
    }

    /// Where each entry starts, counted from the payload's first byte (the layout above: the
    /// u32 count, then the entries back to back).
    pub fn entry_offsets(&self) -> Vec<usize> {
        let mut at = 4;
        self.sounds
            .iter()
            .map(|s| {
                let here = at;
                at += ENTRY_HEAD + s.data_size();
                here
            })
            .collect()
    }

    /// Write the payload (`data_size` from the header and ADPCM lengths).
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(fit(self.sounds.len(), || "SMPC/sound count".into())?);
        for (i, s) in self.sounds.iter().enumerate() {
            w.bytes(&s.kind);
            w.u32(fit(s.data_size(), || {
                format!("SMPC/sounds[{i}]/data size")
            })?);
            if let Some(h) = &s.header {
                w.u32(h.sample_rate);
                w.u16(h.unknown_04);
                w.u16(h.unknown_06);
                w.u32(h.channels);
                w.u16(h.unknown_0c);
                w.u16(h.unknown_0e);
                w.u32(h.audio_bytes);
            }
            w.bytes(&s.adpcm);
        }
        Ok(())
    }
}
