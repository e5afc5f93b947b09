//! `--to-version 13|14` from an old build (XRLC 4, 5, 8–12): the level written as a real
//! XRLC 13 `level` + `level.geom` + `level.geomx` (+ `level.cform`); 13 → 14 is then
//! [`super::convert`]'s re-encoding.
//!
//! The starting point is the level's 13/14-shaped view ([`crate::flat::flatten`], what our
//! export and `check` read), which already has OGF 4 visuals, one shader table, the 13/14
//! records of lights, glows and portals and the buffers as a `level.geom`. On top of it:
//!
//! * **`level`**: header version 13, the 13/14 chunk ids in xrLC's order 1, 4, 6, 7, 3, 2, 8
//!   (header, portals, lights, glows, visuals, shaders, sectors); each visual's chunks in
//!   xrLC's order (normal `21, 22, 1`; progressive `21, 6, 22, 1`; tree `21, 12, 1[, 20]`;
//!   hierarchy `1, 10`; LOD `1, 10, 11`), with its new `OGF_GCONTAINER` and, for normal
//!   visuals, an `OGF_FASTPATH`. Tree matrices and LOD quads are the ≥ 11 layouts (the sun
//!   slots XRLC ≤ 10 lacks: tree scale 1 / bias 0, LOD sun 255; said in the notes).
//! * **`level.geom`, `level.geomx`**: [`geometry`] (re-encoded vertices, fast-path copies).
//! * **`level.cform`**: version 4 ([`collision`]), from the cform embedded in `level`
//!   (XRLC 4–9) or the base's `level.cform` (10–12).
//!
//! Kept exactly: positions, sectors, portals, lights (the D3D fields; the controller by the
//! rule of [`crate::level::OldLight::to_light`]), glows (place, radius, their shader entry),
//! shader strings, bounds. Named in [`Conversion::lost`] (with counts): what the view could
//! not carry (its warnings), vertex values the 13 layouts store differently, OGF 3
//! progressive visuals written at full detail, the old light fields the 108-byte light has no
//! place for, glow (shader, texture) pairs made one entry, table entries nothing uses, chunks
//! of `level` and of visuals the 13 level cannot carry, cform fields. Derived values are in
//! [`Conversion::notes`] — among them that one-layer lightmap names `lmap#N` are kept as
//! named (the DDS files are not converted; the 13/14 renderer expects `lmap#N_1`/`lmap#N_2`).

mod collision;
mod geometry;

pub use geometry::v13_vert;

use crate::cform::Cform;
use crate::chunk::Framed;
use crate::flat::flatten;
use crate::geom::Header;
use crate::level::{self, Level, LevelChunk, Part};
use crate::ogf::{self, model_type, GContainer, OgfChunk, Visual};
use crate::shaders::ShaderEntry;

use super::{Conversion, ImportError, Imported};

/// Which chunk of the view a part of the 13 level comes from.
type Want = fn(&LevelChunk) -> bool;

