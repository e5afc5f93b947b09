//! The inverse of [`flatten`](super::flatten): an edit of the 13/14-shaped view of a level of
//! XRLC 4–12 written back into the old level's own layout ([`unflatten`]). It knows only the
//! formats: the edited view's `level` and `level.geom` and which visuals the edit removed and
//! added ([`Edited`]), not who made the edit.
//!
//! * **Buffers**: the view's vertex buffers hold the old buffers' bytes (FVF or D3D9; the
//!   SHORT4-split copy of a ≤ 11 buffer the same bytes again), so vertices changed in place go
//!   back byte for byte into their buffer; vertices the edit appended (moved copies, new
//!   meshes) are appended to the old buffer they were appended beside (a split copy's to the
//!   buffer it splits), so every existing offset stays; a buffer the edit started goes
//!   into the last old buffer of its layout with room for it (65,535 vertices), else becomes
//!   a new buffer of that layout (an FVF buffer its FVF code). A visual's own `OGF_VERTICES` /
//!   `OGF_INDICES` are written from its range. New indices go into the level's last index
//!   buffer (XRLC 9–12) or the visual's own `OGF_INDICES` (4–8).
//! * **Visuals**: a visual the edit left as it was keeps its chunks (and bytes); otherwise
//!   only what changed is set in its own chunks — `OGF_BBOX` / `OGF_BSPHERE`, `OGF_VCONTAINER`
//!   / `OGF_ICONTAINER`, the tree matrix, LOD quads, children (old ids and layouts kept). A
//!   copy starts from the visual it copies; a new mesh from the level's first normal visual.
//!   An OGF 3 progressive visual whose triangles changed loses its vertex splits (written as
//!   a normal visual, with a warning; the view calls it normal already).
//! * **Materials**: before XRLC 12 a visual names a (shader, texture) pair by `OGF_TEXTURE_L`;
//!   the view's `shader/texture` entries map back to their pair, and a new entry adds its
//!   shader and texture names to the level's table(s) as xrLC would. From 12 the header's
//!   shader id and the view's table are the level's.

use std::collections::HashMap;

use super::Flat;
use crate::chunk::Framed;
use crate::decl::Declaration;
use crate::fvf::{self, FvfBuffer, UvOrder};
use crate::geom::{Geom, VertexBuffer};
use crate::index_data::IndexData;
use crate::level::{Level, LevelChunk};
use crate::ogf::{self, model_type, model_type_v3, GContainer, OgfChunk, OgfHeader, Visual};
use crate::shaders::ShaderEntry;

/// What the write-back needs of an edit of the view.
#[derive(Clone, Copy, Debug)]
pub struct Edited<'a> {
    /// The edited view's `level`: its visuals (the base's survivors in order, then the added
    /// ones), shader table and sectors.
    pub level: &'a Level,
    /// The edited view's `level.geom`: its buffers (the view's, changed in place and appended
    /// to) and sliding-window table.
    pub geom: &'a Geom,
    /// The visuals of the base the edit removed (indices in the base).
    pub removed: &'a [usize],
    /// The visuals the edit added.
    pub added: &'a [NewVisual],
}

/// A visual the edit added.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NewVisual {
    /// Its index in the edited level.
    pub visual: usize,
    /// The base visual it copies; `None` for a new mesh (modelled on the level's first normal
    /// visual).
    pub copy_of: Option<usize>,
}

