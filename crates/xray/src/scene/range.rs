//! A range of a vertex and an index buffer checked for drawing ([`Range`]), and the decoding of
//! it into a primitive ([`Range::fill_into`]): the scene's vectors, in glTF space (mirrored, the
//! tangent frame built, the winding reversed), filled once for the full scene or again and again
//! into a reused buffer for a hollow one ([`super::GeomSource`]).

use levelgeom_scene::{Hollow, Primitive};

use super::{mirror, pivot};
use crate::geom::{SlideWindow, VertexBuffer};
use crate::index_data::IndexData;
use crate::ogf::GContainer;
use crate::vertex;

fn normalize(v: [f32; 3], fallback: [f32; 3]) -> [f32; 3] {
    normalize_or_else(v, || fallback)
}

/// [`normalize`] with the fallback computed only when it is needed.
#[inline]
fn normalize_or_else(v: [f32; 3], fallback: impl FnOnce() -> [f32; 3]) -> [f32; 3] {
    let v = glam::Vec3::from_array(v);
    let l = v.length();
    if l > 1e-6 && l.is_finite() {
        (v / l).to_array()
    } else {
        fallback()
    }
}

fn cross(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    glam::Vec3::from_array(a)
        .cross(glam::Vec3::from_array(b))
        .to_array()
}

fn dot(a: [f32; 3], b: [f32; 3]) -> f32 {
    glam::Vec3::from_array(a).dot(glam::Vec3::from_array(b))
}

/// A buffer range checked for drawing: what its primitive is decoded from, and which
/// attributes it has. [`Range::reserve`] allocates its vectors (on the thread that checks the
/// ranges, one after the other: worker threads growing their own allocator arenas page by page
/// cost a system call each time) and [`Range::fill_into`] fills them on any thread; a hollow
/// primitive's source fills a reused buffer with the same [`Range::fill_into`].
pub(super) struct Range<'g> {
    decoder: vertex::Decoder<'g>,
    /// The range's vertex bytes.
    raw: &'g [u8],
    /// Its triangles (indices into the range).
    idx: &'g [u16],
    /// Its vertex count.
    n: usize,
    /// Whether its normal, tangent and binormal are all there (the tangent frame is built).
    frame: bool,
    layout: Layout,
    /// A role that the declaration gives twice: its values would not come one per vertex, so
    /// the primitive cannot promise its counts ([`levelgeom_scene::Hollow`]) and is decoded
    /// whole.
    pub(super) repeated: bool,
}

/// Which vectors a range's primitive fills (those of the attributes of its first vertex).
#[derive(Clone, Debug, Default)]
struct Layout {
    normals: bool,
    tangents: bool,
    uvs: usize,
    colors: usize,
    scalars: Vec<&'static str>,
}

