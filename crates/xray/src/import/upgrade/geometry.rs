//! The old level's geometry (its [`crate::flat`] view's buffers) written as an XRLC 13
//! `level.geom` and `level.geomx`.
//!
//! Each visual's vertex range is decoded from the view (FVF-derived and SHORT4-split
//! declarations included), given what the 13 layout needs and the old one lacks, and appended
//! to a new buffer of its 13 declaration the way xrLC fills them (one buffer per declaration,
//! a new one past 65,535 vertices, [`crate::import::buffers`]); ranges shared by several
//! visuals (tree instances) are written once. The 13 layouts:
//!
//! | visual | declaration |
//! |---|---|
//! | normal / progressive with a lightmap UV | [`decl::v13_lmap`] (36 bytes) |
//! | normal / progressive without | the v13 vertex-lit layout [`v13_vert`] (36 bytes) |
//! | tree | [`decl::mu_model`] (32 bytes) |
//!
//! Filled where the old layout has nothing: normals from the faces, hemi 1, tangents and
//! binormals from the UVs ([`crate::import::encode::tangent_frames`], as for new meshes),
//! vertex light 0.5 grey and sun 1, tree wind from xrLC's formula (`(f1 + f2)/2` with
//! `f1 = (y − min y)/height` and `f2 = |P − bottom centre|/height` over the tree's vertices).
//! Every value written is decoded back and compared with the view's: what differs (float
//! normals packed into bytes, float lightmap UVs on the /32768 grid, float tree UVs on the
//! /2048 grid) is counted as a loss with its largest error.
//!
//! `level.geomx` gets, for every normal visual, its fast-path copy as xrLC 13 writes it
//! (`OGF::fast_path_data`): the vertices welded by position, each with the base UV of the
//! first vertex at that position, in [`super::super::convert::v13_geomx`], and the visual's
//! triangles on them.

use std::collections::HashMap;

use crate::decl::{self, DeclType, Declaration, Usage};
use crate::geom::{self, Geom, GeomChunk, Header};
use crate::import::buffers;
use crate::import::encode::{self, DEFAULT_HEMI_SUN, DEFAULT_LIGHT};
use crate::ogf::{model_type, GContainer, Visual};
use crate::vertex::{self, Vertices};

use super::super::convert::v13_geomx;
use super::super::{is_tree, ImportError};

/// The XRLC 13 vertex-lit layout (`r1_decl_vert` with a `FLOAT2` base UV, 36 bytes; the UV
/// is its last element, so nothing moves).
pub fn v13_vert() -> Declaration {
    let mut d = decl::r1_vert();
    for e in &mut d.elements {
        if e.usage == Usage::TexCoord as u8 && e.usage_index == 0 {
            e.ty = DeclType::Float2 as u8;
        }
    }
    d
}

/// Counts of one kind of change over the vertices (count, largest error).
#[derive(Clone, Copy, Debug, Default)]
struct Tally {
    count: usize,
    max: f64,
}

impl Tally {
    fn add(&mut self, e: f64) {
        if e > 0.0 {
            self.count += 1;
            self.max = self.max.max(e);
        }
    }
}

/// What the geometry step did.
#[derive(Debug)]
pub(super) struct Built {
    /// `level.geom`.
    pub geom: Geom,
    /// `level.geomx`.
    pub geomx: Geom,
    /// Per view visual: its new GCONTAINER.
    pub gcontainers: Vec<Option<GContainer>>,
    /// Per view visual: its fast-path GCONTAINER into `level.geomx`.
    pub fastpaths: Vec<Option<GContainer>>,
    /// Vertices written to `level.geom`.
    pub vertices: usize,
    /// Largest base-UV difference written.
    pub max_uv_error: f64,
    /// Losses (what the 13 layout does not hold).
    pub lost: Vec<String>,
    /// Values derived.
    pub notes: Vec<String>,
}