/// Rewrite `out` (a level of the old build `from`, as [`super::old`] writes it) as XRLC 13.
///
/// # Errors
/// [`ImportError::EmbeddedCollision`] when the embedded collision cannot be read;
/// [`ImportError::Write`] when a buffer does not fit.
pub(super) fn to_13(out: &mut Imported, from: u16) -> Result<Conversion, ImportError> {
    let mut c = Conversion {
        from,
        to: 13,
        ..Conversion::default()
    };
    let old = &out.level;
    let flat = flatten(old)?;
    c.lost.extend(flat.warnings.iter().cloned());
    let fvis = flat.level.visuals();
    let quality = old.header().map_or(0, |h| h.quality);
    let built = geometry::build(&fvis, &flat.geom, quality)?;
    // --- visuals
    let mut to_normal = 0usize;
    let visuals: Vec<Framed<Visual>> = fvis
        .iter()
        .enumerate()
        .map(|(i, v)| {
            let g = built.gcontainers.get(i).copied().flatten();
            let f = built.fastpaths.get(i).copied().flatten();
            Framed::plain(i as u32, xrlc_visual(v, g, f, &mut to_normal))
        })
        .collect();
    if to_normal > 0 {
        c.lost.push(format!(
            "{to_normal} progressive visuals without sliding windows written as normal visuals"
        ));
    }
    // --- level chunks in xrLC's order
    let find = |want: Want| {
        flat.level
            .chunks
            .iter()
            .find(|x| want(&x.value))
            .map(|x| x.value.clone())
    };
    let mut chunks = vec![Framed::plain(
        level::HEADER,
        LevelChunk::Header(Header {
            version: 13,
            quality,
        }),
    )];
    let parts: [(u32, Want); 3] = [
        (level::PORTALS, |x| matches!(x, LevelChunk::Portals(_))),
        (level::LIGHT_DYNAMIC, |x| matches!(x, LevelChunk::Lights(_))),
        (level::GLOWS, |x| matches!(x, LevelChunk::Glows(_))),
    ];
    for (id, want) in parts {
        if let Some(v) = find(want) {
            chunks.push(Framed::plain(id, v));
        }
    }
    chunks.push(Framed::plain(level::VISUALS, LevelChunk::Visuals(visuals)));
    let table = flat.level.shaders().unwrap_or(&[]).to_vec();
    chunks.push(Framed::plain(level::SHADERS, LevelChunk::Shaders(table)));
    if let Some(v) = find(|x| matches!(x, LevelChunk::Sectors(_))) {
        chunks.push(Framed::plain(level::SECTORS, v));
    }
    old_losses(old, from, &flat.level, &mut c);
    // --- collision
    let embedded = old.chunks.iter().find_map(|x| match &x.value {
        LevelChunk::Raw(b) if old.part(x.id()) == Some(Part::Cform) => Some(b),
        _ => None,
    });
    let source = match embedded {
        Some(b) => Some(
            Cform::read(b)
                .map_err(|source| ImportError::EmbeddedCollision {
                    version: from,
                    source,
                })?
                .0,
        ),
        None => out.cform.clone(),
    };
    let cform = match source {
        Some(s) => {
            let (n, lost, notes) = collision::to_v4(&s);
            c.lost.extend(lost);
            c.notes.extend(notes);
            Some(n)
        }
        None => {
            c.notes.push(
                "no collision in the base: no level.cform written (the game needs one; give \
                 --collision)"
                    .into(),
            );
            None
        }
    };
    // --- commit
    c.vertex_buffers = built.geom.vertex_buffers().map_or(0, <[_]>::len);
    c.vertices = built.vertices;
    c.geomx_buffers = built.geomx.vertex_buffers().map_or(0, <[_]>::len);
    c.max_uv_error = built.max_uv_error;
    c.lost.extend(built.lost);
    c.notes.extend(built.notes);
    out.level = Level { chunks };
    out.geom = built.geom;
    out.geomx = Some(built.geomx);
    out.cform = cform;
    Ok(c)
}

/// Where chunk `id` goes among a visual's chunks of model type `t` (xrLC's order, docs/formats/xray-level.md §5.1);
/// chunks not in the list go last, in their order.
fn rank(t: Option<u8>, id: u32) -> usize {
    use ogf::{CHILDREN_L, FASTPATH, GCONTAINER, HEADER, LODDEF2, SWICONTAINER, SWIDATA, TREEDEF2};
    let order: &[u32] = match t {
        Some(model_type::NORMAL) => &[GCONTAINER, FASTPATH, HEADER],
        Some(model_type::PROGRESSIVE) => &[GCONTAINER, SWIDATA, FASTPATH, HEADER],
        Some(model_type::TREE_ST) => &[GCONTAINER, TREEDEF2, HEADER],
        Some(model_type::TREE_PM) => &[GCONTAINER, TREEDEF2, HEADER, SWICONTAINER],
        Some(model_type::HIERARCHY) => &[HEADER, CHILDREN_L],
        Some(model_type::LOD) => &[HEADER, CHILDREN_L, LODDEF2],
        _ => &[
            HEADER,
            GCONTAINER,
            SWIDATA,
            FASTPATH,
            TREEDEF2,
            SWICONTAINER,
            CHILDREN_L,
            LODDEF2,
        ],
    };
    order.iter().position(|&x| x == id).unwrap_or(order.len())
}

