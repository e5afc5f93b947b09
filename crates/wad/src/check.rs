//! Consistency rules a game-loadable level must keep (docs/formats/argonaut-wad.md §21, §5, §12).
//!
//! [`check`] runs every rule over a typed level and returns one [`Problem`] per broken rule,
//! each naming the chunk and the model/tile/face, e.g.
//! `TRAK/models[3]/faces[17]: texture index 40 is not below the 31 texture entries`.
//! An empty list means the level passes. Problems about a known byte position carry its
//! offset (the file header, a misplaced chunk); the others have none and display as
//! `path: message`. The rules:
//!
//! **File** (docs/formats/argonaut-wad.md §21.6): the u32 header is the file length − 4 (bias 0, as in every TENG file;
//! groove.exe ignores it, but the project's writers and ENG's packer keep it that way).
//!
//! **Models (TRAK and STPC)**
//! * the pointer fields (+0x70, +0x74, +0x80 and, in STPC, +0x88) are 0 in files (docs/formats/argonaut-wad.md §16: the
//!   loader sets them). A non-zero pointer also betrays a record boundary read wrongly, e.g. an
//!   STPC count taken as N where the file meant N − 1 (docs/formats/argonaut-wad.md §10.5);
//! * header counts equal the array lengths (vertices, faces, collision groups; STPC bone
//!   count and per-bone vertex counts summing to the vertex count; rigid vertex count = the
//!   vertex count for rigid models, 0 for skinned ones);
//! * at most [`MAX_MODEL_VERTICES`] vertices per model (the engine's transform buffer);
//! * every face's vertex indices are below the vertex count;
//! * every face's texture index is below the TEXT texture-entry count;
//! * the first face carries the batch flag 0x8, no run of more than [`MAX_BATCH_FACES`] faces
//!   goes without it, and (when TEXT is known) the flag is set wherever the render state
//!   (texture page, blend mode) changes; a batch of at most 256 triangles also keeps within
//!   the renderer's batch output buffer of about 4800 vertices (docs/formats/argonaut-wad.md §21.3), so that limit
//!   needs no rule of its own;
//! * face planes agree with their vertices: `n = normalize((v1 − v0) × (v2 − v0))` within
//!   [`PLANE_NORMAL_TOLERANCE`] per component, `d = n · v0` within [`PLANE_D_TOLERANCE`];
//!   degenerate triangles are reported;
//! * the vertex normals of vertices that faces use have unit length (within
//!   [`NORMAL_LENGTH_TOLERANCE`]; docs/formats/argonaut-wad.md §21.1 writes them as smoothed face normals);
//! * the bounding box (8 corners in the header's order and centre) is an axis-aligned box
//!   that holds every vertex (within [`BOX_TOLERANCE`]);
//! * collision polygons: the surface plane has a non-zero normal, used edge planes too, a
//!   triangle's fifth plane is zero, and every used plane lies within
//!   [`MAX_COLLISION_DISTANCE`] units of the tile origin. The engine's surface is
//!   `n̂·p = d / (32·|n_q|)` (docs/formats/argonaut-wad.md §12.4), so the rule is `|d| ≤ 8 · 32 · |n_q|`; with
//!   `|n_q| ≈ 127` that is the i16/4096 limit the seed gives (8 units).
//!
//! **TEXT**
//! * every texture entry that is not a flat colour names a page below the page count;
//! * every RLE page's stream yields the `width · height − 1` pixels the game decodes without
//!   running out (the game would read past the stream) and without a packet running past the
//!   page (the game would write past its buffer).
//!
//! **MAP**
//! * tile, transform, model-index and colour lists all hold N entries; the zone grid W·H;
//! * A and B agree: `B.pos = round(A.pos · 4096)` with z negated (±1), `B.ry = A.rot`,
//!   `B.rx = B.rz = 0`; `A.model` = the model-index entry; `anim_flag` is 0 or 1;
//! * every tile lies inside the grid (the loader's cell formula, docs/formats/argonaut-wad.md §12.6);
//! * model indices are below the TRAK model count; zone numbers below 32;
//! * a warning for every cell that holds tiles in a zone that no zone used in the grid sees
//!   (a mask of 0 sees all): the game draws those tiles only while the player is outside the
//!   grid (`sub_41E020`, `sub_42BF40`, docs/formats/argonaut-wad.md §18.13);
//! * colour blocks are sized by the models (nVerts per layer, layer count by the docs/formats/argonaut-wad.md §12.1 rule)
//!   and a swap tile has its extra block exactly when the loader reads one;
//! * the tile-swap block is present iff WFPC & 0x10000, holds one record per flagged tile,
//!   its model A is that tile's model and both models are valid TRAK indices;
//! * the view distance is present iff WFPC & 0x10, the chain table iff WFPC & 0x200000, and
//!   chain points carry Y iff WFPC & 0x4000000;
//! * each object's indices resolve as the game resolves them ([`crate::map::links`],
//!   docs/formats/argonaut-wad.md §8): the `local_count` parameters from `section2_index` lie
//!   in section 2, a count above 0 has a list (not `0xFFFFFFFF`), and `section4_index` names a
//!   route node whose route ends (a `next` of 0) within section 4 — errors, as the game reads
//!   memory outside the lists otherwise; a warning for an index past section 2 that reads
//!   nothing (`local_count` 0).
//!
//! **Layouts an edit can break** (the reader derives them from flags and counts, so the
//! written file would read back differently): the SPRT table iff WFPC & 0x100000; an STPC
//! cutscene tail only with WFPC & 0x100, and no more animation records than the stored count;
//! each palette one extra byte per colour; each page's storage as its flags select (0 →
//! 8-bit, 0x80 → RLE, else raw 16-bit) with `width · height` pixels; LGPC `rows · cols`
//! lengths.
//!
//! **Chunk order** (docs/formats/argonaut-wad.md §2.7): WFPC before SPRT, STPC and MAP; TEXT before TRAK and STPC;
//! TRAK and STPC before MAP; at most one WFPC, TEXT, TRAK, STPC and MAP; END present and last.
//! Texture pages have a width and a height above 0.