/// Check one buffer range; `Err` with a reason when the range is bad. Only the visual's own
/// vertices will be decoded (vertices decode independently of each other, so the values are
/// those of decoding the whole buffer); with `geometry_only` only their positions and normals
/// ([`SceneOptions::geometry_only`]).
fn check_range<'g>(
    vb: &'g VertexBuffer,
    ib: &'g [u16],
    g: &GContainer,
    window: Option<SlideWindow>,
    geometry_only: bool,
) -> Result<Range<'g>, String> {
    let stride = vb.stride();
    let total = vb.data.len().checked_div(stride).unwrap_or(0);
    let vb0 = g.vb_offset as usize;
    let (idx_start, idx_len, nverts) = match window {
        Some(w) => (
            (g.ib_offset as usize).saturating_add(w.offset as usize),
            usize::from(w.num_tris) * 3,
            usize::from(w.num_verts).min(g.vb_count as usize),
        ),
        None => (
            g.ib_offset as usize,
            g.ib_count as usize,
            g.vb_count as usize,
        ),
    };
    if vb0.saturating_add(nverts) > total {
        return Err(format!(
            "vertices {vb0}..{} outside the buffer's {total}",
            vb0 + nverts
        ));
    }
    let idx = ib
        .get(idx_start..idx_start.saturating_add(idx_len))
        .ok_or_else(|| {
            format!(
                "indices {idx_start}..+{idx_len} outside the buffer's {}",
                ib.len()
            )
        })?;
    // the largest index first (a loop without an early exit, vectorised), the first bad one
    // only when there is one
    let largest = idx.iter().fold(0u16, |m, &i| m.max(i));
    if !idx.is_empty() && usize::from(largest) >= nverts {
        if let Some(&bad) = idx.iter().find(|&&i| usize::from(i) >= nverts) {
            return Err(format!("index {bad} not below the {nverts} vertices used"));
        }
    }
    let raw = &vb.data[vb0 * stride..(vb0 + nverts) * stride];
    let decoder = vertex::Decoder::new(&vb.decl);
    // without the other groups, the first vertex shows only these two: nothing else is reserved
    let decoder = if geometry_only {
        decoder.geometry()
    } else {
        decoder
    };
    if nverts == 0 {
        // no vertices (and so no indices): every attribute is as long as the range
        return Ok(Range {
            decoder,
            raw,
            idx,
            n: 0,
            frame: false,
            layout: Layout {
                uvs: 2,
                colors: 1,
                scalars: vec!["_HEMI", "_SUN", "_WIND"],
                ..Layout::default()
            },
            repeated: false,
        });
    }
    // which attributes the range has: those of its first vertex (the declaration's roles)
    let mut first = Seen::default();
    decoder.columns(raw.get(..stride).unwrap_or_default(), &mut first);
    if !first.position {
        return Err("the vertex buffer has no FLOAT3 position".into());
    }
    let frame = first.normal && first.tangent && first.binormal;
    let scalars = [
        // the packed normal's fourth byte: decoded with it, kept only with the other attributes
        ("_HEMI", first.hemi && !geometry_only),
        ("_SUN", first.sun),
        ("_WIND", first.wind),
    ]
    .into_iter()
    .filter_map(|(name, has)| has.then_some(name))
    .collect();
    Ok(Range {
        decoder,
        raw,
        idx,
        n: nverts,
        frame,
        layout: Layout {
            normals: first.normal,
            tangents: frame,
            uvs: if first.uv {
                1 + usize::from(first.lightmap)
            } else {
                0
            },
            colors: usize::from(first.color),
            scalars,
        },
        repeated: first.repeated,
    })
}

/// Which attributes a vertex has (decoded for nothing else), and whether one came twice.
#[derive(Default)]
struct Seen {
    position: bool,
    normal: bool,
    hemi: bool,
    tangent: bool,
    binormal: bool,
    uv: bool,
    wind: bool,
    lightmap: bool,
    color: bool,
    sun: bool,
    pub(super) repeated: bool,
}

impl Seen {
    fn see(repeated: &mut bool, role: &mut bool) {
        *repeated |= std::mem::replace(role, true);
    }
}

impl vertex::Columns for Seen {
    fn position(&mut self, _: usize, _: [f32; 3]) {
        Seen::see(&mut self.repeated, &mut self.position);
    }
    fn normal(&mut self, _: usize, _: [f32; 3]) {
        Seen::see(&mut self.repeated, &mut self.normal);
    }
    fn hemi(&mut self, _: usize, _: f32) {
        Seen::see(&mut self.repeated, &mut self.hemi);
    }
    fn tangent(&mut self, _: usize, _: [f32; 3]) {
        Seen::see(&mut self.repeated, &mut self.tangent);
    }
    fn binormal(&mut self, _: usize, _: [f32; 3]) {
        Seen::see(&mut self.repeated, &mut self.binormal);
    }
    fn uv(&mut self, _: usize, _: [f32; 2]) {
        Seen::see(&mut self.repeated, &mut self.uv);
    }
    fn wind(&mut self, _: usize, _: [f32; 2]) {
        Seen::see(&mut self.repeated, &mut self.wind);
    }
    fn lightmap(&mut self, _: usize, _: [f32; 2]) {
        Seen::see(&mut self.repeated, &mut self.lightmap);
    }
    fn color(&mut self, _: usize, _: [f32; 3]) {
        Seen::see(&mut self.repeated, &mut self.color);
    }
    fn sun(&mut self, _: usize, _: f32) {
        Seen::see(&mut self.repeated, &mut self.sun);
    }
}

/// The mirrored positions of a range, into a buffer (the positions-only pass of a hollow
/// primitive: its pivot and bounds).
struct Positions<'b>(&'b mut Vec<[f32; 3]>);

impl vertex::Columns for Positions<'_> {
    fn positions(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.0.extend(all.map(mirror));
    }
}

/// A primitive being filled by [`Range::fill`]: the decoded values put into the scene's
/// layout as they come (see there).
struct Fill<'p> {
    p: &'p mut Primitive,
    /// Build the tangent frame (normal, tangent and binormal are there).
    frame: bool,
    /// Where `_HEMI`, `_SUN` and `_WIND` are in `p.scalars`.
    hemi: usize,
    sun: usize,
    wind: usize,
}

