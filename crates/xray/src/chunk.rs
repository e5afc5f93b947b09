//! The chunk container shared by every X-Ray file (`level`, `level.geom(x)`, OGF visuals).
//!
//! | offset | size | meaning |
//! |---|---|---|
//! | 0 | 4 | `raw_id`: chunk id in bits 0..31, bit 31 (`0x8000_0000`) = payload is LZHUF-compressed |
//! | 4 | 4 | `size`: payload bytes as stored (the compressed size when compressed) |
//! | 8 | size | payload; a compressed payload is `u32 uncompressed size` + LZHUF bits ([`crate::lzhuf`]) |
//!
//! Chunks follow each other without padding until the end of their parent; nested chunks use
//! the same header. A chunk is modelled as a [`Framed`] value: the typed payload plus how it was
//! stored (the raw id, and for a compressed chunk its original stored bytes, so an unchanged
//! chunk is written back byte for byte even though our encoder need not match the engine's).

use levelgeom_binary::{ReadError, Reader, Writer};

use crate::lzhuf;

/// Bit 31 of a chunk id: the payload is LZHUF-compressed (`CFS_CompressMark`).
pub const COMPRESSED: u32 = 0x8000_0000;

/// A chunk header as read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Head {
    /// The id word as stored (flag included).
    pub raw_id: u32,
    /// Absolute offset of the header.
    pub at: usize,
    /// Payload size as stored.
    pub size: u32,
}

impl Head {
    /// The id without the compression flag.
    pub fn id(&self) -> u32 {
        self.raw_id & !COMPRESSED
    }

    /// True when the payload is compressed.
    pub fn compressed(&self) -> bool {
        self.raw_id & COMPRESSED != 0
    }
}

/// A typed chunk payload plus how it was stored.
#[derive(Clone, Debug, PartialEq)]
pub struct Framed<T> {
    /// The id word (compression flag included).
    pub raw_id: u32,
    /// For a compressed chunk: the payload bytes as stored (size prefix + LZHUF stream).
    /// Written back unchanged while the typed value still serialises to what they decode to.
    pub stored: Option<Vec<u8>>,
    /// The decoded payload.
    pub value: T,
}

impl<T> Framed<T> {
    /// An uncompressed chunk.
    pub fn plain(id: u32, value: T) -> Self {
        Framed {
            raw_id: id,
            stored: None,
            value,
        }
    }

    /// The id without the compression flag.
    pub fn id(&self) -> u32 {
        self.raw_id & !COMPRESSED
    }
}

/// A chunk whose payload is not interpreted (kept verbatim, decompressed if it was compressed).
pub type RawChunk = Framed<Vec<u8>>;

/// Read the next chunk header; the reader must hold at least 8 bytes.
pub fn read_head(r: &mut Reader<'_>) -> Result<Head, ReadError> {
    let at = r.pos();
    let raw_id = r.u32()?;
    let size = r.u32()?;
    if size as usize > r.remaining() {
        return Err(r.invalid_at(
            at,
            format!(
                "chunk {} claims {size} bytes but only {} remain in its parent",
                raw_id & !COMPRESSED,
                r.remaining()
            ),
        ));
    }
    Ok(Head { raw_id, at, size })
}