use crate::level::Level;
use crate::map::{self, ChainTable, Map};
use crate::model::{self, Model};
use crate::stpc::Stpc;
use crate::tags::Tag;
use crate::text::{Text, TextureEntry, ENTRY_BLEND_MASK};
use crate::trak::Trak;
use levelgeom_binary::Problem;

/// The most vertices a model may have (transform buffer 0x58B0F0..0x5D15F8, 36 B/vertex).
pub const MAX_MODEL_VERTICES: usize = 8000;
/// The most faces a render batch may hold before the batch flag must be set again.
pub const MAX_BATCH_FACES: usize = 256;
/// Allowed difference per component between a stored and a recomputed face normal.
pub const PLANE_NORMAL_TOLERANCE: f32 = 1e-3;
/// Allowed difference between a stored and a recomputed face plane distance (units).
pub const PLANE_D_TOLERANCE: f32 = 2e-3;
/// Allowed difference between 1 and the length of a vertex normal.
pub const NORMAL_LENGTH_TOLERANCE: f32 = 1e-2;
/// How far (units) a vertex may lie outside its model's stored bounding box.
pub const BOX_TOLERANCE: f32 = 1e-4;
/// How far (units) from the tile origin a collision plane may lie.
pub const MAX_COLLISION_DISTANCE: i64 = 8;

/// The parts of a level the geometry rules look at (what [`check`] extracts from a level).
#[derive(Clone, Copy, Debug, Default)]
pub struct Parts<'a> {
    /// The WFPC flags, if the level has a WFPC chunk.
    pub wfpc: Option<u32>,
    /// The number of TEXT texture entries, if TEXT was parsed.
    pub texture_count: Option<usize>,
    /// A render-state key per texture entry (page and blend mode), if TEXT was parsed;
    /// faces whose key differs from the previous face's must start a batch.
    pub texture_states: Option<&'a [u32]>,
    /// The TRAK chunk.
    pub trak: Option<&'a Trak>,
    /// The STPC chunk.
    pub stpc: Option<&'a Stpc>,
    /// The MAP chunk.
    pub map: Option<&'a Map>,
    /// The TEXT chunk (its entries and pages are checked when given).
    pub text: Option<&'a Text>,
}

/// The render-state key of a texture entry: its page (or "flat colour") and blend mode.
pub fn render_state(e: &TextureEntry) -> u32 {
    let page = if e.is_flat_colour() {
        0x1_0000
    } else {
        u32::from(e.page)
    };
    (page << 8) | u32::from((e.flags & ENTRY_BLEND_MASK) >> 12)
}

/// Run every rule over a typed level.
pub fn check(level: &Level) -> Vec<Problem> {
    let text = level.text();
    let states: Option<Vec<u32>> = text.map(|t| t.entries.iter().map(render_state).collect());
    let parts = Parts {
        wfpc: level.chunk(Tag::WFPC).map(|_| level.wfpc()),
        texture_count: text.map(|t| t.entries.len()),
        texture_states: states.as_deref(),
        trak: level.trak(),
        stpc: level.stpc(),
        map: level.map(),
        text,
    };
    let mut out = Out(check_header(level));
    out.0.extend(check_layouts(level));
    out.0.extend(check_order(level));
    out.0.extend(check_parts(&parts));
    out.0
}

/// docs/formats/argonaut-wad.md §21.6: the file header is the file length − 4. `Level::to_bytes` keeps the header's bias
/// when lengths change, so a bias other than 0 stays wrong in every rebuilt file.
fn check_header(level: &Level) -> Vec<Problem> {
    let mut out = Out(Vec::new());
    let len = level.file_len;
    let bias = level.bias();
    if bias != 0 {
        out.push_at(
            Some(0),
            "header",
            format!(
                "the file header is {} (0x{:08X}), but the file length − 4 is {} (bias {bias:+})",
                level.header,
                level.header,
                len.saturating_sub(4)
            ),
        );
    }
    out.0
}

