//! The raw chunk container (docs/formats/argonaut-wad.md §2 and §4): it always round-trips byte for byte.
//!
//! ```text
//! offset | size | meaning
//! -------+------+-------------------------------------------------------------
//!      0 |    4 | u32 header: file_size − 4 in TENG (+ a "bias" in other files);
//!        |      | groove.exe reads it and throws it away
//!      4 |    … | chunks back to back, no padding, no alignment:
//!        |    4 |   tag, ASCII stored back to front ("CPTS" = STPC)
//!        |    4 |   u32 size of the payload (the 8-byte header is NOT counted)
//!        | size |   payload
//!      … |    … | after the `END ` payload: trailing bytes, never read by the game
//! ```
//!
//! # The walk
//! At each chunk the candidate next offset is `payload_start + size`. It is accepted when it is
//! the end of the file or holds a known (or printable) tag. Otherwise, for a chunk the game reads
//! as a stream without looking at its size ([`Tag::is_streamed`], MAP being the known case:
//! Croc 2 PC files sometimes declare 4 bytes more than MAP holds, docs/formats/argonaut-wad.md §2.6), `−4` and then `+4`
//! are tried, and accepted only if a **known** tag (or the end of the file) is there, so a
//! shifted guess never lands on look-alike bytes; the declared size is kept, the payload is the bytes actually taken and a
//! [`Warning`] records the difference. `END ` stops the walk: its payload is its declared size
//! (normally 0) and everything after it is [`RawWad::trailing`]. A file without `END ` is
//! accepted with a warning (groove.exe would reject it). Anything else — a size past the end of
//! the file, garbage where a tag should be — is a [`ReadError`] naming the offset and the chunk.
//!
//! # The header "bias"
//! `bias = header − (file_len − 4)`: 0 for TENG, 0x800 for Croc 2 PS1 retail, +4 for files
//! written by some community tools. [`RawWad::to_bytes`] writes the header verbatim when the
//! total length did not change and otherwise `new_len − 4 + bias`, keeping the relationship.

use levelgeom_binary::{ReadError, Reader, Warning, Writer};

use crate::tags::Tag;

/// The size of a chunk header: the reversed 4-byte tag and the u32 payload size.
pub const CHUNK_HEADER: usize = 8;

/// One chunk as found in the file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawChunk {
    /// The tag bytes as stored.
    pub tag: Tag,
    /// Absolute offset of the chunk's 8-byte header in the file it was read from.
    pub offset: usize,
    /// The size field as stored (may differ from `payload.len()` for streamed chunks).
    pub declared_size: u32,
    /// The bytes actually between this header and the next chunk.
    pub payload: Vec<u8>,
}

impl RawChunk {
    /// Absolute offset of the payload (`offset + 8`, [`CHUNK_HEADER`]).
    pub fn payload_offset(&self) -> usize {
        self.offset.saturating_add(CHUNK_HEADER)
    }
}

/// Where one chunk lies in the file [`Layout::walk`] walked, without its bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ChunkSpan {
    /// The tag bytes as stored.
    pub tag: Tag,
    /// Absolute offset of the chunk's 8-byte header.
    pub offset: usize,
    /// The size field as stored (may differ from the payload's length for streamed chunks).
    pub declared_size: u32,
    /// The bytes actually between this header and the next chunk, as a range of the file.
    pub payload: std::ops::Range<usize>,
}

/// The chunk walk of a WAD (see the module docs) as ranges of the file: what [`RawWad::parse`]
/// copies out, and what a reader that parses the payloads in place needs (no copy).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Layout {
    /// The u32 at offset 0, as stored.
    pub header: u32,
    /// The chunks in file order (including `END ` when present).
    pub chunks: Vec<ChunkSpan>,
    /// The bytes after the `END ` payload (empty at the end of the file when there are none).
    pub trailing: std::ops::Range<usize>,
}

/// A WAD as a list of raw chunks.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RawWad {
    /// The u32 at offset 0, as stored.
    pub header: u32,
    /// The chunks in file order (including `END ` when present).
    pub chunks: Vec<RawChunk>,
    /// Bytes after the `END ` payload.
    pub trailing: Vec<u8>,
    /// The length of the file this was read from (for the header rule on write).
    pub original_len: usize,
}

/// `header − (len − 4)` as a signed number (0 for TENG files).
pub fn header_bias(header: u32, len: usize) -> i64 {
    i64::from(header) - (len as i64 - 4)
}

/// The header to write for a file of `new_len` bytes whose original had `original_len` bytes and
/// header `header`: verbatim if the length is unchanged, else `new_len − 4 + bias` (mod 2³²).
pub fn header_for(header: u32, original_len: usize, new_len: usize) -> u32 {
    if new_len == original_len {
        header
    } else {
        let delta = new_len as i64 - original_len as i64;
        (i64::from(header) + delta) as u32
    }
}

