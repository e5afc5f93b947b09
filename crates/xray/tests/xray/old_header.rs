//! Issue 22, the level file's structure: `fsL_HEADER` in each build's form and the packed
//! embedded collision of XRLC 4–9.
//!
//! The independent facts: the engine's `hdrLEVEL` (`xr_3da/xrLevel.h` in
//! SkyLoaderr/xray-engine-repo) is `{DWORD XRLC_version; char name[124]}` — 4 + 124 = 128
//! bytes — from the first commit (`b4385f03b0`, 2002-01-15, XRLC 5) to XRLC 10 (`6e603975e5`,
//! 2003-06-20), `{u32 XRLC_version}` — 4 bytes — from `8215fde6bc` (2003-08-29, XRLC 11), and
//! `{u16 XRLC_version; u16 XRLC_quality}` from `355d582495` (2005-09-07); xrLC writes
//! `sizeof(H)` after `ZeroMemory` + `strcpy(H.name, L_name)` (xrLC/Build.cpp, `05d999e07a`).
//! xrLC writes the collision as `fsL_CFORM|CFS_CompressMark` (xrLC/xrBuildCForm.cpp,
//! 2002-01-15 to 2003-06-13). The byte strings below are written out by hand from those
//! structures, not by our writer.

use levelgeom_binary::Limits;
use levelgeom_xray::chunk::COMPRESSED;
use levelgeom_xray::generate::{self, Options, OLD_LEVEL_NAME};
use levelgeom_xray::import::{self, Base, ImportOptions};
use levelgeom_xray::info::Info;
use levelgeom_xray::level::{self, HeaderForm, LevelChunk};
use levelgeom_xray::{files, Geom, Level, SceneOptions};

use super::import_edit::{base, export, fixture};
use super::import_old::embedded;

const OLD: [u16; 7] = [4, 5, 8, 9, 10, 11, 12];

/// `sizeof(hdrLEVEL)` of the engine that reads XRLC `v` (see the module docs).
fn engine_header_size(v: u16) -> u32 {
    match v {
        // XRLC 4 predates the history; xrLC's first commit already writes 128 bytes
        4..=10 => 4 + 124,
        11..=14 => 4,
        _ => unreachable!(),
    }
}

/// The top-level chunk heads of `bytes`: (id without the compression bit, size).
pub fn top_level(bytes: &[u8]) -> Vec<(u32, u32)> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 8 <= bytes.len() {
        let w = |k: usize| u32::from_le_bytes(bytes[k..k + 4].try_into().unwrap());
        let (id, size) = (w(at) & !COMPRESSED, w(at + 4));
        out.push((id, size));
        at += 8 + size as usize;
    }
    out
}

/// The header chunk's head (`id`, `size`) and payload of `bytes`.
fn header_of(bytes: &[u8]) -> (u32, u32, &[u8]) {
    let id = u32::from_le_bytes(bytes[0..4].try_into().unwrap());
    let size = u32::from_le_bytes(bytes[4..8].try_into().unwrap());
    (id, size, &bytes[8..8 + size as usize])
}

#[test]
fn generated_old_levels_have_the_engines_header_size_and_name() {
    for v in OLD {
        let (lb, _) = generate::level_bytes(Options {
            version: v,
            compress: false,
        });
        let (id, size, body) = header_of(&lb);
        assert_eq!((id, size), (1, engine_header_size(v)), "XRLC {v}");
        // u32 XRLC_version: the high half is 0 in every form before 14
        assert_eq!(&body[0..4], &[v as u8, 0, 0, 0], "XRLC {v}");
        if v <= 10 {
            let name = OLD_LEVEL_NAME.as_bytes();
            assert_eq!(&body[4..4 + name.len()], name, "XRLC {v}");
            // ZeroMemory before strcpy: NUL and zeros to the end
            assert!(body[4 + name.len()..].iter().all(|&b| b == 0), "XRLC {v}");
        }
        let l = Level::read(&lb).unwrap().0;
        assert_eq!(l.version(), Some(v));
        assert_eq!(
            l.header_name().as_deref(),
            (v <= 10).then_some(OLD_LEVEL_NAME)
        );
        assert_eq!(level::version_of(&lb), Some(v));
        assert_eq!(levelgeom_xray::kind(&lb), Some(levelgeom_xray::Kind::Level));
    }
}

