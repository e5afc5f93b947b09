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
use crate::geom::{Geom, SlideWindow, SwiItem};
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
        if v.header().is_none() {
            out.push(p(&path, "no OGF_HEADER"));
            continue;
        }
        visual_records(&mut out, &path, i, v, shaders, n);
        visual_buffers(&mut out, &path, v, geom, geomx);
    }
    cycles(&mut out, &l.visuals());
    links(&mut out, l, n, shaders);
    out
}

/// Rules of visual `i`'s header, children and chunks (`shaders` table entries, `n` visuals).
fn visual_records(
    out: &mut Vec<Problem>,
    path: &str,
    i: usize,
    v: &crate::ogf::Visual,
    shaders: usize,
    n: usize,
) {
    let Some(h) = v.header() else {
        return;
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
        model_type::NORMAL | model_type::PROGRESSIVE | model_type::TREE_ST | model_type::TREE_PM
    );
    if needs_geom && v.gcontainer().is_none() {
        out.push(p(
            path,
            format!("{} visual without OGF_GCONTAINER", model_type::name(t)),
        ));
    }
    if matches!(t, model_type::TREE_ST | model_type::TREE_PM) && v.treedef().is_none() {
        out.push(p(path, "tree visual without OGF_TREEDEF2"));
    }
}