/// The view's visual `v` as xrLC 13 writes it: geometry `g`, fast path `f`, chunk order.
fn xrlc_visual(
    v: &Visual,
    g: Option<GContainer>,
    f: Option<GContainer>,
    to_normal: &mut usize,
) -> Visual {
    let mut chunks: Vec<Framed<OgfChunk>> = v
        .chunks
        .iter()
        .filter(|c| !matches!(c.value, OgfChunk::GContainer(_) | OgfChunk::FastPath(_)))
        .cloned()
        .collect();
    let mut t = v.model_type();
    if t == Some(model_type::PROGRESSIVE) && v.swidata().is_none() {
        t = Some(model_type::NORMAL);
        *to_normal += 1;
        for c in &mut chunks {
            if let OgfChunk::Header(h) = &mut c.value {
                h.model_type = model_type::NORMAL;
            }
        }
    }
    if let Some(g) = g {
        chunks.push(Framed::plain(ogf::GCONTAINER, OgfChunk::GContainer(g)));
    }
    if let Some(f) = f {
        chunks.push(Framed::plain(
            ogf::FASTPATH,
            OgfChunk::FastPath(vec![Framed::plain(
                ogf::GCONTAINER,
                OgfChunk::GContainer(f),
            )]),
        ));
    }
    chunks.sort_by_key(|c| rank(t, c.id()));
    Visual { chunks }
}

/// True when `b` is a `fsL_LIGHT_CONTROL` table of `{char name[64]; u32 count}` records that
/// all have `count = 0`.
fn keyless_controllers(b: &[u8]) -> bool {
    !b.is_empty() && b.len() % 68 == 0 && b.chunks_exact(68).all(|r| r[64..68] == [0; 4])
}

/// What the old level has that the 13 level does not keep as it was (see the module docs).
fn old_losses(old: &Level, version: u16, view: &Level, c: &mut Conversion) {
    level_chunk_losses(old, c);
    light_losses(old, version, c);
    material_losses(old, view, c);
    visual_losses(old, c);
    record_notes(old, version, c);
    lightmap_notes(view, c);
}

/// Chunks of the old `level` the view has no place for.
fn level_chunk_losses(old: &Level, c: &mut Conversion) {
    for x in &old.chunks {
        let part = old.part(x.id());
        if let (LevelChunk::Raw(b), p) = (&x.value, part) {
            // a light controller table without keys (the names only, as our writers make
            // it) holds nothing the 13 level's lights lack: a note, not a loss
            if p == Some(Part::LightControl) && keyless_controllers(b) {
                c.notes.push(format!(
                    "fsL_LIGHT_CONTROL (chunk {}, {} controllers without keys) is not written: \
                     XRLC 13 has no such chunk",
                    x.id(),
                    b.len() / 68
                ));
                continue;
            }
            if p != Some(Part::Cform) {
                c.lost.push(format!(
                    "chunk {} of `level` ({}, {} bytes): the XRLC 13 level has no place for it",
                    x.id(),
                    p.map_or("unknown".to_string(), |p| format!("{p:?}")),
                    b.len()
                ));
            }
        }
    }
}