/// Parts whose presence or length the reader derives from flags or counts elsewhere: if an
/// edit lets them disagree, the written file no longer reads back as the same level.
fn check_layouts(level: &Level) -> Vec<Problem> {
    let mut out = Out(Vec::new());
    let wfpc = level.wfpc();
    if let Some(s) = level.sprt() {
        match (&s.table, wfpc & crate::wfpc::SPRT_TABLE != 0) {
            (Some(_), false) => out.push("SPRT", "the table is present but WFPC lacks 0x100000"),
            (None, true) => out.push("SPRT", "WFPC has 0x100000 but the table is missing"),
            _ => {}
        }
    }
    if let Some(s) = level.stpc() {
        if s.tail.is_some() && wfpc & crate::stpc::WFPC_STPC_TAIL == 0 {
            out.push("STPC", "the cutscene tail is present but WFPC lacks 0x100");
        }
        if s.animations.len() as u64 > u64::from(s.animation_count) {
            out.push(
                "STPC",
                format!(
                    "{} animation records, but the stored count is {}",
                    s.animations.len(),
                    s.animation_count
                ),
            );
        }
    }
    if let Some(t) = level.text() {
        for (i, p) in t.palettes.iter().enumerate() {
            if p.colours.len() != p.extra.len() {
                out.push(
                    format!("TEXT/palettes[{i}]"),
                    format!(
                        "{} colours but {} extra bytes (the file stores one per colour)",
                        p.colours.len(),
                        p.extra.len()
                    ),
                );
            }
        }
        for (i, p) in t.pages.iter().enumerate() {
            let at = format!("TEXT/pages[{i}]");
            if p.width == 0 || p.height == 0 {
                out.push(
                    &at,
                    format!(
                        "the page is {}×{}: a texture page needs a width and a height above 0 (it cannot be exported)",
                        p.width, p.height
                    ),
                );
            }
            if !p.is_consistent() {
                out.push(
                    &at,
                    format!(
                        "flags 0x{:X} do not select the {} storage the page holds",
                        p.flags,
                        p.storage_name()
                    ),
                );
            }
            let stored = match &p.data {
                crate::text::PageData::Indexed(v) => Some(v.len()),
                crate::text::PageData::Raw16(v) => Some(v.len()),
                crate::text::PageData::Rle(_) => None,
            };
            if let Some(n) = stored {
                if n as u64 != p.pixel_count() {
                    out.push(
                        &at,
                        format!(
                            "{n} pixels stored, but {}×{} = {}",
                            p.width,
                            p.height,
                            p.pixel_count()
                        ),
                    );
                }
            }
        }
    }
    if let Some(l) = level.lgpc() {
        let cells = l.rows().saturating_mul(u64::from(l.cols));
        if l.lengths.len() as u64 != cells {
            out.push(
                "LGPC",
                format!(
                    "{} lengths, but rows × cols = {} × {} = {cells}",
                    l.lengths.len(),
                    l.rows(),
                    l.cols
                ),
            );
        }
    }
    out.0
}

fn check_order(level: &Level) -> Vec<Problem> {
    let mut out = Out(Vec::new());
    let first = |t: Tag| level.chunks.iter().position(|c| c.tag == t);
    let rules: [(Tag, Tag); 7] = [
        (Tag::WFPC, Tag::SPRT),
        (Tag::WFPC, Tag::STPC),
        (Tag::WFPC, Tag::MAP),
        (Tag::TEXT, Tag::TRAK),
        (Tag::TEXT, Tag::STPC),
        (Tag::TRAK, Tag::MAP),
        (Tag::STPC, Tag::MAP),
    ];
    for (before, after) in rules {
        if let Some(a) = first(after) {
            let at = level.chunks[a].offset;
            match first(before) {
                Some(b) if b < a => {}
                Some(_) => out.push_at(
                    at,
                    after.path_name().trim_end(),
                    format!(
                        "{} must come before {}",
                        before.name().trim_end(),
                        after.name().trim_end()
                    ),
                ),
                None => out.push_at(
                    at,
                    after.path_name().trim_end(),
                    format!(
                        "{} needs a {} chunk before it",
                        after.name().trim_end(),
                        before.name().trim_end()
                    ),
                ),
            }
        }
    }
    for tag in [Tag::WFPC, Tag::TEXT, Tag::TRAK, Tag::STPC, Tag::MAP] {
        let mut seen = level.chunks.iter().filter(|c| c.tag == tag);
        let n = seen.clone().count();
        if n > 1 {
            let second = seen.nth(1).and_then(|c| c.offset);
            out.push_at(
                second,
                tag.path_name(),
                format!(
                    "{n} {} chunks, but a level has one (the typed accessors and the export use only the first)",
                    tag.name().trim_end()
                ),
            );
        }
    }
    match first(Tag::END) {
        None => out.push(
            "END",
            "the level has no END chunk (the game fails to load it)",
        ),
        Some(e) if e + 1 != level.chunks.len() => out.push_at(
            level.chunks[e].offset,
            "END",
            "END must be the last chunk (the game stops reading there)",
        ),
        Some(_) => {}
    }
    out.0
}

