//! DDS (DirectDraw Surface) textures, the format of `gamedata/textures` and of a level's
//! lightmaps: the header read here (every size checked against the file before anything is
//! allocated), the top mip level of the first image decoded to RGBA8.
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | `"DDS "` |
//! | 4 | 124 | `DDS_HEADER`: size 124, flags, height (12), width (16), pitch, depth, mip count (28), … |
//! | 76 | 32 | `DDS_PIXELFORMAT`: size 32, flags (80), FourCC (84), bit count (88), R/G/B/A masks (92–107) |
//! | 128 | 20 | `DDS_HEADER_DXT10` when the FourCC is `DX10`: `DXGI_FORMAT` (128), … |
//! | 128 or 148 | … | mip 0 of layer 0 first (then its mips, then the other layers or faces) |
//!
//! Formats: FourCC `DXT1` (BC1), `DXT2`/`DXT3` (BC2), `DXT4`/`DXT5` (BC3), `ATI1`/`BC4U`/`BC4S`
//! (BC4, decoded as grey), `ATI2`/`BC5U`/`BC5S` (BC5, red and green, blue 0), the D3D float and
//! 16-bit formats given as a FourCC number, `DX10` with the BC1–BC7 and common 8-bit DXGI
//! formats (block decoding by `image_dds`); and every uncompressed RGB, luminance or alpha
//! format described by bit masks (`A8R8G8B8`, `X8R8G8B8`, `R8G8B8`, `A8B8G8R8`, `R5G6B5`,
//! `A1R5G5B5`, `A4R4G4B4`, `L8`, `A8L8`, `A8`, …): each channel scaled from its mask's width
//! to 8 bits, missing colour channels 0 (luminance fills R, G and B), missing alpha 255.
//! DXT2/DXT4 (premultiplied alpha) are decoded as stored. Cube maps and volumes give their
//! first face or slice.

use image_dds::{ImageFormat, Surface};
use levelgeom_binary::Limits;

/// A decoded image: `width × height` RGBA8 pixels, row-major from the top left.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Image {
    /// Width in pixels.
    pub width: u32,
    /// Height in pixels.
    pub height: u32,
    /// `width · height · 4` bytes.
    pub pixels: Vec<u8>,
}

/// Why a DDS file could not be decoded; `offset` is the byte of the file the reason is about.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("at 0x{offset:08X}: {message}")]
pub struct DdsError {
    /// The offset in the file.
    pub offset: u64,
    /// What is wrong.
    pub message: String,
}

fn err(offset: u64, message: impl Into<String>) -> DdsError {
    DdsError {
        offset,
        message: message.into(),
    }
}

/// How the pixels of a DDS file are stored.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// A format `image_dds` decodes: `block` pixels square per block of `bytes` bytes (block 1
    /// for per-pixel formats).
    Decoder {
        /// The format.
        format: ImageFormat,
        /// Block width and height in pixels (4 for BCn, 1 otherwise).
        block: u32,
        /// Bytes per block (or per pixel).
        bytes: u32,
    },
    /// Uncompressed pixels by bit masks (`DDPF_RGB`, `DDPF_LUMINANCE`, `DDPF_ALPHA`).
    Masks {
        /// Bits per pixel (8, 16, 24 or 32).
        bits: u32,
        /// Red mask (luminance for luminance formats).
        r: u32,
        /// Green mask.
        g: u32,
        /// Blue mask.
        b: u32,
        /// Alpha mask (0: opaque).
        a: u32,
        /// A luminance format: the red mask fills R, G and B.
        luminance: bool,
    },
}

impl Format {
    /// Bytes of one `width × height` image.
    fn image_bytes(&self, width: u32, height: u32) -> Option<u64> {
        let (block, bytes) = match *self {
            Format::Decoder { block, bytes, .. } => (block, bytes),
            Format::Masks { bits, .. } => (1, bits / 8),
        };
        u64::from(width.div_ceil(block))
            .checked_mul(u64::from(height.div_ceil(block)))?
            .checked_mul(u64::from(bytes))
    }