/// Why an edit of the view has no form in the old build's layout.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum UnflattenError {
    /// The quads the view made of a detail patch visual's sprites were edited.
    #[error(
        "the quads of a detail patch visual (view vertex buffer {buffer}) were edited; a detail \
         patch (OGF_DPATCH sprites) has no form for them: leave it unedited or delete it"
    )]
    PatchQuadsEdited {
        /// The view's vertex buffer of the quads.
        buffer: usize,
    },
    /// A detail patch visual's geometry was edited.
    #[error(
        "visual {visual} is a detail patch (OGF_DPATCH sprites, exported as quads): its edited \
         quads have no form in it; leave it unedited or delete it"
    )]
    PatchEdited {
        /// The visual (index in the edited level).
        visual: usize,
    },
    /// New vertices in a layout no FVF buffer of the level has.
    #[error("new vertices need a vertex layout that no FVF buffer of the level has")]
    NoFvfLayout,
    /// A visual's vertex range lies past its buffer in the edited view.
    #[error("a vertex range past its buffer")]
    VertexRange {
        /// The view's vertex buffer.
        buffer: usize,
    },
    /// A visual's index range lies past its buffer in the edited view.
    #[error("an index range past its buffer")]
    IndexRange {
        /// The view's index buffer.
        buffer: usize,
    },
    /// A vertex buffer of the edited view has no buffer of the level to go to.
    #[error("vertex buffer {buffer} has no place")]
    NoPlace {
        /// The view's vertex buffer.
        buffer: usize,
    },
    /// A new mesh, and the level has no normal visual to model the new visual on.
    #[error("a new visual, but the level has no normal visual to model it on")]
    NoTemplate {
        /// The new visual (index in the edited level).
        visual: usize,
    },
    /// A new shader entry of the view that no visual uses, so no (shader, texture) pair
    /// stands for it (before XRLC 12).
    #[error("shader entry {entry:?} is used by no visual; no (shader, texture) pair")]
    UnpairedShader {
        /// The entry's text (`shader/texture`).
        entry: String,
    },
}

/// Where a vertex buffer of the view comes from.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Origin {
    /// The level's buffer of that index.
    Level(usize),
    /// A visual's own `OGF_VERTICES` with this FVF code.
    Inline(u32),
}

/// Where a vertex range of the result goes.
enum Place {
    /// `OGF_VCONTAINER` into the level's buffer.
    Level([u32; 3]),
    /// An own `OGF_VERTICES`.
    Inline(FvfBuffer),
}

/// The view's chunks of `flat` vertex buffer `k`: the original level buffer or inline FVF.
fn origins(level: &Level, flat: &Flat) -> Vec<Option<Origin>> {
    let nbase = level
        .vertex_buffers()
        .map(<[_]>::len)
        .or(level.fvf_buffers().map(<[_]>::len))
        .unwrap_or(0);
    let nf = flat.geom.vertex_buffers().map_or(0, <[_]>::len);
    let mut out: Vec<Option<Origin>> = (0..nf)
        .map(|k| (k < nbase).then_some(Origin::Level(k)))
        .collect();
    let fvis = flat.level.visuals();
    for (i, v) in level.visuals().iter().enumerate() {
        let Some(fg) = fvis.get(i).and_then(|f| f.gcontainer()) else {
            continue;
        };
        let k = fg.vb_index as usize;
        if k < nbase || k >= nf {
            continue;
        }
        let own = v.find_chunk(|c| match c {
            OgfChunk::Vertices(b) => Some(b.fvf),
            _ => None,
        });
        let vc = v.find_chunk(|c| match c {
            OgfChunk::VContainer(r) => Some(r[0] as usize),
            _ => None,
        });
        out[k] = match (own, vc) {
            (Some(f), _) => Some(Origin::Inline(f)),
            (None, Some(s)) => Some(Origin::Level(s)),
            _ => out[k],
        };
    }
    out
}

/// The model type of format 4 in an OGF `format` header.
fn type_in(format: u8, t4: u8) -> u8 {
    if format != 3 {
        return t4;
    }
    match t4 {
        model_type::HIERARCHY => model_type_v3::HIERARCHY,
        model_type::PROGRESSIVE => model_type_v3::PROGRESSIVE,
        model_type::LOD => model_type_v3::LOD,
        model_type::TREE_ST | model_type::TREE_PM => model_type_v3::TREE,
        _ => model_type_v3::NORMAL,
    }
}

/// A vertex buffer of the old level being written: its FVF code (`None`: D3D9), declaration,
/// vertex count and bytes.
type OldBuffer = (Option<u32>, Declaration, u32, Vec<u8>);

/// Write `edited`, an edit of `flat` (the view [`flatten`](super::flatten) made of `base`), back
/// into `base`'s own layout (see the module docs); with warnings.
///
/// # Errors
/// [`UnflattenError`] when the edit has no form in the old build's layout.
pub fn unflatten(
    base: &Level,
    flat: &Flat,
    edited: &Edited<'_>,
) -> Result<(Level, Vec<String>), UnflattenError> {
    let mut u = Unflatten {
        base,
        flat,
        edited,
        version: base.version().unwrap_or(0),
        fvbs: flat.geom.vertex_buffers().unwrap_or(&[]),
        ivbs: edited.geom.vertex_buffers().unwrap_or(&[]),
        iibs: edited.geom.index_buffers().unwrap_or(&[]),
        origin: origins(base, flat),
        tail_at: HashMap::new(),
        nib: base.index_buffers().map_or(0, <[_]>::len),
        notes: Vec::new(),
    };
    let bufs = u.vertex_buffers()?;
    // --- index buffers: the level's own, with the import's changes
    let mut ibs: Vec<IndexData> = u.iibs.iter().take(u.nib).cloned().collect();
    let mut materials = Materials::new(base, flat, edited.level);
    let visuals = u.visuals(&mut ibs, &mut materials)?;
    let level = u.level(bufs, ibs, visuals, materials);
    Ok((level, u.notes))
}

