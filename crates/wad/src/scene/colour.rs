//! Vertex colours from MAP (docs/formats/argonaut-wad.md §18.11, §12.1).
//!
//! Each placed tile has, per vertex of its model, one u32 per colour set, stored as the bytes
//! `R, G, B, A` (so `R` is the low byte of the little-endian u32). `0x80` means 1.0: the game
//! doubles the byte and clamps, so a channel is `min(1, byte / 128)`.
//!
//! The fourth byte is not a colour: byte 3 of the tile's entries carries the number of colour
//! sets (the loader takes the maximum over the first set, docs/formats/argonaut-wad.md §12.1) and then overwrites entry
//! 0 with that count; no renderer use of it as alpha is known. The export therefore writes
//! **alpha = 1.0** for every vertex, and the raw bytes stay in the WAD model untouched.
//!
//! Faces with flag 0x4000 ignore the vertex colours; their corners get white.
//!
//! The values are what the game puts on screen (display values, the scene's convention); the
//! glTF writer converts them to linear for `COLOR_n`, OBJ keeps them.

/// The byte that means full intensity (the game doubles and clamps).
pub const ONE: f32 = 128.0;

/// Decode one stored colour word to RGBA display values (the scene's convention; the glTF
/// writer converts them to linear), alpha always 1.0 (see the module docs).
pub fn decode(word: u32) -> [f32; 4] {
    let [r, g, b, _] = word.to_le_bytes();
    [channel(r), channel(g), channel(b), 1.0]
}

/// One channel: `min(1, byte / 128)`.
pub fn channel(byte: u8) -> f32 {
    (f32::from(byte) / ONE).min(1.0)
}

/// White, for 0x4000 faces and for vertices the MAP has no colour for.
pub const WHITE: [f32; 4] = [1.0; 4];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn half_scale_and_clamp() {
        // bytes R=0x80 G=0x40 B=0xFF A=0x02 → 1.0, 0.5, clamped 1.0, alpha 1.0
        assert_eq!(
            decode(u32::from_le_bytes([0x80, 0x40, 0xFF, 0x02])),
            [1.0, 0.5, 1.0, 1.0]
        );
        assert_eq!(decode(0), [0.0, 0.0, 0.0, 1.0]);
    }
}