/// Each column extends its vector at once (the scalar sets looked up once per column).
impl vertex::Columns for Fill<'_> {
    fn positions(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.p.positions.extend(all.map(mirror));
    }
    fn normals(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        self.p
            .normals
            .extend(all.map(|n| mirror(normalize(n, [0.0, 1.0, 0.0]))));
    }
    fn hemis(&mut self, all: impl Iterator<Item = f32>) {
        if let Some((_, set)) = self.p.scalars.get_mut(self.hemi) {
            set.extend(all);
        }
    }
    fn tangents(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        if self.frame {
            // as decoded until the binormals come (their group is the next)
            self.p.tangents.extend(all.map(|t| [t[0], t[1], t[2], 0.0]));
        }
    }
    fn binormals(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        if self.frame {
            // one pass over the vertices' normal, decoded tangent and binormal
            let frames = self.p.tangents.iter_mut().zip(&self.p.normals);
            for ((t, &n), b) in frames.zip(all) {
                *t = tangent_frame(n, [t[0], t[1], t[2]], b);
            }
        }
    }
    fn uvs(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        if let Some(set) = self.p.uvs.first_mut() {
            set.extend(all);
        }
    }
    fn winds(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        if let Some((_, set)) = self.p.scalars.get_mut(self.wind) {
            set.extend(all.map(|w| w[0]));
        }
    }
    fn lightmaps(&mut self, all: impl Iterator<Item = [f32; 2]>) {
        // only with a base UV set before it
        if let Some(set) = self.p.uvs.get_mut(1) {
            set.extend(all);
        }
    }
    fn colors(&mut self, all: impl Iterator<Item = [f32; 3]>) {
        if let Some(set) = self.p.colors.first_mut() {
            set.extend(all.map(|c| [c[0], c[1], c[2], 1.0]));
        }
    }
    fn suns(&mut self, all: impl Iterator<Item = f32>) {
        if let Some((_, set)) = self.p.scalars.get_mut(self.sun) {
            set.extend(all);
        }
    }
}

/// The tangent of a vertex in the mirrored frame, made orthogonal to its (mirrored, unit)
/// normal `n` (Gram-Schmidt) so that glTF gets an orthogonal unit tangent, with `w` the
/// handedness of the binormal.
#[inline]
fn tangent_frame(n: [f32; 3], tangent: [f32; 3], binormal: [f32; 3]) -> [f32; 4] {
    let t = mirror(normalize(tangent, [1.0, 0.0, 0.0]));
    let d = dot(n, t);
    // the fallback (a tangent along the normal) computed only for such a tangent
    let t = normalize_or_else([t[0] - n[0] * d, t[1] - n[1] * d, t[2] - n[2] * d], || {
        let a = if n[0].abs() < 0.9 {
            [1.0, 0.0, 0.0]
        } else {
            [0.0, 1.0, 0.0]
        };
        normalize(cross(n, a), [1.0, 0.0, 0.0])
    });
    let b = mirror(binormal);
    let w = if dot(cross(n, t), b) < 0.0 { -1.0 } else { 1.0 };
    [t[0], t[1], t[2], w]
}

