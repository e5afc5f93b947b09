//! A tiny DDS writer for tests, written from the DirectDraw Surface layout alone (not from any
//! decoder): a 128-byte header (`"DDS "` + the 124-byte `DDS_HEADER` with its 32-byte
//! `DDS_PIXELFORMAT`), an optional 20-byte `DDS_HEADER_DXT10`, then the pixel data.
//!
//! Block-compressed data is encoded here by hand from chosen endpoint colours and indices, so
//! a test knows every decoded pixel without running an encoder:
//!
//! * BC1 (`DXT1`, 8 bytes a 4×4 block): two RGB565 endpoints `c0`, `c1`, then 16 two-bit
//!   indices (pixel 0 in the low bits of byte 4). With `c0 > c1` the palette is `c0`, `c1`,
//!   `(2·c0 + c1)/3`, `(c0 + 2·c1)/3`; with `c0 ≤ c1` it is `c0`, `c1`, `(c0 + c1)/2` and
//!   transparent black.
//! * BC2 (`DXT3`, 16 bytes): 16 four-bit alphas (`a·17`), then a BC1 colour block (always
//!   four colours).
//! * BC3 (`DXT5`, 16 bytes): alpha endpoints `a0`, `a1`, 16 three-bit indices (48 bits, pixel 0
//!   lowest), then a BC1 colour block. With `a0 > a1`: index 0 = `a0`, 1 = `a1`, 2..7 blends.
//! * BC4 (`ATI1`, 8 bytes): one BC3-style alpha block for the single channel; BC5 (`ATI2`,
//!   16 bytes): two of them (red, then green).

/// `DDPF_ALPHAPIXELS`: the masks include alpha.
pub const ALPHAPIXELS: u32 = 0x1;
/// `DDPF_ALPHA`: alpha only.
pub const ALPHA: u32 = 0x2;
/// `DDPF_FOURCC`: the format is the FourCC.
pub const FOURCC: u32 = 0x4;
/// `DDPF_RGB`: uncompressed RGB by masks.
pub const RGB: u32 = 0x40;
/// `DDPF_LUMINANCE`: uncompressed luminance by masks.
pub const LUMINANCE: u32 = 0x20000;

/// A `DDS_PIXELFORMAT`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PixelFormat {
    /// `dwFlags`.
    pub flags: u32,
    /// `dwFourCC` (little-endian ASCII, e.g. `b"DXT1"`).
    pub fourcc: [u8; 4],
    /// `dwRGBBitCount`.
    pub bits: u32,
    /// Red (or luminance) mask.
    pub r: u32,
    /// Green mask.
    pub g: u32,
    /// Blue mask.
    pub b: u32,
    /// Alpha mask.
    pub a: u32,
}

impl PixelFormat {
    /// A FourCC format (`DXT1`, `DXT3`, `DXT5`, `ATI1`, `ATI2`, `DX10`…).
    pub fn fourcc(code: &[u8; 4]) -> PixelFormat {
        PixelFormat {
            flags: FOURCC,
            fourcc: *code,
            bits: 0,
            r: 0,
            g: 0,
            b: 0,
            a: 0,
        }
    }

