//! Authoring: the computations a writer of new geometry needs to keep the docs/formats/argonaut-wad.md §21
//! consistency rules (the ones [`crate::check`] tests).
//!
//! The generator (`crate::generate`, cargo feature `generate`) builds its levels with these functions, and a mesh
//! importer is meant to use them the same way: lay out vertices and faces, then
//!
//! 1. give every face its plane with [`face_plane`] (`n = normalize((v1 − v0) × (v2 − v0))`,
//!    `d = n · v0`);
//! 2. give every vertex the smoothed normal of the faces around it with [`smooth_normals`];
//! 3. set the batch flag 0x8 with [`set_batch_flags`] (first face, every render-state change,
//!    at least every [`MAX_BATCH_FACES`] faces);
//! 4. encode collision polygons with [`collision_polygon`] (planes per docs/formats/argonaut-wad.md §12.4:
//!    `n_q = round(127·n̂)`, `d = round(32·n_q·P)`, refused when `d` leaves the i16 range;
//!    [`collision_polygon_fitted`] for imported meshes, whose edges keep both corners inside);
//! 5. compute the bounding box with [`bounds`], [`grow`], [`box_centre`] and [`box_corners`]
//!    (or call [`crate::model::Model::sync_header`], which does all of it).
//!
//! The arithmetic is done in `f32` with [`glam`] in the order the generator has always used,
//! so generated levels stay byte-identical; in particular normalisation divides by the length
//! (glam's `normalize` multiplies by the reciprocal, which can differ in the last bit).

use glam::Vec3 as V3;
use levelgeom_binary::{fit, WriteError};

use crate::model::{
    CollisionPlane, CollisionPoly, Face, Vec3, Vertex, COLLISION_DOWNWARD, COLLISION_QUAD,
    FACE_BATCH,
};

pub use crate::check::MAX_BATCH_FACES;

fn v(a: Vec3) -> V3 {
    V3::from_array(a)
}

/// `a / |a|`, or `None` when the length is 0 or NaN (division, not a reciprocal multiply).
fn unit(a: V3) -> Option<V3> {
    let l = a.length();
    if l > 0.0 {
        Some(a / l)
    } else {
        None
    }
}

/// `a / |a|`, or +y for a zero (or NaN) vector.
pub fn normalize_or_up(a: Vec3) -> Vec3 {
    unit(v(a)).unwrap_or(V3::Y).to_array()
}

/// The plane of a triangle as the format defines it (docs/formats/argonaut-wad.md §21.1):
/// `n = normalize((b − a) × (c − a))`, `d = n · a`. Degenerate triangles (length of the cross
/// product ≤ 1e-12, or not finite) give `None`.
pub fn face_plane(a: Vec3, b: Vec3, c: Vec3) -> Option<(Vec3, f32)> {
    let (a, b, c) = (v(a), v(b), v(c));
    let n = (b - a).cross(c - a);
    let len = n.length();
    if len.is_nan() || len <= 1e-12 || !len.is_finite() {
        return None;
    }
    let n = n / len;
    Some((n.to_array(), n.dot(a)))
}

/// docs/formats/argonaut-wad.md §21.1: every vertex normal is the normalised sum of the (stored) plane normals of the
/// faces that use the vertex, summed in face order; a vertex no face uses gets +y. Face
/// indices past `vertices` are ignored ([`crate::check`] reports them).
pub fn smooth_normals(vertices: &mut [Vertex], faces: &[Face]) {
    let mut sums = vec![V3::ZERO; vertices.len()];
    for f in faces {
        for &i in &f.indices {
            if let Some(s) = sums.get_mut(usize::from(i)) {
                *s += v(f.normal);
            }
        }
    }
    for (vx, s) in vertices.iter_mut().zip(sums) {
        vx.normal = unit(s).unwrap_or(V3::Y).to_array();
    }
}

