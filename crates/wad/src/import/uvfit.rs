//! Materials and UVs → texture entry and face flags (the inverse of [`crate::scene::uv`] and
//! [`crate::scene::material`]).
//!
//! The engine has no free UVs: a face shows one half of a texture entry's rectangle, the
//! corners chosen by the flags 0x800, 0x10 and 0x20 ([`crate::scene::uv::corners`]). A mesh
//! triangle's material name ([`MaterialKey::parse`]) says which entries are candidates:
//!
//! * `page_NN` with the suffixes `_blendK` and `_ds` (in the exporter's order, but any order
//!   and a Blender `.001` suffix are accepted): the textured entries on page NN with blend mode
//!   K (every entry on the page when none has that mode); `_ds` sets face flag 0x400;
//! * `flat_RRGGBB` (same suffixes): the flat-colour entry of that colour (and blend mode when
//!   one has it); no UVs are needed;
//! * anything else, or a name whose page or colour the level does not have: the default entry.
//!
//! Among the candidates, every entry, flag combination (0x800, 0x810, 0, each with and without
//! the mirror 0x20) and cyclic rotation of the triangle's corners (a rotation keeps the winding
//! and the plane) is tried; the one whose corner UVs are nearest to the triangle's (the largest
//! per-coordinate difference over the three corners) wins, first found on ties.

use std::collections::BTreeMap;

use crate::model::{FACE_DOUBLE_SIDED, FACE_UV_MIRROR, FACE_UV_QUAD, FACE_UV_SECOND};
use crate::scene::material::MaterialKey;
use crate::scene::uv::{corners, UvRect};
use crate::text::Text;

/// The face flag combinations tried, in order of preference (quad halves first: 96 % of real
/// world faces carry 0x800).
pub const FLAG_SETS: [u16; 6] = [
    FACE_UV_QUAD,
    FACE_UV_QUAD | FACE_UV_SECOND,
    0,
    FACE_UV_QUAD | FACE_UV_MIRROR,
    FACE_UV_QUAD | FACE_UV_SECOND | FACE_UV_MIRROR,
    FACE_UV_MIRROR,
];

/// How one triangle is drawn: entry, flags, and the rotation of its corners.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Look {
    /// Texture entry index.
    pub entry: u16,
    /// Face flags (UV corner flags and 0x400; no batch flag).
    pub flags: u16,
    /// Stored corner k is input corner `(k + rotation) % 3`.
    pub rotation: usize,
    /// The UV error of the fit (largest coordinate difference), `None` when no UVs were
    /// compared (flat colours, missing UVs).
    pub error: Option<f32>,
    /// Which rule chose the entry.
    pub source: LookSource,
}

/// Which rule chose a triangle's entry.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LookSource {
    /// A `page_NN` material, fitted to its UVs.
    Page,
    /// A `page_NN` material without UVs: the first candidate entry, flags 0x800.
    PageNoUv,
    /// A `flat_RRGGBB` material with a matching flat-colour entry.
    Flat,
    /// The default entry (unknown material, missing page or colour).
    Default,
}

/// The texture entries of a level, indexed for fitting.
pub struct Entries {
    rects: Vec<Option<UvRect>>,
    by_page: BTreeMap<(usize, u8), Vec<u16>>,
    by_page_any: BTreeMap<usize, Vec<u16>>,
    flat: BTreeMap<([u8; 3], u8), u16>,
    flat_any: BTreeMap<[u8; 3], u16>,
    default: u16,
}

impl Entries {
    /// Index the entries of `text`; `default` is the entry for unknown materials.
    pub fn new(text: &Text, default: u16) -> Entries {
        let mut e = Entries {
            rects: Vec::with_capacity(text.entries.len()),
            by_page: BTreeMap::new(),
            by_page_any: BTreeMap::new(),
            flat: BTreeMap::new(),
            flat_any: BTreeMap::new(),
            default,
        };
        for (i, t) in text.entries.iter().enumerate() {
            let Ok(i) = u16::try_from(i) else { break };
            let blend = t.blend_mode();
            if t.is_flat_colour() {
                e.rects.push(None);
                let rgb = [t.u0, t.u1, t.v0];
                e.flat.entry((rgb, blend)).or_insert(i);
                e.flat_any.entry(rgb).or_insert(i);
                continue;
            }
            let page = usize::from(t.page);
            let Some(p) = text.pages.get(page) else {
                e.rects.push(None);
                continue;
            };
            e.rects
                .push(Some(UvRect::new(t.u0, t.u1, t.v0, t.v1, p.width, p.height)));
            e.by_page.entry((page, blend)).or_default().push(i);
            e.by_page_any.entry(page).or_default().push(i);
        }
        e
    }

