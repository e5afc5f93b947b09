//! Collision polygons, decoded the way the engine evaluates them (docs/formats/argonaut-wad.md §16, §12.4).
//!
//! A 32-byte polygon is `u8 type, u8 material` and five planes `{i8 nx, ny, nz; u8 pad; i16 d}`:
//! plane 0 is the surface, planes 1..4 the edges (normals pointing inwards). `type` bit 0 marks
//! a quad (4 edges); otherwise a triangle uses edges 1..3 and plane 4 is zero.
//!
//! # Units
//! The floor probe `sub_4036D0` computes the height as `(d·4096 − 32(nx·x + nz·z)) / (32·ny)` in
//! 20.12 fixed point, i.e. it treats the plane as `32·n_q·P = 4096·d` with `P` in 20.12 fixed
//! point. Dividing by 4096, with `p` in game units:
//!
//! ```text
//! n_q · p = d / 32          (n_q = the stored i8 normal, unnormalised)
//! ```
//!
//! which with `|n_q| ≈ 127` puts the plane `d / (32·|n_q|) ≈ d / 4064` units from the tile
//! origin (0.79 % further than the seed's `d / 4096`), and bounds polygons to ±8 units.
//!
//! # Space and corners
//! Collision data is in **game space**, whose z is the negation of the render vertices' z.
//! Negating `nz` of every plane maps the planes into the model's export space; a corner is
//! then the intersection of the surface plane with two consecutive edge planes
//! (edges `k` and `k+1`, cyclic). The corners are ordered counter-clockwise seen from the side
//! the surface normal points to, so glTF shows a floor's front from above. The tile transform
//! ([`super::placement`]) is applied afterwards by the caller.

use crate::model::{CollisionPlane, CollisionPoly};

/// A stored plane in model export space as `(normal, offset)` with `normal · p = offset`:
/// z of the normal negated (game space → export space), offset `d / 32` (see the module docs).
pub fn export_plane(p: &CollisionPlane) -> ([f64; 3], f64) {
    (
        [
            f64::from(p.normal[0]),
            f64::from(p.normal[1]),
            -f64::from(p.normal[2]),
        ],
        f64::from(p.d) / 32.0,
    )
}

/// Why a polygon has no corners.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CornerError {
    /// The surface and two edge planes do not meet in one point (parallel or zero normals).
    Degenerate {
        /// The first of the two edges (1-based, as stored).
        edge: usize,
    },
    /// A corner lies absurdly far away (more than 1000 units): nearly parallel planes.
    FarAway {
        /// The first of the two edges (1-based).
        edge: usize,
    },
}

impl std::fmt::Display for CornerError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CornerError::Degenerate { edge } => write!(
                f,
                "the surface plane and edge planes {edge} and {} do not meet in one point",
                edge + 1
            ),
            CornerError::FarAway { edge } => write!(
                f,
                "the surface plane and edge planes {edge} and {} meet more than 1000 units away",
                edge + 1
            ),
        }
    }
}

/// The corners of a polygon in model export space (z already negated), counter-clockwise
/// about the surface normal.
pub fn corners(poly: &CollisionPoly) -> Result<Vec<[f64; 3]>, CornerError> {
    let planes = &poly.planes;
    let edges = poly.edge_count();
    let surface = export_plane(&planes[0]);
    let mut out = Vec::with_capacity(edges);
    for k in 0..edges {
        let e1 = export_plane(&planes[1 + k]);
        let e2 = export_plane(&planes[1 + (k + 1) % edges]);
        let p = intersect(surface, e1, e2).ok_or(CornerError::Degenerate { edge: k + 1 })?;
        if p.iter().any(|c| c.abs() > 1000.0) {
            return Err(CornerError::FarAway { edge: k + 1 });
        }
        out.push(p);
    }
    // Order counter-clockwise about the surface normal (Newell's polygon normal).
    let newell = polygon_normal(&out);
    if dot(newell, surface.0) < 0.0 {
        out.reverse();
    }
    Ok(out)
}

/// The point where three planes `n · p = d` meet, or `None` when they do not meet in one.
pub fn intersect(a: ([f64; 3], f64), b: ([f64; 3], f64), c: ([f64; 3], f64)) -> Option<[f64; 3]> {
    let bc = cross(b.0, c.0);
    let det = dot(a.0, bc);
    let scale = norm(a.0) * norm(b.0) * norm(c.0);
    if scale.is_nan() || scale <= 0.0 || det.abs() < 1e-6 * scale {
        return None;
    }
    let ca = cross(c.0, a.0);
    let ab = cross(a.0, b.0);
    let mut p = [0.0; 3];
    for i in 0..3 {
        p[i] = (a.1 * bc[i] + b.1 * ca[i] + c.1 * ab[i]) / det;
    }
    p.iter().all(|v| v.is_finite()).then_some(p)
}

/// Newell's normal of a polygon (not normalised).
pub fn polygon_normal(pts: &[[f64; 3]]) -> [f64; 3] {
    let mut n = [0.0; 3];
    for (i, p) in pts.iter().enumerate() {
        let q = pts[(i + 1) % pts.len()];
        n[0] += (p[1] - q[1]) * (p[2] + q[2]);
        n[1] += (p[2] - q[2]) * (p[0] + q[0]);
        n[2] += (p[0] - q[0]) * (p[1] + q[1]);
    }
    n
}

/// Cross product.
pub fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

/// Dot product.
pub fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// Euclidean length.
pub fn norm(a: [f64; 3]) -> f64 {
    dot(a, a).sqrt()
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    use crate::model::COLLISION_QUAD;

    fn pl(normal: [i8; 3], d: i16) -> CollisionPlane {
        CollisionPlane { normal, pad: 0, d }
    }

    fn poly(kind: u8, planes: [CollisionPlane; 5]) -> CollisionPoly {
        CollisionPoly {
            kind,
            material: 0,
            planes,
        }
    }

    #[test]
    fn unit_square_floor() {
        // Floor y = 0.5 (n_q = (0,127,0), d = 32·127·0.5 = 2032), edges x ≥ −0.5, x ≤ 0.5,
        // and in game space z ≥ −0.5, z ≤ 0.5: n·p = d/32 → d = 32·127·(−0.5) = −2032.
        let planes = [
            pl([0, 127, 0], 2032),
            pl([127, 0, 0], -2032),
            pl([0, 0, 127], -2032),
            pl([-127, 0, 0], -2032),
            pl([0, 0, -127], -2032),
        ];
        let c = corners(&poly(COLLISION_QUAD, planes)).unwrap();
        assert_eq!(c.len(), 4);
        for p in &c {
            assert!((p[1] - 0.5).abs() < 1e-12);
            assert!((p[0].abs() - 0.5).abs() < 1e-12 && (p[2].abs() - 0.5).abs() < 1e-12);
        }
        // Counter-clockwise seen from +y: the polygon normal points up.
        assert!(polygon_normal(&c)[1] > 0.0);
    }

    #[test]
    fn parallel_edges_are_degenerate() {
        let planes = [
            pl([0, 127, 0], 0),
            pl([127, 0, 0], 0),
            pl([127, 0, 0], 100),
            pl([0, 0, 127], 0),
            pl([0, 0, 0], 0),
        ];
        assert_eq!(
            corners(&poly(0, planes)),
            Err(CornerError::Degenerate { edge: 1 })
        );
    }
}
