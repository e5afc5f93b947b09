//! Consistency rules for geom and level files, each violation reported with where it is.
//!
//! Geom alone: declaration sanity (known usages, stream 0, no overlaps, a position), vertex
//! bytes = count × stride, and per SWI item at least one window, each starting on a triangle
//! (offset a multiple of 3, as xrLC writes `iCurTriBinned·3`). Level: contiguous visual ids, OGF
//! format version 4, shader ids inside the table, child and sector-root visual indices valid,
//! portal sector indices valid, glow shader ids valid. Level + geom: every GCONTAINER range
//! inside its buffers, `ib_count` a multiple of 3, indices below `vb_count`, SWI windows
//! inside their visual's index range and vertex count, SWI container indices valid; FASTPATH
//! ranges (and their inline windows) against `level.geomx` when it is given.

use std::collections::BTreeSet;

use levelgeom_binary::Problem;

use crate::cform::Cform;
use crate::geom::{Geom, SwiItem};
use crate::level::Level;
use crate::ogf::{model_type, GContainer};

fn p(path: impl Into<String>, message: impl Into<String>) -> Problem {
    Problem::new(path, message)
}

/// Rules a geom file satisfies on its own.
pub fn geom(g: &Geom) -> Vec<Problem> {
    let mut out = Vec::new();
    if g.header().is_none() {
        out.push(p("file", "no header chunk 1"));
    }
    for (i, vb) in g.vertex_buffers().unwrap_or(&[]).iter().enumerate() {
        for m in vb.decl.problems() {
            out.push(p(format!("fsL_VB/vb[{i}]"), m));
        }
        let expect = (vb.count as usize).checked_mul(vb.stride());
        if expect != Some(vb.data.len()) {
            out.push(p(
                format!("fsL_VB/vb[{i}]"),
                "vertex bytes differ from count × stride",
            ));
        }
    }
    for (i, item) in g.swis().iter().enumerate() {
        let path = format!("fsL_SWIS/item[{i}]");
        if item.windows.is_empty() {
            out.push(p(&path, "no windows (sw[0] is the full-detail mesh)"));
        }
        for (k, w) in item.windows.iter().enumerate() {
            if w.offset % 3 != 0 {
                out.push(p(
                    format!("{path}/sw[{k}]"),
                    format!("offset {} is not a multiple of 3", w.offset),
                ));
            }
        }
    }
    out
}

/// Check a range `[off, off+count)` against `len`.
fn inside(off: u32, count: u32, len: usize) -> bool {
    u64::from(off) + u64::from(count) <= len as u64
}

fn check_range(
    out: &mut Vec<Problem>,
    path: &str,
    g: &GContainer,
    geom: &Geom,
    what: &str,
) -> Option<(usize, usize)> {
    let vbs = geom.vertex_buffers().unwrap_or(&[]);
    let ibs = geom.index_buffers().unwrap_or(&[]);
    let mut ok = true;
    match vbs.get(g.vb_index as usize) {
        None => {
            out.push(p(
                path,
                format!(
                    "vb_index {} but {what} has {} vertex buffers",
                    g.vb_index,
                    vbs.len()
                ),
            ));
            ok = false;
        }
        Some(vb) if !inside(g.vb_offset, g.vb_count, vb.count as usize) => {
            out.push(p(
                path,
                format!(
                    "vertices {}..{} outside vertex buffer {} of {} vertices",
                    g.vb_offset,
                    u64::from(g.vb_offset) + u64::from(g.vb_count),
                    g.vb_index,
                    vb.count
                ),
            ));
            ok = false;
        }
        _ => {}
    }
    match ibs.get(g.ib_index as usize) {
        None => {
            out.push(p(
                path,
                format!(
                    "ib_index {} but {what} has {} index buffers",
                    g.ib_index,
                    ibs.len()
                ),
            ));
            ok = false;
        }
        Some(ib) if !inside(g.ib_offset, g.ib_count, ib.len()) => {
            out.push(p(
                path,
                format!(
                    "indices {}..{} outside index buffer {} of {} indices",
                    g.ib_offset,
                    u64::from(g.ib_offset) + u64::from(g.ib_count),
                    g.ib_index,
                    ib.len()
                ),
            ));
            ok = false;
        }
        _ => {}
    }
    if g.ib_count % 3 != 0 {
        out.push(p(
            path,
            format!("ib_count {} is not a multiple of 3", g.ib_count),
        ));
    }
    if !ok {
        return None;
    }
    let ib = &ibs[g.ib_index as usize];
    let range = &ib[g.ib_offset as usize..(g.ib_offset + g.ib_count) as usize];
    if let Some((k, &i)) = range
        .iter()
        .enumerate()
        .find(|(_, &i)| u32::from(i) >= g.vb_count)
    {
        out.push(p(
            path,
            format!(
                "index {i} at position {k} is not below vb_count {}",
                g.vb_count
            ),
        ));
    }
    Some((g.ib_offset as usize, g.ib_count as usize))
}