struct Out(Vec<Problem>);

impl Out {
    fn push(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem::new(path, message));
    }

    /// A [`levelgeom_binary::Severity::Warning`]: the game handles it, but it is likely a mistake.
    fn warn(&mut self, path: impl Into<String>, message: impl Into<String>) {
        self.0.push(Problem::new(path, message).warning());
    }

    /// A problem at a known file offset (when the level was read from a file).
    fn push_at(&mut self, at: Option<usize>, path: impl Into<String>, message: impl Into<String>) {
        let p = Problem::new(path, message);
        self.0.push(match at {
            Some(o) => p.at(o as u64),
            None => p,
        });
    }
}

/// Run every rule over the given parts.
pub fn check_parts(p: &Parts<'_>) -> Vec<Problem> {
    let mut out = Out(Vec::new());
    if let Some(t) = p.trak {
        for (i, m) in t.models.iter().enumerate() {
            check_model(&mut out, &format!("TRAK/models[{i}]"), m, p, false);
        }
    }
    if let Some(s) = p.stpc {
        for (i, m) in s.models.iter().enumerate() {
            check_model(&mut out, &format!("STPC/models[{i}]"), m, p, true);
        }
    }
    if let Some(m) = p.map {
        check_map(&mut out, m, p);
    }
    if let Some(t) = p.text {
        check_text(&mut out, t);
    }
    out.0
}

fn check_text(out: &mut Out, t: &Text) {
    for (i, e) in t.entries.iter().enumerate() {
        if !e.is_flat_colour() && usize::from(e.page) >= t.pages.len() {
            out.push(
                format!("TEXT/entries[{i}]"),
                format!(
                    "page {} is not below the {} texture pages",
                    e.page,
                    t.pages.len()
                ),
            );
        }
    }
    for (i, p) in t.pages.iter().enumerate() {
        let at = format!("TEXT/pages[{i}]");
        match p.rle_overrun() {
            None => {}
            Some(Err(e)) => out.push(at, e.to_string()),
            Some(Ok(true)) => out.push(
                at,
                format!(
                    "RLE packets run past the {}×{} page (the game would write past its buffer)",
                    p.width, p.height
                ),
            ),
            Some(Ok(false)) => {}
        }
    }
}

fn check_model(out: &mut Out, at: &str, m: &Model, p: &Parts<'_>, stpc: bool) {
    let h = &m.header;
    if usize::from(h.vertex_count) != m.vertices.len() {
        out.push(
            at,
            format!(
                "header vertex count {} differs from the {} vertices",
                h.vertex_count,
                m.vertices.len()
            ),
        );
    }
    if usize::from(h.face_count) != m.faces.len() {
        out.push(
            at,
            format!(
                "header face count {} differs from the {} faces",
                h.face_count,
                m.faces.len()
            ),
        );
    }
    if h.collision_total() != m.collision.len() {
        out.push(
            at,
            format!(
                "header collision counts {:?} sum to {}, but there are {} collision polygons",
                h.collision_counts,
                h.collision_total(),
                m.collision.len()
            ),
        );
    }
    match (&h.stpc, stpc) {
        (Some(x), true) => {
            if usize::from(x.bone_count) != m.bone_vertex_counts.len() {
                out.push(
                    at,
                    format!(
                        "header bone count {} differs from the {} per-bone vertex counts",
                        x.bone_count,
                        m.bone_vertex_counts.len()
                    ),
                );
            }
            if m.bone_vertex_counts.is_empty() {
                if x.rigid_vertex_count != h.vertex_count {
                    out.push(
                        at,
                        format!(
                            "rigid model: header +0x84 is {}, not the vertex count {}",
                            x.rigid_vertex_count, h.vertex_count
                        ),
                    );
                }
            } else {
                if x.rigid_vertex_count != 0 {
                    out.push(
                        at,
                        format!(
                            "skinned model: header +0x84 is {}, not 0",
                            x.rigid_vertex_count
                        ),
                    );
                }
                let sum: usize = m.bone_vertex_counts.iter().map(|&c| usize::from(c)).sum();
                if sum != m.vertices.len() {
                    out.push(
                        at,
                        format!(
                            "per-bone vertex counts sum to {sum}, not the {} vertices",
                            m.vertices.len()
                        ),
                    );
                }
            }
        }
        (None, true) => out.push(at, "STPC model header lacks the +0x84..+0x8C fields"),
        (Some(_), false) => out.push(at, "TRAK model header carries STPC-only fields"),
        (None, false) => {}
    }
    if m.vertices.len() > MAX_MODEL_VERTICES {
        out.push(
            at,
            format!(
                "{} vertices exceed the engine's limit of {MAX_MODEL_VERTICES}",
                m.vertices.len()
            ),
        );
    }
    let mut pointers = vec![
        ("+0x70", h.vertex_ptr),
        ("+0x74", h.face_ptr),
        ("+0x80", h.collision_ptr),
    ];
    if let Some(x) = &h.stpc {
        pointers.push(("+0x88", x.bone_ptr));
    }
    let set: Vec<String> = pointers
        .iter()
        .filter(|(_, v)| *v != 0)
        .map(|(off, v)| format!("{off} = 0x{v:08X}"))
        .collect();
    if !set.is_empty() {
        out.push(
            at,
            format!(
                "pointer fields must be 0 in files (the loader sets them), but {}",
                set.join(", ")
            ),
        );
    }
    check_faces(out, at, m, p);
    check_normals(out, at, m);
    check_box(out, at, m);
    for (j, c) in m.collision.iter().enumerate() {
        check_collision(out, at, j, c);
    }
}