    /// A short name for messages (`BC1`, `masks 32-bit`).
    pub fn name(&self) -> String {
        match self {
            Format::Decoder { format, .. } => format!("{format:?}"),
            Format::Masks {
                bits, luminance, ..
            } => format!(
                "{bits}-bit {}",
                if *luminance { "luminance" } else { "RGB(A)" }
            ),
        }
    }
}

/// What the header of a DDS file says.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Header {
    /// Width of the top mip level.
    pub width: u32,
    /// Height of the top mip level.
    pub height: u32,
    /// `dwMipMapCount` as stored (0 or 1: only the top level).
    pub mips: u32,
    /// The pixel format.
    pub format: Format,
    /// Where the pixel data starts (128, or 148 after a `DX10` header).
    pub data_offset: u64,
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    b.get(o..o + 4)
        .map_or(0, |s| u32::from_le_bytes([s[0], s[1], s[2], s[3]]))
}

const DDPF_ALPHAPIXELS: u32 = 0x1;
const DDPF_ALPHA: u32 = 0x2;
const DDPF_FOURCC: u32 = 0x4;
const DDPF_RGB: u32 = 0x40;
const DDPF_LUMINANCE: u32 = 0x2_0000;

fn dec(format: ImageFormat, block: u32, bytes: u32) -> Format {
    Format::Decoder {
        format,
        block,
        bytes,
    }
}

fn from_fourcc(code: u32) -> Option<Format> {
    use ImageFormat as F;
    Some(match &code.to_le_bytes() {
        b"DXT1" => dec(F::BC1RgbaUnorm, 4, 8),
        b"DXT2" | b"DXT3" => dec(F::BC2RgbaUnorm, 4, 16),
        b"DXT4" | b"DXT5" => dec(F::BC3RgbaUnorm, 4, 16),
        b"ATI1" | b"BC4U" => dec(F::BC4RUnorm, 4, 8),
        b"BC4S" => dec(F::BC4RSnorm, 4, 8),
        b"ATI2" | b"BC5U" => dec(F::BC5RgUnorm, 4, 16),
        b"BC5S" => dec(F::BC5RgSnorm, 4, 16),
        // D3DFORMAT numbers written as the FourCC
        _ => match code {
            36 => dec(F::Rgba16Unorm, 1, 8),
            111 => dec(F::R16Float, 1, 2),
            112 => dec(F::Rg16Float, 1, 4),
            113 => dec(F::Rgba16Float, 1, 8),
            114 => dec(F::R32Float, 1, 4),
            115 => dec(F::Rg32Float, 1, 8),
            116 => dec(F::Rgba32Float, 1, 16),
            _ => return None,
        },
    })
}

fn from_dxgi(code: u32) -> Option<Format> {
    use ImageFormat as F;
    let masks = |a: u32| Format::Masks {
        bits: 32,
        r: 0x00FF_0000,
        g: 0x0000_FF00,
        b: 0x0000_00FF,
        a,
        luminance: false,
    };
    Some(match code {
        2 => dec(F::Rgba32Float, 1, 16),
        10 => dec(F::Rgba16Float, 1, 8),
        11 => dec(F::Rgba16Unorm, 1, 8),
        28 => dec(F::Rgba8Unorm, 1, 4),
        29 => dec(F::Rgba8UnormSrgb, 1, 4),
        41 => dec(F::R32Float, 1, 4),
        49 => dec(F::Rg8Unorm, 1, 2),
        54 => dec(F::R16Float, 1, 2),
        61 => dec(F::R8Unorm, 1, 1),
        71 => dec(F::BC1RgbaUnorm, 4, 8),
        72 => dec(F::BC1RgbaUnormSrgb, 4, 8),
        74 => dec(F::BC2RgbaUnorm, 4, 16),
        75 => dec(F::BC2RgbaUnormSrgb, 4, 16),
        77 => dec(F::BC3RgbaUnorm, 4, 16),
        78 => dec(F::BC3RgbaUnormSrgb, 4, 16),
        80 => dec(F::BC4RUnorm, 4, 8),
        81 => dec(F::BC4RSnorm, 4, 8),
        83 => dec(F::BC5RgUnorm, 4, 16),
        84 => dec(F::BC5RgSnorm, 4, 16),
        87 => masks(0xFF00_0000),
        88 => masks(0),
        91 => masks(0xFF00_0000),
        93 => masks(0),
        95 => dec(F::BC6hRgbUfloat, 4, 16),
        96 => dec(F::BC6hRgbSfloat, 4, 16),
        98 => dec(F::BC7RgbaUnorm, 4, 16),
        99 => dec(F::BC7RgbaUnormSrgb, 4, 16),
        _ => return None,
    })
}

