//! `SRPC`: speech references into `Music/ENGLISH.CVS` (ENG `SRPC_CPRS_REVERSE.md`, docs/formats/argonaut-wad.md §5).
//!
//! ```text
//! offset | size  | meaning
//!      0 |     4 | u32 n
//!      4 | 16·n  | records:
//!        |       |   +0  u32 id
//!        |       |   +4  u16 rate (× 44100 / 4096 → Hz)
//!        |       |   +6  u16 (0 in the samples, kept)
//!        |       |   +8  u32 offset into ENGLISH.CVS
//!        |       |   +12 u32 size in ENGLISH.CVS (loaded rounded up to 0x800)
//! ```

use levelgeom_binary::{fit, ReadError, Reader, WriteError, Writer};

/// One 16-byte speech reference.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct SpeechRef {
    /// +0: identifier.
    pub id: u32,
    /// +4: sample rate code (Hz = rate × 44100 / 4096).
    pub rate: u16,
    /// +6: unknown, 0 in the samples.
    pub unknown_06: u16,
    /// +8: byte offset in `ENGLISH.CVS`.
    pub cvs_offset: u32,
    /// +12: byte size in `ENGLISH.CVS`.
    pub cvs_size: u32,
}

impl SpeechRef {
    /// The sample rate in Hz (`rate × 44100 / 4096`).
    pub fn sample_rate_hz(&self) -> f64 {
        f64::from(self.rate) * 44100.0 / 4096.0
    }
}

/// The size of one record.
pub const RECORD: usize = 16;

/// The SRPC chunk.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Srpc {
    /// The records in file order.
    pub refs: Vec<SpeechRef>,
}

impl Srpc {
    /// Read the payload.
    pub fn read(r: &mut Reader<'_>) -> Result<Srpc, ReadError> {
        let n = r.u32_count(RECORD)?;
        let mut refs = Vec::with_capacity(n);
        for i in 0..n {
            refs.push(r.within("refs", Some(i), |r| {
                Ok(SpeechRef {
                    id: r.u32()?,
                    rate: r.u16()?,
                    unknown_06: r.u16()?,
                    cvs_offset: r.u32()?,
                    cvs_size: r.u32()?,
                })
            })?);
        }
        Ok(Srpc { refs })
    }

    /// Where record `i` starts, counted from the payload's first byte (after the u32 count).
    pub fn record_offset(i: usize) -> usize {
        4 + RECORD * i
    }

    /// Write the payload.
    pub fn write(&self, w: &mut Writer) -> Result<(), WriteError> {
        w.u32(fit(self.refs.len(), || "SRPC/reference count".into())?);
        for s in &self.refs {
            w.u32(s.id);
            w.u16(s.rate);
            w.u16(s.unknown_06);
            w.u32(s.cvs_offset);
            w.u32(s.cvs_size);
        }
        Ok(())
    }
}
