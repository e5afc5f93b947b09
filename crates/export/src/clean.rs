//! Repairs of scene content shared by the writers.
//!
//! The scene comes from engine converters that may have bugs or face corrupt input. Rather than
//! write a file that readers reject (the glTF validator refuses out-of-range indices, attribute
//! arrays of unequal length, NaN, non-unit normals), every writer first passes each primitive
//! through [`clean_primitive`], which:
//!
//! | problem | repair |
//! |---|---|
//! | index count not a multiple of 3 (2 for lines) | trailing indices dropped |
//! | triangle (line) with an index ≥ vertex count | triangle (line) dropped |
//! | normals / tangents / a scalar of the wrong length | attribute dropped |
//! | a UV set of the wrong length | replaced by zeros (keeps the set numbering) |
//! | a colour set of the wrong length | replaced by opaque white |
//! | NaN or ±infinity anywhere | replaced by 0 |
//! | colour component outside 0..1 (glTF requires clamped colours) | clamped |
//! | zero-length normal / tangent | `(0,0,1)` / `(1,0,0)`; others normalised, tangent `w` → ±1 |
//! | material index out of range | no material |
//!
//! Each repair adds a warning; non-finite replacements are counted and reported once.
//!
//! Normals and tangents are checked here but repaired as they are read ([`Unit`]): almost
//! every engine's normals need re-normalising, and a writer that streams its output (the GLB's
//! BIN chunk, the OBJ text) then holds no repaired copy of every primitive's vectors.

use std::borrow::Cow;

use levelgeom_scene::{Hollow, Primitive, Topology};

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

    /// Add the repairs of a later part (its messages after these, its counts to these).
    pub fn absorb(&mut self, later: Repairs) {
        self.non_finite += later.non_finite;
        self.clamped += later.clamped;
        self.warnings.extend(later.warnings);
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

/// A label naming a part of the scene in warnings (`mesh 3 "floor" primitive 0`), formatted
/// only when a warning is written: most exports write none, and formatting thousands of names
/// (quoted, escaped) is a measurable part of an export.
pub(crate) struct Label<F: Fn(&mut std::fmt::Formatter<'_>) -> std::fmt::Result>(pub F);

impl<F: Fn(&mut std::fmt::Formatter<'_>) -> std::fmt::Result> std::fmt::Display for Label<F> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self.0)(f)
    }
}

/// A primitive that is safe to write: consistent lengths, finite values, valid indices.
///
/// Attributes that needed no repair borrow the scene's own arrays (no copy); repaired ones
/// are owned. The values are the same either way.
#[derive(Clone, Debug, Default)]
pub(crate) struct CleanPrimitive<'a> {
    /// Material index, checked against the scene.
    pub material: Option<usize>,
    /// Triangles or lines, as the scene's primitive.
    pub topology: Topology,
    /// Positions (at least one).
    pub positions: Cow<'a, [[f32; 3]]>,
    /// Unit normals, if present.
    pub normals: Option<Unit<'a, [f32; 3]>>,
    /// Unit tangents with `w` = ±1, if present.
    pub tangents: Option<Unit<'a, [f32; 4]>>,
    /// UV sets, each one entry per vertex.
    pub uvs: Vec<Cow<'a, [[f32; 2]]>>,
    /// Colour sets, each one entry per vertex.
    pub colors: Vec<Cow<'a, [[f32; 4]]>>,
    /// Named scalar attributes, each one entry per vertex.
    pub scalars: Vec<(&'a str, Cow<'a, [f32]>)>,
    /// Named four-component attributes, each one entry per vertex.
    pub vectors: Vec<(&'a str, Cow<'a, [[f32; 4]]>)>,
    /// Triangle list (length a non-zero multiple of 3; of 2 for lines), every index < vertex
    /// count.
    pub indices: Cow<'a, [u32]>,
    /// `Some` for a hollow primitive ([`clean_hollow`]): every vector above is empty, and this
    /// says what the primitive holds once filled and cleaned (when its turn in the output
    /// comes).
    pub hollow: Option<&'a Hollow>,
    /// A hollow primitive gets a zero `TEXCOORD_0` once filled (a textured material, no UVs;
    /// a primitive holding its data gets it at once).
    pub zero_uvs: bool,
}