fn empty_geom(quality: u16) -> Geom {
    Geom {
        chunks: vec![
            crate::chunk::Framed::plain(
                geom::HEADER,
                GeomChunk::Header(Header {
                    version: 13,
                    quality,
                }),
            ),
            crate::chunk::Framed::plain(geom::VB, GeomChunk::VertexBuffers(Vec::new())),
            crate::chunk::Framed::plain(geom::IB, GeomChunk::IndexBuffers(Vec::new())),
            crate::chunk::Framed::plain(geom::SWIS, GeomChunk::Swis(Vec::new())),
        ],
    }
}

fn dist(a: &[f32], b: &[f32]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (f64::from(*x) - f64::from(*y)).abs())
        .fold(0.0, f64::max)
}

fn angle(a: [f32; 3], b: [f32; 3]) -> f64 {
    let v = |p: [f32; 3]| glam::DVec3::new(p[0].into(), p[1].into(), p[2].into());
    let (a, b) = (v(a).normalize_or_zero(), v(b).normalize_or_zero());
    a.dot(b).clamp(-1.0, 1.0).acos().to_degrees()
}

/// Running totals over all ranges.
#[derive(Default)]
struct Totals {
    normals: Tally,
    lightmap: Tally,
    uv: Tally,
    tree_uv: Tally,
    colors: Tally,
    positions: Tally,
    filled: HashMap<&'static str, usize>,
    dropped: HashMap<String, usize>,
}

impl Totals {
    fn fill(&mut self, what: &'static str, n: usize) {
        *self.filled.entry(what).or_default() += n;
    }
}

/// Give `v` (the view's decoded range; `tris` its local triangles) every attribute the 13
/// layout `tree` or static needs.
fn complete(v: &mut Vertices, tris: &[[u32; 3]], tree: bool, t: &mut Totals) {
    let n = v.count;
    if v.positions.len() != n {
        v.positions.resize(n, [0.0; 3]);
    }
    if v.normals.len() != n {
        v.normals = encode::face_normals(&v.positions, tris);
        t.fill("normals (from the faces)", n);
    }
    if v.hemi.len() != n {
        v.hemi = vec![DEFAULT_HEMI_SUN; n];
        t.fill("hemi (1)", n);
    }
    if v.uv.len() != n {
        v.uv = vec![[0.0; 2]; n];
        t.fill("base UV (0, 0)", n);
    }
    if v.tangents.len() != n || v.binormals.len() != n {
        let (ts, bs) = encode::tangent_frames(&v.positions, &v.uv, &v.normals, tris);
        v.tangents = ts;
        v.binormals = bs;
        t.fill("tangents and binormals (from the UVs)", n);
    }
    if v.tangent_alpha.len() != n {
        v.tangent_alpha = vec![0.0; n];
    }
    if v.binormal_alpha.len() != n {
        v.binormal_alpha = vec![0.0; n];
    }
    if tree {
        if v.wind.len() != n {
            v.wind = wind(&v.positions);
            t.fill("tree wind (xrLC's formula)", n);
        }
    } else if v.lightmap.len() != n {
        if v.colors.len() != n {
            v.colors = vec![[DEFAULT_LIGHT; 3]; n];
            t.fill("vertex light (0.5 grey)", n);
        }
        if v.sun.len() != n {
            v.sun = vec![DEFAULT_HEMI_SUN; n];
            t.fill("sun (1)", n);
        }
    }
    for (e, _) in &v.other {
        let name = format!(
            "{}{} {}",
            Usage::from_code(e.usage).map_or("usage?", Usage::name),
            e.usage_index,
            e.decl_type().map_or("type?", DeclType::name)
        );
        *t.dropped.entry(name).or_default() += n;
    }
}

