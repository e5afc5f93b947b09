//! The GLB container (glTF 2.0 §4.4 "Binary glTF Layout").
//!
//! All numbers are little-endian u32.
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 4 | magic `glTF` (0x46546C67) |
//! | 4 | 4 | version, 2 |
//! | 8 | 4 | total file length in bytes |
//! | 12 | 4 | JSON chunk length *J* (multiple of 4) |
//! | 16 | 4 | chunk type `JSON` (0x4E4F534A) |
//! | 20 | *J* | UTF-8 JSON, padded with spaces (0x20) |
//! | 20+*J* | 4 | BIN chunk length *B* (multiple of 4) — BIN chunk only when there is a buffer |
//! | 24+*J* | 4 | chunk type `BIN\0` (0x004E4942) |
//! | 28+*J* | *B* | buffer 0, padded with zeros |

use crate::ExportError;

/// `glTF` as a little-endian u32.
pub(crate) const MAGIC: u32 = 0x4654_6C67;
/// Chunk type of the JSON chunk.
pub(crate) const CHUNK_JSON: u32 = 0x4E4F_534A;
/// Chunk type of the BIN chunk.
pub(crate) const CHUNK_BIN: u32 = 0x004E_4942;

/// Write the GLB header, the JSON chunk — `json_len` bytes of JSON written by `json`, padded
/// with spaces — and, when `bin_len` > 0, the BIN chunk's header; the caller then writes the
/// `bin_len` bytes of the buffer (already padded to a multiple of 4). `json` writing another
/// number of bytes than `json_len` is an error (the header would lie).
pub(crate) fn write_head(
    out: &mut dyn std::io::Write,
    json_len: usize,
    bin_len: usize,
    json: impl FnOnce(&mut dyn std::io::Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let too_large = || {
        std::io::Error::other(ExportError::TooLarge {
            what: "GLB file".to_string(),
        })
    };
    let pad = (4 - json_len % 4) % 4;
    let padded = json_len + pad;
    let mut total = 12usize + 8 + padded;
    if bin_len > 0 {
        total = total
            .checked_add(8)
            .and_then(|t| t.checked_add(bin_len))
            .ok_or_else(too_large)?;
    }
    let total32 = u32::try_from(total).map_err(|_| too_large())?;
    let json32 = u32::try_from(padded).map_err(|_| too_large())?;
    let bin32 = u32::try_from(bin_len).map_err(|_| too_large())?;
    let mut head = Vec::with_capacity(20);
    head.extend_from_slice(&MAGIC.to_le_bytes());
    head.extend_from_slice(&2u32.to_le_bytes());
    head.extend_from_slice(&total32.to_le_bytes());
    head.extend_from_slice(&json32.to_le_bytes());
    head.extend_from_slice(&CHUNK_JSON.to_le_bytes());
    out.write_all(&head)?;
    let mut counted = Counted { out, n: 0 };
    json(&mut counted)?;
    if counted.n != json_len {
        return Err(std::io::Error::other(format!(
            "the glTF JSON came out {} bytes long, not the {json_len} announced",
            counted.n
        )));
    }
    let mut tail = vec![b' '; pad];
    if bin_len > 0 {
        tail.extend_from_slice(&bin32.to_le_bytes());
        tail.extend_from_slice(&CHUNK_BIN.to_le_bytes());
    }
    out.write_all(&tail)
}

/// A writer passing everything on to `out`, counting the bytes.
pub(crate) struct Counted<'w> {
    pub out: &'w mut dyn std::io::Write,
    pub n: usize,
}

impl std::io::Write for Counted<'_> {
    fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
        let n = self.out.write(buf)?;
        self.n += n;
        Ok(n)
    }

    fn flush(&mut self) -> std::io::Result<()> {
        self.out.flush()
    }
}

/// Assemble a GLB in memory from the JSON text and the binary buffer (padded with zeros here).
#[cfg(test)]
fn assemble(json: &[u8], bin: &[u8]) -> Result<Vec<u8>, ExportError> {
    let mut out = Vec::new();
    let bin_len = bin.len() + (4 - bin.len() % 4) % 4;
    write_head(&mut out, json.len(), bin_len, |w| w.write_all(json)).map_err(|_| {
        ExportError::TooLarge {
            what: "GLB file".to_string(),
        }
    })?;
    out.extend_from_slice(bin);
    out.resize(out.len() + bin_len - bin.len(), 0);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn chunks_are_padded_and_lengths_add_up() {
        let out = assemble(b"{}", &[1, 2, 3, 4, 5]).unwrap_or_default();
        // 12 header + 8 + 4 (2 JSON + 2 spaces) + 8 + 8 (5 BIN + 3 zeros) = 40
        #[rustfmt::skip]
        let expected: Vec<u8> = [
            &b"glTF"[..], &[2, 0, 0, 0], &[40, 0, 0, 0],
            &[4, 0, 0, 0], b"JSON", b"{}  ",
            &[8, 0, 0, 0], b"BIN\0", &[1, 2, 3, 4, 5, 0, 0, 0],
        ]
        .concat();
        assert_eq!(out, expected);
    }

    #[test]
    fn no_bin_chunk_without_buffer() {
        let out = assemble(b"{\"a\":1}", &[]).unwrap_or_default();
        assert_eq!(out.len(), 12 + 8 + 8);
        assert_eq!(&out[8..12], &[28, 0, 0, 0]);
        assert_eq!(&out[20..28], b"{\"a\":1} ");
    }
}