/// One write-back: the base level, its view, the edit of the view, and what the phases share.
struct Unflatten<'a> {
    base: &'a Level,
    flat: &'a Flat,
    edited: &'a Edited<'a>,
    version: u16,
    /// The view's vertex buffers.
    fvbs: &'a [VertexBuffer],
    /// The import's vertex buffers (the view's, changed and appended to).
    ivbs: &'a [VertexBuffer],
    /// The import's index buffers.
    iibs: &'a [IndexData],
    /// Where each view vertex buffer comes from.
    origin: Vec<Option<Origin>>,
    /// View buffer k → (level buffer, first vertex of its tail there).
    tail_at: HashMap<usize, (usize, u32)>,
    /// The level's own index buffers.
    nib: usize,
    notes: Vec<String>,
}

/// How one visual is written: its index, OGF format, kind and what of it changed.
struct VisualEdit {
    j: usize,
    format: u8,
    /// OGF 3 progressive strips (`OGF_P_LODS`).
    strips: bool,
    /// Detail patch sprites (`OGF_DPATCH`).
    patches: bool,
    geometry_changed: bool,
    indices_changed: bool,
}

impl Unflatten<'_> {
    /// The vertex buffers: old data, overlaid with in-place changes, then the appended tails
    /// (filling `tail_at`).
    fn vertex_buffers(&mut self) -> Result<Vec<OldBuffer>, UnflattenError> {
        let base = self.base;
        let version = self.version;
        let mut bufs: Vec<OldBuffer> = match base.vertex_buffers() {
            Some(v) => v
                .iter()
                .map(|b| (None, b.decl.clone(), b.count, b.data.to_vec()))
                .collect(),
            None => base
                .fvf_buffers()
                .unwrap_or(&[])
                .iter()
                .map(|b| {
                    let d = fvf::declaration(b.fvf, UvOrder::for_version(version))
                        .unwrap_or_else(|_| Declaration::new(Vec::new()));
                    (Some(b.fvf), d, b.count, b.data.clone())
                })
                .collect(),
        };
        let nold = bufs.len();
        let original: Vec<Vec<u8>> = bufs.iter().map(|b| b.3.clone()).collect();
        for (k, ib) in self.ivbs.iter().enumerate() {
            let o = self.origin.get(k).copied().flatten();
            let s = match o {
                Some(Origin::Level(s)) => s,
                Some(Origin::Inline(_)) => continue,
                // a buffer the view made (detail patch quads): no bytes of the level
                None if k < self.fvbs.len() => {
                    if self.fvbs[k].data == ib.data {
                        continue;
                    }
                    return Err(UnflattenError::PatchQuadsEdited { buffer: k });
                }
                None => self.new_buffer_home(&mut bufs, nold, ib)?,
            };
            let stride = ib.stride();
            let orig_count = self.fvbs.get(k).map_or(0, |f| f.count) as usize;
            let n = (orig_count * stride).min(ib.data.len());
            if s < nold {
                let dst = &mut bufs[s].3;
                for (x, (&new, &old)) in ib.data[..n].iter().zip(&original[s][..n]).enumerate() {
                    if new != old {
                        dst[x] = new;
                    }
                }
            }
            let b = &mut bufs[s];
            let first = b.2;
            if ib.data.len() > n {
                b.3.extend_from_slice(&ib.data[n..]);
                b.2 += ((ib.data.len() - n) / stride.max(1)) as u32;
            }
            self.tail_at.insert(k, (s, first));
        }
        Ok(bufs)
    }

    /// The level buffer for a vertex buffer the import started: beside an old buffer of the
    /// same layout with room for it (xrLC's 65,535 vertices), else a new one.
    fn new_buffer_home(
        &self,
        bufs: &mut Vec<OldBuffer>,
        nold: usize,
        ib: &VertexBuffer,
    ) -> Result<usize, UnflattenError> {
        let like = |s: usize| {
            self.origin.iter().enumerate().any(|(j, x)| {
                *x == Some(Origin::Level(s)) && self.fvbs.get(j).is_some_and(|f| f.decl == ib.decl)
            })
        };
        let room =
            |s: usize| bufs[s].2 as usize + ib.count as usize <= crate::geom::MAX_VB_VERTICES;
        let same = (0..nold).find(|&s| like(s) && room(s));
        let full = (0..nold).find(|&s| like(s));
        match (same, full) {
            (Some(s), _) => Ok(s),
            (None, Some(f)) => {
                // a new buffer of the full one's layout (an FVF buffer its code)
                let code = bufs[f].0;
                bufs.push((code, bufs[f].1.clone(), 0, Vec::new()));
                Ok(bufs.len() - 1)
            }
            (None, None) if self.base.vertex_buffers().is_some() => {
                bufs.push((None, ib.decl.clone(), 0, Vec::new()));
                Ok(bufs.len() - 1)
            }
            (None, None) => Err(UnflattenError::NoFvfLayout),
        }
    }

    /// Where the vertex range `g` of the result goes.
    fn place(&self, g: &GContainer) -> Result<Place, UnflattenError> {
        let k = g.vb_index as usize;
        let orig_count = self.fvbs.get(k).map_or(0, |f| f.count);
        match self.origin.get(k).copied().flatten() {
            Some(Origin::Inline(code)) => {
                let b = &self.ivbs[k];
                let s = b.stride();
                let from = g.vb_offset as usize * s;
                let data = b
                    .data
                    .get(from..from + g.vb_count as usize * s)
                    .ok_or(UnflattenError::VertexRange { buffer: k })?
                    .to_vec();
                Ok(Place::Inline(FvfBuffer {
                    fvf: code,
                    count: g.vb_count,
                    data,
                }))
            }
            _ => {
                let &(s, first) = self
                    .tail_at
                    .get(&k)
                    .ok_or(UnflattenError::NoPlace { buffer: k })?;
                let off = if g.vb_offset < orig_count && k < self.fvbs.len() {
                    g.vb_offset
                } else {
                    first + g.vb_offset - if k < self.fvbs.len() { orig_count } else { 0 }
                };
                Ok(Place::Level([s as u32, off, g.vb_count]))
            }
        }
    }

    /// Every visual of the result in the old layout: unchanged ones as they were, the others
    /// from the visual they are (or copy, or for a new mesh the level's first normal visual)
    /// with what changed set.
    fn visuals(
        &mut self,
        ibs: &mut [IndexData],
        materials: &mut Materials<'_>,
    ) -> Result<Vec<Framed<Visual>>, UnflattenError> {
        let (base, edited) = (self.base, self.edited);
        let fvis = self.flat.level.visuals();
        let bvis = base.visuals();
        let nv = bvis.len();
        let removed = edited.removed;
        let survivors: Vec<usize> = (0..nv).filter(|v| !removed.contains(v)).collect();
        let template_new = (0..nv).find(|&i| {
            fvis[i].header().map(|h| h.model_type) == Some(model_type::NORMAL)
                && fvis[i].gcontainer().is_some()
        });
        let ivis = edited.level.visuals();
        let base_framed = base.visuals_framed().unwrap_or(&[]);
        let mut visuals: Vec<Framed<Visual>> = Vec::with_capacity(ivis.len());
        for (j, iv) in ivis.iter().enumerate() {
            let from = match survivors.get(j) {
                Some(&o) => Some(o),
                None => edited
                    .added
                    .iter()
                    .find(|a| a.visual == j)
                    .and_then(|a| a.copy_of),
            };
            let is_copy = survivors.get(j).is_none();
            let t = from
                .or(template_new)
                .ok_or(UnflattenError::NoTemplate { visual: j })?;
            let fv = fvis[t];
            if !is_copy && **iv == *fv {
                let mut f = base_framed[t].clone();
                f.raw_id = (f.raw_id & crate::chunk::COMPRESSED) | j as u32;
                visuals.push(f);
                continue;
            }
            let mut v = bvis[t].clone();
            if from.is_none() {
                // a new mesh: no chunk of the template's other kinds
                v.chunks.retain(|c| {
                    !matches!(
                        c.value,
                        OgfChunk::Children(_)
                            | OgfChunk::ChildrenNarrow(_)
                            | OgfChunk::TreeDef(_)
                            | OgfChunk::TreeDefOld(_)
                            | OgfChunk::TreeDefTmp(..)
                            | OgfChunk::LodDef(_)
                            | OgfChunk::LodDefOld(_)
                    ) && (c.id() != 9 || !matches!(c.value, OgfChunk::Raw(_)))
                });
            }
            // OGF 3 progressive strips and detail patches: the view draws their full detail
            // level / sprite quads; the old chunks cannot take other geometry
            let mut edit = VisualEdit {
                j,
                format: v.short_header().map_or(4, |s| s.0),
                strips: v
                    .chunks
                    .iter()
                    .any(|c| matches!(c.value, OgfChunk::PLods(_))),
                patches: v
                    .chunks
                    .iter()
                    .any(|c| matches!(c.value, OgfChunk::DPatches(_))),
                geometry_changed: false,
                indices_changed: false,
            };
            if let (Some(ig), Some(fg)) = (iv.gcontainer(), fv.gcontainer()) {
                self.geometry(&mut v, &mut edit, (ig, fg), ibs)?;
            }
            if let (Some(ih), Some(fh)) = (iv.header(), fv.header()) {
                self.header(&mut v, &edit, (ih, fh), materials)?;
            }
            set_records(&mut v, iv, fv);
            let raw = base_framed[t].raw_id & crate::chunk::COMPRESSED;
            visuals.push(Framed {
                raw_id: raw | j as u32,
                stored: None,
                value: v,
            });
        }
        Ok(visuals)
    }

    /// The geometry of visual `v` from the result's container `ig` (the view's was `fg`): its
    /// vertex chunk placed, its indices set (in the level's buffers, or its own).
    fn geometry(
        &self,
        v: &mut Visual,
        edit: &mut VisualEdit,
        (ig, fg): (GContainer, GContainer),
        ibs: &mut [IndexData],
    ) -> Result<(), UnflattenError> {
        let j = edit.j;
        let view_ibs = self.flat.geom.index_buffers().unwrap_or(&[]);
        let vchanged =
            (ig.vb_index, ig.vb_offset, ig.vb_count) != (fg.vb_index, fg.vb_offset, fg.vb_count);
        edit.geometry_changed = vchanged
            || (ig.ib_index, ig.ib_offset, ig.ib_count) != (fg.ib_index, fg.ib_offset, fg.ib_count)
            || !range_same(self.iibs, view_ibs, &ig)
            || {
                // the visual's own vertex range, as bytes
                fn range<'a>(x: &'a VertexBuffer, g: &GContainer) -> Option<&'a [u8]> {
                    let st = x.stride();
                    let first = g.vb_offset as usize;
                    x.data
                        .get(first * st..first.saturating_add(g.vb_count as usize) * st)
                }
                let k = ig.vb_index as usize;
                self.ivbs.get(k).and_then(|x| range(x, &ig))
                    != self.fvbs.get(k).and_then(|x| range(x, &ig))
            };
        if edit.patches && edit.geometry_changed {
            return Err(UnflattenError::PatchEdited { visual: j });
        }
        let inline = matches!(
            self.origin.get(ig.vb_index as usize).copied().flatten(),
            Some(Origin::Inline(_))
        );
        // strips written as a normal visual need their containers at the top level
        let restrip = edit.strips && edit.geometry_changed;
        if vchanged || inline || restrip {
            match self.place(&ig)? {
                Place::Level(r) => set_or_push(
                    v,
                    vcontainer_id(edit.format),
                    |c| match c {
                        OgfChunk::VContainer(x) => {
                            *x = r;
                            true
                        }
                        _ => false,
                    },
                    OgfChunk::VContainer(r),
                ),
                Place::Inline(b) => set_or_push(
                    v,
                    ogf::v3::VERTICES,
                    |c| match c {
                        OgfChunk::Vertices(x) => {
                            *x = b.clone();
                            true
                        }
                        _ => false,
                    },
                    OgfChunk::Vertices(b.clone()),
                ),
            }
            drop_other_vertex_chunk(v, inline);
        }
        let same_range =
            (ig.ib_index, ig.ib_offset, ig.ib_count) == (fg.ib_index, fg.ib_offset, fg.ib_count);
        if restrip || !same_range || !range_same(self.iibs, view_ibs, &ig) {
            edit.indices_changed = true;
            self.indices(v, &ig, ibs)?;
        }
        Ok(())
    }

    /// The changed indices of visual `v` (range `ig` of the result): in place in a level
    /// buffer, appended to the last one (XRLC 9–12), or its own `OGF_INDICES` (4–8).
    fn indices(
        &self,
        v: &mut Visual,
        ig: &GContainer,
        ibs: &mut [IndexData],
    ) -> Result<(), UnflattenError> {
        let k = ig.ib_index as usize;
        let idx: Vec<u16> = self
            .iibs
            .get(k)
            .and_then(|b| b.get(ig.ib_offset as usize..(ig.ib_offset + ig.ib_count) as usize))
            .ok_or(UnflattenError::IndexRange { buffer: k })?
            .to_vec();
        if k < self.nib {
            let r = [ig.ib_index, ig.ib_offset, ig.ib_count];
            set_icontainer(v, r);
        } else if self.nib > 0 {
            let last = ibs.len() - 1;
            let first = ibs[last].len() as u32;
            ibs[last].extend_from_slice(&idx);
            set_icontainer(v, [last as u32, first, ig.ib_count]);
        } else {
            set_or_push(
                v,
                ogf::v3::INDICES, // 8 in OGF 2 too
                |c| match c {
                    OgfChunk::Indices(x) => {
                        *x = idx.clone();
                        true
                    }
                    _ => false,
                },
                OgfChunk::Indices(idx.clone()),
            );
        }
        Ok(())
    }

    /// The header of visual `v` from the result's `ih` (the view's was `fh`): type, material,
    /// bounds, in whichever header chunks the old format has.
    fn header(
        &mut self,
        v: &mut Visual,
        edit: &VisualEdit,
        (ih, fh): (OgfHeader, OgfHeader),
        materials: &mut Materials<'_>,
    ) -> Result<(), UnflattenError> {
        let (j, format) = (edit.j, edit.format);
        let vipm = v
            .chunks
            .iter()
            .position(|c| c.id() == 9 && format == 3 && matches!(c.value, OgfChunk::Raw(_)));
        let mut t_new = None;
        if edit.strips && edit.geometry_changed {
            v.chunks.retain(|c| !matches!(c.value, OgfChunk::PLods(_)));
            t_new = Some(model_type_v3::NORMAL);
            self.notes.push(format!(
                "visual {j}: progressive strips (OGF_P_LODS), and its geometry changed: \
                 written as a normal visual on its edited full detail (no levels of detail)"
            ));
        } else if edit.indices_changed && vipm.is_some() {
            v.chunks.remove(vipm.unwrap_or_default());
            t_new = Some(model_type_v3::NORMAL);
            self.notes.push(format!(
                "visual {j}: progressive (OGF 3 vertex splits), and its triangles changed: \
                 written as a normal visual (no levels of detail)"
            ));
        } else if ih.model_type != fh.model_type {
            t_new = Some(type_in(format, ih.model_type));
        }
        let sid_new = (ih.shader_id != fh.shader_id).then_some(ih.shader_id);
        let pair = match sid_new {
            Some(s) if materials.paired => Some(materials.pair_for(s)?),
            _ => None,
        };
        for c in &mut v.chunks {
            match &mut c.value {
                OgfChunk::ShortHeader {
                    model_type,
                    shader_id,
                    ..
                } => {
                    if let Some(t) = t_new {
                        *model_type = t;
                    }
                    if let (Some(s), false) = (sid_new, materials.paired) {
                        *shader_id = s;
                    }
                }
                OgfChunk::Header(h) => {
                    if let Some(t) = t_new {
                        h.model_type = t;
                    }
                    if let Some(s) = sid_new {
                        h.shader_id = s;
                    }
                    h.bbox_min = ih.bbox_min;
                    h.bbox_max = ih.bbox_max;
                    h.sphere_center = ih.sphere_center;
                    h.sphere_radius = ih.sphere_radius;
                }
                OgfChunk::TextureL { texture, shader } => {
                    if let Some((t, s)) = pair {
                        *texture = t;
                        *shader = s;
                    }
                }
                OgfChunk::Bbox { min, max } => {
                    *min = ih.bbox_min;
                    *max = ih.bbox_max;
                }
                OgfChunk::BSphere { center, radius } => {
                    *center = ih.sphere_center;
                    *radius = ih.sphere_radius;
                }
                _ => {}
            }
        }
        Ok(())
    }

    /// The base level with the written buffers, visuals, tables and sectors.
    fn level(
        &self,
        bufs: Vec<OldBuffer>,
        ibs: Vec<IndexData>,
        mut visuals: Vec<Framed<Visual>>,
        materials: Materials<'_>,
    ) -> Level {
        let mut level = self.base.clone();
        let sectors = self.edited.level.sectors().to_vec();
        for c in &mut level.chunks {
            match &mut c.value {
                LevelChunk::Visuals(v) => *v = std::mem::take(&mut visuals),
                LevelChunk::VertexBuffers(v) => {
                    *v = bufs
                        .iter()
                        .map(|(_, d, n, data)| VertexBuffer {
                            decl: d.clone(),
                            count: *n,
                            data: data.clone().into(),
                        })
                        .collect();
                }
                LevelChunk::FvfBuffers(v) => {
                    *v = bufs
                        .iter()
                        .map(|(f, _, n, data)| FvfBuffer {
                            fvf: f.unwrap_or(0),
                            count: *n,
                            data: data.clone(),
                        })
                        .collect();
                }
                LevelChunk::IndexBuffers(v) => v.clone_from(&ibs),
                LevelChunk::Swis(s) => *s = self.edited.geom.swis().to_vec(),
                LevelChunk::Sectors(s) => s.clone_from(&sectors),
                LevelChunk::Shaders(s) => s.clone_from(&materials.shaders),
                LevelChunk::Textures(t) => {
                    if let Some(n) = &materials.textures {
                        t.clone_from(n);
                    }
                }
                _ => {}
            }
        }
        level
    }
}

