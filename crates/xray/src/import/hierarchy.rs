//! The visual list and its hierarchy: setters for the chunks an import changes, parents,
//! bounding boxes and spheres recomputed up the tree, and removing visuals with every index
//! renumbered (children lists, sector roots, the visual chunks' own ids).

use glam::DVec3;

use crate::chunk::Framed;
use crate::level::{Level, LevelChunk};
use crate::ogf::{model_type, GContainer, OgfChunk, OgfHeader, TreeDef, Visual};
use crate::sectors::SectorChunk;
use crate::shaders::ShaderEntry;

/// The visual chunks, mutable (the level has them: it was read with them).
pub(crate) fn visuals_mut(l: &mut Level) -> Option<&mut Vec<Framed<Visual>>> {
    l.chunks.iter_mut().find_map(|c| match &mut c.value {
        LevelChunk::Visuals(v) => Some(v),
        _ => None,
    })
}

/// The shader table, mutable.
pub(crate) fn shaders_mut(l: &mut Level) -> Option<&mut Vec<ShaderEntry>> {
    l.chunks.iter_mut().find_map(|c| match &mut c.value {
        LevelChunk::Shaders(v) => Some(v),
        _ => None,
    })
}

/// Set the visual's header.
pub(crate) fn set_header(v: &mut Visual, h: OgfHeader) {
    for c in &mut v.chunks {
        if let OgfChunk::Header(x) = &mut c.value {
            *x = h;
        }
    }
}

/// Set the visual's GCONTAINER (level.geom range).
pub(crate) fn set_gcontainer(v: &mut Visual, g: GContainer) {
    for c in &mut v.chunks {
        if let OgfChunk::GContainer(x) = &mut c.value {
            *x = g;
        }
    }
}

/// Set the GCONTAINER inside the visual's FASTPATH (level.geomx range).
pub(crate) fn set_fastpath(v: &mut Visual, g: GContainer) {
    for c in &mut v.chunks {
        if let OgfChunk::FastPath(cs) = &mut c.value {
            for c in cs {
                if let OgfChunk::GContainer(x) = &mut c.value {
                    *x = g;
                }
            }
        }
    }
}

/// Remove the visual's FASTPATH chunk.
pub(crate) fn drop_fastpath(v: &mut Visual) {
    v.chunks
        .retain(|c| !matches!(c.value, OgfChunk::FastPath(_)));
}

/// Set the visual's TREEDEF2.
pub(crate) fn set_treedef(v: &mut Visual, t: TreeDef) {
    for c in &mut v.chunks {
        if let OgfChunk::TreeDef(x) = &mut c.value {
            *x = t;
        }
    }
}

/// Set the visual's children list.
pub(crate) fn set_children(v: &mut Visual, kids: Vec<u32>) {
    for c in &mut v.chunks {
        if let OgfChunk::Children(x) = &mut c.value {
            *x = kids;
            return;
        }
    }
}

/// The first parent of every visual (the one the exporter places it under), `None` for roots.
pub(crate) fn parents(visuals: &[&Visual]) -> Vec<Option<usize>> {
    let n = visuals.len();
    let mut p = vec![None; n];
    for (i, v) in visuals.iter().enumerate() {
        for &c in v.children() {
            let c = c as usize;
            if c < n && c != i && p[c].is_none() {
                p[c] = Some(i);
            }
        }
    }
    p
}

/// The nearest ancestor of `v` (not `v` itself) that is a hierarchy visual.
pub(crate) fn hierarchy_ancestor(
    visuals: &[&Visual],
    parent: &[Option<usize>],
    v: usize,
) -> Option<usize> {
    let mut a = parent.get(v).copied().flatten();
    let mut steps = 0;
    while let Some(x) = a {
        if visuals[x].model_type() == Some(model_type::HIERARCHY) {
            return Some(x);
        }
        a = parent[x];
        steps += 1;
        if steps > visuals.len() {
            return None;
        }
    }
    None
}

/// A box and sphere.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Bounds {
    pub min: DVec3,
    pub max: DVec3,
    pub centre: DVec3,
    pub radius: f64,
}

impl Bounds {
    /// Of a visual's header.
    pub fn of(h: &OgfHeader) -> Bounds {
        let d = |a: [f32; 3]| DVec3::from_array(a.map(f64::from));
        Bounds {
            min: d(h.bbox_min),
            max: d(h.bbox_max),
            centre: d(h.sphere_center),
            radius: f64::from(h.sphere_radius),
        }
    }

    /// The box of points, the sphere around its centre holding them.
    pub fn of_points(pts: &[[f32; 3]]) -> Option<Bounds> {
        let d = |a: [f32; 3]| DVec3::from_array(a.map(f64::from));
        let mut it = pts.iter().map(|p| d(*p));
        let first = it.next()?;
        let (mut lo, mut hi) = (first, first);
        for p in it {
            lo = lo.min(p);
            hi = hi.max(p);
        }
        let c = (lo + hi) / 2.0;
        let r = pts.iter().map(|p| d(*p).distance(c)).fold(0.0, f64::max);
        Some(Bounds {
            min: lo,
            max: hi,
            centre: c,
            radius: r,
        })
    }