fn check_faces(out: &mut Out, at: &str, m: &Model, p: &Parts<'_>) {
    let nv = m.vertices.len();
    let mut last_batch: Option<usize> = None;
    let mut prev_state: Option<u32> = None;
    for (j, f) in m.faces.iter().enumerate() {
        // the path made only for a problem (most faces have none)
        let fat = || format!("{at}/faces[{j}]");
        let batch = f.flags & model::FACE_BATCH != 0;
        if batch {
            last_batch = Some(j);
        }
        match last_batch {
            None if j == 0 => out.push(
                fat(),
                "the first face of a model must start a batch (flag 0x8)",
            ),
            None => {}
            Some(b) if j - b == MAX_BATCH_FACES => {
                out.push(
                    fat(),
                    format!(
                        "{MAX_BATCH_FACES} faces since the last batch flag 0x8 (face {b}); a batch holds at most {MAX_BATCH_FACES}"
                    ),
                );
            }
            Some(_) => {}
        }
        let mut plane_ok = true;
        for &ix in &f.indices {
            if usize::from(ix) >= nv {
                plane_ok = false;
                out.push(
                    fat(),
                    format!("vertex index {ix} is not below the {nv} vertices"),
                );
            }
        }
        if let Some(n) = p.texture_count {
            if usize::from(f.texture) >= n {
                out.push(
                    fat(),
                    format!(
                        "texture index {} is not below the {n} texture entries",
                        f.texture
                    ),
                );
            }
        }
        if let Some(states) = p.texture_states {
            let state = states.get(usize::from(f.texture)).copied();
            if let (Some(s), Some(prev)) = (state, prev_state) {
                if s != prev && !batch {
                    out.push(
                        fat(),
                        "the texture page or blend mode changes here without the batch flag 0x8",
                    );
                }
            }
            if state.is_some() {
                prev_state = state;
            }
        }
        if plane_ok {
            let v = |k: usize| m.vertices[usize::from(f.indices[k])].pos;
            match model::face_plane(v(0), v(1), v(2)) {
                None => out.push(fat(), "degenerate triangle: its plane is undefined"),
                Some((n, d)) => {
                    let dn = (0..3)
                        .map(|k| (n[k] - f.normal[k]).abs())
                        .fold(0f32, f32::max);
                    let dd = (d - f.d).abs();
                    if !(dn <= PLANE_NORMAL_TOLERANCE && dd <= PLANE_D_TOLERANCE) {
                        out.push(
                            fat(),
                            format!(
                                "stored plane ({:.4}, {:.4}, {:.4}; d {:.4}) differs from the vertices' plane ({:.4}, {:.4}, {:.4}; d {:.4})",
                                f.normal[0], f.normal[1], f.normal[2], f.d, n[0], n[1], n[2], d
                            ),
                        );
                    }
                }
            }
        }
    }
}

/// docs/formats/argonaut-wad.md §21.1: vertex normals are the smoothed (unit) normals of the faces around a vertex.
/// Vertices no face uses (the water plane's) are not lit by anything and are left alone.
fn check_normals(out: &mut Out, at: &str, m: &Model) {
    let mut used = vec![false; m.vertices.len()];
    for f in &m.faces {
        for &ix in &f.indices {
            if let Some(u) = used.get_mut(usize::from(ix)) {
                *u = true;
            }
        }
    }
    for (j, (v, _)) in m
        .vertices
        .iter()
        .zip(&used)
        .enumerate()
        .filter(|(_, (_, &u))| u)
    {
        let n = v.normal;
        let len = (n[0] * n[0] + n[1] * n[1] + n[2] * n[2]).sqrt();
        let unit = (len - 1.0).abs() <= NORMAL_LENGTH_TOLERANCE; // false for NaN too
        if !unit {
            out.push(
                format!("{at}/vertices[{j}]"),
                format!(
                    "vertex normal ({}, {}, {}) has length {len:.4}, not 1",
                    n[0], n[1], n[2]
                ),
            );
        }
    }
}

