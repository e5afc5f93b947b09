//! Collision triangles → per-cell collision pieces (docs/formats/argonaut-wad.md §21.5, §12.4).
//!
//! The engine tests only the tiles of the cell the player stands in, so every triangle goes
//! into every cell its xz projection overlaps: by a positive area for ordinary triangles, or
//! touching the cell (closed, 1e-6) for triangles whose projection is a segment (vertical
//! walls, which may lie exactly on a cell border and then go to both cells).
//!
//! A collision plane's `d` is an i16 at 32 × 127 per unit, so polygons must stay within about
//! 8 units of their tile's origin. A triangle whose corners are all within
//! [`MAX_WHOLE_DISTANCE`] of the cell's origin (the cell centre at y = 0) is kept whole.
//! Otherwise it is clipped to the cell grown by [`CLIP_MARGIN`] on every side (so a piece
//! still reaches a little into the neighbours, like a whole polygon would), and, when its
//! heights leave ±[`MAX_WHOLE_DISTANCE`], cut into horizontal slabs `[12k − 6, 12k + 6]` of
//! which slab k goes to a tile of that cell placed at y = 12k ("band" k). Clipped pieces are
//! convex and planar: 3 or 4 corners become one polygon, more are fanned into triangles.

/// The largest distance from the tile origin at which a corner is kept unclipped.
pub const MAX_WHOLE_DISTANCE: f64 = 7.5;
/// How far beyond its cell a clipped piece reaches.
pub const CLIP_MARGIN: f64 = 0.5;
/// The height of one band (a tile of the same cell at y = `BAND_HEIGHT · k`).
pub const BAND_HEIGHT: f64 = 12.0;

/// A collision triangle in export (world) space with its surface normal (unit, the side its
/// corners run counter-clockwise around).
#[derive(Clone, Debug, PartialEq)]
pub struct WorldTri {
    /// Corners.
    pub p: [[f64; 3]; 3],
    /// Unit surface normal `(p1 − p0) × (p2 − p0)` normalised.
    pub n: [f64; 3],
    /// Ground material.
    pub material: u8,
    /// Collision group 0..2.
    pub group: u8,
}

/// One polygon for one cell and band: 3 or 4 corners (world space) plus the triangle's data.
#[derive(Clone, Debug, PartialEq)]
pub struct Piece {
    /// Corners, convex, in order.
    pub corners: Vec<[f64; 3]>,
    /// Unit surface normal (export space).
    pub n: [f64; 3],
    /// Ground material.
    pub material: u8,
    /// Collision group.
    pub group: u8,
    /// True when the piece was clipped out of a larger triangle.
    pub clipped: bool,
}

/// The unit normal of a triangle, or `None` when it has no area (cross product ≤ 1e-12).
pub fn tri_normal(p: &[[f64; 3]; 3]) -> Option<[f64; 3]> {
    let u = sub(p[1], p[0]);
    let v = sub(p[2], p[0]);
    let c = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    let l = (c[0] * c[0] + c[1] * c[1] + c[2] * c[2]).sqrt();
    if !(l.is_finite() && l > 1e-12) {
        return None;
    }
    Some([c[0] / l, c[1] / l, c[2] / l])
}