/// docs/formats/argonaut-wad.md §21.2: set the batch flag 0x8 on the first face, on every face whose render state
/// differs from the previous face's, and after [`MAX_BATCH_FACES`] faces without one; clear
/// it everywhere else. `states[i]` is face i's render-state key (texture page and blend mode,
/// [`crate::check::render_state`] of its texture entry); faces without a state are treated as
/// state 0.
pub fn set_batch_flags(faces: &mut [Face], states: &[u32]) {
    let mut prev: Option<u32> = None;
    let mut run = 0usize;
    for (i, f) in faces.iter_mut().enumerate() {
        let state = states.get(i).copied().unwrap_or(0);
        f.flags &= !FACE_BATCH;
        if prev != Some(state) || run == MAX_BATCH_FACES {
            f.flags |= FACE_BATCH;
            run = 0;
        }
        run += 1;
        prev = Some(state);
    }
}

/// Quantise a unit normal to the collision format's `i8 × 127` (rounded, within ±127).
pub fn quantize_normal(n: Vec3) -> [i8; 3] {
    n.map(|x| (x * 127.0).round().clamp(-127.0, 127.0) as i8)
}

/// An encoded collision plane through `p` with unit normal `n` (both game space, spec
/// docs/formats/argonaut-wad.md §12.4): `n_q = round(127·n)`, `d = round(32 · n_q·p)`, so that the engine's surface
/// `32·n_q·x − d = 0` passes through `p`. A `d` outside the i16 range (a plane more than about
/// 8 units from the tile origin) is an error on the field `d`, not clamped.
pub fn collision_plane(n: Vec3, p: Vec3) -> Result<CollisionPlane, WriteError> {
    let q = quantize_normal(n);
    let qd = V3::new(f32::from(q[0]), f32::from(q[1]), f32::from(q[2])).dot(v(p));
    let d = (32.0 * qd).round();
    if !d.is_finite() {
        return Err(WriteError::invalid(
            "d",
            format!("plane distance {d} is not finite"),
        ));
    }
    // A finite f32 beyond the i64 range saturates, which `fit` still refuses.
    let d: i16 = fit(d as i64, || "d".into())?;
    Ok(CollisionPlane {
        normal: q,
        pad: 0,
        d,
    })
}

/// How the planes of a collision polygon get their distances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Fit {
    /// [`collision_plane`] through one point: corner 0 for the surface, the edge's first corner.
    Plain,
    /// The surface through the corners' mean, each edge's `d` rounded outward (see
    /// [`collision_polygon_fitted`]).
    Fitted,
}

/// A collision polygon from 3 or 4 convex game-space corners and their surface normal:
/// plane 0 the surface through corner 0, planes 1..=k the edge planes (normal `n × (b − a)`
/// turned to face the polygon's centre) through each edge's first corner, plane 4 zero for a
/// triangle; type bit [`COLLISION_QUAD`] for quads and [`COLLISION_DOWNWARD`] when the surface
/// normal points down. Errors name the field (`corners`, `planes[2]/d`).
pub fn collision_polygon(
    corners: &[Vec3],
    normal: Vec3,
    material: u8,
) -> Result<CollisionPoly, WriteError> {
    polygon(corners, normal, material, Fit::Plain)
}

/// Like [`collision_polygon`], but fitted to the corners for imported geometry: the surface
/// plane's `d` is `round(32 · mean(n_q · P_k))` over the corners (so the rounding of the i8
/// normal tilts the surface about the polygon's middle rather than about corner 0, halving the
/// largest height error), and each edge plane's `d` is `floor(min(32 · n_q · a, 32 · n_q · b))`
/// over its two corners, so both corners of every edge lie inside the engine's polygon even
/// though the quantised edge normal is turned slightly. Neighbouring polygons then overlap by
/// a hair instead of leaving a gap along their shared edge (about 0.004 units per unit of edge
/// length with plain [`collision_plane`] edges). Errors as [`collision_polygon`].
pub fn collision_polygon_fitted(
    corners: &[Vec3],
    normal: Vec3,
    material: u8,
) -> Result<CollisionPoly, WriteError> {
    polygon(corners, normal, material, Fit::Fitted)
}