/// Tree matrix, LOD quads and children of visual `v` from the result's `iv` (the view's was
/// `fv`); sliding windows dropped when the result has none.
fn set_records(v: &mut Visual, iv: &Visual, fv: &Visual) {
    let (itd, ftd) = (iv.treedef(), fv.treedef());
    let iq = iv.lod_quads().map(<[_]>::to_vec);
    let fq = fv.lod_quads().map(<[_]>::to_vec);
    let kids = iv.children().to_vec();
    for c in &mut v.chunks {
        match &mut c.value {
            OgfChunk::TreeDef(t) | OgfChunk::TreeDefOld(t) | OgfChunk::TreeDefTmp(t, _) => {
                if let Some(n) = itd.filter(|n| Some(*n) != ftd) {
                    *t = n;
                }
            }
            OgfChunk::LodDef(q) | OgfChunk::LodDefOld(q) => {
                if let Some(n) = iq.as_ref().filter(|n| Some(*n) != fq.as_ref()) {
                    q.clone_from(n);
                }
            }
            OgfChunk::Children(k) | OgfChunk::ChildrenNarrow(k) => k.clone_from(&kids),
            _ => {}
        }
    }
    if iv.swidata().is_none() {
        v.chunks
            .retain(|c| !matches!(c.value, OgfChunk::SwiData(_) | OgfChunk::SwiContainer(_)));
    }
}