impl CleanPrimitive<'_> {
    /// Number of vertices (a hollow primitive's once filled).
    pub fn vertex_count(&self) -> usize {
        self.hollow.map_or(self.positions.len(), |h| h.vertices)
    }

    /// Number of indices.
    pub fn index_count(&self) -> usize {
        self.hollow.map_or(self.indices.len(), |h| h.indices)
    }

    /// Whether it has normals.
    pub fn has_normals(&self) -> bool {
        self.hollow.map_or(self.normals.is_some(), |h| h.normals)
    }

    /// Whether it has tangents.
    pub fn has_tangents(&self) -> bool {
        self.hollow.map_or(self.tangents.is_some(), |h| h.tangents)
    }

    /// Number of UV sets.
    pub fn uv_sets(&self) -> usize {
        self.hollow
            .map_or(self.uvs.len(), |h| h.uvs + usize::from(self.zero_uvs))
    }

    /// Number of colour sets.
    pub fn colour_sets(&self) -> usize {
        self.hollow.map_or(self.colors.len(), |h| h.colors)
    }

    /// Names of the scalar attributes.
    pub fn scalar_names(&self) -> Vec<&str> {
        match self.hollow {
            Some(h) => h.scalars.iter().map(String::as_str).collect(),
            None => self.scalars.iter().map(|(n, _)| *n).collect(),
        }
    }

    /// Names of the four-component attributes.
    pub fn vector_names(&self) -> Vec<&str> {
        match self.hollow {
            Some(h) => h.vectors.iter().map(String::as_str).collect(),
            None => self.vectors.iter().map(|(n, _)| *n).collect(),
        }
    }
}

/// Values compared bit for bit (so that `-0.0` and `0.0` differ, as they do in the output).
pub(crate) trait Bits: Copy {
    /// Same bits.
    fn same(&self, other: &Self) -> bool;
}

impl Bits for f32 {
    fn same(&self, other: &Self) -> bool {
        self.to_bits() == other.to_bits()
    }
}

impl<const N: usize> Bits for [f32; N] {
    fn same(&self, other: &Self) -> bool {
        // every component compared (no early exit: the checks of whole blocks vectorise)
        self.iter()
            .zip(other)
            .fold(true, |same, (a, b)| same & (a.to_bits() == b.to_bits()))
    }
}

/// `f` applied to every element, borrowing `s` when `f` changes nothing. `f` is called exactly
/// once per element, in order (so repairs it counts are counted once).
pub(crate) fn map_cow<T: Bits>(s: &[T], mut f: impl FnMut(T) -> T) -> Cow<'_, [T]> {
    for (i, v) in s.iter().enumerate() {
        let w = f(*v);
        if !w.same(v) {
            let mut out = Vec::with_capacity(s.len());
            out.extend_from_slice(&s[..i]);
            out.push(w);
            out.extend(s[i + 1..].iter().map(|&v| f(v)));
            return Cow::Owned(out);
        }
    }
    Cow::Borrowed(s)
}

/// Whether every index is below `n`: the maximum compared once (a loop without an early exit,
/// which the compiler vectorises; the answer of `indices.iter().all(|&i| i < n)`).
fn below(indices: &[u32], n: usize) -> bool {
    (indices.iter().fold(0u32, |m, &i| m.max(i)) as usize) < n || indices.is_empty()
}

/// Whether every float is finite: the exponent bits of all of them checked without an early
/// exit (vectorised), as `values.iter().all(|v| v.is_finite())` answers.
fn all_finite(values: &[f32]) -> bool {
    const EXP: u32 = 0x7F80_0000;
    values
        .chunks(256)
        .all(|c| c.iter().fold(true, |ok, v| ok & (v.to_bits() & EXP != EXP)))
}

/// `values` with every non-finite float replaced by 0 (counted in `rep`), borrowed when all are
/// finite — which is checked first, vectorised ([`all_finite`]); otherwise [`map_cow`] with
/// [`Repairs::f`] on each component, as before.
fn finite_cow<'v, T: Bits + bytemuck::Pod + FloatArray>(
    values: &'v [T],
    rep: &mut Repairs,
) -> Cow<'v, [T]> {
    if all_finite(bytemuck::cast_slice(values)) {
        return Cow::Borrowed(values);
    }
    map_cow(values, |v| v.map_floats(|x| rep.f(x)))
}