/// A level whose 128-byte header is written out here byte by byte: version 5, the name
/// `l01_escape`, and leftovers after its NUL (a real xrLC zeroed them; a hand-edited file
/// need not have) that must survive a rebuild.
fn hand_made_v5() -> Vec<u8> {
    let mut header = vec![1, 0, 0, 0, 128, 0, 0, 0, 5, 0, 0, 0];
    let mut name = [0u8; 124];
    name[..10].copy_from_slice(b"l01_escape");
    name[11..14].copy_from_slice(&[0xAB, 0xCD, 0xEF]);
    name[123] = 0x7F;
    header.extend_from_slice(&name);
    assert_eq!(header.len(), 8 + 128);
    // the rest of a generated XRLC 5 level, after its own header chunk
    let (lb, _) = generate::level_bytes(Options {
        version: 5,
        compress: false,
    });
    let (_, size, _) = header_of(&lb);
    header.extend_from_slice(&lb[8 + size as usize..]);
    header
}

#[test]
fn a_hand_made_128_byte_header_is_read_shown_and_kept() {
    let bytes = hand_made_v5();
    let l = Level::read(&bytes).unwrap().0;
    assert_eq!(l.version(), Some(5));
    assert_eq!(l.header_name().as_deref(), Some("l01_escape"));
    assert_eq!(l.header_form(), Some(HeaderForm::Named));
    assert_eq!(
        l.to_bytes().unwrap(),
        bytes,
        "byte for byte, leftovers included"
    );
    let info = Info::read("level", &bytes).unwrap();
    let text = info.to_string();
    assert!(
        text.contains("XRLC version 5 (build 1098), name \"l01_escape\"\n"),
        "{text}"
    );
    assert!(
        !text.contains("quality"),
        "no quality field before 13: {text}"
    );
    let j = serde_json::to_value(&info).unwrap();
    assert_eq!(j["name"], "l01_escape");
    assert_eq!(j["quality"], serde_json::Value::Null);
    // the full read shows the same
    let full = Info::new("level", &bytes, &files::Opened::Level(l.clone()), &[]).unwrap();
    assert_eq!(full, info);
}

#[test]
fn a_4_byte_header_in_an_old_build_is_still_read() {
    // what our writer made before: u16 version, u16 quality
    let mut bytes = vec![1, 0, 0, 0, 4, 0, 0, 0, 5, 0, 0, 0];
    let src = hand_made_v5();
    bytes.extend_from_slice(&src[8 + 128..]);
    let l = Level::read(&bytes).unwrap().0;
    assert_eq!((l.version(), l.header_name()), (Some(5), None));
    assert_eq!(l.to_bytes().unwrap(), bytes);
    // read, but the XRLC 5 engine would not load it: check says so
    let p = levelgeom_xray::check::old_header(&l);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].message.contains("128-byte hdrLEVEL"), "{p:?}");
    let named = Level::read(&src).unwrap().0;
    assert_eq!(levelgeom_xray::check::old_header(&named), vec![]);
}

#[test]
fn a_header_of_another_size_is_a_clear_error() {
    let src = hand_made_v5();
    for size in [0u8, 2, 8, 127] {
        let mut bytes = vec![1, 0, 0, 0, size, 0, 0, 0];
        bytes.extend(std::iter::repeat_n(5u8, size as usize));
        bytes.extend_from_slice(&src[8 + 128..]);
        let e = Level::read(&bytes).unwrap_err().to_string();
        assert!(
            e.contains(&format!("fsL_HEADER of {size} bytes")) && e.contains("128"),
            "{size}: {e}"
        );
        assert!(e.starts_with("at 0x00000008 in fsL_HEADER"), "{e}");
    }
}