fn tag_at(bytes: &[u8], at: usize) -> Option<Tag> {
    let b = bytes.get(at..at.checked_add(4)?)?;
    Some(Tag([b[0], b[1], b[2], b[3]]))
}

/// True when `next` is a good place for the chunk after the current one to start: the end of
/// the file, or room for a chunk header whose tag is known (or, unless `known_only`, printable).
fn acceptable_next(bytes: &[u8], next: usize, known_only: bool) -> bool {
    if next == bytes.len() {
        return true;
    }
    if next.checked_add(8).is_none_or(|e| e > bytes.len()) {
        return false;
    }
    tag_at(bytes, next).is_some_and(|t| t.is_known() || (!known_only && t.is_printable()))
}

/// Write a WAD file: the u32 header (`header` kept by the bias rule of [`header_for`] against
/// `original_len`), then per chunk its tag, the given size field and payload, then `trailing`.
/// The one place the container framing is written ([`RawWad::to_bytes`] and
/// [`crate::Level::to_bytes`] both use it).
pub fn write_wad<'a>(
    header: u32,
    original_len: usize,
    chunks: impl IntoIterator<Item = (Tag, u32, &'a [u8])> + Clone,
    trailing: &[u8],
) -> Vec<u8> {
    let len = 4
        + chunks
            .clone()
            .into_iter()
            .map(|(_, _, p)| 8 + p.len())
            .sum::<usize>()
        + trailing.len();
    let mut w = Writer::with_capacity(len);
    w.u32(header_for(header, original_len, len));
    for (tag, size, payload) in chunks {
        w.bytes(&tag.0);
        w.u32(size);
        w.bytes(payload);
    }
    w.bytes(trailing);
    w.into_inner()
}

/// Name the chunk (and, where known, the part) that holds absolute offset `at` of a WAD
/// file: `"the file header"`, `"MAP (chunk at 0x00000010)"`, `"WFPC header (chunk at
/// 0x00000004)"`, `"the bytes after END"`; `None` past the end or when the container does
/// not parse. (Used to place a `rebuild --verify` difference.)
pub fn locate(bytes: &[u8], at: usize) -> Option<String> {
    if at < 4 {
        return Some("the file header".to_string());
    }
    let (raw, _) = RawWad::parse(bytes).ok()?;
    if let Some(c) = raw.chunk_at(at) {
        let part = if at < c.payload_offset() {
            " header"
        } else {
            ""
        };
        return Some(format!(
            "{}{part} (chunk at 0x{:08X})",
            c.tag.name().trim_end(),
            c.offset
        ));
    }
    if !raw.trailing.is_empty() && at < bytes.len() {
        return Some("the bytes after END".to_string());
    }
    None
}

impl Layout {
    /// Walk the chunks of `bytes` (see the module docs).
    pub fn walk(bytes: &[u8]) -> Result<(Layout, Vec<Warning>), ReadError> {
        let mut r = Reader::new(bytes);
        let mut warnings = Vec::new();
        let header = r.within("header", None, |r| r.u32())?;
        let mut chunks = Vec::new();
        let mut trailing = bytes.len()..bytes.len();
        let len = bytes.len();
        let mut saw_end = false;
        while !r.is_empty() {
            let p = r.pos();
            if r.remaining() < 8 {
                return Err(r.invalid(format!(
                    "{} bytes left where an 8-byte chunk header should start",
                    r.remaining()
                )));
            }
            let tag = Tag(r.array::<4>()?);
            if !tag.is_known() && !tag.is_printable() {
                return Err(r.invalid_at(
                    p,
                    format!(
                        "no chunk tag here: bytes {:02X} {:02X} {:02X} {:02X}",
                        tag.0[0], tag.0[1], tag.0[2], tag.0[3]
                    ),
                ));
            }
            r.push(tag.path_name(), None);
            let declared_size = r.u32()?;
            let data = r.pos();
            let size = declared_size as usize;
            if tag == Tag::END {
                r.bytes(size).map_err(|_| {
                    r.invalid_at(
                        p + 4,
                        format!(
                            "declared size {declared_size} runs past the end of the file ({} bytes remain)",
                            len - data
                        ),
                    )
                })?;
                let payload = data..r.pos();
                trailing = r.pos()..len;
                r.take_rest();
                if !trailing.is_empty() {
                    warnings.push(r.warning_at(
                        trailing.start,
                        format!("{} bytes after END (kept verbatim)", trailing.len()),
                    ));
                }
                chunks.push(ChunkSpan {
                    tag,
                    offset: p,
                    declared_size,
                    payload,
                });
                saw_end = true;
                break;
            }
            let next = data.checked_add(size);
            let taken = match next {
                Some(n) if acceptable_next(bytes, n, false) => n,
                _ => {
                    let mut found = None;
                    if tag.is_streamed() {
                        for delta in [-4i64, 4] {
                            let cand = data as i64 + size as i64 + delta;
                            if cand >= data as i64 && acceptable_next(bytes, cand as usize, true) {
                                found = Some(cand as usize);
                                break;
                            }
                        }
                    }
                    match found {
                        Some(n) => {
                            warnings.push(r.warning_at(
                                p + 4,
                                format!(
                                    "declared size {declared_size} but the next chunk starts after {} bytes (size off by {:+}); kept as declared",
                                    n - data,
                                    size as i64 - (n - data) as i64
                                ),
                            ));
                            n
                        }
                        None => {
                            let msg = match next {
                                Some(n) if n < len && len - n < 8 => format!(
                                    "declared size {declared_size} leads to 0x{n:08X}, where only {} bytes remain for the next chunk header",
                                    len - n
                                ),
                                Some(n) if n <= len => format!(
                                    "declared size {declared_size} leads to 0x{n:08X}, where no chunk tag is"
                                ),
                                _ => format!(
                                    "declared size {declared_size} runs past the end of the file ({} bytes remain)",
                                    len - data
                                ),
                            };
                            return Err(r.invalid_at(p + 4, msg));
                        }
                    }
                }
            };
            r.bytes(taken - data)?;
            r.pop();
            chunks.push(ChunkSpan {
                tag,
                offset: p,
                declared_size,
                payload: data..taken,
            });
        }
        if !saw_end {
            warnings.push(r.warning_at(
                len,
                "no END chunk: the file ends without a terminator (groove.exe would reject it)",
            ));
        }
        Ok((
            Layout {
                header,
                chunks,
                trailing,
            },
            warnings,
        ))
    }
}