/// A value made of f32 components, each mapped by [`FloatArray::map_floats`].
pub(crate) trait FloatArray: Copy {
    /// Every component mapped by `f`, in order.
    fn map_floats(self, f: impl FnMut(f32) -> f32) -> Self;
}

impl FloatArray for f32 {
    fn map_floats(self, mut f: impl FnMut(f32) -> f32) -> Self {
        f(self)
    }
}

impl<const N: usize> FloatArray for [f32; N] {
    fn map_floats(self, f: impl FnMut(f32) -> f32) -> Self {
        self.map(f)
    }
}

/// A unit vector as the writers need it, repaired from the scene's value: a normal
/// (`[f32; 3]`, non-finite components 0, normalised, `(0,0,1)` when of zero length) or a tangent
/// (`[f32; 4]`, `xyz` likewise with `(1,0,0)`, `w` → ±1).
pub(crate) trait Repair: Bits {
    /// The repaired value (non-finite components are not counted here: [`clean_primitive`]
    /// counts them once, when it checks the vectors).
    fn repaired(self) -> Self;
    /// How many of the components that [`Repair::repaired`] reads are not finite.
    fn non_finite(&self) -> usize;
}

fn finite(v: f32) -> f32 {
    if v.is_finite() {
        v
    } else {
        0.0
    }
}

impl Repair for [f32; 3] {
    #[inline]
    fn repaired(self) -> Self {
        normalise(self.map(finite), [0.0, 0.0, 1.0])
    }
    fn non_finite(&self) -> usize {
        self.iter().filter(|v| !v.is_finite()).count()
    }
}

impl Repair for [f32; 4] {
    #[inline]
    fn repaired(self) -> Self {
        let xyz = normalise(
            [finite(self[0]), finite(self[1]), finite(self[2])],
            [1.0, 0.0, 0.0],
        );
        let w = if self[3] < 0.0 { -1.0 } else { 1.0 };
        [xyz[0], xyz[1], xyz[2], w]
    }
    fn non_finite(&self) -> usize {
        self[..3].iter().filter(|v| !v.is_finite()).count()
    }
}

/// Values [`Unit::check`] checks at a time without an early exit.
const UNIT_BLOCK: usize = 64;

/// Normals or tangents of a cleaned primitive: values to write, those from `from` on repaired
/// ([`Repair`]) as they are read, so that no repaired copy is held (see the module docs).
#[derive(Clone, Debug)]
pub(crate) struct Unit<'a, T: Clone> {
    values: Cow<'a, [T]>,
    /// The first value that repairing changes (the length when none does): the ones before it
    /// are written as they are, and each value is repaired once, as [`map_cow`] did.
    from: usize,
}

impl<'a, T: Repair> Unit<'a, T> {
    /// `values` checked: the non-finite components counted in `rep`, and the first value that
    /// changes when repaired found.
    pub fn check(values: &'a [T], rep: &mut Repairs) -> Self {
        // blocks checked whole first (a loop without an early exit, which the compiler
        // vectorises), then the first block that has a changed value searched value by value:
        // the answer of `position(|v| !v.repaired().same(v))`
        let block = values
            .chunks(UNIT_BLOCK)
            .position(|b| !b.iter().fold(true, |ok, v| ok & v.repaired().same(v)))
            .unwrap_or(values.len() / UNIT_BLOCK + 1);
        let start = (block * UNIT_BLOCK).min(values.len());
        let from = values[start..]
            .iter()
            .position(|v| !v.repaired().same(v))
            .map_or(values.len(), |i| start + i);
        rep.non_finite += values[from..].iter().map(Repair::non_finite).sum::<usize>();
        Unit {
            values: Cow::Borrowed(values),
            from,
        }
    }

    /// Values that are already what is written.
    pub fn exact(values: Vec<T>) -> Self {
        Unit {
            from: values.len(),
            values: Cow::Owned(values),
        }
    }

    /// The values that need no repair (a prefix, borrowed as they are) and those that do.
    pub fn split(&self) -> (&[T], &[T]) {
        self.values.split_at(self.from)
    }