#[test]
fn conversion_writes_the_header_form_of_every_target() {
    let f = fixture();
    let s = export(&f);
    for to in OLD {
        let out = import::import(
            base(&f),
            &s,
            None,
            &ImportOptions {
                to_version: Some(to),
                allow_loss: true,
                ..ImportOptions::default()
            },
        )
        .unwrap();
        // the conversion names the layout and builds it writes (crate::builds)
        let notes = out.summary.conversion.clone().unwrap().notes;
        let want = match to {
            12 => "written as XRLC 12, OGF 4 layout of builds 1935–2218 (one of its 3 layouts)",
            9 => "written as XRLC 9 of build 1472",
            // XRLC 8: its early layout, and the note says it is not the latest (docs/decisions.md)
            8 => "written as XRLC 8, early layout (indices inside the visuals)",
            _ => "written as XRLC",
        };
        assert!(notes[0].starts_with(want), "→ {to}: {notes:?}");
        assert_eq!(
            notes[0].contains("not its latest"),
            to == 8,
            "→ {to}: {notes:?}"
        );
        let bytes = out.level.to_bytes().unwrap();
        let (id, size, body) = header_of(&bytes);
        assert_eq!((id, size), (1, engine_header_size(to)), "→ {to}");
        // the u32 version (quality dropped: those engines compare the whole word)
        assert_eq!(&body[0..4], &[to as u8, 0, 0, 0], "→ {to}");
        if to <= 10 {
            // the fixture has no name to keep: left empty here (the CLI puts the output
            // folder's name in, level::fill_header_name)
            assert!(body[4..].iter().all(|&b| b == 0), "→ {to}");
            let mut named = bytes.clone();
            assert!(level::fill_header_name(&mut named, "l99_out"));
            assert_eq!(&named[12..20], b"l99_out\0");
            assert!(
                !level::fill_header_name(&mut named, "again"),
                "a name stays"
            );
        }
    }
}

#[test]
fn an_old_levels_name_follows_it_into_another_old_build() {
    let l = Level::read(&hand_made_v5()).unwrap().0;
    let g = Geom { chunks: Vec::new() };
    let cf = embedded(&l);
    let s = levelgeom_xray::to_scene(&l, &g, &SceneOptions::default()).unwrap();
    for to in [4u16, 8, 9, 10, 11] {
        let out = import::import(
            Base {
                level: &l,
                geom: &g,
                geomx: None,
                cform: cf.as_ref(),
            },
            &s,
            None,
            &ImportOptions {
                to_version: Some(to),
                allow_loss: true,
                ..ImportOptions::default()
            },
        )
        .unwrap();
        let bytes = out.level.to_bytes().unwrap();
        let (_, size, body) = header_of(&bytes);
        assert_eq!(size, engine_header_size(to), "5 → {to}");
        if to <= 10 {
            // all 124 bytes of the source's field, its leftovers too
            assert_eq!(body[4..], hand_made_v5()[12..136], "5 → {to}");
        }
    }
}

#[test]
fn the_embedded_cform_is_packed_and_its_triangles_export() {
    for v in [4u16, 5, 8, 9] {
        let (lb, _) = generate::level_bytes(Options {
            version: v,
            compress: false,
        });
        let l = Level::read(&lb).unwrap().0;
        let cform_id = if v <= 5 { 6 } else { 5 };
        let c = l.chunks.iter().find(|c| c.id() == cform_id).unwrap();
        assert_eq!(
            c.raw_id,
            cform_id | COMPRESSED,
            "XRLC {v}: fsL_CFORM|CFS_CompressMark"
        );
        assert!(matches!(c.value, LevelChunk::Raw(_)));
        // found and unpacked from the bytes alone
        let cf = level::embedded_cform(&lb, Limits::DEFAULT)
            .unwrap()
            .unwrap();
        assert_eq!(cf, generate::old_cform(2), "XRLC {v}");
        // the generator's hand-known quad: (−1,0,−1) (1,0,−1) (1,0,1) (−1,0,1) in some order,
        // triangles (0,3,2) and (0,2,1)
        assert_eq!(cf.tris.len(), 2);
        let mut corners: Vec<[f32; 3]> = cf
            .tris
            .iter()
            .flat_map(|t| t.verts.map(|i| cf.vertices[i as usize]))
            .collect();
        corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
        corners.dedup();
        assert_eq!(
            corners,
            [
                [-1.0, 0.0, -1.0],
                [-1.0, 0.0, 1.0],
                [1.0, 0.0, -1.0],
                [1.0, 0.0, 1.0]
            ]
        );
        // a plain (unpacked) chunk, as our writer made before, is read too
        let mut plain = l.clone();
        for c in &mut plain.chunks {
            if c.id() == cform_id {
                c.raw_id = cform_id;
                c.stored = None;
            }
        }
        let pb = plain.to_bytes().unwrap();
        assert!(pb.len() != lb.len());
        assert_eq!(
            level::embedded_cform(&pb, Limits::DEFAULT).unwrap(),
            Some(generate::old_cform(2))
        );
        // the packed chunk rebuilds as stored
        assert_eq!(l.to_bytes().unwrap(), lb);
    }
}