/// xrLC's wind factor of MU vertices (`xrMU_Model_export_geometry.cpp`): `(f1 + f2)/2`.
fn wind(pos: &[[f32; 3]]) -> Vec<[f32; 2]> {
    let (mut lo, mut hi) = ([f64::MAX; 3], [f64::MIN; 3]);
    for p in pos {
        for k in 0..3 {
            lo[k] = lo[k].min(f64::from(p[k]));
            hi[k] = hi[k].max(f64::from(p[k]));
        }
    }
    let h = hi[1] - lo[1];
    let bottom = [(lo[0] + hi[0]) / 2.0, lo[1], (lo[2] + hi[2]) / 2.0];
    pos.iter()
        .map(|p| {
            if h <= 0.0 {
                return [0.0, 0.0];
            }
            let f1 = (f64::from(p[1]) - lo[1]) / h;
            let d = (0..3)
                .map(|k| (f64::from(p[k]) - bottom[k]).powi(2))
                .sum::<f64>()
                .sqrt();
            [((f1 + d / h) / 2.0) as f32, 0.0]
        })
        .collect()
}

/// Compare what the 13 layout gives back (`back`) with the view's values (`src`).
fn compare(had: &Vertices, back: &Vertices, tree: bool, t: &mut Totals) {
    for i in 0..had.count {
        if let (Some(a), Some(b)) = (had.positions.get(i), back.positions.get(i)) {
            t.positions.add(dist(a, b));
        }
        if let (Some(a), Some(b)) = (had.normals.get(i), back.normals.get(i)) {
            // the same values (a packed normal read back) are no change, whatever rounding
            // the angle between them would show
            if a != b {
                t.normals.add(angle(*a, *b).max(f64::MIN_POSITIVE));
            }
        }
        if let (Some(a), Some(b)) = (had.uv.get(i), back.uv.get(i)) {
            let e = dist(a, b);
            if tree {
                t.tree_uv.add(e);
            } else {
                t.uv.add(e);
            }
        }
        if let (Some(a), Some(b)) = (had.lightmap.get(i), back.lightmap.get(i)) {
            t.lightmap.add(dist(a, b));
        }
        if let (Some(a), Some(b)) = (had.colors.get(i), back.colors.get(i)) {
            t.colors.add(dist(a, b));
        }
    }
}

/// Weld `v`'s vertices by position (bits): the fast-path vertices (position, first UV) and
/// the triangles' indices on them.
fn weld(v: &Vertices, idx: &[u16]) -> (Vertices, Vec<u16>) {
    let mut at: HashMap<[u32; 3], u16> = HashMap::new();
    let mut out = Vertices::default();
    let mut map = Vec::with_capacity(v.count);
    for i in 0..v.count {
        let p = v.positions[i];
        let k = *at.entry(p.map(f32::to_bits)).or_insert_with(|| {
            out.positions.push(p);
            out.uv.push(v.uv.get(i).copied().unwrap_or_default());
            (out.positions.len() - 1) as u16
        });
        map.push(k);
    }
    out.count = out.positions.len();
    let ix = idx
        .iter()
        .map(|&i| map.get(usize::from(i)).copied().unwrap_or(0))
        .collect();
    (out, ix)
}

/// Write the view's geometry as XRLC 13 buffers (see the module docs).
pub(super) fn build(visuals: &[&Visual], view: &Geom, quality: u16) -> Result<Built, ImportError> {
    let mut run = Run {
        view,
        b: Built {
            geom: empty_geom(quality),
            geomx: empty_geom(quality),
            gcontainers: Vec::new(),
            fastpaths: Vec::new(),
            vertices: 0,
            max_uv_error: 0.0,
            lost: Vec::new(),
            notes: Vec::new(),
        },
        t: Totals::default(),
        done: HashMap::new(),
        fast_done: HashMap::new(),
        shared: 0,
        bad: Vec::new(),
        progressive_no_fast: 0,
    };
    if let Some(GeomChunk::Swis(s)) = run.b.geom.chunks.get_mut(3).map(|c| &mut c.value) {
        *s = view.swis().to_vec();
    }
    for (i, vis) in visuals.iter().enumerate() {
        let (g, fast) = run.visual(i, vis)?;
        run.b.gcontainers.push(g);
        run.b.fastpaths.push(fast);
    }
    Ok(run.finish())
}