impl Range<'_> {
    /// A primitive with room for the range's vectors (see [`Range::fill_into`]).
    pub(super) fn reserve(&self) -> Primitive {
        let mut p = Primitive::default();
        self.prepare(&mut p);
        p
    }

    /// Make `out` the range's vectors, empty with room for its values: the ones it has
    /// cleared and reused (a reused buffer's, or those of [`Range::reserve`]), the ones it lacks
    /// added, the others dropped; a buffer that held `_LIGHT` ([`light_as_vector`]) gives its
    /// vector back to the colours.
    fn prepare(&self, out: &mut Primitive) {
        fn room<T>(v: &mut Vec<T>, has: bool, n: usize) {
            v.clear();
            if has {
                v.reserve(n);
            }
        }
        let (n, l) = (self.n, &self.layout);
        room(&mut out.positions, true, n);
        room(&mut out.normals, l.normals, n);
        room(&mut out.tangents, l.tangents, n);
        out.uvs.resize_with(l.uvs, Vec::new);
        out.uvs.iter_mut().for_each(|set| room(set, true, n));
        if out.colors.len() < l.colors {
            if let Some((_, light)) = out.vectors.pop() {
                out.colors.push(light);
            }
        }
        out.vectors.clear();
        out.colors.resize_with(l.colors, Vec::new);
        out.colors.iter_mut().for_each(|set| room(set, true, n));
        out.scalars.truncate(l.scalars.len());
        for (k, &name) in l.scalars.iter().enumerate() {
            match out.scalars.get_mut(k) {
                Some((have, set)) => {
                    if have != name {
                        *have = name.to_string();
                    }
                    room(set, true, n);
                }
                None => out.scalars.push((name.to_string(), Vec::with_capacity(n))),
            }
        }
        out.indices.clear();
        out.indices.reserve(self.idx.len() / 3 * 3);
    }

    /// Decode the range into `out` ([`Range::prepare`]d first): positions mirrored into glTF
    /// space, normals normalised and mirrored, the tangent frame, the UV sets (base, then
    /// lightmap), the colour with alpha 1, `_HEMI`, `_SUN` and `_WIND` (the wind factor), and
    /// the triangles with their winding reversed (the mirror flips it).
    pub(super) fn fill_into(&self, out: &mut Primitive) {
        self.prepare(out);
        let at = |name: &str| {
            out.scalars
                .iter()
                .position(|(n, _)| n == name)
                .unwrap_or(usize::MAX)
        };
        let (hemi, sun, wind) = (at("_HEMI"), at("_SUN"), at("_WIND"));
        self.decoder.columns(
            self.raw,
            &mut Fill {
                p: out,
                frame: self.frame,
                hemi,
                sun,
                wind,
            },
        );
        self.triangles_into(&mut out.indices);
    }

    /// The range's triangles with their winding reversed (the mirror flips it), as
    /// [`Range::fill_into`] gives them, into `indices` (cleared first).
    fn triangles_into(&self, indices: &mut Vec<u32>) {
        // pre-sized, then written triangle by triangle (no per-index push)
        let tris = self.idx.chunks_exact(3);
        indices.clear();
        indices.resize(tris.len() * 3, 0);
        for (o, t) in indices.chunks_exact_mut(3).zip(tris) {
            o.copy_from_slice(&[u32::from(t[0]), u32::from(t[2]), u32::from(t[1])]);
        }
    }

    /// The range's positions and triangles alone, those of [`Range::fill_into`] bit for bit
    /// (positions mirrored, winding reversed), into `positions` and `indices` (cleared
    /// first, their capacity kept): no other attribute is decoded.
    pub(super) fn shape_into(&self, positions: &mut Vec<[f32; 3]>, indices: &mut Vec<u32>) {
        self.positions_into(positions);
        self.triangles_into(indices);
    }

    /// The range's mirrored positions alone, as [`Range::fill_into`] gives them, into
    /// `positions` (cleared first, its capacity kept).
    fn positions_into(&self, positions: &mut Vec<[f32; 3]>) {
        positions.clear();
        positions.reserve(self.n);
        self.decoder
            .clone()
            .positions()
            .columns(self.raw, &mut Positions(positions));
    }

    /// The range decoded into a new primitive.
    pub(super) fn fill(&self) -> Primitive {
        let mut p = self.reserve();
        self.fill_into(&mut p);
        p
    }

    /// The positions-only pass of a hollow primitive: the centre of its positions
    /// ([`pivot::centre`], the mesh's pivot) and the bounds of the positions moved by it (as
    /// the GLB writer folds them), through `scratch` (a buffer of the calling thread).
    pub(super) fn pivot_and_bounds(
        &self,
        scratch: &mut Vec<[f32; 3]>,
    ) -> ([f32; 3], ([f64; 3], [f64; 3])) {
        self.positions_into(scratch);
        let c = pivot::centre(scratch);
        pivot::recentre(scratch, c);
        (c, levelgeom_scene::position_bounds(scratch.iter().copied()))
    }

    /// The hollow primitive's promises ([`levelgeom_scene::Hollow`]) once [`GeomSource::fill`]
    /// has filled it: the range's layout, with the colour moved to `_LIGHT` as
    /// [`light_as_vector`] moves it unless `vertex_light`.
    pub(super) fn hollow(
        &self,
        key: usize,
        bounds: ([f64; 3], [f64; 3]),
        vertex_light: bool,
    ) -> Hollow {
        let l = &self.layout;
        let light = !vertex_light && l.colors > 0;
        Hollow {
            key,
            vertices: self.n,
            indices: self.idx.len() / 3 * 3,
            normals: l.normals,
            tangents: l.tangents,
            uvs: l.uvs,
            colors: l.colors - usize::from(light),
            scalars: l.scalars.iter().map(|s| s.to_string()).collect(),
            vectors: if light {
                vec!["_LIGHT".to_string()]
            } else {
                Vec::new()
            },
            bounds,
        }
    }
}