    /// The look of a triangle with material `name` and corner UVs `uvs`.
    pub fn look(&self, name: &str, uvs: Option<&[[f32; 2]; 3]>) -> Look {
        match MaterialKey::parse(name) {
            Some(MaterialKey::Page {
                page,
                blend,
                double_sided,
            }) => {
                let ds = if double_sided { FACE_DOUBLE_SIDED } else { 0 };
                let cands = self
                    .by_page
                    .get(&(page, blend))
                    .or_else(|| self.by_page_any.get(&page));
                let Some(cands) = cands.filter(|c| !c.is_empty()) else {
                    return self.default_look(uvs, ds);
                };
                match uvs {
                    Some(uvs) => {
                        let mut look = self.fit(cands, uvs);
                        look.flags |= ds;
                        look
                    }
                    None => Look {
                        entry: cands[0],
                        flags: FACE_UV_QUAD | ds,
                        rotation: 0,
                        error: None,
                        source: LookSource::PageNoUv,
                    },
                }
            }
            Some(MaterialKey::Flat {
                rgb,
                blend,
                double_sided,
                ..
            }) => {
                let ds = if double_sided { FACE_DOUBLE_SIDED } else { 0 };
                match self
                    .flat
                    .get(&(rgb, blend))
                    .or_else(|| self.flat_any.get(&rgb))
                {
                    Some(&entry) => Look {
                        entry,
                        flags: ds,
                        rotation: 0,
                        error: None,
                        source: LookSource::Flat,
                    },
                    None => self.default_look(uvs, ds),
                }
            }
            Some(MaterialKey::Collision { .. } | MaterialKey::Marker) | None => {
                self.default_look(uvs, 0)
            }
        }
    }

    fn default_look(&self, uvs: Option<&[[f32; 2]; 3]>, ds: u16) -> Look {
        let d = self.default;
        let textured = self.rects.get(usize::from(d)).copied().flatten().is_some();
        let mut look = match uvs {
            Some(uvs) if textured => self.fit(&[d], uvs),
            _ => Look {
                entry: d,
                flags: if textured { FACE_UV_QUAD } else { 0 },
                rotation: 0,
                error: None,
                source: LookSource::Default,
            },
        };
        look.flags |= ds;
        look.source = LookSource::Default;
        look
    }

    /// The best entry among `cands`, flags and rotation for `uvs`.
    fn fit(&self, cands: &[u16], uvs: &[[f32; 2]; 3]) -> Look {
        let (mut lo, mut hi) = ([f32::INFINITY; 2], [f32::NEG_INFINITY; 2]);
        for uv in uvs {
            for k in 0..2 {
                lo[k] = lo[k].min(uv[k]);
                hi[k] = hi[k].max(uv[k]);
            }
        }
        let mut best = Look {
            entry: cands[0],
            flags: FACE_UV_QUAD,
            rotation: 0,
            error: Some(f32::INFINITY),
            source: LookSource::Page,
        };
        let mut best_err = f32::INFINITY;
        for &c in cands {
            let Some(r) = self.rects.get(usize::from(c)).copied().flatten() else {
                continue;
            };
            // Every half-rectangle reaches all four edges of its rectangle, so the distance
            // of the UVs' bounding box from the rectangle bounds the error from below.
            let bound = (lo[0] - r.u0)
                .abs()
                .max((hi[0] - r.u1).abs())
                .max((lo[1] - r.v0).abs())
                .max((hi[1] - r.v1).abs());
            if bound >= best_err {
                continue;
            }
            for flags in FLAG_SETS {
                let cs = corners(flags, &r);
                for rot in 0..3 {
                    let mut err = 0f32;
                    for (k, c) in cs.iter().enumerate() {
                        let uv = uvs[(k + rot) % 3];
                        err = err.max((c[0] - uv[0]).abs()).max((c[1] - uv[1]).abs());
                    }
                    if err < best_err {
                        best_err = err;
                        best = Look {
                            entry: c,
                            flags,
                            rotation: rot,
                            error: Some(err),
                            source: LookSource::Page,
                        };
                    }
                }
            }
        }
        if !best_err.is_finite() {
            best.error = None;
        }
        best
    }
}
