//! Repairs of scene content shared by the writers.
//!
//! The scene comes from engine converters that may have bugs or face corrupt input. Rather than
//! write a file that readers reject (the glTF validator refuses out-of-range indices, attribute
//! arrays of unequal length, NaN, non-unit normals), every writer first passes each primitive
//! through [`clean_primitive`], which:
//!
//! | problem | repair |
//! |---|---|
//! | index count not a multiple of 3 | trailing indices dropped |
//! | triangle with an index ≥ vertex count | triangle dropped |
//! | normals / tangents / a scalar of the wrong length | attribute dropped |
//! | a UV set of the wrong length | replaced by zeros (keeps the set numbering) |
//! | a colour set of the wrong length | replaced by opaque white |
//! | NaN or ±infinity anywhere | replaced by 0 |
//! | zero-length normal / tangent | `(0,0,1)` / `(1,0,0)`; others normalised, tangent `w` → ±1 |
//! | material index out of range | no material |
//!
//! Each repair adds a warning; non-finite replacements are counted and reported once.

use levelgeom_scene::Primitive;

/// Collected warnings of one export.
#[derive(Debug, Default)]
pub(crate) struct Repairs {
    /// Non-finite floats replaced by zero.
    pub non_finite: usize,
    /// Values clamped into the range the format allows.
    pub clamped: usize,
    /// Individual messages, in the order found.
    pub warnings: Vec<String>,
}

impl Repairs {
    /// Replace a non-finite float by 0, counting it.
    pub fn f(&mut self, v: f32) -> f32 {
        if v.is_finite() {
            v
        } else {
            self.non_finite += 1;
            0.0
        }
    }

    /// Finite and clamped into `lo..=hi`, counting either repair.
    pub fn clamp(&mut self, v: f32, lo: f32, hi: f32) -> f32 {
        let v = self.f(v);
        if v < lo {
            self.clamped += 1;
            lo
        } else if v > hi {
            self.clamped += 1;
            hi
        } else {
            v
        }
    }

    /// Add one message.
    pub fn warn(&mut self, msg: String) {
        self.warnings.push(msg);
    }

    /// All messages, with the counted repairs summarised at the end.
    pub fn finish(mut self) -> Vec<String> {
        if self.non_finite > 0 {
            self.warnings.push(format!(
                "replaced {} non-finite float value(s) (NaN or infinity) by 0",
                self.non_finite
            ));
        }
        if self.clamped > 0 {
            self.warnings.push(format!(
                "clamped {} value(s) into the range the format allows",
                self.clamped
            ));
        }
        self.warnings
    }
}

/// A primitive that is safe to write: consistent lengths, finite values, valid indices.
#[derive(Clone, Debug, Default)]
pub(crate) struct CleanPrimitive {
    /// Material index, checked against the scene.
    pub material: Option<usize>,
    /// Positions (at least one).
    pub positions: Vec<[f32; 3]>,
    /// Unit normals, if present.
    pub normals: Option<Vec<[f32; 3]>>,
    /// Unit tangents with `w` = ±1, if present.
    pub tangents: Option<Vec<[f32; 4]>>,
    /// UV sets, each one entry per vertex.
    pub uvs: Vec<Vec<[f32; 2]>>,
    /// Colour sets, each one entry per vertex.
    pub colors: Vec<Vec<[f32; 4]>>,
    /// Named scalar attributes, each one entry per vertex.
    pub scalars: Vec<(String, Vec<f32>)>,
    /// Triangle list (length a non-zero multiple of 3), every index < vertex count.
    pub indices: Vec<u32>,
}

/// Normalise a 3-vector, or return `fallback` when it has (near) zero length.
pub(crate) fn normalise(v: [f32; 3], fallback: [f32; 3]) -> [f32; 3] {
    let (x, y, z) = (v[0] as f64, v[1] as f64, v[2] as f64);
    let len = (x * x + y * y + z * z).sqrt();
    if !(len > 1e-12) || !len.is_finite() {
        return fallback;
    }
    [(x / len) as f32, (y / len) as f32, (z / len) as f32]
}