    /// The box of several, the sphere around its centre holding their spheres.
    pub fn union(parts: &[Bounds]) -> Option<Bounds> {
        let first = parts.first()?;
        let (mut lo, mut hi) = (first.min, first.max);
        for b in &parts[1..] {
            lo = lo.min(b.min);
            hi = hi.max(b.max);
        }
        let c = (lo + hi) / 2.0;
        let r = parts
            .iter()
            .map(|b| b.centre.distance(c) + b.radius)
            .fold(0.0, f64::max);
        Some(Bounds {
            min: lo,
            max: hi,
            centre: c,
            radius: r,
        })
    }

    /// Write into a header.
    pub fn apply(&self, h: &mut OgfHeader) {
        let f = |v: DVec3| [v.x as f32, v.y as f32, v.z as f32];
        h.bbox_min = f(self.min);
        h.bbox_max = f(self.max);
        h.sphere_center = f(self.centre);
        h.sphere_radius = self.radius as f32;
    }
}

/// Recompute the header bounds of every visual that has a `dirty` visual below it (children of
/// hierarchy and LOD visuals), from its children's headers (a LOD visual's own billboard box
/// included), deepest first. `dirty` marks the visuals whose own bounds were already set;
/// `recompute` visuals that are recomputed from their children themselves (a parent of a
/// removed visual), with their ancestors.
pub(crate) fn propagate_bounds(visuals: &mut [Framed<Visual>], dirty: &[bool], recompute: &[bool]) {
    let n = visuals.len();
    let refs: Vec<&Visual> = visuals.iter().map(|f| &f.value).collect();
    let parent = parents(&refs);
    // every ancestor of a dirty visual, deepest first (by depth)
    let depth = |mut v: usize| {
        let mut d = 0;
        while let Some(p) = parent[v] {
            v = p;
            d += 1;
            if d > n {
                break;
            }
        }
        d
    };
    let mut todo = vec![false; n];
    for v in 0..n {
        let d = dirty.get(v).copied().unwrap_or(false);
        let r = recompute.get(v).copied().unwrap_or(false);
        if !d && !r {
            continue;
        }
        if r {
            todo[v] = true;
        }
        let mut a = parent.get(v).copied().flatten();
        let mut steps = 0;
        while let Some(x) = a {
            if std::mem::replace(&mut todo[x], true) || steps > n {
                break;
            }
            a = parent[x];
            steps += 1;
        }
    }
    let mut order: Vec<usize> = (0..n).filter(|&v| todo[v]).collect();
    order.sort_by_key(|&v| std::cmp::Reverse(depth(v)));
    for v in order {
        let kids: Vec<Bounds> = visuals[v]
            .value
            .children()
            .iter()
            .filter_map(|&c| visuals.get(c as usize))
            .filter_map(|c| c.value.header())
            .map(|h| Bounds::of(&h))
            .collect();
        let mut parts = kids;
        if let Some(q) = visuals[v].value.lod_quads() {
            let pts: Vec<[f32; 3]> = q.iter().flat_map(|q| q.iter().map(|v| v.pos)).collect();
            parts.extend(Bounds::of_points(&pts));
        }
        if let (Some(b), Some(mut h)) = (Bounds::union(&parts), visuals[v].value.header()) {
            b.apply(&mut h);
            set_header(&mut visuals[v].value, h);
        }
    }
}

/// Remove the visuals marked in `remove` and renumber every index to a visual: children lists,
/// sector roots and the visual chunks' ids (which are their indices). Returns the map from
/// old to new indices.
pub(crate) fn remove_visuals(l: &mut Level, remove: &[bool]) -> Vec<Option<u32>> {
    let mut next = 0u32;
    let map: Vec<Option<u32>> = remove
        .iter()
        .map(|&r| {
            (!r).then(|| {
                next += 1;
                next - 1
            })
        })
        .collect();
    if let Some(vs) = visuals_mut(l) {
        let mut i = 0;
        vs.retain(|_| {
            i += 1;
            !remove.get(i - 1).copied().unwrap_or(false)
        });
        for (k, f) in vs.iter_mut().enumerate() {
            // the id keeps its compression flag
            f.raw_id = (f.raw_id & crate::chunk::COMPRESSED) | k as u32;
            let kids: Vec<u32> = f
                .value
                .children()
                .iter()
                .filter_map(|&c| map.get(c as usize).copied().flatten())
                .collect();
            if kids.as_slice() != f.value.children() {
                set_children(&mut f.value, kids);
            }
        }
    }
    for c in &mut l.chunks {
        if let LevelChunk::Sectors(ss) = &mut c.value {
            for s in ss {
                for sc in &mut s.value.chunks {
                    if let SectorChunk::Root(r) = &mut sc.value {
                        if let Some(Some(n)) = map.get(*r as usize) {
                            *r = *n;
                        }
                    }
                }
            }
        }
    }
    map
}