fn check_box(out: &mut Out, at: &str, m: &Model) {
    let h = &m.header;
    let Some((lo, hi)) = model::bounds(h.corners) else {
        return;
    };
    let expect = model::box_corners(lo, hi);
    if expect != h.corners {
        out.push(
            at,
            "bounding-box corners are not an axis-aligned box in the header's corner order",
        );
    }
    let mid = [
        (lo[0] + hi[0]) / 2.0,
        (lo[1] + hi[1]) / 2.0,
        (lo[2] + hi[2]) / 2.0,
    ];
    let centre_ok =
        |k: usize| (mid[k] - h.centre[k]).abs() <= BOX_TOLERANCE.max(mid[k].abs() * 1e-6);
    if !(0..3).all(centre_ok) {
        out.push(
            at,
            format!(
                "bounding-box centre ({}, {}, {}) is not the middle of its corners ({}, {}, {})",
                h.centre[0], h.centre[1], h.centre[2], mid[0], mid[1], mid[2]
            ),
        );
    }
    for (j, v) in m.vertices.iter().enumerate() {
        let inside =
            (0..3).all(|k| v.pos[k] >= lo[k] - BOX_TOLERANCE && v.pos[k] <= hi[k] + BOX_TOLERANCE);
        if !inside {
            out.push(
                format!("{at}/vertices[{j}]"),
                format!(
                    "vertex ({}, {}, {}) lies outside the bounding box ({}, {}, {})..({}, {}, {})",
                    v.pos[0], v.pos[1], v.pos[2], lo[0], lo[1], lo[2], hi[0], hi[1], hi[2]
                ),
            );
        }
    }
}

/// Collision polygon `j` of the model at `at` (its path made only for a problem).
fn check_collision(out: &mut Out, at: &str, j: usize, c: &model::CollisionPoly) {
    let at = || format!("{at}/collision[{j}]");
    let used = 1 + c.edge_count();
    for (k, pl) in c.planes.iter().enumerate() {
        let n2: i64 = pl.normal.iter().map(|&x| i64::from(x) * i64::from(x)).sum();
        if k < used {
            if n2 == 0 {
                let what = if k == 0 { "surface" } else { "edge" };
                out.push(at(), format!("{what} plane {k} has a zero normal"));
                continue;
            }
            // |d| / (32·|n_q|) ≤ 8  ⇔  d² ≤ (256)²·|n_q|²
            let d = i64::from(pl.d);
            if d * d > 256 * 256 * n2 {
                let dist = (d as f64) / (32.0 * (n2 as f64).sqrt());
                out.push(
                    at(),
                    format!(
                        "plane {k} lies {dist:.2} units from the tile origin; collision must stay within ±{MAX_COLLISION_DISTANCE}"
                    ),
                );
            }
        } else if n2 != 0 || pl.d != 0 || pl.pad != 0 {
            out.push(
                at(),
                format!("plane {k} of a triangle (type bit 0 clear) must be zero"),
            );
        }
    }
}

fn check_map(out: &mut Out, m: &Map, p: &Parts<'_>) {
    let wfpc = p.wfpc.unwrap_or(0);
    let models = TrakModels(p.trak.map(|t| t.models.as_slice()));
    map_sizes(out, m);
    let swaps = m.swaps.as_deref().unwrap_or(&[]);
    let mut flagged = 0usize;
    for (i, t) in m.tiles.iter().enumerate() {
        map_tile(out, m, i, models);
        // Colour blocks.
        let Some(c) = m.colours.get(i) else {
            continue;
        };
        let cat = format!("MAP/colours[{i}]");
        let model_for_colours = m.model_indices.get(i).copied().unwrap_or(t.model);
        let running = check_layers(
            out,
            &cat,
            &c.layers,
            models.vertex_count(model_for_colours),
            0,
        );
        let swap = if t.anim_flag != 0 {
            let k = flagged;
            flagged += 1;
            swaps.get(k).map(|s| (k, s))
        } else {
            None
        };
        match (swap, &c.swap_layers) {
            (Some((_, s)), Some(l)) => {
                let vcount = models.vertex_count(s.model_b);
                check_layers(out, &format!("{cat}/swap"), l, vcount, running);
            }
            (Some((k, _)), None) => out.push(
                &cat,
                format!("the tile has swap record {k}, so its model B colour block must follow"),
            ),
            (None, Some(_)) => out.push(
                &cat,
                "an extra (swap) colour block is present, but the tile has no swap record",
            ),
            (None, None) => {}
        }
    }
    map_swaps(out, m, wfpc, flagged, models);
    map_optional_blocks(out, m, wfpc);
    map_unseen_cells(out, m);
    map_object_links(out, m);
}