#[test]
fn a_damaged_packed_cform_is_an_error_with_its_place() {
    let (mut lb, _) = generate::level_bytes(Options {
        version: 8,
        compress: false,
    });
    let l = Level::read(&lb).unwrap().0;
    // the offset of the cform chunk's payload
    let mut at = 0usize;
    for c in &l.chunks {
        let size = u32::from_le_bytes(lb[at + 4..at + 8].try_into().unwrap()) as usize;
        if c.id() == 5 {
            break;
        }
        at += 8 + size;
    }
    // the unpacked size prefix claims 4 GiB
    lb[at + 8..at + 12].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = level::embedded_cform(&lb, Limits::DEFAULT)
        .unwrap_err()
        .to_string();
    assert!(e.contains("fsL_CFORM") && e.contains("LZHUF"), "{e}");
}

/// The payload sizes of every `OGF_LODDEF2` and `OGF_TREEDEF2` chunk and of the glow chunk.
fn record_sizes(l: &Level) -> (Vec<usize>, Vec<usize>, usize) {
    use levelgeom_xray::ogf::OgfChunk;
    let bytes_of = |c: &OgfChunk| -> usize {
        let v = levelgeom_xray::ogf::Visual {
            chunks: vec![levelgeom_xray::chunk::Framed::plain(1, c.clone())],
        };
        let mut w = levelgeom_binary::Writer::new();
        v.write(&mut w).unwrap();
        w.into_inner().len() - 8
    };
    let (mut lod, mut tree) = (Vec::new(), Vec::new());
    for v in l.visuals() {
        for c in &v.chunks {
            match &c.value {
                OgfChunk::LodDef(_) | OgfChunk::LodDefOld(_) => lod.push(bytes_of(&c.value)),
                OgfChunk::TreeDef(_) | OgfChunk::TreeDefOld(_) | OgfChunk::TreeDefTmp(..) => {
                    tree.push(bytes_of(&c.value))
                }
                _ => {}
            }
        }
    }
    let glows = l.glows().len() * 18 + l.old_glows().len() * 24;
    (lod, tree, glows)
}

#[test]
fn records_the_engine_resized_within_a_version_are_read_by_size() {
    use generate::Era;
    // (era, LOD chunk, TREEDEF chunks, glow chunk): 8 quads × 4 vertices × 24 or 28 bytes;
    // 16 + 4 + 4, 16 + 2 × (5 + 1) or 16 + 5 + 5 floats; 24 or 18 bytes per glow
    let cases = [
        (Era::Xrlc11Early, 8 * 4 * 24, 96, 24),
        (Era::Xrlc11Tmp, 8 * 4 * 24, 112, 24),
        (Era::Xrlc11TmpSun, 8 * 4 * 28, 112, 24),
        (Era::Xrlc12EarlyGlows, 8 * 4 * 28, 104, 24),
    ];
    for (era, lod, tree, glow) in cases {
        let l = generate::old_level_era(era);
        let bytes = l.to_bytes().unwrap();
        let back = Level::read(&bytes).unwrap().0;
        assert_eq!(back.to_bytes().unwrap(), bytes, "{era:?}");
        assert_eq!(
            record_sizes(&back),
            (vec![lod], vec![tree, tree], glow),
            "{era:?}"
        );
        // the same triangles at the same places as the latest layout of the version
        let latest = generate::old_level(Options {
            version: l.version().unwrap(),
            compress: false,
        });
        let g = Geom { chunks: Vec::new() };
        let a = levelgeom_xray::to_scene(&back, &g, &SceneOptions::default()).unwrap();
        let b = levelgeom_xray::to_scene(&latest, &g, &SceneOptions::default()).unwrap();
        assert_eq!(
            super::old::world_triangles(&a),
            super::old::world_triangles(&b),
            "{era:?}"
        );
        let t = back.visuals()[2].treedef().unwrap();
        assert_eq!(t.xform, generate::old_tree_xform(0), "{era:?}");
    }
}