fn sub(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

/// The world-space square of cell (cx, cz): x ∈ [cx, cx + 1], z ∈ [−cz − 1, −cz].
pub fn cell_square(cx: i64, cz: i64) -> ([f64; 2], [f64; 2]) {
    let x0 = cx as f64;
    let z1 = -(cz as f64);
    ([x0, x0 + 1.0], [z1 - 1.0, z1])
}

/// How many cells [`cells`] would test for the triangle: its xz bounding box in cells, clamped
/// as [`cells`] clamps it (at most (MAX_GRID + 2)²). Checked against a limit before the cells
/// are listed: one triangle spanning the 4096 × 4096 grid would otherwise be clipped into 16
/// million pieces.
pub fn cell_span(t: &WorldTri) -> u64 {
    let (mut xl, mut xh, mut zl, mut zh) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in &t.p {
        xl = xl.min(p[0]);
        xh = xh.max(p[0]);
        zl = zl.min(p[2]);
        zh = zh.max(p[2]);
    }
    let eps = 1e-6;
    let lim = f64::from(super::MAX_GRID);
    let cell = |v: f64| v.floor().clamp(-1.0, lim) as i64;
    let w = cell(xh + eps) - cell(xl - eps) + 1;
    let h = cell(-zl + eps) - cell(-zh - eps) + 1;
    w.max(0) as u64 * h.max(0) as u64
}

/// The cells (cx, cz) whose square the triangle's xz projection overlaps (see the module
/// docs), within −1 ..= [`super::MAX_GRID`] (a triangle reaching further gets the edge cells
/// only). Cells with negative indices are included; the caller drops them.
pub fn cells(t: &WorldTri) -> Vec<(i64, i64)> {
    let q = t.p.map(|p| [p[0], p[2]]);
    let area2 =
        (q[1][0] - q[0][0]) * (q[2][1] - q[0][1]) - (q[2][0] - q[0][0]) * (q[1][1] - q[0][1]);
    let flat = area2.abs() <= 1e-9;
    let (mut xl, mut xh, mut zl, mut zh) = (f64::MAX, f64::MIN, f64::MAX, f64::MIN);
    for p in &q {
        xl = xl.min(p[0]);
        xh = xh.max(p[0]);
        zl = zl.min(p[1]);
        zh = zh.max(p[1]);
    }
    let eps = 1e-6;
    // cells beyond the largest grid are dropped by the caller anyway: the range is clamped one
    // cell past each edge, so a far-away (or huge) triangle still yields its "outside" cells
    // but never a loop over billions of them
    let lim = f64::from(super::MAX_GRID);
    let cell = |v: f64| v.floor().clamp(-1.0, lim) as i64;
    let cx0 = cell(xl - eps);
    let cx1 = cell(xh + eps);
    let cz0 = cell(-zh - eps);
    let cz1 = cell(-zl + eps);
    let mut out = Vec::new();
    for cz in cz0..=cz1 {
        for cx in cx0..=cx1 {
            let (xs, zs) = cell_square(cx, cz);
            if overlaps(&q, xs, zs, flat, eps) {
                out.push((cx, cz));
            }
        }
    }
    out
}

/// Separating-axis test of a triangle (2D) against an axis-aligned square: strictly (overlap
/// > eps on every axis) unless `closed`.
fn overlaps(q: &[[f64; 2]; 3], xs: [f64; 2], zs: [f64; 2], closed: bool, eps: f64) -> bool {
    let sq = [
        [xs[0], zs[0]],
        [xs[1], zs[0]],
        [xs[1], zs[1]],
        [xs[0], zs[1]],
    ];
    let mut axes: Vec<[f64; 2]> = vec![[1.0, 0.0], [0.0, 1.0]];
    for k in 0..3 {
        let a = q[k];
        let b = q[(k + 1) % 3];
        let e = [b[0] - a[0], b[1] - a[1]];
        let l = (e[0] * e[0] + e[1] * e[1]).sqrt();
        if l > 1e-12 {
            axes.push([-e[1] / l, e[0] / l]);
        }
    }
    for ax in axes {
        let proj = |p: &[f64; 2]| p[0] * ax[0] + p[1] * ax[1];
        let (mut a0, mut a1) = (f64::MAX, f64::MIN);
        for p in q {
            a0 = a0.min(proj(p));
            a1 = a1.max(proj(p));
        }
        let (mut b0, mut b1) = (f64::MAX, f64::MIN);
        for p in &sq {
            b0 = b0.min(proj(p));
            b1 = b1.max(proj(p));
        }
        let overlap = a1.min(b1) - a0.max(b0);
        if closed {
            if overlap < -eps {
                return false;
            }
        } else if overlap <= eps {
            return false;
        }
    }
    true
}

/// The pieces of `t` for cell (cx, cz), each with its band (see the module docs).
pub fn pieces(t: &WorldTri, cx: i64, cz: i64) -> Vec<(i64, Piece)> {
    let origin = [cx as f64 + 0.5, 0.0, -(cz as f64) - 0.5];
    let whole = t.p.iter().all(|p| {
        let d = sub(*p, origin);
        (d[0] * d[0] + d[1] * d[1] + d[2] * d[2]).sqrt() <= MAX_WHOLE_DISTANCE
    });
    let piece = |corners: Vec<[f64; 3]>, clipped: bool| Piece {
        corners,
        n: t.n,
        material: t.material,
        group: t.group,
        clipped,
    };
    if whole {
        return vec![(0, piece(t.p.to_vec(), false))];
    }
    let (xs, zs) = cell_square(cx, cz);
    let mut poly = t.p.to_vec();
    poly = clip(&poly, 0, xs[0] - CLIP_MARGIN, true);
    poly = clip(&poly, 0, xs[1] + CLIP_MARGIN, false);
    poly = clip(&poly, 2, zs[0] - CLIP_MARGIN, true);
    poly = clip(&poly, 2, zs[1] + CLIP_MARGIN, false);
    poly = dedup(poly);
    if poly.len() < 3 {
        return Vec::new();
    }
    let (ylo, yhi) = poly
        .iter()
        .fold((f64::MAX, f64::MIN), |(l, h), p| (l.min(p[1]), h.max(p[1])));
    let mut slabs: Vec<(i64, Vec<[f64; 3]>)> = Vec::new();
    if ylo >= -MAX_WHOLE_DISTANCE && yhi <= MAX_WHOLE_DISTANCE {
        slabs.push((0, poly));
    } else {
        let half = BAND_HEIGHT / 2.0;
        // heights past ±2^19 units fit no 12.12 plane field: the bands stop there (a hostile
        // mesh with a far-away corner gives edge slabs, not a loop over billions of bands)
        let most = f64::from(1u32 << 19) / BAND_HEIGHT;
        let band = |y: f64| ((y + half) / BAND_HEIGHT).floor().clamp(-most, most) as i64;
        let (k0, k1) = (band(ylo), band(yhi));
        for k in k0..=k1 {
            let c = k as f64 * BAND_HEIGHT;
            let s = clip(&poly, 1, c - half, true);
            let s = dedup(clip(&s, 1, c + half, false));
            if s.len() >= 3 {
                slabs.push((k, s));
            }
        }
    }
    let mut out = Vec::new();
    for (band, s) in slabs {
        if s.len() <= 4 {
            out.push((band, piece(s, true)));
        } else {
            for k in 1..s.len() - 1 {
                out.push((band, piece(vec![s[0], s[k], s[k + 1]], true)));
            }
        }
    }
    out
}

/// Sutherland–Hodgman: keep the part of `poly` with `p[axis] ≥ at` (`keep_above`) or
/// `p[axis] ≤ at`.
fn clip(poly: &[[f64; 3]], axis: usize, at: f64, keep_above: bool) -> Vec<[f64; 3]> {
    let inside = |p: &[f64; 3]| {
        if keep_above {
            p[axis] >= at
        } else {
            p[axis] <= at
        }
    };
    let mut out = Vec::with_capacity(poly.len() + 2);
    for i in 0..poly.len() {
        let a = poly[i];
        let b = poly[(i + 1) % poly.len()];
        let (ia, ib) = (inside(&a), inside(&b));
        if ia {
            out.push(a);
        }
        if ia != ib {
            let t = (at - a[axis]) / (b[axis] - a[axis]);
            let mut p = [0.0; 3];
            for k in 0..3 {
                p[k] = a[k] + (b[k] - a[k]) * t;
            }
            p[axis] = at;
            out.push(p);
        }
    }
    out
}

/// Drop consecutive corners closer than 1e-6 (and a last one equal to the first).
fn dedup(poly: Vec<[f64; 3]>) -> Vec<[f64; 3]> {
    let close = |a: &[f64; 3], b: &[f64; 3]| {
        let d = sub(*a, *b);
        d[0] * d[0] + d[1] * d[1] + d[2] * d[2] < 1e-12
    };
    let mut out: Vec<[f64; 3]> = Vec::with_capacity(poly.len());
    for p in poly {
        if out.last().is_none_or(|q| !close(q, &p)) {
            out.push(p);
        }
    }
    while out.len() > 1 && close(&out[0], &out[out.len() - 1]) {
        out.pop();
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri(p: [[f64; 3]; 3]) -> WorldTri {
        WorldTri {
            n: tri_normal(&p).unwrap_or([0.0, 1.0, 0.0]),
            p,
            material: 0,
            group: 0,
        }
    }

    #[test]
    fn cells_of_floors_and_walls() {
        // A floor triangle inside cell (2, 3): x ∈ [2, 3], z ∈ [−4, −3].
        let t = tri([[2.0, 0.0, -3.0], [2.0, 0.0, -4.0], [3.0, 0.0, -4.0]]);
        assert_eq!(cells(&t), vec![(2, 3)]);
        // A wall on the border x = 3 between cells (2, 3) and (3, 3).
        let w = tri([[3.0, 0.0, -3.2], [3.0, 0.0, -3.8], [3.0, 1.0, -3.5]]);
        assert_eq!(cells(&w), vec![(2, 3), (3, 3)]);
        // A big floor over 3 × 1 cells.
        let b = tri([[0.0, 0.0, 0.0], [3.0, 0.0, -1.0], [3.0, 0.0, 0.0]]);
        assert_eq!(cells(&b), vec![(0, 0), (1, 0), (2, 0)]);
    }

    #[test]
    fn far_away_and_huge_triangles_give_edge_cells_and_bands_not_endless_loops() {
        // x from 0 to 1e20 (z within one row): cells 0 ..= MAX_GRID, the last one past the
        // edge (so the caller still counts it as outside)
        let t = tri([[0.5, 0.0, -0.5], [1e20, 0.0, -0.5], [1e20, 0.0, -0.6]]);
        let c = cells(&t);
        let last = i64::from(super::super::MAX_GRID);
        assert_eq!(c.first(), Some(&(0, 0)));
        assert_eq!(c.last(), Some(&(last, 0)));
        assert!(c.len() as i64 <= last + 2, "{}", c.len());
        // a wall from y = −1e20 to 1e20 in cell (0, 0): bands end at ±2^19 units
        let w = tri([[0.5, -1e20, -0.5], [0.5, 1e20, -0.5], [0.6, 0.0, -0.5]]);
        let p = pieces(&w, 0, 0);
        let most = (f64::from(1u32 << 19) / BAND_HEIGHT) as i64;
        assert!(!p.is_empty());
        assert!(p.iter().all(|(k, _)| k.abs() <= most), "bands past ±{most}");
    }

    #[test]
    fn big_triangles_are_clipped() {
        let t = tri([[0.0, 0.0, 0.0], [20.0, 0.0, -20.0], [20.0, 0.0, 0.0]]);
        let p = pieces(&t, 10, 5);
        assert!(!p.is_empty());
        for (band, piece) in &p {
            assert_eq!(*band, 0);
            for c in &piece.corners {
                assert!(c[0] >= 9.5 - 1e-9 && c[0] <= 11.5 + 1e-9);
                assert!(c[2] >= -6.5 - 1e-9 && c[2] <= -4.5 + 1e-9);
            }
        }
        // A tall wall: slabs in bands 0, 1, 2.
        let w = tri([[0.2, -1.0, -0.5], [0.8, -1.0, -0.5], [0.5, 25.0, -0.5]]);
        let bands: Vec<i64> = pieces(&w, 0, 0).iter().map(|(b, _)| *b).collect();
        assert!(bands.contains(&0) && bands.contains(&1) && bands.contains(&2));
    }
}