/// The old level's material tables as the write-back extends them: before XRLC 12 a view
/// entry `shader/texture` maps back to its (texture, shader) pair, a new entry adds its names.
struct Materials<'a> {
    /// Materials are (shader, texture) pairs (`OGF_TEXTURE_L`), not one table
    /// ([`Level::paired_materials`]).
    paired: bool,
    /// View shader id → (texture, shader) pair of the old tables.
    pair_of: HashMap<u16, (u32, u32)>,
    shaders: Vec<ShaderEntry>,
    /// XRLC 4/5's texture table.
    textures: Option<Vec<ShaderEntry>>,
    /// The result's shader table.
    itable: &'a [ShaderEntry],
    /// Entries of the view's own table.
    ftable_len: usize,
}

impl<'a> Materials<'a> {
    fn new(base: &Level, flat: &Flat, edited: &'a Level) -> Self {
        let mut pair_of: HashMap<u16, (u32, u32)> = HashMap::new();
        for (b, f) in base.visuals().iter().zip(&flat.level.visuals()) {
            if let (Some(p), Some(h)) = (
                b.find_chunk(|c| match c {
                    OgfChunk::TextureL { texture, shader } => Some((*texture, *shader)),
                    _ => None,
                }),
                f.header(),
            ) {
                pair_of.entry(h.shader_id).or_insert(p);
            }
        }
        let mut shaders: Vec<ShaderEntry> = base.shaders().unwrap_or(&[]).to_vec();
        let itable = edited.shaders().unwrap_or(&[]);
        let paired = base.paired_materials();
        if !paired {
            shaders = itable.to_vec();
        }
        Materials {
            paired,
            pair_of,
            shaders,
            textures: base.textures().map(<[_]>::to_vec),
            itable,
            ftable_len: flat.level.shaders().map_or(0, <[_]>::len),
        }
    }