/// How a chunk appears in error paths: a name and an optional index, from its id.
pub type Namer = fn(u32) -> (&'static str, Option<usize>);

/// Path segment `chunk[id]`.
pub fn by_id(id: u32) -> (&'static str, Option<usize>) {
    ("chunk", Some(id as usize))
}

/// Read every chunk until the end of `r`, handing each payload to `f` (inside the path segment
/// that `name` gives for its id). Compressed payloads are decompressed first; errors
/// inside them carry offsets within the decompressed bytes and a `lzhuf` path segment.
pub fn read_all<T>(
    r: &mut Reader<'_>,
    name: Namer,
    mut f: impl FnMut(Head, &mut Reader<'_>) -> Result<T, ReadError>,
) -> Result<Vec<Framed<T>>, ReadError> {
    let mut out = Vec::new();
    while !r.is_empty() {
        if r.remaining() < 8 {
            return Err(r.invalid(format!(
                "{} stray bytes where a chunk header (8 bytes) should start",
                r.remaining()
            )));
        }
        let id = r.peek_array::<4>().map_or(0, u32::from_le_bytes) & !COMPRESSED;
        let (n, i) = name(id);
        r.push(n, i);
        let head = read_head(r)?;
        let mut body = r.sub(head.size as usize)?;
        let framed = read_body(head, &mut body, &mut f)?;
        r.pop();
        out.push(framed);
    }
    Ok(out)
}

/// Decode one chunk body (already bounded to its payload).
pub fn read_body<T>(
    head: Head,
    body: &mut Reader<'_>,
    f: &mut impl FnMut(Head, &mut Reader<'_>) -> Result<T, ReadError>,
) -> Result<Framed<T>, ReadError> {
    if head.compressed() {
        let stored = body.take_rest().to_vec();
        let plain = lzhuf::decompress(&stored)
            .map_err(|e| body.invalid_at(head.at + 8, format!("LZHUF: {e}")))?;
        let mut inner = Reader::new(&plain);
        for seg in body.path().0 {
            inner.push(seg.name, seg.index);
        }
        inner.push("lzhuf", None);
        let value = f(head, &mut inner)?;
        Ok(Framed {
            raw_id: head.raw_id,
            stored: Some(stored),
            value,
        })
    } else {
        let value = f(head, body)?;
        Ok(Framed {
            raw_id: head.raw_id,
            stored: None,
            value,
        })
    }
}

/// Write one chunk: header, then `payload` (compressed if the id says so; the original stored
/// bytes are reused when they still decode to `payload`).
pub fn write(w: &mut Writer, raw_id: u32, stored: Option<&[u8]>, payload: &[u8]) {
    w.u32(raw_id);
    if raw_id & COMPRESSED == 0 {
        w.u32(payload.len() as u32);
        w.bytes(payload);
        return;
    }
    let reuse = stored.filter(|s| lzhuf::decompress(s).is_ok_and(|p| p == payload));
    match reuse {
        Some(s) => {
            w.u32(s.len() as u32);
            w.bytes(s);
        }
        None => {
            let c = lzhuf::compress(payload);
            w.u32(c.len() as u32);
            w.bytes(&c);
        }
    }
}

/// Write a [`Framed`] value whose payload `body` serialises.
pub fn write_framed<T>(w: &mut Writer, c: &Framed<T>, body: impl FnOnce(&T, &mut Writer)) {
    let mut inner = Writer::new();
    body(&c.value, &mut inner);
    write(w, c.raw_id, c.stored.as_deref(), inner.as_slice());
}

/// Read a file (or payload) as a tree of raw chunks, for `info` on unknown chunk files.
pub fn read_raw(r: &mut Reader<'_>) -> Result<Vec<RawChunk>, ReadError> {
    read_all(r, by_id, |_, b| Ok(b.take_rest().to_vec()))
}

/// Write raw chunks back.
pub fn write_raw(w: &mut Writer, chunks: &[RawChunk]) {
    for c in chunks {
        write_framed(w, c, |v, w| w.bytes(v));
    }
}

/// True when `bytes` split exactly into a sequence of chunk headers and payloads.
pub fn tiles(bytes: &[u8]) -> bool {
    let mut pos = 0usize;
    while pos < bytes.len() {
        let Some(h) = bytes.get(pos..pos.saturating_add(8)) else {
            return false;
        };
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        match pos.checked_add(8).and_then(|p| p.checked_add(size)) {
            Some(next) if next <= bytes.len() => pos = next,
            _ => return false,
        }
    }
    !bytes.is_empty()
}

/// The ids of the top-level chunk headers of `bytes` (including a last one whose payload does
/// not fit), and whether the chunks tile the bytes exactly.
pub fn scan_ids(bytes: &[u8]) -> (Vec<u32>, bool) {
    let mut ids = Vec::new();
    let mut pos = 0usize;
    while let Some(h) = bytes.get(pos..pos.saturating_add(8)) {
        ids.push(u32::from_le_bytes([h[0], h[1], h[2], h[3]]) & !COMPRESSED);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        match pos.checked_add(8).and_then(|p| p.checked_add(size)) {
            Some(next) if next <= bytes.len() => pos = next,
            _ => return (ids, false),
        }
    }
    let ok = pos == bytes.len() && !bytes.is_empty();
    (ids, ok)
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    #[test]
    fn raw_chunks_round_trip_and_compressed_ones_keep_their_bytes() {
        let payload = b"hello hello hello hello".to_vec();
        let mut stored = lzhuf::compress(&payload);
        let mut w = Writer::new();
        w.u32(7);
        w.u32(3);
        w.bytes(&[1, 2, 3]);
        w.u32(9 | COMPRESSED);
        w.u32(stored.len() as u32);
        w.bytes(&stored);
        let file = w.into_inner();
        let chunks = read_raw(&mut Reader::new(&file)).unwrap();
        assert_eq!(chunks.len(), 2);
        assert_eq!(chunks[0].value, vec![1, 2, 3]);
        assert_eq!(chunks[1].id(), 9);
        assert_eq!(chunks[1].value, payload);
        let mut w = Writer::new();
        write_raw(&mut w, &chunks);
        assert_eq!(w.into_inner(), file);
        // a changed payload is re-compressed and still decodes
        let mut changed = chunks.clone();
        changed[1].value.push(b'!');
        let mut w = Writer::new();
        write_raw(&mut w, &changed);
        let again = read_raw(&mut Reader::new(w.as_slice())).unwrap();
        assert_eq!(again[1].value, b"hello hello hello hello!");
        stored.clear();
    }

    #[test]
    fn oversized_chunk_is_an_error_with_offset() {
        let file = [
            1, 0, 0, 0, 4, 0, 0, 0, 14, 0, 0, 0, 2, 0, 0, 0, 50, 0, 0, 0, 1,
        ];
        let e = read_raw(&mut Reader::new(&file)).unwrap_err();
        assert_eq!(e.offset, 12);
        assert!(e.to_string().contains("chunk 2 claims 50 bytes"), "{e}");
        assert!(!tiles(&file));
        assert_eq!(scan_ids(&file), (vec![1, 2], false));
        assert_eq!(scan_ids(&file[..12]), (vec![1], true));
    }
}