#[test]
fn an_unknown_record_size_is_a_clear_error() {
    let l = generate::old_level(Options {
        version: 11,
        compress: false,
    });
    let mut bytes = l.to_bytes().unwrap();
    // OGF_LODDEF2 (id 21) of the LOD visual: 896 bytes; claim 4 fewer and shift the rest
    let at = (0..bytes.len() - 8)
        .find(|&i| bytes[i..i + 8] == [21, 0, 0, 0, 0x80, 3, 0, 0])
        .expect("the 896-byte LOD chunk");
    bytes[at + 4..at + 8].copy_from_slice(&892u32.to_le_bytes());
    let e = Level::read(&bytes).unwrap_err().to_string();
    assert!(
        e.contains("OGF_LODDEF2 of 892 bytes") && e.contains("24-byte"),
        "{e}"
    );
}

#[test]
fn xrlc_12_glows_of_a_size_both_records_divide() {
    let mut l = generate::old_level(Options {
        version: 12,
        compress: false,
    });
    let set = |l: &mut Level, raw: Vec<u8>| {
        for c in &mut l.chunks {
            // fsL_GLOWS is chunk 7 in XRLC 12
            if c.id() == 7 {
                c.value = LevelChunk::Raw(raw.clone());
            }
        }
    };
    // three 24-byte glows = 72 bytes, also four 18-byte records; only the 24-byte reading
    // gives plain floats (the 18-byte one reads index bytes as denormal floats)
    let mut raw = Vec::new();
    for k in 0..3u32 {
        for x in [1.0f32 + k as f32, 2.0, 3.0, 0.5] {
            raw.extend_from_slice(&x.to_le_bytes());
        }
        raw.extend_from_slice(&5u32.to_le_bytes());
        raw.extend_from_slice(&5u32.to_le_bytes());
    }
    set(&mut l, raw);
    let bytes = l.to_bytes().unwrap();
    let back = Level::read(&bytes).unwrap().0;
    assert_eq!(back.old_glows().len(), 3);
    assert_eq!(back.old_glows()[2].position, [3.0, 2.0, 3.0]);
    // 72 bytes of zeros read as neither (radius 0): refused, saying why
    set(&mut l, vec![0; 72]);
    let e = Level::read(&l.to_bytes().unwrap()).unwrap_err().to_string();
    assert!(e.contains("ambiguous") && e.contains("72 bytes"), "{e}");
}

#[test]
fn late_xrlc_8_index_buffers_are_read() {
    // xrLC from 2002-08-30 (`66fe78212a`, xr_3da/xrLevel.h: fsL_IBUFFERS = 11 after
    // fsL_SECTORS; FStaticRender_Loader.cpp LoadBuffers: u32 count, count × {u32 n, u16[n]})
    let l = generate::old_level_era(generate::Era::Xrlc8Late);
    let bytes = l.to_bytes().unwrap();
    let back = Level::read(&bytes).unwrap().0;
    assert_eq!(back.to_bytes().unwrap(), bytes);
    // the two quads' 6 indices each, one buffer: hand-known (generator's OLD_QUAD_TRIS)
    let ibs = back
        .index_buffers()
        .expect("chunk 11 read as index buffers");
    assert_eq!(ibs, [vec![0u16, 3, 2, 0, 2, 1, 0, 3, 2, 0, 2, 1]]);
    let ic: Vec<[u32; 3]> = back
        .visuals()
        .iter()
        .filter_map(|v| {
            v.chunks.iter().find_map(|c| match c.value {
                levelgeom_xray::ogf::OgfChunk::IContainer(x) => Some(x),
                _ => None,
            })
        })
        .collect();
    assert_eq!(ic, [[0, 0, 6], [0, 6, 6]]);
    // the same triangles as the early layout (indices inside the visuals)
    let early = generate::old_level(Options {
        version: 8,
        compress: false,
    });
    let g = Geom { chunks: Vec::new() };
    let a = levelgeom_xray::to_scene(&back, &g, &SceneOptions::default()).unwrap();
    let b = levelgeom_xray::to_scene(&early, &g, &SceneOptions::default()).unwrap();
    let (ta, tb) = (
        super::old::world_triangles(&a),
        super::old::world_triangles(&b),
    );
    assert_eq!(ta.len(), 4);
    assert_eq!(ta, tb);
    // info walks it; the rules pass
    let info = Info::read("level", &bytes).unwrap().to_string();
    assert!(info.contains("fsL_IB"), "{info}");
    let f = levelgeom_xray::flat::flatten(&back).unwrap();
    assert_eq!(
        levelgeom_xray::check::level(&f.level, Some(&f.geom), None),
        vec![]
    );
}