    /// The values as written (repaired where needed).
    pub fn iter(&self) -> impl Iterator<Item = T> + '_ {
        let (exact, repaired) = self.split();
        exact
            .iter()
            .copied()
            .chain(repaired.iter().map(|&v| v.repaired()))
    }
}

/// Normalise a 3-vector, or return `fallback` when it has (near) zero length.
pub(crate) fn normalise(v: [f32; 3], fallback: [f32; 3]) -> [f32; 3] {
    let (x, y, z) = (v[0] as f64, v[1] as f64, v[2] as f64);
    let len = (x * x + y * y + z * z).sqrt();
    if len.is_nan() || len <= 1e-12 || !len.is_finite() {
        return fallback;
    }
    [(x / len) as f32, (y / len) as f32, (z / len) as f32]
}

/// Check and repair `p`; `None` when nothing drawable is left (no vertices, or no triangles
/// or lines).
/// `label` names the primitive in warnings (`mesh "floor" primitive 2`).
pub(crate) fn clean_primitive<'a>(
    p: &'a Primitive,
    material_count: usize,
    label: &dyn std::fmt::Display,
    rep: &mut Repairs,
) -> Option<CleanPrimitive<'a>> {
    let n = p.positions.len();
    if !has_vertices(n, p.indices.len(), label, rep) {
        return None;
    }
    let arity = p.topology.arity();
    let what = element_name(p.topology);
    let whole = p.indices.len() - p.indices.len() % arity;
    if whole != p.indices.len() {
        rep.warn(format!(
            "{label}: {} indices is not a multiple of {arity}; dropped the last {}",
            p.indices.len(),
            p.indices.len() - whole
        ));
    }
    let all_valid = below(&p.indices[..whole], n);
    let indices: Cow<'a, [u32]> = if all_valid {
        Cow::Borrowed(&p.indices[..whole])
    } else {
        let mut indices = Vec::with_capacity(whole);
        let mut bad = 0usize;
        for t in p.indices[..whole].chunks_exact(arity) {
            if t.iter().all(|&i| (i as usize) < n) {
                indices.extend_from_slice(t);
            } else {
                bad += 1;
            }
        }
        rep.warn(format!(
            "{label}: dropped {bad} {what}(s) with a vertex index ≥ {n} vertices"
        ));
        Cow::Owned(indices)
    };
    if indices.is_empty() {
        rep.warn(format!("{label}: no {what}s; skipped"));
        return None;
    }
    let material = checked_material(p.material, material_count, label, rep);
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
    let positions = finite_cow(&p.positions, rep);
    let normals = if p.normals.is_empty() || wrong_len("normals", p.normals.len(), rep) {
        None
    } else {
        Some(Unit::check(&p.normals, rep))
    };
    let tangents = if p.tangents.is_empty() || wrong_len("tangents", p.tangents.len(), rep) {
        None
    } else {
        Some(Unit::check(&p.tangents, rep))
    };
    let mut uvs = Vec::with_capacity(p.uvs.len());
    for (k, set) in p.uvs.iter().enumerate() {
        // the name formatted only for a warning (`wrong_len` is false when the length fits)
        if set.len() != n && wrong_len(&format!("uv set {k}"), set.len(), rep) {
            uvs.push(Cow::Owned(vec![[0.0; 2]; n]));
        } else {
            uvs.push(finite_cow(set, rep));
        }
    }
    let mut colors = Vec::with_capacity(p.colors.len());
    for (k, set) in p.colors.iter().enumerate() {
        if set.len() != n && wrong_len(&format!("colour set {k}"), set.len(), rep) {
            colors.push(Cow::Owned(vec![[1.0; 4]; n]));
        } else {
            colors.push(map_cow(set, |v| v.map(|c| rep.clamp(c, 0.0, 1.0))));
        }
    }
    let mut scalars = Vec::with_capacity(p.scalars.len());
    for (name, values) in &p.scalars {
        if values.len() == n || !wrong_len(&format!("scalar {name:?}"), values.len(), rep) {
            scalars.push((name.as_str(), finite_cow(values, rep)));
        }
    }
    let mut vectors = Vec::with_capacity(p.vectors.len());
    for (name, values) in &p.vectors {
        if values.len() == n || !wrong_len(&format!("attribute {name:?}"), values.len(), rep) {
            vectors.push((name.as_str(), finite_cow(values, rep)));
        }
    }
    Some(CleanPrimitive {
        material,
        topology: p.topology,
        positions,
        normals,
        tangents,
        uvs,
        colors,
        scalars,
        vectors,
        indices,
        hollow: None,
        zero_uvs: false,
    })
}