/// The fields of the old lights the 108-byte light has no place for.
fn light_losses(old: &Level, version: u16, c: &mut Conversion) {
    let ol = old.old_lights();
    if !ol.is_empty() {
        let fields = if version == 8 {
            "frame, flags, name"
        } else {
            "frame, flags, time, speed, key_start, key_count"
        };
        let names: Vec<String> = ol.iter().filter_map(|l| l.name()).collect();
        c.lost.push(format!(
            "{} lights: the XRLC {version} fields {fields}{} (the 108-byte light has no place \
             for them; controller {} by xray_re's rule)",
            ol.len(),
            if names.is_empty() {
                String::new()
            } else {
                format!(" ({})", names.join(", "))
            },
            ol.iter()
                .map(|l| l.to_light().controller.to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ));
    }
}

/// Glows and materials of XRLC ≤ 11: (shader, texture) index pairs.
fn material_losses(old: &Level, view: &Level, c: &mut Conversion) {
    let og = old.old_glows();
    if !og.is_empty() {
        c.lost.push(format!(
            "{} glows: their (shader, texture) index pair became one shader entry \
             `shader/texture`",
            og.len()
        ));
    }
    if old.paired_materials() {
        let shaders = old.shaders().unwrap_or(&[]);
        let textures = old.textures();
        let (mut used_s, mut used_t) = (vec![false; shaders.len()], Vec::new());
        used_t.resize(textures.map_or(0, <[_]>::len), false);
        let mut mark = |sh: u32, tex: u32| {
            if let Some(u) = used_s.get_mut(sh as usize) {
                *u = true;
            }
            match textures {
                Some(_) => {
                    if let Some(u) = used_t.get_mut(tex as usize) {
                        *u = true;
                    }
                }
                None => {
                    if let Some(u) = used_s.get_mut(tex as usize) {
                        *u = true;
                    }
                }
            }
        };
        for v in old.visuals() {
            if let Some((t, s)) = v.find_chunk(|x| match x {
                OgfChunk::TextureL { texture, shader } => Some((*texture, *shader)),
                _ => None,
            }) {
                mark(s, t);
            }
        }
        for g in og {
            mark(g.shader, g.texture);
        }
        let unused = |u: &[bool], t: &[ShaderEntry]| {
            u.iter()
                .zip(t)
                .filter(|(used, e)| !**used && !e.0.is_empty())
                .count()
        };
        let n = unused(&used_s, shaders) + textures.map_or(0, |t| unused(&used_t, t));
        if n > 0 {
            c.lost.push(format!(
                "{n} entries of the old shader/texture tables that no visual or glow uses"
            ));
        }
        let pairs = view.shaders().map_or(0, |t| t.len().saturating_sub(1));
        c.notes.push(format!(
            "materials: the OGF_TEXTURE_L (shader, texture) pairs became {pairs} entries \
             `shader/texture` of one shader table"
        ));
    }
}

/// Visuals: OGF 3 vertex splits, chunks without a format-4 counterpart.
fn visual_losses(old: &Level, c: &mut Conversion) {
    let (mut vipm, mut raw) = (0usize, 0usize);
    for v in old.visuals() {
        let format = v.short_header().map(|s| s.0);
        for x in &v.chunks {
            if let OgfChunk::Raw(_) = x.value {
                if format == Some(3) && x.id() == 9 {
                    vipm += 1;
                } else {
                    raw += 1;
                }
            }
        }
    }
    if vipm > 0 {
        c.lost.push(format!(
            "{vipm} OGF 3 progressive visuals: their vertex splits (levels of detail) dropped, \
             written as normal visuals at full detail"
        ));
    }
    if raw > 0 {
        c.lost.push(format!(
            "{raw} visual chunks without a format-4 counterpart (kept raw in the old level)"
        ));
    }
}

/// The old record layouts, decided by size (XRLC 11 has either LOD vertex).
fn record_notes(old: &Level, version: u16, c: &mut Conversion) {
    if version <= 11 {
        let has = |f: fn(&OgfChunk) -> bool| {
            old.visuals()
                .iter()
                .any(|v| v.chunks.iter().any(|x| f(&x.value)))
        };
        if has(|x| matches!(x, OgfChunk::TreeDefOld(_))) {
            c.notes.push(
                "tree colour sun (96-byte OGF_TREEDEF2, xrLC before 2003-09-02, has none): \
                 scale 1, bias 0"
                    .into(),
            );
        }
        if has(|x| matches!(x, OgfChunk::TreeDefTmp(..))) {
            c.notes.push(
                "the base_color _tmp_ words of 112-byte OGF_TREEDEF2 (xrLC 2003-09-02..08) are \
                 not written: the 104-byte record has none"
                    .into(),
            );
        }
        if has(|x| matches!(x, OgfChunk::LodDefOld(_))) {
            c.notes
                .push("LOD billboard sun (24-byte LOD vertices, xrLC before 2003-09-05, have none): 255, padding 0".into());
        }
    }
}

/// The one-layer lightmaps, kept as named (XRLC 13/14 expect two layers).
fn lightmap_notes(view: &Level, c: &mut Conversion) {
    let lmaps: Vec<String> = view
        .shaders()
        .unwrap_or(&[])
        .iter()
        .flat_map(ShaderEntry::textures)
        .filter(|t| t.starts_with("lmap#") && !t.ends_with("_1") && !t.ends_with("_2"))
        .collect();
    if !lmaps.is_empty() {
        let mut names = lmaps;
        names.sort();
        names.dedup();
        c.notes.push(format!(
            "lightmaps {} are kept as named: the DDS files are not converted, and the XRLC \
             13/14 renderer expects two layers lmap#N_1, lmap#N_2",
            names.join(", ")
        ));
    }
}