/// Rules of visual `v`'s ranges in `level.geom` and `level.geomx`.
fn visual_buffers(
    out: &mut Vec<Problem>,
    path: &str,
    v: &crate::ogf::Visual,
    geom: Option<&Geom>,
    geomx: Option<&Geom>,
) {
    if let (Some(g), Some(geom)) = (v.gcontainer(), geom) {
        let gp = format!("{path}/OGF_GCONTAINER");
        if check_range(out, &gp, &g, geom, "level.geom").is_some() {
            if let Some(s) = v.swidata() {
                check_swi(out, &format!("{path}/OGF_SWIDATA"), s, &g, geom);
            }
            if let Some(si) = v.swi_container() {
                match geom.swis().get(si as usize) {
                    Some(s) => check_swi(out, &format!("{path}/OGF_SWICONTAINER"), s, &g, geom),
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
        let ok = check_range(out, &format!("{fp}/OGF_GCONTAINER"), &g, gx, "level.geomx");
        if let (Some(_), Some(s)) = (ok, v.fastpath_swidata()) {
            check_swi(out, &format!("{fp}/OGF_SWIDATA"), s, &g, gx);
        }
    }
}

/// Rules of the links between sectors, portals, visuals (`n`) and glows (`shaders` table
/// entries).
fn links(out: &mut Vec<Problem>, l: &Level, n: usize, shaders: usize) {
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

// ---------------------------------------------------------------------------------------------
// Compiled-level rules: what breaks the game or betrays a bad compile, over a level folder.

/// What [`compiled`] looks at besides the level's own files.
#[derive(Clone, Copy, Debug, Default)]
pub struct CompiledOptions<'a> {
    /// A `gamedata/textures` folder: every texture a shader entry names must be there or in
    /// the level folder (`check --textures`).
    pub textures: Option<&'a std::path::Path>,
    /// Limits for what is read on the way.
    pub limits: levelgeom_binary::Limits,
}

/// Where the chunks of the level and its geom start, computed once and only when a finding
/// needs an offset (the level is serialised back, byte-exact, and its chunks listed).
struct Offsets<'a> {
    files: &'a crate::files::LevelFiles,
    level: Option<Vec<crate::ChunkEntry>>,
    geom_ib: Option<Option<u64>>,
}

impl Offsets<'_> {
    fn level_chunks(&mut self) -> &[crate::ChunkEntry] {
        self.level.get_or_insert_with(|| {
            self.files
                .level
                .to_bytes()
                .ok()
                .and_then(|b| crate::chunks(&b).ok())
                .unwrap_or_default()
        })
    }

    /// The file offset of the header of the chunk at `path` in `level`.
    fn chunk(&mut self, path: &str) -> Option<u64> {
        self.level_chunks()
            .iter()
            .find(|c| c.path == path)
            .map(|c| c.offset)
    }

    /// The offset of shader entry `k`'s string in `level` (the chunk's offset when it is
    /// compressed).
    fn shader(&mut self, l: &Level, k: usize) -> Option<u64> {
        let c = self
            .level_chunks()
            .iter()
            .find(|c| c.path == "fsL_SHADERS")?
            .clone();
        if c.compressed {
            return Some(c.offset);
        }
        let before: u64 = l
            .shaders()?
            .iter()
            .take(k)
            .map(|e| e.0.len() as u64 + 1)
            .sum();
        Some(c.offset + 8 + 4 + before)
    }

    /// The offset in `level.geom` of index `at` of index buffer `ib` (`None` when the index
    /// buffers are compressed or the geom cannot be listed).
    fn geom_index(&mut self, ib: usize, at: usize) -> Option<u64> {
        let files = self.files;
        let start = *self.geom_ib.get_or_insert_with(|| {
            let g = files.geom.as_ref()?;
            let b = g.geom.to_bytes().ok()?;
            let c = crate::chunks(&b)
                .ok()?
                .into_iter()
                .find(|c| c.path == "fsL_IB" && !c.compressed)?;
            Some(c.offset + 8)
        });
        let ibs = files.geom.as_ref()?.geom.index_buffers()?;
        let before: u64 = ibs.iter().take(ib).map(|b| 4 + 2 * b.len() as u64).sum();
        Some(start? + 4 + before + 4 + 2 * at as u64)
    }
}

/// Positions of a geom's vertex buffers, decoded once.
fn positions(g: &Geom) -> Vec<Vec<[f32; 3]>> {
    g.vertex_buffers()
        .unwrap_or(&[])
        .iter()
        .map(|vb| vb.decode().positions)
        .collect()
}

/// The full-detail index range of a GCONTAINER: `sw[0]` of a progressive visual's sliding
/// windows (the lower levels of detail share the index range), else the whole range; as
/// (first index, index count).
fn full_detail(g: &GContainer, window: Option<SlideWindow>) -> (usize, usize) {
    match window {
        Some(w) => (
            g.ib_offset as usize + w.offset as usize,
            usize::from(w.num_tris) * 3,
        ),
        None => (g.ib_offset as usize, g.ib_count as usize),
    }
}

/// The triangles of a GCONTAINER's full-detail range as positions (`None` when the range is
/// broken; the range rules report that).
fn triangles(
    g: &GContainer,
    range: (usize, usize),
    geom: &Geom,
    pos: &[Vec<[f32; 3]>],
) -> Option<Vec<[[f32; 3]; 3]>> {
    let p = pos.get(g.vb_index as usize)?;
    let ib = geom.index_buffers()?.get(g.ib_index as usize)?;
    let idx = ib.get(range.0..range.0.checked_add(range.1)?)?;
    idx.chunks_exact(3)
        .map(|t| {
            let v = |i: u16| p.get(g.vb_offset as usize + usize::from(i)).copied();
            Some([v(t[0])?, v(t[1])?, v(t[2])?])
        })
        .collect()
}

/// Zero area: `|(b − a) × (c − a)|` at most 1e-6 of the longest edge squared (exactly
/// coincident or collinear corners, and slivers no renderer draws).
fn degenerate(t: &[[f32; 3]; 3]) -> bool {
    let v = |p: [f32; 3]| glam::DVec3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2]));
    let (a, b, c) = (v(t[0]), v(t[1]), v(t[2]));
    let cross = (b - a).cross(c - a).length();
    let longest = (b - a)
        .length_squared()
        .max((c - a).length_squared())
        .max((c - b).length_squared());
    cross <= 1e-6 * longest
}

/// A triangle as a sortable key that does not depend on which corner comes first (the
/// winding is kept): corners rotated so the smallest is first; `-0.0` equals `0.0`.
fn tri_key(t: &[[f32; 3]; 3]) -> [[u32; 3]; 3] {
    let k = |p: [f32; 3]| p.map(|x| if x == 0.0 { 0 } else { x.to_bits() });
    let c = [k(t[0]), k(t[1]), k(t[2])];
    let r = (0..3).min_by_key(|&i| c[i]).unwrap_or(0);
    [c[r], c[(r + 1) % 3], c[(r + 2) % 3]]
}

