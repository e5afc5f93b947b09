//! PNG encoding of decoded texture pixels.
//!
//! Textures in the scene are RGBA8, row-major from the top-left, which is exactly PNG's
//! colour type 6 at bit depth 8. The bytes are those of the `png` crate's encoder with
//! adaptive filtering and zlib level 1 (see `DEFLATE_LEVEL`; output is deterministic for equal
//! input), made here with its filter choice and the same zlib stream: the crate hands zlib
//! every row in two writes, and its zlib writer (flate2 on miniz_oxide) clears its 32 KiB
//! output buffer on every write, which for the full-size WAD's 30 pages was about 8 % of the
//! export's CPU time. Here the filtered rows go to zlib in pieces of [`ZLIB_PIECE`] bytes;
//! the deflate stream does not depend on how its input is cut (miniz_oxide waits for a full
//! lookahead before it matches), and the tests compare the bytes with the crate's encoder.

use std::io::Write;

use flate2::write::ZlibEncoder;

use crate::ExportError;

/// The zlib level of the pages' deflate stream. Level 1 (greedy matching) deflates the
/// full-size WAD's 30 pages about four times faster than the default 6, at twice the size
/// (159 KB instead of 78 KB in all, against 12.6 MB of export); the `png` crate's `Fast`
/// (fdeflate) made them 16 times larger.
const DEFLATE_LEVEL: u8 = 1;

/// Filtered rows are handed to zlib in pieces of at least this many bytes.
const ZLIB_PIECE: usize = 64 << 10;

/// Encode `width × height` RGBA8 pixels (`width * height * 4` bytes, top row first) as PNG.
///
/// # Errors
/// [`ExportError::Texture`] (with an empty name) when a dimension is zero or the buffer length
/// does not match; [`ExportError::Png`] when the encoder fails.
pub fn encode_rgba8(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>, ExportError> {
    check_rgba8(width, height, pixels.len())?;
    let png_err = |e: ::png::EncodingError| ExportError::Png(e.to_string());
    let idat =
        zlib_rows(width as usize * 4, pixels).map_err(|e| ExportError::Png(e.to_string()))?;
    let mut out = Vec::with_capacity(idat.len() + 64);
    {
        let mut enc = ::png::Encoder::new(&mut out, width, height);
        enc.set_color(::png::ColorType::Rgba);
        enc.set_depth(::png::BitDepth::Eight);
        let mut writer = enc.write_header().map_err(png_err)?;
        // the crate's IDAT split: chunks of at most 2^31 − 1 bytes (png 0.18.1
        // src/encoder.rs:887 `write_zlib_encoded_idat`)
        for part in idat.chunks((u32::MAX >> 1) as usize) {
            writer
                .write_chunk(::png::chunk::IDAT, part)
                .map_err(png_err)?;
        }
        writer.finish().map_err(png_err)?;
    }
    Ok(out)
}

thread_local! {
    /// Each encoding thread's zlib writer, reset after every image: its compressor's match
    /// tables (about 300 KB, fresh pages each time they are allocated) are made once per
    /// thread instead of once per image.
    static ZLIB: std::cell::RefCell<Option<ZlibEncoder<Vec<u8>>>> =
        const { std::cell::RefCell::new(None) };
}

/// The zlib stream of the image data: each row (`row` bytes) as its filter type byte and the
/// row filtered by [`filter_row`], the previous row of the first being zeros.
fn zlib_rows(row: usize, pixels: &[u8]) -> std::io::Result<Vec<u8>> {
    let level = flate2::Compression::new(u32::from(DEFLATE_LEVEL));
    // a writer left by an earlier image was reset; an error on the way drops it
    let mut z = ZLIB
        .with(|z| z.borrow_mut().take())
        .unwrap_or_else(|| ZlibEncoder::new(Vec::new(), level));
    let mut piece = Vec::with_capacity(ZLIB_PIECE + row + 1);
    let zeros = vec![0u8; row];
    let mut prev: &[u8] = &zeros;
    let mut best = vec![0u8; row];
    let mut scratch = vec![0u8; row];
    for line in pixels.chunks_exact(row) {
        let kind = filter_row(prev, line, &mut best, &mut scratch);
        piece.push(kind as u8);
        piece.extend_from_slice(&best);
        if piece.len() >= ZLIB_PIECE {
            z.write_all(&piece)?;
            piece.clear();
        }
        prev = line;
    }
    z.write_all(&piece)?;
    let out = z.reset(Vec::new())?;
    ZLIB.with(|cell| *cell.borrow_mut() = Some(z));
    Ok(out)
}

/// PNG filter types (PNG specification, W3C 2003, section 9.2 "Filter types for filter method 0").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum RowFilter {
    Sub = 1,
    Up = 2,
    Avg = 3,
    Paeth = 4,
}