    /// The (texture, shader) pair of the result's shader entry `sid`, names added as needed.
    fn pair_for(&mut self, sid: u16) -> Result<(u32, u32), UnflattenError> {
        if let Some(p) = self.pair_of.get(&sid) {
            return Ok(*p);
        }
        let text = self
            .itable
            .get(usize::from(sid))
            .map(ShaderEntry::text)
            .unwrap_or_default();
        if usize::from(sid) < self.ftable_len {
            return Err(UnflattenError::UnpairedShader { entry: text });
        }
        let (sh, tex) = text.split_once('/').unwrap_or((text.as_str(), ""));
        let find_or_push = |t: &mut Vec<ShaderEntry>, s: &str| -> u32 {
            match t.iter().position(|e| e.text() == s) {
                Some(i) => i as u32,
                None => {
                    t.push(ShaderEntry(s.as_bytes().to_vec()));
                    t.len() as u32 - 1
                }
            }
        };
        let sh_i = find_or_push(&mut self.shaders, sh);
        let tex_i = match self.textures.as_mut() {
            Some(t) => {
                // 4/5 store `lmap,texture`
                let stored = match tex.split_once(',') {
                    Some((a, b)) if !b.contains(',') => format!("{b},{a}"),
                    _ => tex.to_string(),
                };
                find_or_push(t, &stored)
            }
            None => find_or_push(&mut self.shaders, tex),
        };
        self.pair_of.insert(sid, (tex_i, sh_i));
        Ok((tex_i, sh_i))
    }
}