impl RawWad {
    /// Walk the chunks of `bytes` (see the module docs, [`Layout::walk`]) and copy them out.
    pub fn parse(bytes: &[u8]) -> Result<(RawWad, Vec<Warning>), ReadError> {
        let (layout, warnings) = Layout::walk(bytes)?;
        let chunks = layout
            .chunks
            .into_iter()
            .map(|c| RawChunk {
                tag: c.tag,
                offset: c.offset,
                declared_size: c.declared_size,
                payload: bytes[c.payload].to_vec(),
            })
            .collect();
        Ok((
            RawWad {
                header: layout.header,
                chunks,
                trailing: bytes[layout.trailing].to_vec(),
                original_len: bytes.len(),
            },
            warnings,
        ))
    }

    /// `header − (original_len − 4)`.
    pub fn bias(&self) -> i64 {
        header_bias(self.header, self.original_len)
    }

    /// The total length [`Self::to_bytes`] will produce.
    pub fn encoded_len(&self) -> usize {
        4 + self
            .chunks
            .iter()
            .map(|c| 8 + c.payload.len())
            .sum::<usize>()
            + self.trailing.len()
    }

    /// Write the file: header per the bias rule, each chunk's tag, declared size and payload
    /// verbatim, then the trailing bytes.
    pub fn to_bytes(&self) -> Vec<u8> {
        write_wad(
            self.header,
            self.original_len,
            self.chunks
                .iter()
                .map(|c| (c.tag, c.declared_size, c.payload.as_slice())),
            &self.trailing,
        )
    }

    /// The chunk whose header or payload holds absolute offset `at`.
    pub fn chunk_at(&self, at: usize) -> Option<&RawChunk> {
        self.chunks
            .iter()
            .find(|c| at >= c.offset && at < c.payload_offset().saturating_add(c.payload.len()))
    }
}

#[cfg(test)]
mod tests {
    use super::locate;

    #[test]
    fn locate_names_the_chunk_holding_an_offset() {
        // header 0x1C, WFPC (12 bytes at 4), MAP with 4 payload bytes (at 16), END (at 28)
        let mut b = vec![0x1C, 0, 0, 0];
        b.extend_from_slice(b"CPFW\x04\0\0\0\0\0\0\0");
        b.extend_from_slice(b" PAM\x04\0\0\0\x01\x02\x03\x04");
        b.extend_from_slice(b" DNE\0\0\0\0");
        b.push(0xEE); // one byte after END
        assert_eq!(locate(&b, 2).as_deref(), Some("the file header"));
        assert_eq!(
            locate(&b, 9).as_deref(),
            Some("WFPC header (chunk at 0x00000004)")
        );
        assert_eq!(locate(&b, 25).as_deref(), Some("MAP (chunk at 0x00000010)"));
        assert_eq!(
            locate(&b, 28).as_deref(),
            Some("END header (chunk at 0x0000001C)")
        );
        assert_eq!(locate(&b, 36).as_deref(), Some("the bytes after END"));
        assert_eq!(locate(&b, 37), None);
    }
}