fn check_swi(out: &mut Vec<Problem>, path: &str, s: &SwiItem, g: &GContainer, geom: &Geom) {
    let ib = geom
        .index_buffers()
        .and_then(|b| b.get(g.ib_index as usize));
    if s.windows.is_empty() {
        out.push(p(path, "no windows (sw[0] is the full-detail mesh)"));
    }
    for (k, w) in s.windows.iter().enumerate() {
        if w.offset % 3 != 0 {
            out.push(p(
                format!("{path}/sw[{k}]"),
                format!("offset {} is not a multiple of 3", w.offset),
            ));
        }
        let n = u64::from(w.num_tris) * 3;
        if u64::from(w.offset) + n > u64::from(g.ib_count) {
            out.push(p(
                format!("{path}/sw[{k}]"),
                format!(
                    "window of {} triangles at index {} runs past the visual's {} indices",
                    w.num_tris, w.offset, g.ib_count
                ),
            ));
            continue;
        }
        if u32::from(w.num_verts) > g.vb_count {
            out.push(p(
                format!("{path}/sw[{k}]"),
                format!(
                    "window uses {} vertices, the visual has {}",
                    w.num_verts, g.vb_count
                ),
            ));
        }
        if let Some(ib) = ib {
            let start = u64::from(g.ib_offset) + u64::from(w.offset);
            let win = ib.get(start as usize..(start + n) as usize).unwrap_or(&[]);
            if let Some(&i) = win.iter().find(|&&i| i >= w.num_verts) {
                out.push(p(
                    format!("{path}/sw[{k}]"),
                    format!(
                        "index {i} is not below the window's {} vertices",
                        w.num_verts
                    ),
                ));
            }
        }
    }
}