/// Read the header of a DDS file.
///
/// # Errors
/// Not a DDS file, a header that is cut off, an unknown pixel format, a zero size.
pub fn header(bytes: &[u8]) -> Result<Header, DdsError> {
    if bytes.get(0..4) != Some(b"DDS ") {
        return Err(err(0, "not a DDS file (no \"DDS \" magic)"));
    }
    if bytes.len() < 128 {
        return Err(err(
            bytes.len() as u64,
            format!("the header is cut off ({} of 128 bytes)", bytes.len()),
        ));
    }
    let (height, width, mips) = (u32_at(bytes, 12), u32_at(bytes, 16), u32_at(bytes, 28));
    if width == 0 || height == 0 {
        return Err(err(12, format!("size {width}×{height} has no pixels")));
    }
    let flags = u32_at(bytes, 80);
    let fourcc = u32_at(bytes, 84);
    let (format, data_offset) = if flags & DDPF_FOURCC != 0 {
        if &fourcc.to_le_bytes() == b"DX10" {
            if bytes.len() < 148 {
                return Err(err(
                    bytes.len() as u64,
                    "the DX10 header is cut off (148 bytes needed)",
                ));
            }
            let dxgi = u32_at(bytes, 128);
            let f = from_dxgi(dxgi)
                .ok_or_else(|| err(128, format!("DXGI format {dxgi} is not decoded")))?;
            (f, 148)
        } else {
            let f = from_fourcc(fourcc).ok_or_else(|| {
                let b = fourcc.to_le_bytes();
                let text = if b.iter().all(|c| c.is_ascii_graphic() || *c == b' ') {
                    format!("FourCC {:?}", String::from_utf8_lossy(&b))
                } else {
                    format!("FourCC {fourcc}")
                };
                err(84, format!("{text} is not a decoded format"))
            })?;
            (f, 128)
        }
    } else if flags & (DDPF_RGB | DDPF_LUMINANCE | DDPF_ALPHA) != 0 {
        let bits = u32_at(bytes, 88);
        if !matches!(bits, 8 | 16 | 24 | 32) {
            return Err(err(88, format!("{bits} bits per pixel (8, 16, 24 or 32)")));
        }
        let luminance = flags & DDPF_LUMINANCE != 0;
        let rgb = flags & (DDPF_RGB | DDPF_LUMINANCE) != 0;
        let has_alpha = flags & (DDPF_ALPHAPIXELS | DDPF_ALPHA) != 0;
        let m = |o: usize| if rgb { u32_at(bytes, o) } else { 0 };
        (
            Format::Masks {
                bits,
                r: m(92),
                g: if luminance { 0 } else { m(96) },
                b: if luminance { 0 } else { m(100) },
                a: if has_alpha { u32_at(bytes, 104) } else { 0 },
                luminance,
            },
            128,
        )
    } else {
        return Err(err(
            80,
            format!("pixel format flags 0x{flags:X}: neither FourCC, RGB, luminance nor alpha"),
        ));
    };
    Ok(Header {
        width,
        height,
        mips,
        format,
        data_offset,
    })
}

/// One channel by its mask, scaled to 8 bits (`None` mask → `missing`).
fn channel(px: u32, mask: u32, missing: u8) -> u8 {
    if mask == 0 {
        return missing;
    }
    let shift = mask.trailing_zeros();
    let width = (mask >> shift).trailing_ones().min(32 - shift);
    let max = if width >= 32 {
        u32::MAX
    } else {
        (1u32 << width) - 1
    };
    let v = (px & mask) >> shift;
    if width == 8 {
        v as u8
    } else {
        // a mask with holes can hold more than its width: clamp
        ((u64::from(v) * 255 + u64::from(max) / 2) / u64::from(max)).min(255) as u8
    }
}