/// Whether the indices `g` names are the same in both buffer lists.
fn range_same(a: &[IndexData], b: &[IndexData], g: &GContainer) -> bool {
    fn get<'a>(x: &'a [IndexData], g: &GContainer) -> Option<&'a [u16]> {
        x.get(g.ib_index as usize)?
            .get(g.ib_offset as usize..(g.ib_offset as usize).checked_add(g.ib_count as usize)?)
    }
    get(a, g).is_some() && get(a, g) == get(b, g)
}

fn vcontainer_id(format: u8) -> u32 {
    match format {
        2 => ogf::v2::VCONTAINER,
        3 => ogf::v3::VCONTAINER,
        // format 4 in XRLC 12 (2004-08-19 .. 2005-01, `Fmesh.h` `8e15ee2845`)
        _ => ogf::VCONTAINER,
    }
}

/// Set the first chunk `set` accepts, else push `new` with id `id`.
fn set_or_push(v: &mut Visual, id: u32, mut set: impl FnMut(&mut OgfChunk) -> bool, new: OgfChunk) {
    if !v.chunks.iter_mut().any(|c| set(&mut c.value)) {
        v.chunks.push(Framed::plain(id, new));
    }
}

/// After a visual's vertices moved between its own `OGF_VERTICES` and a level buffer, drop the
/// other kind.
fn drop_other_vertex_chunk(v: &mut Visual, inline: bool) {
    v.chunks.retain(|c| match c.value {
        OgfChunk::VContainer(_) => !inline,
        OgfChunk::Vertices(_) => inline,
        _ => true,
    });
}

fn set_icontainer(v: &mut Visual, r: [u32; 3]) {
    v.chunks
        .retain(|c| !matches!(c.value, OgfChunk::Indices(_)));
    let id = match v.short_header() {
        Some(_) => ogf::v3::ICONTAINER,
        // format 4 in XRLC 12 (`Fmesh.h` `8e15ee2845`)
        None => ogf::ICONTAINER,
    };
    set_or_push(
        v,
        id,
        |c| match c {
            OgfChunk::IContainer(x) => {
                *x = r;
                true
            }
            _ => false,
        },
        OgfChunk::IContainer(r),
    );
}