/// Check and repair `p`; `None` when nothing drawable is left (no vertices or no triangles).
/// `label` names the primitive in warnings (`mesh "floor" primitive 2`).
pub(crate) fn clean_primitive(
    p: &Primitive,
    material_count: usize,
    label: &str,
    rep: &mut Repairs,
) -> Option<CleanPrimitive> {
    let n = p.positions.len();
    if n == 0 && p.indices.is_empty() {
        return None;
    }
    if n == 0 {
        rep.warn(format!("{label}: has indices but no vertices; skipped"));
        return None;
    }
    let whole = p.indices.len() - p.indices.len() % 3;
    if whole != p.indices.len() {
        rep.warn(format!(
            "{label}: {} indices is not a multiple of 3; dropped the last {}",
            p.indices.len(),
            p.indices.len() - whole
        ));
    }
    let mut indices = Vec::with_capacity(whole);
    let mut bad_triangles = 0usize;
    for t in p.indices[..whole].chunks_exact(3) {
        if t.iter().all(|&i| (i as usize) < n) {
            indices.extend_from_slice(t);
        } else {
            bad_triangles += 1;
        }
    }
    if bad_triangles > 0 {
        rep.warn(format!(
            "{label}: dropped {bad_triangles} triangle(s) with a vertex index ≥ {n} vertices"
        ));
    }
    if indices.is_empty() {
        rep.warn(format!("{label}: no triangles; skipped"));
        return None;
    }
    let material = match p.material {
        Some(m) if m >= material_count => {
            rep.warn(format!(
                "{label}: material {m} does not exist ({material_count} materials); using the default"
            ));
            None
        }
        m => m,
    };
    let wrong_len = |what: &str, len: usize, rep: &mut Repairs| -> bool {
        if len == n {
            false
        } else {
            rep.warn(format!(
                "{label}: {what} has {len} entries for {n} vertices; {}",
                if what.starts_with("uv") {
                    "replaced by zeros"
                } else if what.starts_with("colour") {
                    "replaced by white"
                } else {
                    "dropped"
                }
            ));
            true
        }
    };
    let positions: Vec<[f32; 3]> = p
        .positions
        .iter()
        .map(|v| [rep.f(v[0]), rep.f(v[1]), rep.f(v[2])])
        .collect();
    let normals = if p.normals.is_empty() || wrong_len("normals", p.normals.len(), rep) {
        None
    } else {
        Some(
            p.normals
                .iter()
                .map(|v| normalise([rep.f(v[0]), rep.f(v[1]), rep.f(v[2])], [0.0, 0.0, 1.0]))
                .collect(),
        )
    };
    let tangents = if p.tangents.is_empty() || wrong_len("tangents", p.tangents.len(), rep) {
        None
    } else {
        Some(
            p.tangents
                .iter()
                .map(|v| {
                    let xyz =
                        normalise([rep.f(v[0]), rep.f(v[1]), rep.f(v[2])], [1.0, 0.0, 0.0]);
                    let w = if v[3] < 0.0 { -1.0 } else { 1.0 };
                    [xyz[0], xyz[1], xyz[2], w]
                })
                .collect(),
        )
    };
    let mut uvs = Vec::with_capacity(p.uvs.len());
    for (k, set) in p.uvs.iter().enumerate() {
        if wrong_len(&format!("uv set {k}"), set.len(), rep) {
            uvs.push(vec![[0.0; 2]; n]);
        } else {
            uvs.push(set.iter().map(|v| [rep.f(v[0]), rep.f(v[1])]).collect());
        }
    }
    let mut colors = Vec::with_capacity(p.colors.len());
    for (k, set) in p.colors.iter().enumerate() {
        if wrong_len(&format!("colour set {k}"), set.len(), rep) {
            colors.push(vec![[1.0; 4]; n]);
        } else {
            colors.push(
                set.iter()
                    .map(|v| [rep.f(v[0]), rep.f(v[1]), rep.f(v[2]), rep.f(v[3])])
                    .collect(),
            );
        }
    }
    let mut scalars = Vec::with_capacity(p.scalars.len());
    for (name, values) in &p.scalars {
        if !wrong_len(&format!("scalar {name:?}"), values.len(), rep) {
            scalars.push((name.clone(), values.iter().map(|&v| rep.f(v)).collect()));
        }
    }
    Some(CleanPrimitive {
        material,
        positions,
        normals,
        tangents,
        uvs,
        colors,
        scalars,
        indices,
    })
}