    /// `D3DFMT_A8R8G8B8`: bytes B, G, R, A.
    pub const A8R8G8B8: PixelFormat = PixelFormat {
        flags: RGB | ALPHAPIXELS,
        fourcc: [0; 4],
        bits: 32,
        r: 0x00FF_0000,
        g: 0x0000_FF00,
        b: 0x0000_00FF,
        a: 0xFF00_0000,
    };
    /// `D3DFMT_X8R8G8B8`: bytes B, G, R, unused.
    pub const X8R8G8B8: PixelFormat = PixelFormat {
        flags: RGB,
        fourcc: [0; 4],
        bits: 32,
        r: 0x00FF_0000,
        g: 0x0000_FF00,
        b: 0x0000_00FF,
        a: 0,
    };
    /// `D3DFMT_R8G8B8`: bytes B, G, R.
    pub const R8G8B8: PixelFormat = PixelFormat {
        flags: RGB,
        fourcc: [0; 4],
        bits: 24,
        r: 0x00FF_0000,
        g: 0x0000_FF00,
        b: 0x0000_00FF,
        a: 0,
    };
    /// `D3DFMT_R5G6B5`: a little-endian u16, red in the top 5 bits.
    pub const R5G6B5: PixelFormat = PixelFormat {
        flags: RGB,
        fourcc: [0; 4],
        bits: 16,
        r: 0xF800,
        g: 0x07E0,
        b: 0x001F,
        a: 0,
    };
    /// `D3DFMT_L8`: one luminance byte.
    pub const L8: PixelFormat = PixelFormat {
        flags: LUMINANCE,
        fourcc: [0; 4],
        bits: 8,
        r: 0xFF,
        g: 0,
        b: 0,
        a: 0,
    };
    /// `D3DFMT_A8L8`: luminance byte, then alpha byte.
    pub const A8L8: PixelFormat = PixelFormat {
        flags: LUMINANCE | ALPHAPIXELS,
        fourcc: [0; 4],
        bits: 16,
        r: 0x00FF,
        g: 0,
        b: 0,
        a: 0xFF00,
    };
}

/// The 128-byte DDS header (magic included) of a 2D texture; `mips` is `dwMipMapCount`.
pub fn header(width: u32, height: u32, mips: u32, pf: PixelFormat) -> Vec<u8> {
    let mut h = Vec::with_capacity(128);
    let mut u = |v: u32| h.extend_from_slice(&v.to_le_bytes());
    u(u32::from_le_bytes(*b"DDS "));
    u(124); // dwSize
            // CAPS | HEIGHT | WIDTH | PIXELFORMAT, + MIPMAPCOUNT when > 1
    u(0x1 | 0x2 | 0x4 | 0x1000 | if mips > 1 { 0x2_0000 } else { 0 });
    u(height);
    u(width);
    u(0); // pitch or linear size (decoders must not rely on it)
    u(0); // depth
    u(mips);
    for _ in 0..11 {
        u(0);
    }
    u(32);
    u(pf.flags);
    u(u32::from_le_bytes(pf.fourcc));
    u(pf.bits);
    u(pf.r);
    u(pf.g);
    u(pf.b);
    u(pf.a);
    u(0x1000 | if mips > 1 { 0x40_0008 } else { 0 }); // TEXTURE (+ COMPLEX | MIPMAP)
    u(0);
    u(0);
    u(0);
    u(0);
    h
}

/// A whole DDS file: header, then `data` as given.
pub fn file(width: u32, height: u32, mips: u32, pf: PixelFormat, data: &[u8]) -> Vec<u8> {
    let mut f = header(width, height, mips, pf);
    f.extend_from_slice(data);
    f
}

/// A DDS file with a `DX10` header (`dxgi` = `DXGI_FORMAT` number, a 2D texture, one layer).
pub fn dx10_file(width: u32, height: u32, dxgi: u32, data: &[u8]) -> Vec<u8> {
    let mut f = header(width, height, 1, PixelFormat::fourcc(b"DX10"));
    for v in [dxgi, 3, 0, 1, 0] {
        f.extend_from_slice(&v.to_le_bytes());
    }
    f.extend_from_slice(data);
    f
}

/// An uncompressed A8R8G8B8 file of `pixels` (RGBA, row-major from the top left).
pub fn a8r8g8b8(width: u32, height: u32, pixels: &[[u8; 4]]) -> Vec<u8> {
    assert_eq!(pixels.len(), (width * height) as usize);
    let data: Vec<u8> = pixels
        .iter()
        .flat_map(|&[r, g, b, a]| [b, g, r, a])
        .collect();
    file(width, height, 1, PixelFormat::A8R8G8B8, &data)
}

