//! S.T.A.L.K.E.R. (X-Ray engine) compiled levels: `level`, `level.geom`, `level.geomx`,
//! `level.cform`, `level.hom`, `level.som`, `level.ai`, `level.details`.
//!
//! By layer, each module also reachable at the crate root under its own name
//! (`levelgeom_xray::level` is [`formats::level`]):
//!
//! * [`formats`]: the file formats, each read and written byte-exact — [`chunk`] the `u32 id` +
//!   `u32 size` chunk container (bit 31 of the id = LZHUF-compressed, [`lzhuf`] its codec) and
//!   [`formats::ids`] the chunk ids it names; [`geom`] `level.geom`/`level.geomx` (vertex
//!   buffers with D3D9 declarations [`decl`], decoded by the [`vertex`] codec, index buffers,
//!   sliding-window tables); [`level`] the `level` file (shaders, OGF [`ogf`] visuals, portals,
//!   lights, glows, [`sectors`]); [`cform`] the collision file (not a chunk file: a counted
//!   header, vertices and triangles, all kept); [`flat`] the 13/14-shaped view of XRLC 4–12
//!   levels;
//! * [`scene`]: conversion to the engine-neutral scene for export, with [`pivot`] (each visual's
//!   node at its centre), [`names`] (material names), [`lights`] (lights and glows),
//!   [`portals`], [`collision`]; [`textures`] loads or links its textures
//!   ([`resolve_textures`]), [`dds`] decodes them;
//! * [`occluders`]: `level.hom` (occluder mesh) and `level.som` (sound-occlusion mesh);
//! * [`ai`]: `level.ai` (AI nodes); [`details`]: `level.details` (detail models and slots);
//! * [`import`]: an edited scene written back into a level, and the build conversions;
//! * [`check`]: consistency rules; [`info`]: the typed summary `levelgeom info` prints;
//!   [`files`]: opening a level folder (`level` + the `level.geom(x)` beside it);
//! * `generate` (with the cargo feature `generate`): small self-consistent levels for tests
//!   and a large one for benchmarks.
//!
//! Every reader is byte-exact: parse, then write an unchanged model, gives the input bytes.
#![forbid(unsafe_code)]
#![deny(missing_docs)]

pub mod ai;
pub mod check;
pub mod details;
pub mod files;
pub mod formats;
#[cfg(feature = "generate")]
pub mod generate;
pub mod import;
pub mod info;
pub mod occluders;
pub mod scene;

// the modules by their paths before the layers (what callers, tests and tools use)
pub use formats::{
    builds, cform, chunk, decl, flat, fvf, geom, index_data, level, lzhuf, ogf, sectors, shaders,
    vertex, vertex_data,
};
#[cfg(feature = "generate")]
pub use generate::bench_level;
pub use scene::{collision, dds, lights, names, pivot, portals, textures};

pub use cform::Cform;
pub use chunk::ChunkEntry;
pub use files::{FilesError, LevelFiles, Opened};
pub use geom::Geom;
pub use info::Info;
pub use level::Level;
pub use scene::{to_hollow_scene, to_scene, GeomSource, Only, SceneError, SceneOptions};
pub use textures::{further_textures, load_textures, resolve_textures, TextureLookup};

use chunk::Context;
use levelgeom_binary::{ReadError, Reader};

/// What kind of X-Ray file some bytes are, judged from their content.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// `level.geom` / `level.geomx`: chunk file with vertex (9) and index (10) buffer chunks.
    Geom,
    /// `level`: chunk file with shader (2) and visual (3) chunks.
    Level,
    /// `level.cform`: the collision header + vertices + triangles.
    Cform,
    /// `level.hom`: chunk 0 (version) then chunk 1 of 40-byte occluder polygons.
    Hom,
    /// `level.som`: chunk 0 (version) then chunk 1 of 44-byte sound-occluder polygons.
    Som,
    /// `level.ai`: the `hdrNODES` header then the AI nodes (not a chunk file).
    Ai,
    /// `level.details`: header chunk 0, models chunk 1, slots chunk 2.
    Details,
    /// Some other X-Ray chunk file.
    Chunks,
}