/// Bytes per pixel of RGBA8: the distance to the "left" byte of the filters.
const BPP: usize = 4;

/// Filter `cur` (the row above: `prev`) into `best` the way the `png` crate's adaptive
/// filter does (png 0.18.1 src/filter/mod.rs:500 `adaptive_filter`, :608 `sum_buffer`): try
/// Up, Sub, Avg, Paeth in that order, cost = the sum of the filtered bytes read as `i8`
/// magnitudes, keep the last one of least cost (`<=`), and stop at the first of cost 0.
/// `scratch` is a buffer of the row's length.
fn filter_row(prev: &[u8], cur: &[u8], best: &mut Vec<u8>, scratch: &mut Vec<u8>) -> RowFilter {
    let mut min = u64::MAX;
    let mut choice = RowFilter::Up;
    for kind in [
        RowFilter::Up,
        RowFilter::Sub,
        RowFilter::Avg,
        RowFilter::Paeth,
    ] {
        let cost = apply(kind, prev, cur, scratch);
        if cost <= min {
            min = cost;
            choice = kind;
            std::mem::swap(best, scratch);
            if cost == 0 {
                break;
            }
        }
    }
    choice
}

/// Filter `cur` with `kind` into `out` (PNG specification section 9.2; bytes left of the row are 0)
/// and return its cost (see [`filter_row`]). Written as straight loops over zipped slices so
/// that they vectorise.
fn apply(kind: RowFilter, prev: &[u8], cur: &[u8], out: &mut [u8]) -> u64 {
    let n = cur.len();
    let head = BPP.min(n);
    // the bytes with a left neighbour, and those neighbours (in this row and the row above)
    let (out_head, out_rest) = out.split_at_mut(head);
    let rest = cur.get(head..).unwrap_or_default();
    let left = cur.get(..n - head).unwrap_or_default();
    let above = prev.get(head..).unwrap_or_default();
    let upleft = prev.get(..n - head).unwrap_or_default();
    match kind {
        RowFilter::Up => {
            for ((o, &c), &b) in out.iter_mut().zip(cur).zip(prev) {
                *o = c.wrapping_sub(b);
            }
        }
        RowFilter::Sub => {
            out_head.copy_from_slice(&cur[..head]);
            for ((o, &c), &a) in out_rest.iter_mut().zip(rest).zip(left) {
                *o = c.wrapping_sub(a);
            }
        }
        RowFilter::Avg => {
            for ((o, &c), &b) in out_head.iter_mut().zip(cur).zip(prev) {
                *o = c.wrapping_sub(b / 2);
            }
            for (((o, &c), &a), &b) in out_rest.iter_mut().zip(rest).zip(left).zip(above) {
                // floor((a + b) / 2) without widening
                *o = c.wrapping_sub((a & b) + ((a ^ b) >> 1));
            }
        }
        RowFilter::Paeth => {
            for ((o, &c), &b) in out_head.iter_mut().zip(cur).zip(prev) {
                *o = c.wrapping_sub(paeth(0, b, 0));
            }
            for ((((o, &x), &a), &b), &c) in out_rest
                .iter_mut()
                .zip(rest)
                .zip(left)
                .zip(above)
                .zip(upleft)
            {
                *o = x.wrapping_sub(paeth(a, b, c));
            }
        }
    }
    cost(out)
}

/// The `png` crate's `sum_buffer`: the filtered bytes read as `i8`, magnitudes summed.
fn cost(row: &[u8]) -> u64 {
    let mut chunks = row.chunks_exact(32);
    let mut sum = 0u64;
    for chunk in &mut chunks {
        let acc: u32 = chunk
            .iter()
            .map(|&b| u32::from((b as i8).unsigned_abs()))
            .sum();
        sum += u64::from(acc);
    }
    sum + chunks
        .remainder()
        .iter()
        .map(|&b| u64::from((b as i8).unsigned_abs()))
        .sum::<u64>()
}