/// Each object's section-2 and section-4 indices against the lists they index
/// ([`crate::map::links`]): an error where the game reads outside them, a warning where it
/// keeps a pointer past section 2 that it never reads through.
fn map_object_links(out: &mut Out, m: &Map) {
    for (i, o) in m.objects.iter().enumerate() {
        for e in o.link_errors(m.params.len(), &m.route_nodes) {
            let at = format!("MAP/objects[{i}].{}", e.field().name());
            if e.game_reads_outside() {
                out.push(at, e.to_string());
            } else {
                out.warn(at, e.to_string());
            }
        }
    }
}

/// A warning per cell that holds tiles in a zone no zone of the grid sees
/// ([`Map::unseen_tile_cells`], crate::map::zones): the game draws them only while the player
/// is outside the grid.
fn map_unseen_cells(out: &mut Out, m: &Map) {
    if m.zone_grid.iter().any(|&z| z as usize >= map::ZONE_COUNT) {
        return; // reported by map_sizes; the masks cannot name such zones
    }
    let w = m.grid_w.max(1) as usize;
    for c in m.unseen_tile_cells() {
        out.warn(
            format!("MAP/zone_grid[{c}]"),
            format!(
                "cell ({}, {}) holds tiles, but its zone {} is in the mask of no zone the grid uses: \
                 the game draws them only while the player is outside the grid",
                c % w,
                c / w,
                m.zone_grid[c]
            ),
        );
    }
}

/// The TRAK models (when there is a TRAK) that MAP model indices must name.
#[derive(Clone, Copy)]
struct TrakModels<'a>(Option<&'a [Model]>);

impl TrakModels<'_> {
    /// The vertex count of model `model`, if it exists.
    fn vertex_count(self, model: u32) -> Option<usize> {
        self.0
            .and_then(|ms| ms.get(model as usize))
            .map(|x| x.vertices.len())
    }

    /// Report `model` (a `what` at `at`) when it is not below the model count.
    fn check_index(self, out: &mut Out, at: &str, what: &str, model: u32) {
        if let Some(ms) = self.0 {
            if model as usize >= ms.len() {
                out.push(
                    at,
                    format!("{what} {model} is not below the {} TRAK models", ms.len()),
                );
            }
        }
    }
}

/// The MAP's per-tile tables and zone grid against its tile count and grid size.
fn map_sizes(out: &mut Out, m: &Map) {
    let n = m.tiles.len();
    let lens = [
        ("transforms", m.transforms.len()),
        ("model_indices", m.model_indices.len()),
        ("colours", m.colours.len()),
    ];
    for (name, len) in lens {
        if len != n {
            out.push(
                format!("MAP/{name}"),
                format!("{len} entries, but the header has {n} tiles"),
            );
        }
    }
    let cells = u64::from(m.grid_w) * u64::from(m.grid_h);
    if m.zone_grid.len() as u64 != cells {
        out.push(
            "MAP/zone_grid",
            format!(
                "{} cells, but the grid is {}×{} = {cells}",
                m.zone_grid.len(),
                m.grid_w,
                m.grid_h
            ),
        );
    }
    for (c, &z) in m.zone_grid.iter().enumerate() {
        if z as usize >= map::ZONE_COUNT {
            out.push(
                format!("MAP/zone_grid[{c}]"),
                format!("zone {z} is not below {}", map::ZONE_COUNT),
            );
        }
    }
}

/// Tile `i`'s model, flag, position and transform (B record).
fn map_tile(out: &mut Out, m: &Map, i: usize, models: TrakModels<'_>) {
    let t = &m.tiles[i];
    let at = format!("MAP/tiles[{i}]");
    if let Some(&mi) = m.model_indices.get(i) {
        if mi != t.model {
            out.push(
                &at,
                format!("model {} differs from the model-index entry {mi}", t.model),
            );
        }
    }
    models.check_index(out, &at, "model index", t.model);
    if let Some(&mi) = m.model_indices.get(i) {
        if mi != t.model {
            models.check_index(out, &format!("MAP/model_indices[{i}]"), "model index", mi);
        }
    }
    if t.anim_flag > 1 {
        out.push(&at, format!("anim flag {} is neither 0 nor 1", t.anim_flag));
    }
    if m.cell_of(t.pos).is_none() {
        out.push(
            &at,
            format!(
                "position ({}, {}) lies outside the {}×{} grid",
                t.pos[0], t.pos[2], m.grid_w, m.grid_h
            ),
        );
    }
    let Some(b) = m.transforms.get(i) else {
        return;
    };
    let want = [
        (f64::from(t.pos[0]) * 4096.0).round(),
        (f64::from(t.pos[1]) * 4096.0).round(),
        (-f64::from(t.pos[2]) * 4096.0).round(),
    ];
    let off = !(0..3).all(|k| (f64::from(b.pos[k]) - want[k]).abs() <= 1.0);
    if off {
        out.push(
            format!("MAP/transforms[{i}]"),
            format!(
                "B position ({}, {}, {}) disagrees with A ({}, {}, {}) × 4096 with z negated",
                b.pos[0], b.pos[1], b.pos[2], t.pos[0], t.pos[1], t.pos[2]
            ),
        );
    }
    if i64::from(b.rot[1]) != i64::from(t.rot) || b.rot[0] != 0 || b.rot[2] != 0 {
        out.push(
            format!("MAP/transforms[{i}]"),
            format!(
                "B rotation ({}, {}, {}) disagrees with A's rotation (0, {}, 0)",
                b.rot[0], b.rot[1], b.rot[2], t.rot
            ),
        );
    }
}

