//! PNG encoding of decoded texture pixels.
//!
//! Textures in the scene are RGBA8, row-major from the top-left, which is exactly PNG's
//! colour type 6 at bit depth 8, so encoding is a straight copy into the `png` crate's encoder
//! (zlib level 1, see `DEFLATE_LEVEL`, and adaptive filtering; output is deterministic for
//! equal input).

use crate::ExportError;

/// The zlib level of the pages' deflate stream. Level 1 (greedy matching) deflates the
/// full-size WAD's 30 pages about four times faster than the default 6, at twice the size
/// (159 KB instead of 78 KB in all, against 12.6 MB of export); the `png` crate's `Fast`
/// (fdeflate) made them 16 times larger.
const DEFLATE_LEVEL: u8 = 1;

/// Encode `width × height` RGBA8 pixels (`width * height * 4` bytes, top row first) as PNG.
///
/// # Errors
/// [`ExportError::Texture`] (with an empty name) when a dimension is zero or the buffer length
/// does not match; [`ExportError::Png`] when the encoder fails.
pub fn encode_rgba8(width: u32, height: u32, pixels: &[u8]) -> Result<Vec<u8>, ExportError> {
    check_rgba8(width, height, pixels.len())?;
    let mut out = Vec::new();
    {
        let mut enc = ::png::Encoder::new(&mut out, width, height);
        enc.set_color(::png::ColorType::Rgba);
        enc.set_depth(::png::BitDepth::Eight);
        enc.set_deflate_compression(::png::DeflateCompression::Level(DEFLATE_LEVEL));
        let mut writer = enc
            .write_header()
            .map_err(|e| ExportError::Png(e.to_string()))?;
        writer
            .write_image_data(pixels)
            .map_err(|e| ExportError::Png(e.to_string()))?;
        writer
            .finish()
            .map_err(|e| ExportError::Png(e.to_string()))?;
    }
    Ok(out)
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