/// Whether a primitive of `n` vertices and `indices` indices has vertices to draw (a warning
/// when it has indices but no vertices).
fn has_vertices(
    n: usize,
    indices: usize,
    label: &dyn std::fmt::Display,
    rep: &mut Repairs,
) -> bool {
    if n == 0 && indices > 0 {
        rep.warn(format!("{label}: has indices but no vertices; skipped"));
    }
    n > 0
}

/// What a primitive of `topology` draws, in warnings.
fn element_name(topology: Topology) -> &'static str {
    match topology {
        Topology::Triangles => "triangle",
        Topology::Lines => "line",
    }
}

/// The material index, `None` (with a warning) when it names no material.
fn checked_material(
    material: Option<usize>,
    material_count: usize,
    label: &dyn std::fmt::Display,
    rep: &mut Repairs,
) -> Option<usize> {
    match material {
        Some(m) if m >= material_count => {
            rep.warn(format!(
                "{label}: material {m} does not exist ({material_count} materials); using the default"
            ));
            None
        }
        m => m,
    }
}

/// [`clean_primitive`] of a hollow primitive (`p.hollow` is `h`), decided from what `h` says
/// it holds: its source keeps the promises of [`Hollow`] (whole, valid indices, every attribute
/// one entry per vertex), so the only decisions that change the layout are the ones made
/// here, with the same warnings; the values' repairs (non-finite floats, clamped colours) are
/// counted when it is filled ([`check_filled`]).
pub(crate) fn clean_hollow<'a>(
    p: &'a Primitive,
    h: &'a Hollow,
    material_count: usize,
    label: &dyn std::fmt::Display,
    rep: &mut Repairs,
) -> Option<CleanPrimitive<'a>> {
    if !has_vertices(h.vertices, h.indices, label, rep) {
        return None;
    }
    if h.indices == 0 {
        rep.warn(format!(
            "{label}: no {}s; skipped",
            element_name(p.topology)
        ));
        return None;
    }
    Some(CleanPrimitive {
        material: checked_material(p.material, material_count, label, rep),
        topology: p.topology,
        hollow: Some(h),
        ..CleanPrimitive::default()
    })
}

/// A hollow primitive's data (`filled`, from its source) cleaned as [`clean_primitive`] cleans
/// it, with its repairs counted in `rep`: `Err` with the reason when it is not what `planned`
/// ([`clean_hollow`]) laid out — a source that broke its promises.
pub(crate) fn check_filled<'f>(
    filled: &'f Primitive,
    planned: &CleanPrimitive<'_>,
    rep: &mut Repairs,
) -> Result<CleanPrimitive<'f>, String> {
    let mut own = Repairs::default();
    let c = clean_primitive(filled, usize::MAX, &"its data", &mut own);
    let Some(mut c) = c.filter(|_| own.warnings.is_empty()) else {
        return Err(format!(
            "needed repairs that change the layout ({})",
            own.warnings.join("; ")
        ));
    };
    if planned.zero_uvs && c.uvs.is_empty() {
        c.uvs.push(Cow::Owned(vec![[0.0; 2]; c.positions.len()]));
    }
    let same = c.vertex_count() == planned.vertex_count()
        && c.index_count() == planned.index_count()
        && c.has_normals() == planned.has_normals()
        && c.has_tangents() == planned.has_tangents()
        && c.uv_sets() == planned.uv_sets()
        && c.colour_sets() == planned.colour_sets()
        && c.scalar_names() == planned.scalar_names()
        && c.vector_names() == planned.vector_names();
    if !same {
        return Err("its data is not what it promised (counts or attributes)".into());
    }
    if let Some(h) = planned.hollow {
        // compared as numbers: the JSON holds h.bounds, which must bound the data
        let b = levelgeom_scene::position_bounds(c.positions.iter().copied());
        if b != h.bounds {
            return Err(format!(
                "its positions' bounds {b:?} are not the {:?} promised",
                h.bounds
            ));
        }
    }
    rep.non_finite += own.non_finite;
    rep.clamped += own.clamped;
    Ok(c)
}