fn list(v: &[usize]) -> String {
    let shown: Vec<String> = v.iter().take(8).map(usize::to_string).collect();
    let more = v.len().saturating_sub(8);
    if more > 0 {
        format!("{} and {more} more", shown.join(", "))
    } else {
        shown.join(", ")
    }
}

/// The rules of a compiled level that need more than one file's structure, each finding with
/// its visual (or shader, or file) and an offset:
///
/// Triangles are those of full detail (`sw[0]` of a progressive visual, else the whole range).
///
/// * **zero-area triangles** per visual (`level.geom`; one finding per visual: how many, the
///   first with its indices' offset in `level.geom`), a warning: the game skips them, but a
///   compiler that left them made other mistakes too;
/// * **`level.geomx` against `level.geom`**: each visual's fast-path range must hold as many
///   triangles, at the same positions (compared as sets, corner order free, winding kept), as
///   its full range — the engine draws shadows and depth from `level.geomx`, so a mismatch
///   gives wrong static shadows;
/// * **textures** (with [`CompiledOptions::textures`]): every texture a shader entry names
///   must be a `<name>.dds` in the level folder or the textures folder (the engine's lookup;
///   lower-case names accepted), else the game draws `ed_not_existing_texture`; names that
///   would leave the folder are findings too;
/// * **LOD textures**: `level_lods.dds` and `level_lods_nm.dds` in the level folder must have
///   the same size (the normal map is sampled with the colour atlas's UVs) and readable headers;
/// * **sectors**: when the level has sectors, every visual must be reached from a sector's
///   root ([`Level::visual_sectors`]); the engine draws a visual only through its sector.
pub fn compiled(files: &crate::files::LevelFiles, opts: &CompiledOptions<'_>) -> Vec<Problem> {
    let mut out = Vec::new();
    let l = &files.level;
    let visuals = l.visuals();
    let mut at = Offsets {
        files,
        level: None,
        geom_ib: None,
    };
    let geom = files.geom.as_ref().map(|g| &g.geom);
    let geomx = files.geomx.as_ref().map(|g| &g.geom);
    let gpos = geom.map(positions);
    let xpos = geomx.map(positions);

    for (i, v) in visuals.iter().enumerate() {
        let vpath = format!("fsL_VISUALS/visual[{i}]");
        let (Some(g), Some(geom), Some(gpos)) = (v.gcontainer(), geom, gpos.as_deref()) else {
            continue;
        };
        let t = v.model_type().unwrap_or(u8::MAX);
        let progressive = matches!(t, model_type::PROGRESSIVE | model_type::TREE_PM);
        let window = progressive
            .then(|| {
                v.swidata()
                    .or_else(|| v.swi_container().and_then(|i| geom.swis().get(i as usize)))
                    .and_then(|s| s.windows.first().copied())
            })
            .flatten();
        let range = full_detail(&g, window);
        let Some(tris) = triangles(&g, range, geom, gpos) else {
            continue;
        };
        let bad: Vec<usize> = (0..tris.len()).filter(|&t| degenerate(&tris[t])).collect();
        if let Some(&first) = bad.first() {
            let ib = geom
                .index_buffers()
                .and_then(|b| b.get(g.ib_index as usize));
            let idx: Vec<u16> = ib
                .and_then(|b| b.get(range.0 + 3 * first..range.0 + 3 * first + 3))
                .map(<[u16]>::to_vec)
                .unwrap_or_default();
            let where_geom = at
                .geom_index(g.ib_index as usize, range.0 + 3 * first)
                .map(|o| format!(" at 0x{o:08X} of level.geom"))
                .unwrap_or_default();
            let mut pr = p(
                format!("{vpath}/OGF_GCONTAINER"),
                format!(
                    "{} of {} triangles have zero area (first: triangle {first}, indices {idx:?}{where_geom})",
                    bad.len(),
                    tris.len()
                ),
            )
            .warning();
            if let Some(o) = at.chunk(&vpath) {
                pr = pr.at(o);
            }
            out.push(pr);
        }
        let (Some(fg), Some(gx), Some(xpos)) = (v.fastpath(), geomx, xpos.as_deref()) else {
            continue;
        };
        let xwindow = progressive
            .then(|| {
                v.fastpath_swidata()
                    .and_then(|s| s.windows.first().copied())
            })
            .flatten();
        let Some(xtris) = triangles(&fg, full_detail(&fg, xwindow), gx, xpos) else {
            continue;
        };
        let fpath = format!("{vpath}/OGF_FASTPATH/OGF_GCONTAINER");
        let message = if xtris.len() != tris.len() {
            Some(format!(
                "level.geomx has {} triangles for this visual, level.geom {} (static shadows \
                 are drawn from level.geomx)",
                xtris.len(),
                tris.len()
            ))
        } else {
            let mut a: Vec<_> = tris.iter().map(tri_key).collect();
            let mut b: Vec<_> = xtris.iter().map(tri_key).collect();
            a.sort_unstable();
            b.sort_unstable();
            if a == b {
                None
            } else {
                let firstx = xtris
                    .iter()
                    .position(|t| a.binary_search(&tri_key(t)).is_err())
                    .unwrap_or(0);
                let n = xtris
                    .iter()
                    .filter(|t| a.binary_search(&tri_key(t)).is_err())
                    .count();
                Some(format!(
                    "{n} of {} level.geomx triangles are at other positions than level.geom's \
                     (first: triangle {firstx} at {:?}; static shadows are drawn from level.geomx)",
                    xtris.len(),
                    xtris.get(firstx).map(|t| t[0]).unwrap_or_default()
                ))
            }
        };
        if let Some(m) = message {
            let mut pr = p(fpath, m);
            if let Some(o) = at.chunk(&vpath) {
                pr = pr.at(o);
            }
            out.push(pr);
        }
    }

    if let Some(dir) = opts.textures {
        missing_textures(&mut out, files, dir, &mut at);
    }
    lod_textures(&mut out, files, &opts.limits);

    if !l.sectors().is_empty() {
        let vs = l.visual_sectors();
        let orphans: Vec<usize> = (0..vs.len()).filter(|&i| vs[i].is_empty()).collect();
        for &i in &orphans {
            let path = format!("fsL_VISUALS/visual[{i}]");
            let mut pr = p(
                &path,
                format!(
                    "{} visual in no sector (no sector's root reaches it): the engine never draws it",
                    model_type::name(visuals[i].model_type().unwrap_or(u8::MAX))
                ),
            );
            if let Some(o) = at.chunk(&path) {
                pr = pr.at(o);
            }
            out.push(pr);
        }
    }
    out
}

