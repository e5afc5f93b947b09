//! Vertex data for changed geometry, in X-Ray space, ready for the codec
//! ([`crate::vertex::encode`], the exact inverse of the decoder, which writes every attribute
//! that is not changed back to its own bytes).
//!
//! * A moved visual: positions through the transform, normals through its inverse-transpose,
//!   tangents and binormals through its linear part, each direction rescaled to the length it
//!   had (the packed form holds components in −1..1); UVs, lightmap UVs, light, hemi, sun and
//!   wind untouched.
//! * Edited positions (same vertices): the new positions; normals from the mesh when it has
//!   them (else recomputed from the triangles), tangents and binormals turned by the rotation
//!   that takes the old normal to the new one.
//! * A new mesh: everything from the mesh, what it lacks defaulted ([`NewAttributes`]).

use glam::{DMat3, DMat4, DVec3};
use levelgeom_scene::Primitive;

use crate::vertex::Vertices;

fn v3(p: [f32; 3]) -> DVec3 {
    DVec3::from_array(p.map(f64::from))
}

fn f3(v: DVec3) -> [f32; 3] {
    [v.x as f32, v.y as f32, v.z as f32]
}

/// `d` turned by `m`, rescaled to the length `d` had.
fn turn(m: &DMat3, d: [f32; 3]) -> [f32; 3] {
    let d = v3(d);
    let len = d.length();
    let r = *m * d;
    let rl = r.length();
    if rl > 1e-12 && len.is_finite() {
        f3(r * (len / rl))
    } else {
        f3(d)
    }
}

/// Apply the X-Ray-space affine `t` to decoded vertices (see the module docs).
pub(crate) fn transform(v: &mut Vertices, t: &DMat4) {
    let lin = DMat3::from_mat4(*t);
    let nrm = lin.inverse().transpose();
    for p in &mut v.positions {
        *p = f3(t.transform_point3(v3(*p)));
    }
    for n in &mut v.normals {
        *n = turn(&nrm, *n);
    }
    for d in v.tangents.iter_mut().chain(v.binormals.iter_mut()) {
        *d = turn(&lin, *d);
    }
}

/// The rotation taking unit `a` to unit `b` (identity when they are the same or opposite).
fn rotation_between(a: DVec3, b: DVec3) -> DMat3 {
    let (a, b) = (a.normalize_or_zero(), b.normalize_or_zero());
    let axis = a.cross(b);
    let s = axis.length();
    let c = a.dot(b);
    if s < 1e-9 || !s.is_finite() {
        return DMat3::IDENTITY;
    }
    DMat3::from_axis_angle(axis / s, s.atan2(c))
}

/// Area-weighted vertex normals of triangles (X-Ray winding: clockwise front faces, so the
/// normal is `(b − a) × (c − a)` in the left-handed frame).
pub(crate) fn face_normals(pos: &[[f32; 3]], tris: &[[u32; 3]]) -> Vec<[f32; 3]> {
    let mut acc = vec![DVec3::ZERO; pos.len()];
    for t in tris {
        let [a, b, c] = t.map(|i| v3(pos[i as usize]));
        let n = (b - a).cross(c - a);
        for &i in t {
            acc[i as usize] += n;
        }
    }
    acc.into_iter()
        .map(|n| f3(n.try_normalize().unwrap_or(DVec3::Y)))
        .collect()
}

/// Replace the positions of `v` by `positions` (X-Ray space, same count), with normals
/// `normals` when given (else recomputed from `tris`), tangents/binormals turned along; the
/// vertices marked in `keep` (not moved) keep every value, so their bytes and the smoothing
/// of seams there stay.
pub(crate) fn reposition(
    v: &mut Vertices,
    positions: &[[f32; 3]],
    normals: Option<&[[f32; 3]]>,
    tris: &[[u32; 3]],
    keep: &[bool],
) {
    let computed;
    let normals = match normals {
        Some(n) => n,
        None => {
            computed = face_normals(positions, tris);
            &computed
        }
    };
    for (i, &p) in positions.iter().enumerate().take(v.count) {
        if keep.get(i).copied().unwrap_or(false) {
            continue;
        }
        v.positions[i] = p;
        if let (Some(old), Some(new)) = (v.normals.get(i).copied(), normals.get(i).copied()) {
            let r = rotation_between(v3(old), v3(new));
            let len = v3(old).length();
            v.normals[i] = f3(v3(new).normalize_or_zero() * len);
            if let Some(t) = v.tangents.get_mut(i) {
                *t = turn(&r, *t);
            }
            if let Some(b) = v.binormals.get_mut(i) {
                *b = turn(&r, *b);
            }
        }
    }
}