/// Rules of a level, with its `level.geom` (and `level.geomx`) when available.
pub fn level(l: &Level, geom: Option<&Geom>, geomx: Option<&Geom>) -> Vec<Problem> {
    let mut out = Vec::new();
    match l.header() {
        None => out.push(p("file", "no header chunk 1")),
        Some(h) if !crate::level::known_version(h.version) => out.push(p(
            "fsL_HEADER",
            format!("XRLC version {} (4, 5, 8–14 expected)", h.version),
        )),
        _ => {}
    }
    let shaders = l.shaders().map_or(0, <[_]>::len);
    let framed = l.visuals_framed().unwrap_or(&[]);
    let n = framed.len();
    for (i, f) in framed.iter().enumerate() {
        if f.id() as usize != i {
            out.push(p(
                format!("fsL_VISUALS/visual[{}]", f.id()),
                format!(
                    "visual chunk {i} has id {} (ids must be 0, 1, 2, …)",
                    f.id()
                ),
            ));
        }
    }
    for (i, v) in l.visuals().iter().enumerate() {
        let path = format!("fsL_VISUALS/visual[{i}]");
        let Some(h) = v.header() else {
            out.push(p(&path, "no OGF_HEADER"));
            continue;
        };
        if h.format_version != 4 {
            out.push(p(
                format!("{path}/OGF_HEADER"),
                format!("format version {} (4 expected)", h.format_version),
            ));
        }
        if usize::from(h.shader_id) >= shaders.max(1) {
            out.push(p(
                format!("{path}/OGF_HEADER"),
                format!(
                    "shader_id {} but the table has {shaders} entries",
                    h.shader_id
                ),
            ));
        }
        for (k, &c) in v.children().iter().enumerate() {
            if c as usize == i {
                out.push(p(
                    format!("{path}/OGF_CHILDREN_L"),
                    format!("visual {i} lists itself as a child (child {k})"),
                ));
            } else if c as usize >= n {
                out.push(p(
                    format!("{path}/OGF_CHILDREN_L"),
                    format!("child {k} is visual {c} (there are {n} visuals)"),
                ));
            }
        }
        let t = h.model_type;
        let needs_geom = matches!(
            t,
            model_type::NORMAL
                | model_type::PROGRESSIVE
                | model_type::TREE_ST
                | model_type::TREE_PM
        );
        if needs_geom && v.gcontainer().is_none() {
            out.push(p(
                &path,
                format!("{} visual without OGF_GCONTAINER", model_type::name(t)),
            ));
        }
        if matches!(t, model_type::TREE_ST | model_type::TREE_PM) && v.treedef().is_none() {
            out.push(p(&path, "tree visual without OGF_TREEDEF2"));
        }
        if let (Some(g), Some(geom)) = (v.gcontainer(), geom) {
            let gp = format!("{path}/OGF_GCONTAINER");
            if check_range(&mut out, &gp, &g, geom, "level.geom").is_some() {
                if let Some(s) = v.swidata() {
                    check_swi(&mut out, &format!("{path}/OGF_SWIDATA"), s, &g, geom);
                }
                if let Some(si) = v.swi_container() {
                    match geom.swis().get(si as usize) {
                        Some(s) => {
                            check_swi(&mut out, &format!("{path}/OGF_SWICONTAINER"), s, &g, geom)
                        }
                        None => out.push(p(
                            format!("{path}/OGF_SWICONTAINER"),
                            format!(
                                "SWI index {si} but level.geom has {} items",
                                geom.swis().len()
                            ),
                        )),
                    }
                }
            }
        }
        if let (Some(g), Some(gx)) = (v.fastpath(), geomx) {
            let fp = format!("{path}/OGF_FASTPATH");
            let ok = check_range(
                &mut out,
                &format!("{fp}/OGF_GCONTAINER"),
                &g,
                gx,
                "level.geomx",
            );
            if let (Some(_), Some(s)) = (ok, v.fastpath_swidata()) {
                check_swi(&mut out, &format!("{fp}/OGF_SWIDATA"), s, &g, gx);
            }
        }
    }
    cycles(&mut out, &l.visuals());
    let sectors = l.sectors();
    for (i, s) in sectors.iter().enumerate() {
        if let Some(r) = s.value.root() {
            if r as usize >= n {
                out.push(p(
                    format!("fsL_SECTORS/sector[{i}]/fsP_Root"),
                    format!("root visual {r} (there are {n} visuals)"),
                ));
            }
        }
        for &pi in s.value.portals() {
            if usize::from(pi) >= l.portals().len() {
                out.push(p(
                    format!("fsL_SECTORS/sector[{i}]/fsP_Portals"),
                    format!("portal {pi} (there are {} portals)", l.portals().len()),
                ));
            }
        }
    }
    for (i, pt) in l.portals().iter().enumerate() {
        for s in [pt.sector_front, pt.sector_back] {
            if usize::from(s) >= sectors.len() {
                out.push(p(
                    format!("fsL_PORTALS/portal[{i}]"),
                    format!("sector {s} (there are {} sectors)", sectors.len()),
                ));
            }
        }
        if pt.count > 6 {
            out.push(p(
                format!("fsL_PORTALS/portal[{i}]"),
                format!("{} polygon vertices (at most 6)", pt.count),
            ));
        }
    }
    for (i, g) in l.glows().iter().enumerate() {
        if usize::from(g.shader) >= shaders {
            out.push(p(
                format!("fsL_GLOWS/glow[{i}]"),
                format!("shader {} (the table has {shaders})", g.shader),
            ));
        }
    }
    out
}