/// Column-major 4×4 product `a · b` in f64.
pub(crate) fn mul64(a: &[f64; 16], b: &[f64; 16]) -> [f64; 16] {
    (glam::DMat4::from_cols_array(a) * glam::DMat4::from_cols_array(b)).to_cols_array()
}

/// Whether a column-major matrix is a translation × rotation × scale, as glTF requires of a
/// node `matrix`. Mirrors the Khronos validator's test (bottom row exactly `0 0 0 1`, non-zero
/// determinant, recomposition from T/R/S close to the matrix), with a 5× stricter tolerance:
/// the off-axis part of each column along another column must stay below 1e-5.
pub(crate) fn is_trs(m: &[f64; 16]) -> bool {
    if m[3] != 0.0 || m[7] != 0.0 || m[11] != 0.0 || m[15] != 1.0 {
        return false;
    }
    let col = |i: usize| glam::DVec3::new(m[i * 4], m[i * 4 + 1], m[i * 4 + 2]);
    let cols = [col(0), col(1), col(2)];
    let det = cols[0].dot(cols[1].cross(cols[2]));
    if det == 0.0 || !det.is_finite() {
        return false;
    }
    let len: Vec<f64> = cols.iter().map(|c| c.length()).collect();
    if len.iter().any(|&l| l < 1e-12) {
        return false;
    }
    for i in 0..3 {
        for j in 0..3 {
            if i != j && (cols[i].dot(cols[j]) / len[i]).abs() >= 1e-5 {
                return false;
            }
        }
    }
    true
}

/// Inverse-transpose of the upper 3×3 of `m` (row-major, up to a positive factor) and
/// whether `m` mirrors (negative determinant). The cofactor matrix is used rather than
/// `inverse().transpose()`: it needs no division, so near-singular node matrices still give
/// normals (which are normalised afterwards anyway).
fn normal_matrix(m: &[f64; 16]) -> ([[f64; 3]; 3], bool) {
    let a = |r: usize, c: usize| m[c * 4 + r];
    let mut n = [[0.0; 3]; 3];
    for (r, row) in n.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            let (r1, r2) = ((r + 1) % 3, (r + 2) % 3);
            let (c1, c2) = ((c + 1) % 3, (c + 2) % 3);
            // cofactor of (r, c); cofactor matrix = det × inverse-transpose
            *v = a(r1, c1) * a(r2, c2) - a(r1, c2) * a(r2, c1);
        }
    }
    let det = a(0, 0) * n[0][0] + a(0, 1) * n[0][1] + a(0, 2) * n[0][2];
    let mirrored = det < 0.0;
    if mirrored {
        n.iter_mut().flatten().for_each(|v| *v = -*v);
    }
    (n, mirrored)
}

/// A column-major matrix prepared for applying to vertices one at a time, with exactly the
/// arithmetic of [`bake`] (f64, rounded once to f32).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Transform {
    m3: [[f64; 3]; 3],
    t: [f64; 3],
    nm: [[f64; 3]; 3],
    /// The matrix mirrors (negative determinant): windings are reversed.
    pub mirrored: bool,
}

fn lin(r: &[[f64; 3]; 3], v: [f32; 3]) -> [f32; 3] {
    let v = v.map(|x| x as f64);
    [0, 1, 2].map(|i| (r[i][0] * v[0] + r[i][1] * v[1] + r[i][2] * v[2]) as f32)
}

impl Transform {
    /// Prepare `m`.
    pub fn new(m: &[f64; 16]) -> Transform {
        let (nm, mirrored) = normal_matrix(m);
        Transform {
            m3: [0, 1, 2].map(|r| [m[r], m[4 + r], m[8 + r]]),
            t: [m[12], m[13], m[14]],
            nm,
            mirrored,
        }
    }

    /// A position; non-finite results become 0 (counted in `rep`).
    #[inline]
    pub fn position(&self, p: [f32; 3], rep: &mut Repairs) -> [f32; 3] {
        let v = p.map(|x| x as f64);
        let m3 = &self.m3;
        [0, 1, 2].map(|i| {
            let x = m3[i][0] * v[0] + m3[i][1] * v[1] + m3[i][2] * v[2] + self.t[i];
            rep.f(x as f32)
        })
    }