/// What a new mesh's vertices had to be given because the mesh lacked it.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct NewAttributes {
    /// Names of the defaulted attributes (`normal`, `uv`, `lightmap uv`, `light`, `hemi`,
    /// `sun`).
    pub defaulted: Vec<&'static str>,
}

/// The neutral baked light of vertices without one: mid grey.
pub const DEFAULT_LIGHT: f32 = 0.5;
/// The neutral hemi (sky) and sun factor of vertices without one: fully lit.
pub const DEFAULT_HEMI_SUN: f32 = 1.0;

/// Vertices (X-Ray space) and X-Ray-wound triangles of a primitive placed by the glTF-space
/// world matrix `world`, with every attribute [`crate::vertex::Vertices`] can hold filled,
/// from the mesh where it has it: `uvs[0]` base UV, `uvs[1]` lightmap UV, custom `_LIGHT`
/// (RGBA) or `COLOR_0` the baked light, `_HEMI`, `_SUN`; tangents and binormals from the UVs.
pub(crate) fn new_vertices(
    p: &Primitive,
    world: &DMat4,
) -> (Vertices, Vec<[u32; 3]>, NewAttributes) {
    let n = p.positions.len();
    let mut notes = NewAttributes::default();
    let mirrored = world.determinant() < 0.0;
    let nm = world.inverse().transpose();
    let mirror = |v: DVec3| DVec3::new(v.x, v.y, -v.z);
    let positions: Vec<[f32; 3]> = p
        .positions
        .iter()
        .map(|&q| f3(mirror(world.transform_point3(v3(q)))))
        .collect();
    // glTF counter-clockwise → X-Ray clockwise: (0, 2, 1); a mirroring matrix flips once more
    let tris: Vec<[u32; 3]> = p
        .indices
        .chunks_exact(3)
        .filter(|t| t.iter().all(|&i| (i as usize) < n))
        .map(|t| {
            if mirrored {
                [t[0], t[1], t[2]]
            } else {
                [t[0], t[2], t[1]]
            }
        })
        .collect();
    let normals = if p.normals.len() == n {
        p.normals
            .iter()
            .map(|&q| f3(mirror(nm.transform_vector3(v3(q)).normalize_or(DVec3::Y))))
            .collect()
    } else {
        notes.defaulted.push("normal");
        face_normals(&positions, &tris)
    };
    let uv: Vec<[f32; 2]> = match p.uvs.first().filter(|s| s.len() == n) {
        Some(s) => s.clone(),
        None => {
            notes.defaulted.push("uv");
            vec![[0.0, 0.0]; n]
        }
    };
    let lightmap = match p.uvs.get(1).filter(|s| s.len() == n) {
        Some(s) => s.clone(),
        None => {
            notes.defaulted.push("lightmap uv");
            vec![[0.0, 0.0]; n]
        }
    };
    let light = p
        .vectors
        .iter()
        .find(|(k, v)| k == "_LIGHT" && v.len() == n)
        .map(|(_, v)| v.clone())
        .or_else(|| p.colors.first().filter(|c| c.len() == n).cloned());
    let colors = match light {
        Some(c) => c.iter().map(|c| [c[0], c[1], c[2]]).collect(),
        None => {
            notes.defaulted.push("light");
            vec![[DEFAULT_LIGHT; 3]; n]
        }
    };
    let mut scalar = |name: &str, label: &'static str| match p
        .scalars
        .iter()
        .find(|(k, v)| k == name && v.len() == n)
    {
        Some((_, v)) => v.clone(),
        None => {
            notes.defaulted.push(label);
            vec![DEFAULT_HEMI_SUN; n]
        }
    };
    let hemi = scalar("_HEMI", "hemi");
    let sun = scalar("_SUN", "sun");
    let (tangents, binormals) = tangent_frames(&positions, &uv, &normals, &tris);
    let v = Vertices {
        count: n,
        positions,
        normals,
        hemi,
        tangents,
        binormals,
        tangent_alpha: vec![0.0; n],
        binormal_alpha: vec![0.0; n],
        uv,
        lightmap,
        wind: vec![[0.0, 0.0]; n],
        colors,
        sun,
        other: Vec::new(),
    };
    (v, tris, notes)
}