/// The state of one [`build`] run.
struct Run<'a> {
    view: &'a Geom,
    b: Built,
    t: Totals,
    /// The range written for each (view range, tree layout).
    done: HashMap<(GContainer, bool), GContainer>,
    /// The fast-path range written for each written range.
    fast_done: HashMap<GContainer, GContainer>,
    /// Visuals that share a range with an earlier one.
    shared: usize,
    /// Visuals whose ranges lie outside the view's buffers.
    bad: Vec<usize>,
    progressive_no_fast: usize,
}

impl Run<'_> {
    /// Visual `i`'s written range and fast path (`None`: it has none).
    fn visual(
        &mut self,
        i: usize,
        vis: &Visual,
    ) -> Result<(Option<GContainer>, Option<GContainer>), ImportError> {
        let Some(g) = vis.gcontainer() else {
            return Ok((None, None));
        };
        let t4 = vis.model_type();
        let tree = is_tree(t4);
        let ng = match self.done.get(&(g, tree)) {
            Some(ng) => {
                self.shared += 1;
                *ng
            }
            None => match self.range(g, tree)? {
                Some(ng) => {
                    self.done.insert((g, tree), ng);
                    ng
                }
                None => {
                    self.bad.push(i);
                    return Ok((None, None));
                }
            },
        };
        let fast = match t4 {
            Some(model_type::NORMAL) => self.fast_path(ng)?,
            Some(model_type::PROGRESSIVE) => {
                self.progressive_no_fast += 1;
                None
            }
            _ => None,
        };
        Ok((Some(ng), fast))
    }

    /// The view's range `g` re-encoded into `level.geom` (tree layout with `tree`), with what
    /// changed tallied; `None` when it lies outside the view's buffers.
    fn range(&mut self, g: GContainer, tree: bool) -> Result<Option<GContainer>, ImportError> {
        let range = buffers::read_range(self.view, g.vb_index, g.vb_offset, g.vb_count);
        let idx = buffers::indices(self.view, g.ib_index, g.ib_offset, g.ib_count);
        let (Some((_, src)), Some(idx)) = (range, idx) else {
            return Ok(None);
        };
        let tris: Vec<[u32; 3]> = idx
            .chunks_exact(3)
            .map(|c| [u32::from(c[0]), u32::from(c[1]), u32::from(c[2])])
            .filter(|c| c.iter().all(|&x| (x as usize) < src.count))
            .collect();
        let mut v = src.clone();
        complete(&mut v, &tris, tree, &mut self.t);
        let target = if tree {
            decl::mu_model()
        } else if v.lightmap.len() == v.count {
            decl::v13_lmap()
        } else {
            v13_vert()
        };
        let back = vertex::decode(&target, &vertex::encode(&target, &v));
        compare(&src, &back, tree, &mut self.t);
        let ng = buffers::append_range(&mut self.b.geom, &target, &v, &idx)?;
        self.b.vertices += v.count;
        Ok(Some(ng))
    }

    /// The fast path of a normal visual drawing the written range `ng`, in `level.geomx`.
    fn fast_path(&mut self, ng: GContainer) -> Result<Option<GContainer>, ImportError> {
        if let Some(f) = self.fast_done.get(&ng) {
            return Ok(Some(*f));
        }
        let b = &mut self.b;
        let (Some((_, v)), Some(idx)) = (
            buffers::read_range(&b.geom, ng.vb_index, ng.vb_offset, ng.vb_count),
            buffers::indices(&b.geom, ng.ib_index, ng.ib_offset, ng.ib_count),
        ) else {
            return Ok(None);
        };
        let (xv, xi) = weld(&v, &idx);
        let f = buffers::append_range(&mut b.geomx, &v13_geomx(), &xv, &xi)?;
        self.fast_done.insert(ng, f);
        Ok(Some(f))
    }

    /// The buffers, with what was lost and what was derived.
    fn finish(self) -> Built {
        let Run {
            mut b,
            t,
            shared,
            bad,
            progressive_no_fast,
            ..
        } = self;
        let changes = [
            (
                t.positions,
                "positions of",
                "changed (largest difference",
                "",
            ),
            (
                t.normals,
                "normals of",
                "packed from FLOAT3 into D3DCOLOR bytes (largest angle",
                "°",
            ),
            (
                t.lightmap,
                "lightmap UVs of",
                "quantised to /32768 (largest error",
                "",
            ),
            (
                t.tree_uv,
                "tree UVs of",
                "quantised to the SHORT4 /2048 grid (largest error",
                "",
            ),
            (t.uv, "base UVs of", "changed (largest error", ""),
            (t.colors, "vertex colours of", "changed (largest error", ""),
        ];
        for (tally, what, how, unit) in changes {
            if tally.count > 0 {
                let max = if unit.is_empty() {
                    format!("{:.3e}", tally.max)
                } else {
                    format!("{:.3}{unit}", tally.max)
                };
                b.lost
                    .push(format!("{what} {} vertices {how} {max})", tally.count));
            }
        }
        b.max_uv_error = t.uv.max.max(t.tree_uv.max);
        let mut dropped: Vec<_> = t.dropped.into_iter().collect();
        dropped.sort();
        for (what, n) in dropped {
            b.lost.push(format!(
                "vertex element {what} of {n} vertices (the XRLC 13 layouts have no place for it)"
            ));
        }
        if !bad.is_empty() {
            b.lost.push(format!(
                "geometry of visuals {bad:?} (their ranges lie outside the old buffers)"
            ));
        }
        let mut filled: Vec<_> = t.filled.into_iter().collect();
        filled.sort();
        for (what, n) in filled {
            b.notes.push(format!(
                "{what} given to {n} vertices the old layout has none for"
            ));
        }
        if shared > 0 {
            b.notes.push(format!(
                "{shared} visuals share a range with an earlier one (tree instances): written once"
            ));
        }
        let nvb = b.geom.vertex_buffers().map_or(0, <[_]>::len);
        b.notes.push(format!(
            "level.geom: {} vertices re-encoded into {nvb} buffers of the XRLC 13 layouts (v13_lmap, \
             the 36-byte v13 vertex-lit layout, mu_model; at most 65,535 vertices each)",
            b.vertices
        ));
        let nfast = b.fastpaths.iter().flatten().count();
        b.notes.push(format!(
            "level.geomx: a fast-path copy for each of {nfast} normal visuals as xrLC 13 writes it \
             (vertices welded by position, position + SHORT2 ⌊uv·1024⌋ of the first vertex there); \
             every triangle is included, as the shaders' opacity is not known here{}",
            if progressive_no_fast > 0 {
                format!(
                    "; {progressive_no_fast} progressive visuals have none (the engine then draws \
                     their full geometry)"
                )
            } else {
                String::new()
            }
        ));
        b
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_v13_vertex_lit_layout_is_r1_vert_with_a_float2_uv() {
        assert_eq!(
            super::super::super::convert::convert_decl(&decl::r1_vert(), 13),
            Some(v13_vert())
        );
        assert_eq!(v13_vert().stride(), 36);
    }

    #[test]
    fn wind_follows_xrlc_formula() {
        // a 2 m pyramid: apex (0, 2, 0) has f1 = 1, f2 = 2/2 = 1 → 1; a base corner
        // (0.5, 0, 0.5): f1 = 0, f2 = √0.5/2 → √0.5/4
        let w = wind(&[[0.5, 0.0, 0.5], [-0.5, 0.0, -0.5], [0.0, 2.0, 0.0]]);
        assert!((w[2][0] - 1.0).abs() < 1e-6, "{w:?}");
        assert!(
            (f64::from(w[0][0]) - 0.5f64.sqrt() / 4.0).abs() < 1e-6,
            "{w:?}"
        );
    }

    #[test]
    fn welding_joins_vertices_at_one_position() {
        let v = Vertices {
            count: 4,
            positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0; 3], [0.0, 0.0, 1.0]],
            uv: vec![[0.1, 0.1], [0.2, 0.2], [0.9, 0.9], [0.3, 0.3]],
            ..Vertices::default()
        };
        let (x, ix) = weld(&v, &[0, 1, 3, 2, 3, 1]);
        assert_eq!(x.count, 3);
        assert_eq!(ix, vec![0, 1, 2, 0, 2, 1]);
        assert_eq!(x.uv[0], [0.1, 0.1], "the first vertex's UV");
    }
}