/// The Paeth predictor of left `a`, above `b`, upper left `c` (PNG specification section 9.4): of
/// `a`, `b`, `c` the nearest to `a + b − c`, ties going to `a`, then `b`.
#[inline]
fn paeth(a: u8, b: u8, c: u8) -> u8 {
    let (a16, b16, c16) = (i16::from(a), i16::from(b), i16::from(c));
    let pa = (b16 - c16).abs();
    let pb = (a16 - c16).abs();
    let pc = (a16 + b16 - 2 * c16).abs();
    let ab = if pb < pa { b } else { a };
    if pc < pa.min(pb) {
        c
    } else {
        ab
    }
}

/// The checks of [`encode_rgba8`] without encoding: non-zero size, `len == width * height * 4`.
pub(crate) fn check_rgba8(width: u32, height: u32, len: usize) -> Result<(), ExportError> {
    let bad = |message: String| ExportError::Texture {
        name: String::new(),
        message,
    };
    if width == 0 || height == 0 {
        return Err(bad(format!("size {width}×{height} has no pixels")));
    }
    let expected = (width as u64)
        .checked_mul(height as u64)
        .and_then(|n| n.checked_mul(4));
    if expected != Some(len as u64) {
        return Err(bad(format!(
            "{len} pixel bytes do not match {width}×{height}×4"
        )));
    }
    Ok(())
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    /// The `png` crate's own encoder with the settings this module reproduces (adaptive
    /// filtering, zlib level 1): the independent reference of the bytes.
    fn crate_encoder(width: u32, height: u32, pixels: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut enc = ::png::Encoder::new(&mut out, width, height);
        enc.set_color(::png::ColorType::Rgba);
        enc.set_depth(::png::BitDepth::Eight);
        enc.set_deflate_compression(::png::DeflateCompression::Level(DEFLATE_LEVEL));
        let mut w = enc.write_header().unwrap();
        w.write_image_data(pixels).unwrap();
        w.finish().unwrap();
        out
    }

    /// Pixels of several characters: noise (Paeth/Avg rows), flat runs (cost-0 rows, the
    /// early stop), gradients (Sub/Up), and transparent areas.
    fn picture(width: u32, height: u32, seed: u32) -> Vec<u8> {
        let mut x = seed | 1;
        let mut out = Vec::with_capacity((width * height * 4) as usize);
        for y in 0..height {
            for i in 0..width {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                let px = match (y / 7 + seed) % 4 {
                    0 => x.to_le_bytes(),
                    1 => [40, 80, 120, 255],
                    2 => [(i * 3) as u8, (y * 5) as u8, (i + y) as u8, 255],
                    _ => [
                        (i ^ y) as u8,
                        (x % 7) as u8,
                        0,
                        if x % 3 == 0 { 0 } else { 255 },
                    ],
                };
                out.extend_from_slice(&px);
            }
        }
        out
    }

    #[test]
    fn bytes_are_the_png_crates() {
        // one thread: every image after the first goes through the reset zlib writer
        for (w, h, seed) in [
            (256, 256, 1),
            (256, 256, 2),
            (1, 1, 3),
            (3, 5, 4),
            (97, 61, 5),
            (1024, 70, 6),
        ] {
            let px = picture(w, h, seed);
            assert_eq!(
                encode_rgba8(w, h, &px).unwrap(),
                crate_encoder(w, h, &px),
                "{w}×{h} seed {seed}"
            );
        }
        // all zero: every row stops at Up (cost 0)
        let px = vec![0u8; 64 * 64 * 4];
        assert_eq!(
            encode_rgba8(64, 64, &px).unwrap(),
            crate_encoder(64, 64, &px)
        );
    }

    #[test]
    fn paeth_is_the_specifications() {
        // PNG specification section 9.4: p = a + b − c, nearest of a, b, c to p, ties a then b
        assert_eq!(paeth(10, 20, 10), 20); // p = 20: b exact
        assert_eq!(paeth(20, 10, 10), 20); // p = 20: a exact
        assert_eq!(paeth(10, 10, 20), 10); // p = 0: a and b tie at 10, a first
        assert_eq!(paeth(0, 255, 255), 0); // p = 0
        assert_eq!(paeth(100, 50, 80), 80); // p = 70: |30|, |20|, |10| → c
    }
}