/// `<name>.dds` in `dir` as the engine opens it (also lower-cased: unpacked archives are), only
/// when the file stays inside `dir`.
fn dds_in(dir: &std::path::Path, root: Option<&std::path::Path>, name: &str) -> bool {
    let lower = name.to_lowercase();
    [name, lower.as_str()].iter().any(|n| {
        let f = dir.join(format!("{n}.dds"));
        f.is_file()
            && root.is_some_and(|r| std::fs::canonicalize(&f).is_ok_and(|real| real.starts_with(r)))
    })
}

fn missing_textures(
    out: &mut Vec<Problem>,
    files: &crate::files::LevelFiles,
    textures: &std::path::Path,
    at: &mut Offsets<'_>,
) {
    let l = &files.level;
    let level_dir = files.dir();
    let roots = [
        std::fs::canonicalize(&level_dir).ok(),
        std::fs::canonicalize(textures).ok(),
    ];
    let visuals = l.visuals();
    for (k, e) in l.shaders().unwrap_or(&[]).iter().enumerate().skip(1) {
        let mut missing = Vec::new();
        let mut refused = Vec::new();
        for t in e.textures() {
            let name = t.replace('\\', "/");
            if let Some(why) = crate::textures::unsafe_name(&name) {
                refused.push(format!("{t} ({why})"));
                continue;
            }
            if !dds_in(&level_dir, roots[0].as_deref(), &name)
                && !dds_in(textures, roots[1].as_deref(), &name)
            {
                missing.push(t);
            }
        }
        if missing.is_empty() && refused.is_empty() {
            continue;
        }
        let users: Vec<usize> = visuals
            .iter()
            .enumerate()
            .filter(|(_, v)| v.header().is_some_and(|h| usize::from(h.shader_id) == k))
            .map(|(i, _)| i)
            .collect();
        let glows = l
            .glows()
            .iter()
            .filter(|g| usize::from(g.shader) == k)
            .count();
        let used = match (users.is_empty(), glows) {
            (true, 0) => "used by no visual or glow".to_string(),
            (true, n) => format!("used by {n} glow{}", if n == 1 { "" } else { "s" }),
            (false, _) => format!(
                "used by visual{} {}",
                if users.len() == 1 { "" } else { "s" },
                list(&users)
            ),
        };
        let mut parts = Vec::new();
        if !missing.is_empty() {
            parts.push(format!(
                "{} not found as .dds in the level folder or {} (the game draws ed_not_existing_texture)",
                missing.join(", "),
                textures.display()
            ));
        }
        if !refused.is_empty() {
            parts.push(format!("{} cannot be looked up", refused.join(", ")));
        }
        let mut pr = p(
            format!("fsL_SHADERS/shader[{k}]"),
            format!("{:?}: {}; {used}", e.text(), parts.join("; ")),
        );
        if let Some(o) = at.shader(l, k) {
            pr = pr.at(o);
        }
        out.push(pr);
    }
}

