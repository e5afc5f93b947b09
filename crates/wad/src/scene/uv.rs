//! Texture coordinates: the engine has no free UVs (docs/formats/argonaut-wad.md §16).
//!
//! Every triangle shows one half of a rectangle of a texture page, named by a TEXT texture
//! entry (`u8 u0, u1, v0, v1`, with `u1`/`v1` inclusive). The runtime expands the entry to
//! `U0 = u0/w, U1 = (u1+1)/w, V0 = v0/h, V1 = (v1+1)/h` (docs/formats/argonaut-wad.md §5, `sub_407240`; `w = h = 256`
//! for every real page). Three face flags pick the corners of the three vertices
//! `(v0, v1, v2)`, with `m` = flag 0x20 (mirror U), `a = m ? U0 : U1`, `b = m ? U1 : U0`:
//!
//! | flags              | v0       | v1       | v2       | meaning                 |
//! |--------------------|----------|----------|----------|-------------------------|
//! | no 0x800           | (a, V1)  | (b, V1)  | (a, V0)  | plain triangle          |
//! | 0x800, no 0x10     | (a, V1)  | (b, V1)  | (b, V0)  | first half of a quad    |
//! | 0x800 + 0x10       | (b, V0)  | (a, V0)  | (a, V1)  | second half of a quad   |
//!
//! `V0` is the rectangle's top row in the page as stored (pages are decoded row-major from the
//! top-left), so these values are already in the scene's top-left UV convention; the OBJ
//! writer flips V for OBJ.

use crate::model::{FACE_UV_MIRROR, FACE_UV_QUAD, FACE_UV_SECOND};

/// A texture entry's rectangle in normalised page coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct UvRect {
    /// Left edge `u0 / w`.
    pub u0: f32,
    /// Right edge `(u1 + 1) / w`.
    pub u1: f32,
    /// Top edge `v0 / h`.
    pub v0: f32,
    /// Bottom edge `(v1 + 1) / h`.
    pub v1: f32,
}

impl UvRect {
    /// The rectangle of an entry `(u0, u1, v0, v1)` on a `width × height` page (0 → 256).
    pub fn new(u0: u8, u1: u8, v0: u8, v1: u8, width: u32, height: u32) -> UvRect {
        let w = if width == 0 { 256.0 } else { width as f32 };
        let h = if height == 0 { 256.0 } else { height as f32 };
        UvRect {
            u0: f32::from(u0) / w,
            u1: (f32::from(u1) + 1.0) / w,
            v0: f32::from(v0) / h,
            v1: (f32::from(v1) + 1.0) / h,
        }
    }
}

/// The UVs of a face's three corners `(v0, v1, v2)` from its flags (table in the module docs).
pub fn corners(flags: u16, r: &UvRect) -> [[f32; 2]; 3] {
    let mirror = flags & FACE_UV_MIRROR != 0;
    let (a, b) = if mirror { (r.u0, r.u1) } else { (r.u1, r.u0) };
    if flags & FACE_UV_QUAD == 0 {
        [[a, r.v1], [b, r.v1], [a, r.v0]]
    } else if flags & FACE_UV_SECOND == 0 {
        [[a, r.v1], [b, r.v1], [b, r.v0]]
    } else {
        [[b, r.v0], [a, r.v0], [a, r.v1]]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rect_is_inclusive_of_the_last_texel() {
        let r = UvRect::new(0, 63, 64, 127, 256, 256);
        assert_eq!(
            r,
            UvRect {
                u0: 0.0,
                u1: 0.25,
                v0: 0.25,
                v1: 0.5
            }
        );
    }

    #[test]
    fn quad_halves_cover_the_rectangle() {
        let r = UvRect {
            u0: 0.0,
            u1: 1.0,
            v0: 0.0,
            v1: 1.0,
        };
        // Not mirrored: a = U1 = 1, b = U0 = 0.
        assert_eq!(corners(0x800, &r), [[1.0, 1.0], [0.0, 1.0], [0.0, 0.0]]);
        assert_eq!(corners(0x810, &r), [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]);
        assert_eq!(corners(0, &r), [[1.0, 1.0], [0.0, 1.0], [1.0, 0.0]]);
        // Mirrored swaps a and b.
        assert_eq!(corners(0x820, &r), [[0.0, 1.0], [1.0, 1.0], [1.0, 0.0]]);
    }
}