/// Classify `bytes`, or `None` if they are not an X-Ray file.
///
/// A file that starts with the header chunk 1 (4 or 128 bytes) is X-Ray even when damaged further on (so
/// that reading it reports where); otherwise the chunks must tile the file exactly.
pub fn kind(bytes: &[u8]) -> Option<Kind> {
    if cform::sniff(bytes) {
        return Some(Kind::Cform);
    }
    if let Some(k) = occluders::sniff(bytes) {
        return Some(k);
    }
    if details::sniff(bytes) {
        return Some(Kind::Details);
    }
    if ai::sniff(bytes) {
        return Some(Kind::Ai);
    }
    let header_first = bytes.len() >= 12 && level::starts_with_header(bytes);
    let (ids, tiles) = chunk::scan_ids(bytes);
    if !header_first && (!tiles || ids.iter().any(|&i| i == 0 || i > 0xFFFF)) {
        // not a chunk file: a damaged collision file still goes to its reader, which says
        // where it breaks
        return cform::looks_like(bytes).then_some(Kind::Cform);
    }
    // a level of any version has chunks 2 and 3 (shaders/textures, visuals/shaders) and, up
    // to XRLC 12, its vertex and index buffers under ids 9/10 too; a geom file has neither 2
    // nor 3
    if ids.contains(&level::SHADERS) || ids.contains(&level::VISUALS) {
        Some(Kind::Level)
    } else if ids.contains(&geom::VB) || ids.contains(&geom::IB) {
        Some(Kind::Geom)
    } else {
        Some(Kind::Chunks)
    }
}

/// True when `bytes` look like an X-Ray file (`level`, `level.geom(x)`, `level.cform` or
/// another chunk file whose chunks tile it exactly). This crate knows only its own
/// signatures; a caller that handles several engines asks each engine's `sniff`.
pub fn sniff(bytes: &[u8]) -> bool {
    kind(bytes).is_some()
}

fn walk(bytes: &[u8], base: usize, at: usize, ctx: Context, path: &mut Vec<String>) {
    let mut pos = 0usize;
    while let Some(h) = bytes.get(pos..pos.saturating_add(8)) {
        let raw = u32::from_le_bytes([h[0], h[1], h[2], h[3]]);
        let size = u32::from_le_bytes([h[4], h[5], h[6], h[7]]) as usize;
        let end = pos.saturating_add(8).saturating_add(size);
        if base + end > at {
            let n = chunk::name(ctx, raw & !chunk::COMPRESSED);
            path.push(n.segment());
            if base + pos + 8 > at {
                path.push("(chunk header)".into());
            } else if let (Some(c), false) = (n.children, raw & chunk::COMPRESSED != 0) {
                if let Some(body) = bytes.get(pos + 8..end.min(bytes.len())) {
                    let c = chunk::refine(c, body);
                    if c != Context::Chunks || chunk::tiles(body) {
                        walk(body, base + pos + 8, at, c, path);
                    }
                }
            }
            return;
        }
        pos = end;
    }
}

fn root_context(k: Kind, bytes: &[u8]) -> Option<Context> {
    match k {
        Kind::Geom => Some(Context::Geom),
        Kind::Level => Some(level::context_of(bytes)),
        Kind::Chunks => Some(Context::Chunks),
        Kind::Hom => Some(Context::Hom),
        Kind::Som => Some(Context::Som),
        Kind::Details => Some(Context::Details),
        Kind::Cform | Kind::Ai => None,
    }
}

/// Bytes per triangle of the `level.cform` in `bytes`, by its version word.
fn cform_tri_size(bytes: &[u8]) -> u64 {
    let version = bytes.get(0..4).map_or(cform::VERSION, |b| {
        u32::from_le_bytes([b[0], b[1], b[2], b[3]])
    });
    cform::tri_size(version) as u64
}