/// [`check_range`] of the buffers a GCONTAINER names, or why they do not exist.
pub(super) fn range_of<'g>(
    vbs: &'g [VertexBuffer],
    ibs: &'g [IndexData],
    g: &GContainer,
    window: Option<SlideWindow>,
    geometry_only: bool,
) -> Result<Range<'g>, String> {
    match (vbs.get(g.vb_index as usize), ibs.get(g.ib_index as usize)) {
        (Some(vb), Some(ib)) => check_range(vb, ib, g, window, geometry_only),
        _ => Err(format!(
            "buffer {} / {} does not exist",
            g.vb_index, g.ib_index
        )),
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;
    use crate::decl::{DeclType, Declaration, Element, Usage};
    use vertex::{decode_base, decode_dir, decode_fixed, decode_unit, LMAP_SCALE};

    /// Position, FLOAT3 normal (any f32, NaN included), packed tangent and binormal, base UV
    /// with its fractions in their alphas, lightmap UV, colour: 44 bytes.
    fn decl() -> Declaration {
        use DeclType::*;
        Declaration::new(vec![
            Element::new(0, Float3, Usage::Position, 0),
            Element::new(12, Float3, Usage::Normal, 0),
            Element::new(24, D3dColor, Usage::Tangent, 0),
            Element::new(28, D3dColor, Usage::Binormal, 0),
            Element::new(32, Short2, Usage::TexCoord, 0),
            Element::new(36, Short2, Usage::TexCoord, 1),
            Element::new(40, D3dColor, Usage::Color, 0),
        ])
    }

    fn f32s(raw: &[u8], at: usize) -> [f32; 3] {
        [0, 4, 8].map(|k| f32::from_le_bytes(raw[at + k..at + k + 4].try_into().unwrap()))
    }

    fn s16(raw: &[u8], at: usize) -> i16 {
        i16::from_le_bytes([raw[at], raw[at + 1]])
    }

    fn bits<const K: usize>(v: &[[f32; K]]) -> Vec<[u32; K]> {
        v.iter().map(|x| x.map(f32::to_bits)).collect()
    }

    #[test]
    fn the_column_fill_gives_the_per_vertex_formulas_bit_for_bit() {
        let d = decl();
        let stride = d.stride();
        assert_eq!(stride, 44);
        let awkward = [
            0.0f32,
            -0.0,
            1.0,
            -1.0,
            f32::from_bits(1), // the smallest denormal
            -f32::from_bits(0x007F_FFFF),
            1e-7,
            f32::MIN_POSITIVE,
            f32::MAX,
            f32::INFINITY,
            f32::NEG_INFINITY,
            f32::NAN,
            0.3,
            -123.456,
        ];
        let bytes = [0u8, 1, 127, 128, 129, 254, 255, 51];
        let codes = [
            i16::MIN,
            i16::MIN + 1,
            -1024,
            -1,
            0,
            1,
            511,
            1024,
            i16::MAX - 1,
            i16::MAX,
        ];
        let mut raw = Vec::new();
        let mut k = 0usize;
        for &a in &awkward {
            for &b in &awkward {
                for &c in &[0.0f32, -0.0, f32::NAN, 2.5, 1e-30] {
                    k += 1;
                    let pick = |n: usize| bytes[(k * 7 + n * 3) % bytes.len()];
                    for x in [a, b, c] {
                        raw.extend_from_slice(&(x * 3.0).to_le_bytes()); // position
                    }
                    for x in [a, b, c] {
                        raw.extend_from_slice(&x.to_le_bytes()); // normal
                    }
                    raw.extend_from_slice(&[pick(0), pick(1), pick(2), pick(3)]);
                    // every fourth binormal parallel to its tangent's bytes
                    if k % 4 == 0 {
                        let t = raw[raw.len() - 4..].to_vec();
                        raw.extend_from_slice(&[t[0], t[1], t[2], pick(4)]);
                    } else {
                        raw.extend_from_slice(&[pick(5), pick(6), pick(7), pick(4)]);
                    }
                    for n in 0..4 {
                        let s = codes[(k * 3 + n * 5) % codes.len()];
                        raw.extend_from_slice(&s.to_le_bytes());
                    }
                    raw.extend_from_slice(&[pick(8), pick(9), pick(10), pick(11)]);
                }
            }
        }
        // tangents along their normals (the Gram-Schmidt fallback)
        for nrm in [
            [1.0f32, 1.0, 1.0],
            [-1.0, -1.0, -1.0],
            [0.0, 0.0, 0.0],
            [2.0, 2.0, 2.0],
            [0.5; 3],
        ] {
            raw.extend_from_slice(&[0; 12]);
            for x in nrm {
                raw.extend_from_slice(&x.to_le_bytes());
            }
            raw.extend_from_slice(&[255, 255, 255, 7, 0, 255, 0, 9]);
            raw.extend_from_slice(&[0; 12]);
        }
        let n = raw.len() / stride;
        let idx: Vec<u16> = (0..n as u16).chain([2, 0]).collect(); // a tail that is no triangle
        let range = Range {
            decoder: vertex::Decoder::new(&d),
            raw: &raw,
            idx: &idx,
            n,
            frame: true,
            layout: Layout {
                normals: true,
                tangents: true,
                uvs: 2,
                colors: 1,
                scalars: vec!["_SUN"],
            },
            repeated: false,
        };
        // filled into a reused primitive holding other values
        let mut p = Primitive::default();
        p.positions.push([9.0; 3]);
        p.scalars.push(("_WIND".into(), vec![1.0]));
        range.fill_into(&mut p);

        // the straightforward formulas, vertex by vertex
        let mut want = Primitive::default();
        let mut uv = Vec::new();
        let mut lmap = Vec::new();
        let mut color = Vec::new();
        let mut sun = Vec::new();
        for v in raw.chunks_exact(stride) {
            want.positions.push(mirror(f32s(v, 0)));
            let nrm = mirror(normalize(f32s(v, 12), [0.0, 1.0, 0.0]));
            want.normals.push(nrm);
            let dir = |at: usize| {
                [
                    decode_dir(v[at + 2]),
                    decode_dir(v[at + 1]),
                    decode_dir(v[at]),
                ]
            };
            want.tangents.push(tangent_frame(nrm, dir(24), dir(28)));
            uv.push([
                decode_base(s16(v, 32), v[27]),
                decode_base(s16(v, 34), v[31]),
            ]);
            lmap.push([
                decode_fixed(s16(v, 36), LMAP_SCALE),
                decode_fixed(s16(v, 38), LMAP_SCALE),
            ]);
            color.push([
                decode_unit(v[42]),
                decode_unit(v[41]),
                decode_unit(v[40]),
                1.0,
            ]);
            sun.push(decode_unit(v[43]));
        }
        for t in idx.chunks_exact(3) {
            want.indices.extend([t[0], t[2], t[1]].map(u32::from));
        }
        assert_eq!(p.positions.len(), n);
        assert_eq!(bits(&p.positions), bits(&want.positions));
        assert_eq!(bits(&p.normals), bits(&want.normals));
        assert_eq!(bits(&p.tangents), bits(&want.tangents));
        assert_eq!(p.uvs.len(), 2);
        assert_eq!(bits(&p.uvs[0]), bits(&uv));
        assert_eq!(bits(&p.uvs[1]), bits(&lmap));
        assert_eq!(bits(&p.colors[0]), bits(&color));
        assert_eq!(p.scalars.len(), 1);
        assert_eq!(p.scalars[0].0, "_SUN");
        let one = |v: &[f32]| v.iter().map(|s| s.to_bits()).collect::<Vec<_>>();
        assert_eq!(one(&p.scalars[0].1), one(&sun));
        assert_eq!(p.indices, want.indices);
        // the awkward normals took their fallbacks: a zero, NaN or infinite normal is +y
        assert!(p.normals.iter().any(|x| *x == [0.0, 1.0, -0.0]));
        assert!(p.tangents.iter().all(|t| t[3] == 1.0 || t[3] == -1.0));
        // the fallback's tangent: n = mirror(1, 1, 1)/√3, cross(n, x) = (0, n.z, −n.y) normalised
        let f = p.tangents[n - 5];
        let h = std::f32::consts::FRAC_1_SQRT_2;
        assert_eq!(f[0], 0.0);
        assert!((f[1] + h).abs() < 1e-6 && (f[2] + h).abs() < 1e-6, "{f:?}");
    }
}