/// The vertices `pick` of `v`, in that order (every attribute `v` has).
fn select(v: &Vertices, pick: &[u32]) -> Vertices {
    fn sel<T: Copy>(a: &[T], pick: &[u32]) -> Vec<T> {
        if a.is_empty() {
            return Vec::new();
        }
        pick.iter()
            .filter_map(|&i| a.get(i as usize).copied())
            .collect()
    }
    Vertices {
        count: pick.len(),
        positions: sel(&v.positions, pick),
        normals: sel(&v.normals, pick),
        hemi: sel(&v.hemi, pick),
        tangents: sel(&v.tangents, pick),
        binormals: sel(&v.binormals, pick),
        tangent_alpha: sel(&v.tangent_alpha, pick),
        binormal_alpha: sel(&v.binormal_alpha, pick),
        uv: sel(&v.uv, pick),
        lightmap: sel(&v.lightmap, pick),
        wind: sel(&v.wind, pick),
        colors: sel(&v.colors, pick),
        sun: sel(&v.sun, pick),
        other: v
            .other
            .iter()
            .map(|(e, vals)| (*e, sel(vals, pick)))
            .collect(),
    }
}

/// Split a mesh into parts of at most `max` vertices (u16 indices; xrLC's buffer limit),
/// triangles in order, each part taking the vertices its triangles use.
pub(crate) fn split(v: &Vertices, tris: &[[u32; 3]], max: usize) -> Vec<(Vertices, Vec<[u32; 3]>)> {
    if v.count <= max {
        return vec![(v.clone(), tris.to_vec())];
    }
    let mut parts = Vec::new();
    let mut map: std::collections::HashMap<u32, u32> = std::collections::HashMap::new();
    let mut pick: Vec<u32> = Vec::new();
    let mut part: Vec<[u32; 3]> = Vec::new();
    for t in tris {
        let new = t.iter().filter(|i| !map.contains_key(i)).count();
        if pick.len() + new > max {
            parts.push((select(v, &pick), std::mem::take(&mut part)));
            map.clear();
            pick.clear();
        }
        let local = t.map(|i| {
            *map.entry(i).or_insert_with(|| {
                pick.push(i);
                (pick.len() - 1) as u32
            })
        });
        part.push(local);
    }
    if !part.is_empty() {
        parts.push((select(v, &pick), part));
    }
    parts
}