/// The three regions of a `level.cform` as (name, offset, size), sizes from its header and
/// clipped to the file.
fn cform_regions(bytes: &[u8]) -> [(&'static str, u64, u64); 3] {
    let w = |i: usize| {
        bytes.get(i * 4..i * 4 + 4).map_or(0, |b| {
            u64::from(u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        })
    };
    let len = bytes.len() as u64;
    let vend = (36 + w(1) * 12).min(len);
    let fend = (vend + w(2).saturating_mul(cform_tri_size(bytes))).min(len);
    [
        ("hdrCFORM", 0, 36.min(len)),
        ("vertices", 36.min(len), vend.saturating_sub(36)),
        ("faces", vend, fend - vend),
    ]
}

/// The two regions of a `level.ai` as (name, offset, size): the header (56 bytes from
/// version 8, 40 before) and the nodes, clipped to the file.
fn ai_regions(bytes: &[u8]) -> [(&'static str, u64, u64); 2] {
    let version = bytes
        .get(0..4)
        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
    let head = (ai::HEADER_SIZE
        + if (8..=10).contains(&version) {
            ai::GUID_SIZE
        } else {
            0
        }) as u64;
    let len = bytes.len() as u64;
    let head = head.min(len);
    [("hdrNODES", 0, head), ("nodes", head, len - head)]
}

/// List every chunk of an X-Ray chunk file (`level`, `level.geom(x)`, any other chunk file),
/// nested chunks included, with the names of [`chunk::name`]; for a `level.cform` its three
/// regions (`hdrCFORM`, `vertices`, `faces`). An error names where the chunk structure breaks.
pub fn chunks(bytes: &[u8]) -> Result<Vec<ChunkEntry>, ReadError> {
    let Some(k) = kind(bytes) else {
        return Err(ReadError::invalid(
            0,
            Default::default(),
            "not an X-Ray level file",
        ));
    };
    if k == Kind::Ai {
        return Ok(ai_regions(bytes)
            .iter()
            .map(|&(name, offset, size)| ChunkEntry {
                path: name.into(),
                id: None,
                offset,
                size,
                compressed: false,
                depth: 0,
                decoded_size: None,
            })
            .collect());
    }
    match root_context(k, bytes) {
        Some(ctx) => chunk::list(&mut Reader::new(bytes), ctx),
        None => Ok(cform_regions(bytes)
            .iter()
            .map(|&(name, offset, size)| ChunkEntry {
                path: name.into(),
                id: None,
                offset,
                size,
                compressed: false,
                depth: 0,
                decoded_size: None,
            })
            .collect()),
    }
}

/// Name the chunk path that holds absolute offset `at` (e.g. `fsL_VISUALS/visual[3]/OGF_HEADER`),
/// for reporting where a rebuilt file first differs.
pub fn locate(bytes: &[u8], at: usize) -> Option<String> {
    if at >= bytes.len() {
        return Some("end of file".into());
    }
    let k = kind(bytes)?;
    if k == Kind::Ai {
        let [(_, _, hsize), (_, nstart, _)] = ai_regions(bytes);
        let at = at as u64;
        let version = bytes
            .get(0..4)
            .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        return Some(match ai::Layout::of(version) {
            _ if at < hsize => "hdrNODES".into(),
            Some(l) => format!("node[{}]", (at - nstart) / l.size() as u64),
            None => "nodes".into(),
        });
    }
    let Some(ctx) = root_context(k, bytes) else {
        let [_, (_, vstart, vsize), (_, fstart, _)] = cform_regions(bytes);
        let at = at as u64;
        return Some(if at < vstart {
            "hdrCFORM".into()
        } else if at < vstart + vsize {
            format!("vertices[{}]", (at - vstart) / 12)
        } else {
            format!("faces[{}]", (at - fstart) / cform_tri_size(bytes))
        });
    };
    let mut path = Vec::new();
    walk(bytes, 0, at, ctx, &mut path);
    if path.is_empty() {
        None
    } else {
        Some(path.join("/"))
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn fixture(name: &str) -> Vec<u8> {
        std::fs::read(format!(
            "{}/tests/data/xray-v14-micro/{name}",
            env!("CARGO_MANIFEST_DIR")
        ))
        .unwrap_or_default()
    }

    #[test]
    fn kinds_of_the_fixture_files() {
        assert_eq!(kind(&fixture("level")), Some(Kind::Level));
        assert_eq!(kind(&fixture("level.geom")), Some(Kind::Geom));
        assert_eq!(kind(&fixture("level.geomx")), Some(Kind::Geom));
        assert_eq!(kind(&fixture("level.cform")), Some(Kind::Cform));
        // an Argonaut WAD: u32 length-4, then an ASCII tag
        let mut wad = 20u32.to_le_bytes().to_vec();
        wad.extend_from_slice(b"CPFW");
        wad.extend_from_slice(&[0u8; 16]);
        assert!(!sniff(&wad));
        assert!(!sniff(b"hello world, not a level"));
        // a truncated level is still recognised, so reading it can say where it breaks
        assert_eq!(kind(&fixture("level")[..3000]), Some(Kind::Level));
    }

    #[test]
    fn locate_names_nested_chunks() {
        let l = fixture("level");
        // offsets from a hex dump: visual 0 starts at 0xFA, its GCONTAINER payload at 0x10A, the FASTPATH one at 0x132,
        // its OGF_HEADER payload at 0x152; the shader chunk at 0x1ADE
        assert_eq!(
            locate(&l, 0x10C).as_deref(),
            Some("fsL_VISUALS/visual[0]/OGF_GCONTAINER")
        );
        assert_eq!(
            locate(&l, 0x134).as_deref(),
            Some("fsL_VISUALS/visual[0]/OGF_FASTPATH/OGF_GCONTAINER")
        );
        assert_eq!(
            locate(&l, 0x160).as_deref(),
            Some("fsL_VISUALS/visual[0]/OGF_HEADER")
        );
        assert_eq!(
            locate(&l, 0x1AE0).as_deref(),
            Some("fsL_SHADERS/(chunk header)")
        );
        assert_eq!(
            locate(&l, 0x1C27).as_deref(),
            Some("fsL_SECTORS/sector[0]/fsP_Portals")
        );
        assert_eq!(
            locate(&fixture("level.cform"), 40).as_deref(),
            Some("vertices[0]")
        );
    }
}