    /// A normal, by the inverse-transpose, normalised.
    #[inline]
    pub fn normal(&self, n: [f32; 3]) -> [f32; 3] {
        normalise(lin(&self.nm, n), [0.0, 0.0, 1.0])
    }

    /// A tangent, by the 3×3, normalised, handedness flipped when mirroring.
    #[inline]
    pub fn tangent(&self, t: [f32; 4]) -> [f32; 4] {
        let xyz = normalise(lin(&self.m3, [t[0], t[1], t[2]]), [1.0, 0.0, 0.0]);
        let w = if self.mirrored { -t[3] } else { t[3] };
        [xyz[0], xyz[1], xyz[2], w]
    }
}

/// `c` with the column-major matrix `m` applied: positions by `m`, normals by its
/// inverse-transpose, tangents by its 3×3 (handedness flipped when mirroring), and the
/// triangle winding reversed when `m` mirrors, so front faces stay front faces.
pub(crate) fn bake<'a>(
    c: &CleanPrimitive<'a>,
    m: &[f64; 16],
    rep: &mut Repairs,
) -> CleanPrimitive<'a> {
    let t = Transform::new(m);
    let positions = c.positions.iter().map(|&p| t.position(p, rep)).collect();
    let normals = c
        .normals
        .as_ref()
        .map(|ns| Unit::exact(ns.iter().map(|v| t.normal(v)).collect()));
    let tangents = c
        .tangents
        .as_ref()
        .map(|ts| Unit::exact(ts.iter().map(|v| t.tangent(v)).collect()));
    let indices = if t.mirrored && c.topology == Topology::Triangles {
        Cow::Owned(
            c.indices
                .chunks_exact(3)
                .flat_map(|t| [t[0], t[2], t[1]])
                .collect(),
        )
    } else {
        c.indices.clone()
    };
    CleanPrimitive {
        material: c.material,
        topology: c.topology,
        positions,
        normals,
        tangents,
        uvs: c.uvs.clone(),
        colors: c.colors.clone(),
        scalars: c.scalars.clone(),
        vectors: c.vectors.clone(),
        indices,
        hollow: None,
        zero_uvs: false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The repairs as `clean_primitive` made them before normals and tangents were repaired on
    /// reading: every value mapped once through `rep.f` and `normalise`, a copy from the first
    /// change on.
    fn copied_normals(v: &[[f32; 3]], rep: &mut Repairs) -> Vec<[f32; 3]> {
        map_cow(v, |v| {
            normalise([rep.f(v[0]), rep.f(v[1]), rep.f(v[2])], [0.0, 0.0, 1.0])
        })
        .into_owned()
    }

    fn copied_tangents(v: &[[f32; 4]], rep: &mut Repairs) -> Vec<[f32; 4]> {
        map_cow(v, |v| {
            let xyz = normalise([rep.f(v[0]), rep.f(v[1]), rep.f(v[2])], [1.0, 0.0, 0.0]);
            let w = if v[3] < 0.0 { -1.0 } else { 1.0 };
            [xyz[0], xyz[1], xyz[2], w]
        })
        .into_owned()
    }

    fn bits<const N: usize>(v: &[[f32; N]]) -> Vec<[u32; N]> {
        v.iter().map(|a| a.map(f32::to_bits)).collect()
    }

    /// The vectorised checks answer as the loops they replace, on edge values and on many
    /// pseudo-random ones (bit patterns: every kind of float, NaN and infinity included).
    #[test]
    fn vectorised_checks_answer_as_the_loops() {
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = move || {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x
        };
        let edges = [
            0.0f32,
            -0.0,
            1.0,
            f32::MAX,
            f32::MIN,
            f32::MIN_POSITIVE,
            1e-45,
            f32::NAN,
            -f32::NAN,
            f32::INFINITY,
            f32::NEG_INFINITY,
        ];
        for len in [0usize, 1, 2, 3, 255, 256, 257, 1000] {
            for case in 0..40 {
                let mut v: Vec<f32> = (0..len)
                    .map(|_| {
                        let bits = next();
                        // mostly finite, sometimes anything at all
                        if bits % 7 == 0 {
                            f32::from_bits((bits >> 32) as u32)
                        } else {
                            (bits % 2000) as f32 / 7.0 - 140.0
                        }
                    })
                    .collect();
                if len > 0 && case < edges.len() {
                    let at = (next() as usize) % len;
                    v[at] = edges[case];
                }
                assert_eq!(all_finite(&v), v.iter().all(|f| f.is_finite()));
                let (mut a, mut b) = (Repairs::default(), Repairs::default());
                let got = finite_cow(&v, &mut a);
                let want = map_cow(&v, |f| b.f(f));
                let raw = |v: &[f32]| v.iter().map(|f| f.to_bits()).collect::<Vec<_>>();
                assert_eq!(raw(&got), raw(&want));
                assert_eq!(
                    matches!(got, Cow::Borrowed(_)),
                    matches!(want, Cow::Borrowed(_))
                );
                assert_eq!(a.non_finite, b.non_finite);
                let idx: Vec<u32> = (0..len).map(|_| (next() % 70_000) as u32).collect();
                for n in [0usize, 1, 65_535, 65_536, 69_999, 70_000] {
                    assert_eq!(below(&idx, n), idx.iter().all(|&i| (i as usize) < n));
                }
            }
        }
        // vec3 positions: one non-finite component is replaced, the others kept
        let p = [[1.0f32, f32::NAN, -0.0], [2.0, 3.0, 4.0]];
        let mut rep = Repairs::default();
        let got = finite_cow(&p, &mut rep);
        assert_eq!(bits(&got), bits(&[[1.0, 0.0, -0.0], [2.0, 3.0, 4.0]]));
        assert_eq!(rep.non_finite, 1);
    }

    #[test]
    fn units_read_as_the_copies_were_made() {
        let s = std::f32::consts::FRAC_1_SQRT_2;
        let normals: Vec<[f32; 3]> = vec![
            [0.0, 1.0, 0.0],
            [s, s, 0.0],
            [1.0, 1.0, 0.0],
            [0.0, 0.0, 0.0],
            [f32::NAN, 2.0, 0.0],
            [f32::INFINITY, f32::NEG_INFINITY, 3.0],
            [1e-30, 0.0, 0.0],
            [-0.6, 0.8, 0.0],
        ];
        let tangents: Vec<[f32; 4]> = normals
            .iter()
            .zip([1.0, -1.0, 0.0, -0.0, f32::NAN, -2.0, 5.0, -1.0])
            .map(|(n, w)| [n[2], n[0], n[1], w])
            .collect();
        // each value alone, each suffix (the first change at every position) and the whole
        for k in 0..normals.len() {
            for (lo, hi) in [(k, k + 1), (k, normals.len()), (0, k)] {
                let (n, t) = (&normals[lo..hi], &tangents[lo..hi]);
                let (mut old, mut new) = (Repairs::default(), Repairs::default());
                let want = (copied_normals(n, &mut old), copied_tangents(t, &mut old));
                let (un, ut) = (Unit::check(n, &mut new), Unit::check(t, &mut new));
                let got: (Vec<_>, Vec<_>) = (un.iter().collect(), ut.iter().collect());
                assert_eq!(bits(&got.0), bits(&want.0), "normals {lo}..{hi}");
                assert_eq!(bits(&got.1), bits(&want.1), "tangents {lo}..{hi}");
                assert_eq!(new.non_finite, old.non_finite, "count {lo}..{hi}");
            }
        }
        // the hand-computed cases: (1,1,0) → (√½, √½, 0); zero → the fallback; NaN → 0
        let mut rep = Repairs::default();
        let got: Vec<[f32; 3]> = Unit::check(&normals, &mut rep).iter().collect();
        assert_eq!(got[2], [s, s, 0.0]);
        assert_eq!(got[3], [0.0, 0.0, 1.0]);
        assert_eq!(got[4], [0.0, 1.0, 0.0]);
        assert_eq!(got[5], [0.0, 0.0, 1.0]);
        assert_eq!(rep.non_finite, 3);
        // unit values already written as they are: borrowed, nothing repaired
        let unit = [[0.0f32, 1.0, 0.0], [0.0, 0.0, -1.0]];
        assert_eq!(Unit::check(&unit, &mut rep).split().1.len(), 0);
    }
}