#[test]
fn xrlc_8_of_2002_09_30_light_control_and_108_byte_lights_are_read() {
    // xrLC of 2002-09-30 (`0b46184139`): xr_3da/xrLevel.h renames ids 7, 8 to
    // fsL_LIGHT_CONTROL, fsL_LIGHT_DYNAMIC; xrSaveLights.cpp writes the editor's controller
    // table raw into 7 and `Wdword(controller_ID); write(&data, sizeof(Flight))` (4 + 104 =
    // 108 bytes) per light into 8; XRCL_PRODUCTION_VERSION is still 8 (9 from 2002-10-01)
    let l = generate::old_level_era(generate::Era::Xrlc8LightControl);
    let bytes = l.to_bytes().unwrap();
    // by hand: chunk 7 holds 3 × {char name[64]; u32 count = 0}, chunk 8 one 108-byte record
    let heads = top_level(&bytes);
    let size = |id: u32| heads.iter().find(|h| h.0 == id).map(|h| h.1);
    assert_eq!(size(7), Some(3 * 68));
    assert_eq!(size(8), Some(108));
    assert!(size(11).is_some(), "the late layout's fsL_IBUFFERS");
    let (back, _) = Level::read(&bytes).unwrap();
    assert_eq!(back.to_bytes().unwrap(), bytes, "byte-exact rebuild");
    assert_eq!(level::ids_of(&bytes).map(|i| i.light_control), Some(true));
    // the early and late layouts have no chunk 8: not this layout
    for era in [None, Some(generate::Era::Xrlc8Late)] {
        let other = match era {
            Some(e) => generate::old_level_era(e),
            None => generate::old_level(Options {
                version: 8,
                compress: false,
            }),
        };
        let b = other.to_bytes().unwrap();
        assert_eq!(level::ids_of(&b).map(|i| i.light_control), Some(false));
        assert_eq!(Level::read(&b).unwrap().0.old_lights().len(), 1);
    }
    // the light: controller 2, a spot at (2, 3, −4), range 10 (the generator's constants)
    let lights = back.lights();
    assert_eq!(lights.len(), 1);
    assert_eq!(lights[0].controller, 2);
    assert_eq!(lights[0].d3d.light_type, 2);
    assert_eq!(lights[0].d3d.position, [2.0, 3.0, -4.0]);
    assert!(back.old_lights().is_empty());
    let info = Info::read("level", &bytes).unwrap().to_string();
    assert!(info.contains("fsL_LIGHT_CONTROL"), "{info}");
    // export: the spot at z mirrored, and the same triangles as the early layout
    let g = Geom { chunks: Vec::new() };
    let s = levelgeom_xray::to_scene(&back, &g, &SceneOptions::default()).unwrap();
    assert_eq!(s.lights.len(), 1);
    assert_eq!(s.lights[0].range, Some(10.0));
    let w = s.world_matrices();
    let node = s.nodes.iter().position(|n| n.light == Some(0)).unwrap();
    assert_eq!(&w[node][12..15], &[2.0, 3.0, 4.0]);
    let early = generate::old_level(Options {
        version: 8,
        compress: false,
    });
    let e = levelgeom_xray::to_scene(&early, &g, &SceneOptions::default()).unwrap();
    assert_eq!(
        super::old::world_triangles(&s),
        super::old::world_triangles(&e)
    );
    // the embedded collision is found (chunk 5, packed)
    let cf = level::embedded_cform(&bytes, Limits::DEFAULT)
        .unwrap()
        .unwrap();
    assert_eq!(cf.tris.len(), 2);
    let f = levelgeom_xray::flat::flatten(&back).unwrap();
    assert_eq!(
        levelgeom_xray::check::level(&f.level, Some(&f.geom), None),
        vec![]
    );
}