/// A fitted plane of quantised normal `m` over `pts`: the mean (surface) or the floor of the
/// minimum (edges) of `32 · n_q · p`.
fn fitted_plane(
    m: V3,
    pts: &[Vec3],
    mean: bool,
    field: &str,
) -> Result<CollisionPlane, WriteError> {
    let q = quantize_normal(m.to_array());
    let qv = [f64::from(q[0]), f64::from(q[1]), f64::from(q[2])];
    let dots = pts.iter().map(|p| {
        32.0 * (qv[0] * f64::from(p[0]) + qv[1] * f64::from(p[1]) + qv[2] * f64::from(p[2]))
    });
    let d = if mean {
        (dots.sum::<f64>() / pts.len() as f64).round()
    } else {
        dots.fold(f64::INFINITY, f64::min).floor()
    };
    if !d.is_finite() {
        return Err(WriteError::invalid(
            format!("{field}/d"),
            format!("plane distance {d} is not finite"),
        ));
    }
    let d: i16 = fit(d as i64, || format!("{field}/d"))?;
    Ok(CollisionPlane {
        normal: q,
        pad: 0,
        d,
    })
}

fn polygon(
    corners: &[Vec3],
    normal: Vec3,
    material: u8,
    how: Fit,
) -> Result<CollisionPoly, WriteError> {
    let k = corners.len();
    if !(3..=4).contains(&k) {
        return Err(WriteError::invalid(
            "corners",
            format!("a collision polygon has 3 or 4 corners, not {k}"),
        ));
    }
    let n = unit(v(normal)).unwrap_or(V3::Y);
    let mut centre = V3::ZERO;
    for p in corners {
        centre += v(*p) / k as f32;
    }
    let mut planes = [CollisionPlane::default(); 5];
    planes[0] = match how {
        Fit::Plain => collision_plane(n.to_array(), corners[0]).map_err(|e| e.within("planes[0]")),
        Fit::Fitted => fitted_plane(n, corners, true, "planes[0]"),
    }?;
    for i in 0..k {
        let a = v(corners[i]);
        let b = v(corners[(i + 1) % k]);
        let mut m = unit(n.cross(b - a)).unwrap_or(V3::Y);
        if m.dot(centre - a) < 0.0 {
            m = -m;
        }
        let field = format!("planes[{}]", 1 + i);
        planes[1 + i] = match how {
            Fit::Plain => collision_plane(m.to_array(), a.to_array()).map_err(|e| e.within(&field)),
            Fit::Fitted => fitted_plane(m, &[a.to_array(), b.to_array()], false, &field),
        }?;
    }
    let mut kind = if k == 4 { COLLISION_QUAD } else { 0 };
    if planes[0].normal[1] < 0 {
        kind |= COLLISION_DOWNWARD;
    }
    Ok(CollisionPoly {
        kind,
        material,
        planes,
    })
}

/// The component-wise minimum and maximum of some points, or `None` when there are none.
pub fn bounds(points: impl IntoIterator<Item = Vec3>) -> Option<(Vec3, Vec3)> {
    let mut it = points.into_iter();
    let first = it.next()?;
    let (mut lo, mut hi) = (first, first);
    for p in it {
        for k in 0..3 {
            lo[k] = lo[k].min(p[k]);
            hi[k] = hi[k].max(p[k]);
        }
    }
    Some((lo, hi))
}

/// A box grown by `margin` on every side (docs/formats/argonaut-wad.md §22 uses 1/128).
pub fn grow(lo: Vec3, hi: Vec3, margin: f32) -> (Vec3, Vec3) {
    (
        (v(lo) - V3::splat(margin)).to_array(),
        (v(hi) + V3::splat(margin)).to_array(),
    )
}

/// The centre of a box, `(lo + hi) / 2`.
pub fn box_centre(lo: Vec3, hi: Vec3) -> Vec3 {
    ((v(lo) + v(hi)) / 2.0).to_array()
}