fn lod_textures(
    out: &mut Vec<Problem>,
    files: &crate::files::LevelFiles,
    limits: &levelgeom_binary::Limits,
) {
    let dir = files.dir();
    let read = |name: &str| -> Option<Result<crate::dds::Header, String>> {
        let path = dir.join(name);
        if !path.is_file() {
            return None;
        }
        Some(match levelgeom_binary::read_file(&path) {
            Ok(b) if b.len() as u64 > limits.max_decoded as u64 => Err("too large".into()),
            Ok(b) => crate::dds::header(&b).map_err(|e| e.to_string()),
            Err(e) => Err(e.to_string()),
        })
    };
    let lods = read("level_lods.dds");
    let nm = read("level_lods_nm.dds");
    for (name, r) in [("level_lods.dds", &lods), ("level_lods_nm.dds", &nm)] {
        if let Some(Err(why)) = r {
            out.push(p(
                dir.join(name).display().to_string(),
                format!("LOD texture unreadable: {why}"),
            ));
        }
    }
    if let (Some(Ok(a)), Some(Ok(b))) = (&lods, &nm) {
        if (a.width, a.height) != (b.width, b.height) {
            out.push(
                p(
                    dir.join("level_lods_nm.dds").display().to_string(),
                    format!(
                        "{}×{} but level_lods.dds is {}×{} (the normal map is sampled with the \
                         colour atlas's UVs: LOD billboards get the wrong normals)",
                        b.width, b.height, a.width, a.height
                    ),
                )
                .at(12),
            );
        }
    }
}

/// XRLC 5–13: the header's size against the engine's `hdrLEVEL` of that version
/// ([`crate::level::HeaderForm`]): the XRLC 5–10 engines read 128 bytes (version + name), 11–13
/// a `u32` version. A header of the other size is read, but that build's game would not load
/// it (an error). XRLC 4's header form is not known from any source: not checked.
pub fn old_header(l: &Level) -> Vec<Problem> {
    use crate::level::{header_form, HeaderForm};
    let Some(v) = l.version().filter(|v| (5..=13).contains(v)) else {
        return Vec::new();
    };
    let size = |f: HeaderForm| if f == HeaderForm::Named { 128 } else { 4 };
    let want = header_form(v);
    match l.header_form() {
        Some(HeaderForm::Named) if want != HeaderForm::Named => vec![Problem::new(
            "fsL_HEADER",
            format!(
                "a 128-byte header (version + name) in XRLC {v}; its engine reads a {}-byte \
                 hdrLEVEL (xr_3da/xrLevel.h)",
                size(want)
            ),
        )],
        Some(HeaderForm::Version32 | HeaderForm::Quality) if want == HeaderForm::Named => {
            vec![Problem::new(
                "fsL_HEADER",
                format!(
                    "a 4-byte header in XRLC {v}; its engine reads the 128-byte hdrLEVEL \
                     (u32 version; char name[124]; xr_3da/xrLevel.h 2002-01-15..2003-06-20)"
                ),
            )]
        }
        _ => Vec::new(),
    }
}