/// Per-vertex tangent (dP/du) and binormal (dP/dv) from the triangles' UVs, orthogonalised
/// against the normal; a frame around the normal where the UVs do not give one.
pub(crate) fn tangent_frames(
    pos: &[[f32; 3]],
    uv: &[[f32; 2]],
    normals: &[[f32; 3]],
    tris: &[[u32; 3]],
) -> (Vec<[f32; 3]>, Vec<[f32; 3]>) {
    let n = pos.len();
    let mut t = vec![DVec3::ZERO; n];
    let mut b = vec![DVec3::ZERO; n];
    for tri in tris {
        let [i, j, k] = tri.map(|x| x as usize);
        let (p0, p1, p2) = (v3(pos[i]), v3(pos[j]), v3(pos[k]));
        let uvd = |a: usize, c: usize| {
            (
                f64::from(uv[c][0] - uv[a][0]),
                f64::from(uv[c][1] - uv[a][1]),
            )
        };
        let ((du1, dv1), (du2, dv2)) = (uvd(i, j), uvd(i, k));
        let det = du1 * dv2 - du2 * dv1;
        if det.abs() < 1e-20 {
            continue;
        }
        let (e1, e2) = (p1 - p0, p2 - p0);
        let dpdu = (e1 * dv2 - e2 * dv1) / det;
        let dpdv = (e2 * du1 - e1 * du2) / det;
        for x in [i, j, k] {
            t[x] += dpdu;
            b[x] += dpdv;
        }
    }
    let mut ts = Vec::with_capacity(n);
    let mut bs = Vec::with_capacity(n);
    for x in 0..n {
        let nn = v3(normals[x]).normalize_or(DVec3::Y);
        let other = if nn.x.abs() < 0.9 { DVec3::X } else { DVec3::Y };
        let tt = (t[x] - nn * nn.dot(t[x]))
            .try_normalize()
            .unwrap_or_else(|| nn.cross(other).normalize());
        let bb = (b[x] - nn * nn.dot(b[x]) - tt * tt.dot(b[x]))
            .try_normalize()
            .unwrap_or_else(|| nn.cross(tt).normalize());
        ts.push(f3(tt));
        bs.push(f3(bb));
    }
    (ts, bs)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_rotation_turns_directions_and_keeps_lengths() {
        let mut v = Vertices {
            count: 1,
            positions: vec![[1.0, 0.0, 0.0]],
            normals: vec![[0.0, 0.5, 0.0]],
            tangents: vec![[1.0, 0.0, 0.0]],
            binormals: vec![[0.0, 0.0, 1.0]],
            uv: vec![[0.25, 0.75]],
            ..Vertices::default()
        };
        let t = DMat4::from_translation(DVec3::new(0.0, 2.0, 0.0))
            * DMat4::from_rotation_z(std::f64::consts::FRAC_PI_2);
        transform(&mut v, &t);
        let close = |a: [f32; 3], b: [f32; 3]| a.iter().zip(b).all(|(x, y)| (x - y).abs() < 1e-6);
        assert!(close(v.positions[0], [0.0, 3.0, 0.0]), "{:?}", v.positions);
        assert!(close(v.normals[0], [-0.5, 0.0, 0.0]), "{:?}", v.normals);
        assert!(close(v.tangents[0], [0.0, 1.0, 0.0]));
        assert!(close(v.binormals[0], [0.0, 0.0, 1.0]));
        assert_eq!(v.uv, vec![[0.25, 0.75]]);
    }

    #[test]
    fn big_meshes_split_into_parts_that_fit() {
        // a strip of 10 triangles over 12 vertices, parts of at most 5 vertices
        let n = 12;
        let v = Vertices {
            count: n,
            positions: (0..n).map(|i| [i as f32, 0.0, 0.0]).collect(),
            uv: (0..n).map(|i| [i as f32, 1.0]).collect(),
            ..Vertices::default()
        };
        let tris: Vec<[u32; 3]> = (0..10u32).map(|i| [i, i + 1, i + 2]).collect();
        let parts = split(&v, &tris, 5);
        assert!(parts.iter().all(|(p, _)| p.count <= 5));
        assert_eq!(parts.iter().map(|(_, t)| t.len()).sum::<usize>(), 10);
        // every triangle keeps its corners
        let mut k = 0;
        for (p, ts) in &parts {
            for t in ts {
                let got = t.map(|i| p.positions[i as usize][0] as u32);
                assert_eq!(got, tris[k]);
                assert_eq!(p.uv[t[0] as usize][0], tris[k][0] as f32);
                k += 1;
            }
        }
        assert_eq!(split(&v, &tris, 12).len(), 1);
    }

    #[test]
    fn new_quad_is_wound_for_xray_and_defaults_what_it_lacks() {
        let p = Primitive {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 0.0, -1.0]],
            indices: vec![0, 1, 2],
            uvs: vec![vec![[0.0, 0.0], [1.0, 0.0], [1.0, 1.0]]],
            ..Primitive::default()
        };
        let (v, tris, notes) = new_vertices(&p, &DMat4::IDENTITY);
        assert_eq!(tris, vec![[0, 2, 1]]);
        // glTF z = −1 is X-Ray z = +1
        assert_eq!(v.positions[2], [1.0, 0.0, 1.0]);
        // counter-clockwise from +y in glTF: the face looks up, so the normal is +y
        assert!((v.normals[0][1] - 1.0).abs() < 1e-6, "{:?}", v.normals);
        assert_eq!(
            notes.defaulted,
            vec!["normal", "lightmap uv", "light", "hemi", "sun"]
        );
        assert!((v.tangents[0][0] - 1.0).abs() < 1e-6, "{:?}", v.tangents);
    }
}
