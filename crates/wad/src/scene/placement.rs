//! Where a tile's model lands in the world: the MAP "A" placement (docs/formats/argonaut-wad.md §15).
//!
//! TRAK vertices are in the model's local export space (right-handed, +y up, roughly
//! −0.5..0.5 in x and z). MAP record A places the model with a float position `(x, y, z)` and
//! a yaw `rot` in 4096ths of a turn. The seed verified this transform against the tile seams of
//! all 34 levels (93 % of border vertices meet a neighbour exactly; the other three sign
//! variants give 65–70 %):
//!
//! ```text
//! a = rot / 4096 · 2π
//! X = x + vx·cos a − vz·sin a
//! Y = y + vy
//! Z = z + vx·sin a + vz·cos a
//! ```
//!
//! The 2×2 part `[[cos, −sin], [sin, cos]]` has determinant +1: it is a proper rotation, so it
//! never changes which side of a triangle is its front. Only the optional `mirror_z` (negate Z
//! after placing) is a reflection, and callers reverse the winding when
//! [`Placement::flips_winding`] says so.
//!
//! The arithmetic is done in `f64` and rounded to `f32` once at the end, so a vertex's world
//! position is the exact transform of the stored `f32` values rounded once.

/// A rigid transform of model space into export (glTF) space.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Placement {
    /// Translation (MAP A position).
    pub origin: [f64; 3],
    /// `cos a`.
    pub cos: f64,
    /// `sin a`.
    pub sin: f64,
    /// Negate Z after placing (a reflection: the winding must be reversed).
    pub mirror_z: bool,
}

impl Placement {
    /// The identity (no move, no turn, no mirror).
    pub const IDENTITY: Placement = Placement {
        origin: [0.0; 3],
        cos: 1.0,
        sin: 0.0,
        mirror_z: false,
    };

    /// The placement of a MAP A record: position `(x, y, z)` and yaw `rot` (4096 = a full turn).
    ///
    /// `rot` is taken modulo 4096 (a negative yaw stored as u32 wraps correctly because 2³² is
    /// a multiple of 4096); the quarter turns 0/1024/2048/3072 that real levels use get exact
    /// ±1/0 sines and cosines.
    pub fn tile(x: f32, y: f32, z: f32, rot: u32, mirror_z: bool) -> Placement {
        let (cos, sin) = yaw(rot);
        Placement {
            origin: [f64::from(x), f64::from(y), f64::from(z)],
            cos,
            sin,
            mirror_z,
        }
    }

    /// A pure translation (used to lay STPC objects side by side).
    pub fn translation(offset: [f64; 3], mirror_z: bool) -> Placement {
        Placement {
            origin: offset,
            mirror_z,
            ..Placement::IDENTITY
        }
    }

    /// Place a point given in `f64`.
    pub fn point64(&self, v: [f64; 3]) -> [f64; 3] {
        let x = self.origin[0] + v[0] * self.cos - v[2] * self.sin;
        let y = self.origin[1] + v[1];
        let z = self.origin[2] + v[0] * self.sin + v[2] * self.cos;
        [x, y, if self.mirror_z { -z } else { z }]
    }

    /// Place a model-space vertex position.
    pub fn point(&self, v: [f32; 3]) -> [f32; 3] {
        to_f32(self.point64(to_f64(v)))
    }

    /// Turn a direction (a normal): rotation and mirror, no translation.
    pub fn direction(&self, n: [f32; 3]) -> [f32; 3] {
        let n = to_f64(n);
        let x = n[0] * self.cos - n[2] * self.sin;
        let z = n[0] * self.sin + n[2] * self.cos;
        to_f32([x, n[1], if self.mirror_z { -z } else { z }])
    }

    /// True when the transform is a reflection, so triangles must be emitted reversed to keep
    /// their front side.
    pub fn flips_winding(&self) -> bool {
        self.mirror_z
    }
}

/// `(cos a, sin a)` for a yaw in 4096ths of a turn, exact for quarter turns.
pub fn yaw(rot: u32) -> (f64, f64) {
    match rot % 4096 {
        0 => (1.0, 0.0),
        1024 => (0.0, 1.0),
        2048 => (-1.0, 0.0),
        3072 => (0.0, -1.0),
        r => {
            let a = f64::from(r) / 4096.0 * std::f64::consts::TAU;
            (a.cos(), a.sin())
        }
    }
}

/// Widen a vector to `f64`.
pub fn to_f64(v: [f32; 3]) -> [f64; 3] {
    [f64::from(v[0]), f64::from(v[1]), f64::from(v[2])]
}

/// Round a vector to `f32`.
pub fn to_f32(v: [f64; 3]) -> [f32; 3] {
    [v[0] as f32, v[1] as f32, v[2] as f32]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quarter_turn_maps_x_to_z() {
        // a = 90°: X = x − vz, Z = z + vx. Local (+1, 0, 0) → world (x, y, z + 1).
        let p = Placement::tile(10.5, 2.0, -3.5, 1024, false);
        assert_eq!(p.point([1.0, 0.25, 0.0]), [10.5, 2.25, -2.5]);
        // Local (0, 0, +1) → X = x − 1.
        assert_eq!(p.point([0.0, 0.0, 1.0]), [9.5, 2.0, -3.5]);
    }

    #[test]
    fn mirror_negates_z_and_flips() {
        let p = Placement::tile(0.5, 0.0, -0.5, 0, true);
        assert_eq!(p.point([0.25, 1.0, 0.25]), [0.75, 1.0, 0.25]);
        assert!(p.flips_winding());
        assert_eq!(p.direction([0.0, 0.0, 1.0]), [0.0, 0.0, -1.0]);
    }

    #[test]
    fn negative_yaw_wraps() {
        // −1024 stored as u32 is three quarter turns.
        assert_eq!(yaw(0u32.wrapping_sub(1024)), (0.0, -1.0));
        let (c, s) = yaw(512);
        assert!((c - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
        assert!((s - std::f64::consts::FRAC_1_SQRT_2).abs() < 1e-12);
    }
}