/// RGB565 of 8-bit channels (truncated to 5/6/5 bits).
pub fn rgb565(r: u8, g: u8, b: u8) -> u16 {
    (u16::from(r >> 3) << 11) | (u16::from(g >> 2) << 5) | u16::from(b >> 3)
}

/// A BC1 colour block: endpoints and 16 two-bit indices (row-major within the block).
pub fn bc1_block(c0: u16, c1: u16, idx: [u8; 16]) -> [u8; 8] {
    let mut bits = 0u32;
    for (i, &k) in idx.iter().enumerate() {
        bits |= u32::from(k & 3) << (2 * i);
    }
    let mut b = [0u8; 8];
    b[0..2].copy_from_slice(&c0.to_le_bytes());
    b[2..4].copy_from_slice(&c1.to_le_bytes());
    b[4..8].copy_from_slice(&bits.to_le_bytes());
    b
}

/// A BC3/BC4 alpha (single-channel) block: endpoints and 16 three-bit indices.
pub fn alpha_block(a0: u8, a1: u8, idx: [u8; 16]) -> [u8; 8] {
    let mut bits = 0u64;
    for (i, &k) in idx.iter().enumerate() {
        bits |= u64::from(k & 7) << (3 * i);
    }
    let mut b = [0u8; 8];
    b[0] = a0;
    b[1] = a1;
    b[2..8].copy_from_slice(&bits.to_le_bytes()[0..6]);
    b
}

/// A BC2 block: 16 four-bit alphas, then a colour block.
pub fn bc2_block(alpha4: [u8; 16], colour: [u8; 8]) -> [u8; 16] {
    let mut b = [0u8; 16];
    for (i, &a) in alpha4.iter().enumerate() {
        b[i / 2] |= (a & 0xF) << (4 * (i % 2));
    }
    b[8..16].copy_from_slice(&colour);
    b
}

/// Two 8-byte blocks side by side (a BC3 block: alpha then colour; BC5: red then green).
pub fn pair(first: [u8; 8], second: [u8; 8]) -> [u8; 16] {
    let mut b = [0u8; 16];
    b[0..8].copy_from_slice(&first);
    b[8..16].copy_from_slice(&second);
    b
}

/// A texture filled with one BC1 block, `width`×`height` pixels (blocks rounded up).
pub fn bc1_uniform(width: u32, height: u32, block: [u8; 8]) -> Vec<u8> {
    let n = (width.div_ceil(4) * height.div_ceil(4)) as usize;
    let data: Vec<u8> = std::iter::repeat_n(block, n).flatten().collect();
    file(width, height, 1, PixelFormat::fourcc(b"DXT1"), &data)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn header_fields_sit_where_the_layout_says() {
        let h = header(16, 8, 5, PixelFormat::fourcc(b"DXT5"));
        assert_eq!(h.len(), 128);
        assert_eq!(&h[0..4], b"DDS ");
        let w = |o: usize| u32::from_le_bytes(h[o..o + 4].try_into().unwrap());
        assert_eq!((w(4), w(12), w(16), w(28)), (124, 8, 16, 5));
        assert_eq!((w(76), w(80)), (32, FOURCC));
        assert_eq!(&h[84..88], b"DXT5");
    }

    #[test]
    fn blocks_pack_indices_from_the_low_bits() {
        let mut idx = [0u8; 16];
        idx[0] = 1;
        idx[15] = 3;
        let b = bc1_block(0xF800, 0x001F, idx);
        assert_eq!(b, [0x00, 0xF8, 0x1F, 0x00, 0x01, 0x00, 0x00, 0xC0]);
        let mut ai = [0u8; 16];
        ai[1] = 7;
        // index 7 of pixel 1 sits in bits 3..6 of the first index byte
        assert_eq!(alpha_block(9, 8, ai)[2], 0b0011_1000);
        assert_eq!(rgb565(255, 255, 255), 0xFFFF);
    }
}
