//! The sRGB transfer function between the scene's display-value colours and linear values (see
//! the crate's *Conventions*).
//!
//! Both functions work per channel on 0..1 and are each other's inverse up to `f32` rounding:
//! after the byte quantisation the WAD colours go through (`round(c·128)`), a display value
//! survives `srgb_to_linear` → `f32` → `linear_to_srgb` exactly (see the tests).

/// Display (sRGB-encoded) value → linear: `c ≤ 0.04045 ? c/12.92 : ((c+0.055)/1.055)^2.4`.
/// Computed in `f64` and rounded once.
pub fn srgb_to_linear(c: f32) -> f32 {
    let c = f64::from(c);
    let l = if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    };
    l as f32
}

/// Linear → display (sRGB-encoded) value: `l ≤ 0.0031308 ? 12.92·l : 1.055·l^(1/2.4) − 0.055`.
/// Computed in `f64` and rounded once.
pub fn linear_to_srgb(l: f32) -> f32 {
    let l = f64::from(l);
    let c = if l <= 0.0031308 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    };
    c as f32
}

/// [`srgb_to_linear`] of R, G and B; alpha unchanged.
pub fn rgba_to_linear(c: [f32; 4]) -> [f32; 4] {
    [
        srgb_to_linear(c[0]),
        srgb_to_linear(c[1]),
        srgb_to_linear(c[2]),
        c[3],
    ]
}

/// [`linear_to_srgb`] of R, G and B; alpha unchanged.
pub fn rgba_to_srgb(c: [f32; 4]) -> [f32; 4] {
    [
        linear_to_srgb(c[0]),
        linear_to_srgb(c[1]),
        linear_to_srgb(c[2]),
        c[3],
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values() {
        assert_eq!(srgb_to_linear(0.0), 0.0);
        assert_eq!(srgb_to_linear(1.0), 1.0);
        assert!((srgb_to_linear(0.5) - 0.214_041_14).abs() < 1e-6);
        assert!((srgb_to_linear(0.04) - 0.04 / 12.92).abs() < 1e-9);
        assert!((linear_to_srgb(0.214_041_14) - 0.5).abs() < 1e-6);
        assert_eq!(rgba_to_linear([1.0, 0.0, 0.5, 0.25])[3], 0.25);
    }

    /// A WAD colour byte b → display c = min(1, b/128) → linear → (stored as f32, as a GLB holds
    /// it) → back → round(c·128) gives b again for every byte that is not clamped (0..=128), and
    /// 128 for the clamped ones (129..=255), as without the conversion.
    #[test]
    fn wad_bytes_survive_the_round_trip() {
        for b in 0u8..=255 {
            let c = (f32::from(b) / 128.0).min(1.0);
            let stored: f32 = f32::from_le_bytes(srgb_to_linear(c).to_le_bytes());
            let back = (linear_to_srgb(stored) * 128.0).round();
            assert_eq!(back, f32::from(b.min(128)), "byte {b}");
            assert_eq!(
                linear_to_srgb(srgb_to_linear(c)),
                c,
                "byte {b}: exact in f32"
            );
        }
    }
}