/// The 8 corners of an axis-aligned box in the model header's order
/// (−x−y+z)(+x−y+z)(−x+y+z)(+x+y+z)(−x−y−z)(+x−y−z)(−x+y−z)(+x+y−z).
pub fn box_corners(lo: Vec3, hi: Vec3) -> [Vec3; 8] {
    let mut out = [[0f32; 3]; 8];
    for (i, c) in out.iter_mut().enumerate() {
        let x = if i & 1 != 0 { hi[0] } else { lo[0] };
        let y = if i & 2 != 0 { hi[1] } else { lo[1] };
        let z = if i & 4 != 0 { lo[2] } else { hi[2] };
        *c = [x, y, z];
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn face(indices: [u16; 3], normal: Vec3) -> Face {
        Face {
            indices,
            normal,
            ..Face::default()
        }
    }

    #[test]
    fn plane_of_a_known_triangle() {
        // (0,0,1), (2,0,1), (0,0,-1): u = (2,0,0), v = (0,0,-2), u × v = (0, 4, 0) → +y;
        // d = n · v0 = 0. Lifted to y = 3: d = 3.
        let (n, d) = face_plane([0.0, 3.0, 1.0], [2.0, 3.0, 1.0], [0.0, 3.0, -1.0]).unwrap();
        assert_eq!(n, [0.0, 1.0, 0.0]);
        assert_eq!(d, 3.0);
        // A tilted one: v0 = (0,0,2), u = (1,0,0), v = (0,1,1): u × v = (0,−1,1),
        // n = (0, −1/√2, 1/√2), d = n · v0 = 2/√2 = √2.
        let (n, d) = face_plane([0.0, 0.0, 2.0], [1.0, 0.0, 2.0], [0.0, 1.0, 3.0]).unwrap();
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert!((n[0]).abs() < 1e-7 && (n[1] + h).abs() < 1e-7 && (n[2] - h).abs() < 1e-7);
        assert!((d - std::f32::consts::SQRT_2).abs() < 1e-6);
        assert!(face_plane([0.0; 3], [1.0, 0.0, 0.0], [2.0, 0.0, 0.0]).is_none());
    }

    #[test]
    fn smoothing_averages_the_faces_around_a_vertex() {
        let mut vs = vec![Vertex::default(); 4];
        let faces = [
            face([0, 1, 2], [0.0, 1.0, 0.0]),
            face([0, 2, 3], [1.0, 0.0, 0.0]),
        ];
        smooth_normals(&mut vs, &faces);
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let n0 = vs[0].normal; // (1,1,0)/√2
        assert!((n0[0] - h).abs() < 1e-7 && (n0[1] - h).abs() < 1e-7 && n0[2] == 0.0);
        assert_eq!(vs[1].normal, [0.0, 1.0, 0.0]);
        assert_eq!(vs[3].normal, [1.0, 0.0, 0.0]);
        let mut lone = vec![Vertex::default()];
        smooth_normals(&mut lone, &[]);
        assert_eq!(lone[0].normal, [0.0, 1.0, 0.0]);
    }

    #[test]
    fn batch_flags_at_state_changes_and_every_256_faces() {
        let mut faces = vec![Face::default(); 600];
        faces[5].flags = FACE_BATCH; // stale, cleared
        let mut states = vec![1u32; 600];
        for s in &mut states[300..] {
            *s = 2;
        }
        set_batch_flags(&mut faces, &states);
        let flagged: Vec<usize> = (0..600)
            .filter(|&i| faces[i].flags & FACE_BATCH != 0)
            .collect();
        assert_eq!(flagged, vec![0, 256, 300, 556]);
    }

    #[test]
    fn collision_planes_are_encoded_per_spec() {
        // Up-facing plane through y = 0.5: n_q = (0,127,0), d = 32 · 127 · 0.5 = 2032.
        let p = collision_plane([0.0, 1.0, 0.0], [3.0, 0.5, -7.0]).unwrap();
        assert_eq!(p.normal, [0, 127, 0]);
        assert_eq!(p.d, 2032);
        // 45°: n_q = round(127/√2) = 90 each; d = 32 · (90·1 + 90·1) = 5760.
        let h = std::f32::consts::FRAC_1_SQRT_2;
        let p = collision_plane([h, h, 0.0], [1.0, 1.0, 0.0]).unwrap();
        assert_eq!((p.normal, p.d), ([90, 90, 0], 5760));
        // 9 units up: 32 · 127 · 9 = 36576 does not fit i16.
        let e = collision_plane([0.0, 1.0, 0.0], [0.0, 9.0, 0.0]).unwrap_err();
        assert_eq!(e.field, "d");
        // A unit quad at y = 0: 4 edges, surface up, edges facing inwards.
        let quad = [
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [1.0, 0.0, 1.0],
            [0.0, 0.0, 1.0],
        ];
        let c = collision_polygon(&quad, [0.0, 1.0, 0.0], 7).unwrap();
        assert_eq!(c.kind, COLLISION_QUAD);
        assert_eq!(c.material, 7);
        assert_eq!(c.planes[0].normal, [0, 127, 0]);
        // edge (0,0,0)→(1,0,0): n × (1,0,0) = (0,0,−1), flipped towards the centre: +z, d 0.
        assert_eq!((c.planes[1].normal, c.planes[1].d), ([0, 0, 127], 0));
        // edge (1,0,0)→(1,0,1): −x through x = 1: d = 32 · (−127) = −4064.
        assert_eq!((c.planes[2].normal, c.planes[2].d), ([-127, 0, 0], -4064));
        let e = collision_polygon(&quad[..2], [0.0, 1.0, 0.0], 0).unwrap_err();
        assert_eq!(e.field, "corners");
        let far = quad.map(|p| [p[0], 9.0, p[2]]);
        let e = collision_polygon(&far, [0.0, 1.0, 0.0], 0).unwrap_err();
        assert_eq!(e.field, "planes[0]/d");
    }

    #[test]
    fn fitted_polygons_keep_their_corners_inside() {
        // A sloped triangle whose quantised edge normals are turned: every corner must pass
        // every edge test 32·n_q·p − d ≥ 0, and the surface must pass within 1/64 unit.
        let tri = [[-0.5, 0.0, -0.5], [0.5, 0.3, -0.5], [-0.5, 2.5, 1.5]];
        let (n, _) = face_plane(tri[0], tri[1], tri[2]).unwrap();
        let c = collision_polygon_fitted(&tri, n, 4).unwrap();
        assert_eq!(c.material, 4);
        assert_eq!(c.kind & COLLISION_QUAD, 0);
        let eval = |p: &CollisionPlane, x: Vec3| {
            32.0 * (f64::from(p.normal[0]) * f64::from(x[0])
                + f64::from(p.normal[1]) * f64::from(x[1])
                + f64::from(p.normal[2]) * f64::from(x[2]))
                - f64::from(p.d)
        };
        for x in &tri {
            for e in 1..=3 {
                assert!(eval(&c.planes[e], *x) >= 0.0, "corner {x:?} edge {e}");
            }
            let q = c.planes[0].normal.map(f64::from);
            let len = (q[0] * q[0] + q[1] * q[1] + q[2] * q[2]).sqrt();
            assert!(eval(&c.planes[0], *x).abs() / (32.0 * len) < 1.0 / 64.0);
        }
        assert_eq!(c.planes[4], CollisionPlane::default());
    }

    #[test]
    fn boxes() {
        let (lo, hi) = bounds([[1.0, -2.0, 3.0], [-1.0, 2.0, 0.0]]).unwrap();
        assert_eq!((lo, hi), ([-1.0, -2.0, 0.0], [1.0, 2.0, 3.0]));
        assert_eq!(bounds(std::iter::empty()), None);
        let (glo, ghi) = grow(lo, hi, 0.5);
        assert_eq!((glo, ghi), ([-1.5, -2.5, -0.5], [1.5, 2.5, 3.5]));
        assert_eq!(box_centre(lo, hi), [0.0, 0.0, 1.5]);
        let c = box_corners(lo, hi);
        assert_eq!(c[0], [-1.0, -2.0, 3.0]);
        assert_eq!(c[3], [1.0, 2.0, 3.0]);
        assert_eq!(c[4], [-1.0, -2.0, 0.0]);
        assert_eq!(c[7], [1.0, 2.0, 0.0]);
    }
}