/// Decode the top mip level of the first image of a DDS file to RGBA8.
///
/// The data the top level needs is checked against the file, and the decoded size against
/// `limits.max_decoded`, before anything is allocated.
///
/// # Errors
/// As [`header`]; data shorter than the top mip level; a decoded image above the limit.
pub fn decode(bytes: &[u8], limits: &Limits) -> Result<Image, DdsError> {
    let h = header(bytes)?;
    let need = h
        .format
        .image_bytes(h.width, h.height)
        .ok_or_else(|| err(12, format!("size {}×{} overflows", h.width, h.height)))?;
    let have = (bytes.len() as u64).saturating_sub(h.data_offset);
    if need > have {
        return Err(err(
            bytes.len() as u64,
            format!(
                "truncated: the top mip level of {}×{} {} needs {need} bytes, the file has {have} after the header",
                h.width,
                h.height,
                h.format.name()
            ),
        ));
    }
    let out = u64::from(h.width) * u64::from(h.height) * 4;
    if out > limits.max_decoded as u64 {
        return Err(err(
            12,
            format!(
                "{}×{} decodes to {out} bytes, above the limit of {}",
                h.width, h.height, limits.max_decoded
            ),
        ));
    }
    let start = h.data_offset as usize;
    let data = &bytes[start..start + need as usize];
    let pixels = match h.format {
        Format::Decoder { format, .. } => {
            let s = Surface {
                width: h.width,
                height: h.height,
                depth: 1,
                layers: 1,
                mipmaps: 1,
                image_format: format,
                data,
            };
            let d = s
                .decode_rgba8()
                .map_err(|e| err(h.data_offset, format!("cannot decode: {e}")))?;
            d.data
        }
        Format::Masks {
            bits,
            r,
            g,
            b,
            a,
            luminance,
        } => {
            let step = (bits / 8) as usize;
            let mut px = Vec::with_capacity(out as usize);
            for c in data.chunks_exact(step) {
                let mut w = [0u8; 4];
                w[..step].copy_from_slice(c);
                let v = u32::from_le_bytes(w);
                let red = channel(v, r, 0);
                let (green, blue) = if luminance {
                    (red, red)
                } else {
                    (channel(v, g, 0), channel(v, b, 0))
                };
                px.extend_from_slice(&[red, green, blue, channel(v, a, 255)]);
            }
            px
        }
    };
    if pixels.len() as u64 != out {
        return Err(err(
            h.data_offset,
            format!("decoded {} bytes, {out} expected", pixels.len()),
        ));
    }
    Ok(Image {
        width: h.width,
        height: h.height,
        pixels,
    })
}

/// Decode a PNG file to RGBA8 (grey, grey+alpha, RGB, palette and 16-bit images expanded),
/// refusing images above `limits.max_decoded` before decoding.
///
/// # Errors
/// What the PNG decoder reports, as a message.
pub fn decode_png(bytes: &[u8], limits: &Limits) -> Result<Image, String> {
    let mut d = png::Decoder::new_with_limits(
        std::io::Cursor::new(bytes),
        png::Limits {
            bytes: limits.max_decoded,
        },
    );
    d.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut r = d.read_info().map_err(|e| e.to_string())?;
    let (w, h) = (r.info().width, r.info().height);
    let out = u64::from(w) * u64::from(h) * 4;
    if out > limits.max_decoded as u64 {
        return Err(format!("{w}×{h} is above the limit"));
    }
    let size = r.output_buffer_size().ok_or("image too large")?;
    let mut buf = vec![0u8; size];
    let info = r.next_frame(&mut buf).map_err(|e| e.to_string())?;
    buf.truncate(info.buffer_size());
    let pixels: Vec<u8> = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|c| [c[0], c[1], c[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|c| [c[0], c[0], c[0], c[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err("palette image was not expanded".into()),
    };
    if pixels.len() as u64 != out {
        return Err(format!("decoded {} bytes, {out} expected", pixels.len()));
    }
    Ok(Image {
        width: w,
        height: h,
        pixels,
    })
}