#[cfg(test)]
mod split_tests {
    use super::*;
    use crate::chunk::Framed;
    use crate::ogf::{OgfChunk, OgfHeader};

    /// A view buffer of `n` lightmapped vertices in the SHORT2 layout of XRLC 14 and three
    /// normal visuals of `n / 3` vertices each: xrLC's 65,535-vertex limit puts the first two
    /// (2 × 30,000) in one v13 buffer and the third in a second one.
    #[test]
    fn buffers_split_at_65535_vertices() {
        let per = 30_000usize;
        let n = 3 * per;
        let v = Vertices {
            count: n,
            positions: (0..n).map(|i| [i as f32, 0.0, 0.0]).collect(),
            normals: vec![[0.0, 1.0, 0.0]; n],
            hemi: vec![1.0; n],
            tangents: vec![[1.0, 0.0, 0.0]; n],
            binormals: vec![[0.0, 0.0, 1.0]; n],
            uv: vec![[0.5, 0.5]; n],
            lightmap: vec![[0.25, 0.25]; n],
            ..Vertices::default()
        };
        let vb = crate::geom::VertexBuffer::encode(decl::r1_lmap(), &v).unwrap();
        let mut view = empty_geom(0);
        view.vertex_buffers_mut().unwrap().push(vb);
        if let GeomChunk::IndexBuffers(ibs) = &mut view.chunks[2].value {
            ibs.push(vec![0, 1, 2].into());
        }
        let visuals: Vec<Visual> = (0..3)
            .map(|k| Visual {
                chunks: vec![
                    Framed::plain(
                        crate::ogf::HEADER,
                        OgfChunk::Header(OgfHeader {
                            format_version: 4,
                            model_type: model_type::NORMAL,
                            shader_id: 0,
                            bbox_min: [0.0; 3],
                            bbox_max: [0.0; 3],
                            sphere_center: [0.0; 3],
                            sphere_radius: 0.0,
                        }),
                    ),
                    Framed::plain(
                        crate::ogf::GCONTAINER,
                        OgfChunk::GContainer(GContainer {
                            vb_index: 0,
                            vb_offset: (k * per) as u32,
                            vb_count: per as u32,
                            ib_index: 0,
                            ib_offset: 0,
                            ib_count: 3,
                        }),
                    ),
                ],
            })
            .collect();
        let refs: Vec<&Visual> = visuals.iter().collect();
        let b = build(&refs, &view, 0).unwrap();
        let vbs = b.geom.vertex_buffers().unwrap();
        assert_eq!(
            vbs.iter().map(|x| x.count).collect::<Vec<_>>(),
            vec![60_000, 30_000]
        );
        assert!(vbs.iter().all(|x| x.decl == decl::v13_lmap()));
        let g: Vec<(u32, u32)> = b
            .gcontainers
            .iter()
            .map(|g| g.map(|g| (g.vb_index, g.vb_offset)).unwrap())
            .collect();
        assert_eq!(g, vec![(0, 0), (0, 30_000), (1, 0)]);
        // the third visual's first vertex is the view's vertex 60,000
        let x = vbs[1].decode();
        assert_eq!(x.positions[0], [60_000.0, 0.0, 0.0]);
        assert_eq!(x.uv[0], [0.5, 0.5]);
        // nothing lost: SHORT2 values are exact in FLOAT2, packed normals stay packed
        assert_eq!(b.lost, Vec::<String>::new());
    }
}