/// The tile-swap block against WFPC and the `flagged` tiles with the anim flag.
fn map_swaps(out: &mut Out, m: &Map, wfpc: u32, flagged: usize, models: TrakModels<'_>) {
    match (&m.swaps, wfpc & map::WFPC_TILE_SWAPS != 0) {
        (Some(_), false) => out.push("MAP/swaps", "tile swaps are present but WFPC lacks 0x10000"),
        (None, true) => out.push(
            "MAP/swaps",
            "WFPC has 0x10000 but the tile-swap block is missing",
        ),
        _ => {}
    }
    if m.swaps.is_none() && flagged > 0 {
        out.push(
            "MAP/tiles",
            format!("{flagged} tiles have the anim flag, but there is no tile-swap block"),
        );
    }
    let Some(s) = &m.swaps else {
        return;
    };
    if s.len() != flagged {
        out.push(
            "MAP/swaps",
            format!(
                "{} swap records, but {flagged} tiles have the anim flag",
                s.len()
            ),
        );
    }
    let n = m.tiles.len();
    let flagged_tiles: Vec<usize> = (0..n).filter(|&i| m.tiles[i].anim_flag != 0).collect();
    for (k, r) in s.iter().enumerate() {
        let at = format!("MAP/swaps[{k}]");
        models.check_index(out, &at, "model A", r.model_a);
        models.check_index(out, &at, "model B", r.model_b);
        if let Some(&ti) = flagged_tiles.get(k) {
            if let Some(&mi) = m.model_indices.get(ti) {
                if mi != r.model_a {
                    out.push(
                        &at,
                        format!(
                            "model A {} is not the model {mi} of its tile {ti}",
                            r.model_a
                        ),
                    );
                }
            }
        }
    }
}

/// The view-distance word and chain table against WFPC.
fn map_optional_blocks(out: &mut Out, m: &Map, wfpc: u32) {
    match (&m.view_distance, wfpc & map::WFPC_VIEW_DISTANCE != 0) {
        (Some(_), false) => out.push("MAP/view_distance", "present but WFPC lacks 0x10"),
        (None, true) => out.push("MAP/view_distance", "WFPC has 0x10 but the word is missing"),
        _ => {}
    }
    match (&m.chains, wfpc & map::WFPC_CHAINS != 0) {
        (Some(_), false) => out.push("MAP/chains", "present but WFPC lacks 0x200000"),
        (None, true) => out.push(
            "MAP/chains",
            "WFPC has 0x200000 but the chain table is missing",
        ),
        _ => {}
    }
    if let Some(ChainTable::Parsed(arrays)) = &m.chains {
        let want_y = wfpc & map::WFPC_CHAIN_Y != 0;
        let bad = arrays
            .iter()
            .flatten()
            .flat_map(|p| &p.points)
            .any(|pt| pt.y.is_some() != want_y);
        if bad {
            out.push(
                "MAP/chains",
                if want_y {
                    "WFPC has 0x4000000 but some chain points lack their Y word"
                } else {
                    "some chain points carry a Y word but WFPC lacks 0x4000000"
                },
            );
        }
    }
}

/// Check one colour block; returns the running byte-3 maximum after it.
fn check_layers(
    out: &mut Out,
    at: &str,
    layers: &map::ColourLayers,
    verts: Option<usize>,
    running: u8,
) -> u8 {
    let Some(first) = layers.first() else {
        out.push(at, "the colour block has no layer");
        return running;
    };
    if let Some(nv) = verts {
        for (l, layer) in layers.iter().enumerate() {
            if layer.len() != nv {
                out.push(
                    at,
                    format!(
                        "colour layer {l} has {} entries, but the model has {nv} vertices",
                        layer.len()
                    ),
                );
            }
        }
    }
    let (count, running) = map::colour_layer_count(first, running);
    if count != layers.len() {
        out.push(
            at,
            format!(
                "{} colour layers, but byte 3 of the first layer makes the loader read {count}",
                layers.len()
            ),
        );
    }
    running
}