/// Report every cycle of the visual hierarchy of two or more visuals (a visual listing itself
/// is reported where the children are checked); each cycle once, by its smallest member.
fn cycles(out: &mut Vec<Problem>, visuals: &[&crate::ogf::Visual]) {
    let n = visuals.len();
    let kids = |i: usize| {
        visuals[i]
            .children()
            .iter()
            .map(|&c| c as usize)
            .filter(move |&c| c < n && c != i)
    };
    // 0 = unvisited, 1 = on the stack, 2 = done
    let mut state = vec![0u8; n];
    let mut seen: BTreeSet<Vec<usize>> = BTreeSet::new();
    for root in 0..n {
        if state[root] != 0 {
            continue;
        }
        let mut stack: Vec<(usize, Vec<usize>, usize)> = vec![(root, kids(root).collect(), 0)];
        state[root] = 1;
        while let Some((node, children, next)) = stack.last_mut() {
            let Some(&c) = children.get(*next) else {
                state[*node] = 2;
                stack.pop();
                continue;
            };
            *next += 1;
            match state[c] {
                0 => {
                    state[c] = 1;
                    stack.push((c, kids(c).collect(), 0));
                }
                1 => {
                    let from = stack.iter().position(|f| f.0 == c).unwrap_or(0);
                    let mut members: Vec<usize> = stack[from..].iter().map(|f| f.0).collect();
                    members.sort_unstable();
                    members.dedup();
                    if seen.insert(members.clone()) {
                        let names: Vec<String> = members.iter().map(usize::to_string).collect();
                        let list = match names.split_last() {
                            Some((last, rest)) if !rest.is_empty() => {
                                format!("{} and {last}", rest.join(", "))
                            }
                            _ => names.join(""),
                        };
                        out.push(p(
                            format!("fsL_VISUALS/visual[{}]/OGF_CHILDREN_L", members[0]),
                            format!(
                                "visuals {list} form a cycle (each is a descendant of the other{})",
                                if members.len() > 2 { "s" } else { "" }
                            ),
                        ));
                    }
                }
                _ => {}
            }
        }
    }
}

/// Rules of a `level.cform`: every triangle's vertex indices inside the vertex list.
pub fn cform(c: &Cform) -> Vec<Problem> {
    let n = c.vertices.len() as u64;
    let mut out: Vec<Problem> = c
        .tris
        .iter()
        .enumerate()
        .filter(|(_, t)| t.verts.iter().any(|&i| u64::from(i) >= n))
        .map(|(k, t)| {
            p(
                format!("faces[{k}]"),
                format!("vertex index {:?} past the {n} vertices", t.verts),
            )
        })
        .collect();
    // the header's box must hold every vertex (the engine culls and grids by it); a little
    // slack for the float rounding of the compiler's own box
    let slack = |lo: f32, hi: f32| 1e-4 * (hi - lo).abs().max(1.0);
    if let Some((k, v)) = c.vertices.iter().enumerate().find(|(_, v)| {
        (0..3).any(|a| {
            let e = slack(c.bbox_min[a], c.bbox_max[a]);
            !(v[a] >= c.bbox_min[a] - e && v[a] <= c.bbox_max[a] + e)
        })
    }) {
        out.push(p(
            format!("vertices[{k}]"),
            format!(
                "vertex {v:?} lies outside the header's bounding box {:?}..{:?}",
                c.bbox_min, c.bbox_max
            ),
        ));
    }
    out
}
