//! `--to-version 4|5|8–12` from XRLC 13/14: the real fixture and the generated 13/14 levels
//! converted unedited to every old build, read back by our reader in that build.
//!
//! The facts compared with: the chunk ids of each build (docs/formats/xray-level.md §3, independent of the writer's
//! table: written out here), the OGF format of each build (3 for 8–12, 2 for 4/5), the export
//! of the 13/14 original (world-space triangles, base UVs within the build's stated
//! quantisation: exact for 12 and the FVF builds' floats, `⌊uv·1024⌋/1024` — below 1/1024 —
//! for the static SHORT4 of 10/11), the original collision's triangles and materials, and the
//! loss list (tangents, quantised UVs) that follows from the layouts.

use levelgeom_scene::{transform_point, Scene};
use levelgeom_xray::cform::Cform;
use levelgeom_xray::import::downgrade::Unwritable;
use levelgeom_xray::import::{self, ImportError, ImportOptions, Imported};
use levelgeom_xray::level::LevelChunk;
use levelgeom_xray::ogf::OgfChunk;
use levelgeom_xray::{check, files, flat, to_scene, Geom, Level, SceneOptions};

use super::import_edit::{add_box, base, export, fixture, generated, move_node, node_of, Files};
use super::import_old::embedded;

const TARGETS: [u16; 7] = [12, 11, 10, 9, 8, 5, 4];

/// The top-level chunk ids of each build (docs/formats/xray-level.md §3 table), header first.
fn ids_of(v: u16) -> Vec<u32> {
    match v {
        4 | 5 => vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11],
        // early 8 (the late layout's 11 = fsL_IBUFFERS is read, not written)
        8 => vec![1, 2, 3, 4, 5, 6, 7, 9, 10],
        9 => vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12],
        // 5 = fsL_LIGHT_CONTROL (xr_3da/xrLevel.h of XRLC 10/11, 2003-06-20 / 2003-08-29)
        10 | 11 => vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        12 => vec![1, 2, 3, 4, 6, 7, 8, 9, 10, 11],
        _ => unreachable!(),
    }
}

fn convert_scene(f: &Files, s: &Scene, to: u16, allow_loss: bool) -> Result<Imported, ImportError> {
    import::import(
        base(f),
        s,
        None,
        &ImportOptions {
            to_version: Some(to),
            allow_loss,
            ..ImportOptions::default()
        },
    )
}

fn convert(f: &Files, to: u16, allow_loss: bool) -> Result<Imported, ImportError> {
    convert_scene(f, &export(f), to, allow_loss)
}

fn old_export(l: &Level) -> Scene {
    to_scene(l, &Geom { chunks: Vec::new() }, &SceneOptions::default()).unwrap()
}

/// Per visual index: its world-space triangles as (corner positions, corner base UVs).
type Tri = ([[f32; 3]; 3], [[f32; 2]; 3]);

fn triangles(s: &Scene) -> Vec<(usize, Vec<Tri>)> {
    let w = s.world_matrices();
    let mut out = Vec::new();
    for (n, node) in s.nodes.iter().enumerate() {
        let (Some(m), Some(v)) = (
            node.mesh,
            node.name
                .strip_prefix("visual_")
                .and_then(|r| r.get(..4))
                .and_then(|d| d.parse::<usize>().ok()),
        ) else {
            continue;
        };
        let mut tris = Vec::new();
        for p in &s.meshes[m].primitives {
            for t in p.indices.chunks(3) {
                let c = |k: usize| transform_point(&w[n], p.positions[t[k] as usize]);
                let uv = |k: usize| p.uvs.first().map_or([0.0; 2], |u| u[t[k] as usize]);
                tris.push(([c(0), c(1), c(2)], [uv(0), uv(1), uv(2)]));
            }
        }
        out.push((v, tris));
    }
    out.sort_by_key(|x| x.0);
    out
}

/// Every triangle of `a` has one of `b` (same visual, same winding) with corners within
/// `tol` and base UVs within `uv_tol`, and the counts agree; returns the largest UV
/// difference.
fn same_triangles(a: &Scene, b: &Scene, tol: f32, uv_tol: f32, what: &str) -> f32 {
    let (ta, tb) = (triangles(a), triangles(b));
    let va: Vec<usize> = ta.iter().map(|x| x.0).collect();
    let vb: Vec<usize> = tb.iter().map(|x| x.0).collect();
    assert_eq!(va, vb, "{what}: visuals with a mesh");
    let near = |p: &[f32; 3], q: &[f32; 3]| p.iter().zip(q).all(|(x, y)| (x - y).abs() <= tol);
    let mut worst = 0.0f32;
    for ((v, xa), (_, xb)) in ta.iter().zip(&tb) {
        assert_eq!(xa.len(), xb.len(), "{what}: visual {v} triangle count");
        let mut used = vec![false; xb.len()];
        for (pa, ua) in xa {
            let hit = (0..xb.len()).find_map(|j| {
                if used[j] {
                    return None;
                }
                let (pb, ub) = &xb[j];
                (0..3)
                    .find(|&r| (0..3).all(|k| near(&pa[k], &pb[(k + r) % 3])))
                    .map(|r| (j, r, ub))
            });
            let (j, r, ub) = hit.unwrap_or_else(|| panic!("{what}: visual {v}: {pa:?} not found"));
            used[j] = true;
            for k in 0..3 {
                for c in 0..2 {
                    let d = (ua[k][c] - ub[(k + r) % 3][c]).abs();
                    assert!(
                        d <= uv_tol,
                        "{what}: visual {v}: uv {:?} vs {:?}",
                        ua[k],
                        ub[(k + r) % 3]
                    );
                    worst = worst.max(d);
                }
            }
        }
    }
    worst
}

/// Read the converted level back as bytes and check what every old build must hold.
fn reread(i: &Imported, to: u16, what: &str) -> Level {
    assert!(i.geom.chunks.is_empty(), "{what}: no level.geom before 13");
    assert!(i.geom.to_bytes().unwrap().is_empty());
    assert!(i.geomx.is_none(), "{what}: no level.geomx");
    let bytes = i.level.to_bytes().unwrap();
    let l = Level::read(&bytes).unwrap().0;
    assert_eq!(l.version(), Some(to), "{what}");
    let ids: Vec<u32> = l.chunks.iter().map(|c| c.id()).collect();
    let mut sorted = ids.clone();
    sorted.sort_unstable();
    assert_eq!(ids[0], 1, "{what}: header first");
    // every chunk one the build has; the fixture's build has them all but the optional ones
    for id in &ids {
        assert!(
            ids_of(to).contains(id),
            "{what}: chunk {id} in XRLC {to}: {ids:?}"
        );
    }
    let want: Vec<u32> = ids_of(to)
        .into_iter()
        .filter(|&x| !(to == 9 && x == 12 || to <= 5 && x == 9))
        .filter(|&x| {
            let cform = if to <= 5 { 6 } else { 5 };
            !(to <= 9 && x == cform && embedded(&l).is_none())
        })
        .collect();
    assert_eq!(sorted, want, "{what}: chunk ids");
    // 9–11: fsL_LIGHT_CONTROL (9: chunk 7, 10/11: chunk 5), never empty (the engine's
    // IReader::open_chunk gives null for size 0 and the renderer does not check): records of
    // `char name[64]; u32 count` (+ count u32), here the editor's three standard controllers
    if (9..=11).contains(&to) {
        let id = if to == 9 { 7 } else { 5 };
        let raw = l
            .chunks
            .iter()
            .find_map(|c| match &c.value {
                LevelChunk::Raw(b) if c.id() == id => Some(b.clone()),
                _ => None,
            })
            .unwrap_or_else(|| panic!("{what}: fsL_LIGHT_CONTROL"));
        assert!(raw.len() >= 3 * 68, "{what}");
        for (k, name) in ["$hemi", "$dir0", "$static"].iter().enumerate() {
            let r = &raw[k * 68..k * 68 + 68];
            assert_eq!(&r[..name.len()], name.as_bytes(), "{what}");
            assert_eq!(&r[64..68], &[0, 0, 0, 0], "{what}: no keys");
        }
        let idx = ids.iter().position(|&x| x == id).unwrap();
        let lights = ids.iter().position(|&x| x == id + 1).unwrap();
        assert_eq!(idx + 1, lights, "{what}: just before the lights");
    }
    // VB, IB and SWIS compressed in 12 only; the embedded cform of 4–9 packed as xrLC did
    // (xrLC/xrBuildCForm.cpp: fsL_CFORM|CFS_CompressMark)
    let cform_id = if to <= 5 { 6 } else { 5 };
    for c in &l.chunks {
        let packed = to == 12 && matches!(c.id(), 9..=11) || to <= 9 && c.id() == cform_id;
        assert_eq!(
            c.raw_id & 0x8000_0000 != 0,
            packed,
            "{what}: chunk {}",
            c.id()
        );
    }
    let formats: Vec<u8> = l
        .visuals()
        .iter()
        .map(|v| v.short_header().map_or(4, |s| s.0))
        .collect();
    for (k, f) in formats.iter().enumerate() {
        let t = l.visuals()[k].type_name();
        // the engine's formats: OGF 3 from XRLC 5 (engine of 2002-01-15), OGF 4 with
        // V/ICONTAINER in XRLC 12 (engine of 2004-08-19 .. 2005-01); OGF 2 for XRLC 4 (peers)
        let ok = match to {
            4 => *f == 2,
            12 => *f == 4,
            _ => *f == 3,
        };
        assert!(ok, "{what}: visual {k} ({t}) is OGF {f} in XRLC {to}");
    }
    // our rules find nothing, through the view and as an opened file
    let fl = flat::flatten(&l).unwrap();
    assert_eq!(fl.warnings, Vec::<String>::new(), "{what}");
    assert_eq!(
        check::level(&fl.level, Some(&fl.geom), None),
        vec![],
        "{what}"
    );
    let opened = files::Opened::read(&bytes).unwrap().unwrap().0;
    assert_eq!(opened.check(), vec![], "{what}");
    l
}

/// The UV tolerance a build's layouts allow (see the module docs).
fn uv_tol(to: u16) -> f32 {
    if matches!(to, 10 | 11) {
        1.0 / 1024.0
    } else {
        1e-6
    }
}

fn sources() -> Vec<(&'static str, Files)> {
    vec![
        ("fixture v14", fixture()),
        ("generated v13", generated(13, false)),
        ("generated v14", generated(14, true)),
    ]
}

#[test]
fn every_old_build_reads_back_and_exports_the_same_geometry() {
    for (name, f) in sources() {
        let orig = export(&f);
        for to in TARGETS {
            let what = format!("{name} → {to}");
            let i = convert(&f, to, true).unwrap_or_else(|e| panic!("{what}: {e}"));
            let c = i.summary.conversion.as_ref().unwrap();
            assert_eq!((c.from, c.to), (f.level.version().unwrap(), to), "{what}");
            let l = reread(&i, to, &what);
            let worst = same_triangles(&orig, &old_export(&l), 1e-4, uv_tol(to), &what);
            // a quantised UV shows in the export exactly when it is named as lost
            let named = c.lost.iter().any(|x| x.contains("base UVs"));
            assert_eq!(worst > 0.0, named, "{what}: {:?}", c.lost);
            if matches!(to, 10 | 11) && name.starts_with("fixture") {
                assert!(
                    worst > 0.0,
                    "{what}: the fixture's UVs are not multiples of 1/1024"
                );
            }
            // collision: level.cform from 10, embedded before, same faces and materials
            if let Some(oc) = &f.cform {
                let nc = if to >= 10 {
                    assert!(embedded(&l).is_none());
                    i.cform.clone().unwrap()
                } else {
                    assert!(i.cform.is_none(), "{what}: no level.cform before 10");
                    embedded(&l).unwrap()
                };
                assert_eq!(nc.vertices, oc.vertices, "{what}");
                let faces = |c: &Cform| -> Vec<([u32; 3], u32, u16)> {
                    c.tris
                        .iter()
                        .map(|t| (t.verts, t.material(), t.sector()))
                        .collect()
                };
                assert_eq!(faces(&nc), faces(oc), "{what}");
                if to <= 9 {
                    assert_eq!(nc.version, 2, "{what}");
                }
            }
            // tree matrices where the build has trees
            let trees = |l: &Level| -> Vec<[f32; 16]> {
                l.visuals()
                    .iter()
                    .filter_map(|v| v.treedef().map(|t| t.xform))
                    .collect()
            };
            if to >= 9 {
                assert_eq!(trees(&l), trees(&f.level), "{what}");
            } else {
                assert!(trees(&l).is_empty(), "{what}");
            }
            // lights, glows and portals at the same places
            let fl = flat::flatten(&l).unwrap();
            let pos = |l: &Level| -> Vec<[f32; 3]> {
                l.lights().iter().map(|x| x.d3d.position).collect()
            };
            assert_eq!(pos(&fl.level), pos(&f.level), "{what}");
            let glows = |l: &Level| -> Vec<([f32; 3], String)> {
                let t = l.shaders().unwrap();
                l.glows()
                    .iter()
                    .map(|g| (g.position, t[usize::from(g.shader)].text()))
                    .collect()
            };
            assert_eq!(glows(&fl.level), glows(&f.level), "{what}");
            assert_eq!(fl.level.portals(), f.level.portals(), "{what}");
        }
    }
}

#[test]
fn materials_read_back_as_the_same_shader_and_texture() {
    for (name, f) in sources() {
        let orig = export(&f);
        for to in TARGETS {
            let i = convert(&f, to, true).unwrap();
            let l = Level::read(&i.level.to_bytes().unwrap()).unwrap().0;
            let back = old_export(&l);
            let mats = |s: &Scene| -> Vec<(String, Option<String>)> {
                let mut v: Vec<(String, Option<String>)> = s
                    .materials
                    .iter()
                    .map(|m| {
                        (
                            m.name.clone(),
                            m.texture
                                .and_then(|t| s.textures.get(t))
                                .map(|t| t.name.clone()),
                        )
                    })
                    .collect();
                v.sort();
                v.dedup();
                v
            };
            assert_eq!(mats(&back), mats(&orig), "{name} → {to}");
        }
    }
}

#[test]
fn lossy_downgrades_are_refused_naming_each_loss() {
    let f = fixture();
    for to in [11u16, 10, 9, 8, 5, 4] {
        let e = convert(&f, to, false).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(e, ImportError::Loss { from: 14, .. }),
            "{to}: {msg}"
        );
        assert!(msg.contains("tangents and binormals"), "{to}: {msg}");
        if to >= 10 {
            assert!(
                msg.contains("base UVs of") && msg.contains("largest UV error"),
                "{msg}"
            );
        } else {
            assert!(msg.contains("hemi"), "{to}: {msg}");
        }
    }
    // the generated level has trees with wind: FVF trees (9) store none
    let e = convert(&generated(13, false), 9, false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("tree wind factors"), "{e}");
    assert!(e.contains("sliding windows"), "{e}");
    let e = convert(&generated(13, false), 8, false)
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tree instances written as normal visuals"),
        "{e}"
    );
}

#[test]
fn xrlc_12_keeps_the_fixture_whole() {
    // the fixture's 13 layouts are the late-v12 ones: nothing is lost, the vertex bytes are
    // those of the 13 conversion
    let f = fixture();
    let i = convert(&f, 12, false).unwrap();
    let c = i.summary.conversion.as_ref().unwrap();
    assert!(c.lost.is_empty(), "{:?}", c.lost);
    assert!(
        c.notes.iter().any(|n| n.contains("level.geomx")),
        "{:?}",
        c.notes
    );
    let l = Level::read(&i.level.to_bytes().unwrap()).unwrap().0;
    let thirteen = convert_scene(&f, &export(&f), 13, true).unwrap();
    let a: Vec<Vec<u8>> = thirteen
        .geom
        .vertex_buffers()
        .unwrap()
        .iter()
        .map(|b| b.data.to_vec())
        .collect();
    let b: Vec<Vec<u8>> = l
        .vertex_buffers()
        .unwrap()
        .iter()
        .map(|b| b.data.to_vec())
        .collect();
    assert!(a == b);
    assert_eq!(
        l.index_buffers().unwrap(),
        thirteen.geom.index_buffers().unwrap()
    );
}

#[test]
fn a_moved_visual_is_at_its_offset_in_xrlc_12() {
    let f = fixture();
    let mut s = export(&f);
    // the first visual with a mesh that is not a tree
    let (v, _) = triangles(&s)
        .into_iter()
        .find(|(v, _)| f.level.visuals()[*v].treedef().is_none())
        .unwrap();
    let n = node_of(&s, v);
    let t = [1.5f32, -0.25, 3.0];
    move_node(&mut s, n, t);
    let i = convert_scene(&f, &s, 12, false).unwrap();
    assert_eq!(i.summary.moved, vec![v]);
    let l = Level::read(&i.level.to_bytes().unwrap()).unwrap().0;
    let back = old_export(&l);
    same_triangles(&s, &back, 1e-4, 1e-6, "moved → 12");
    // and against the unmoved original: only that visual differs, by t
    let orig = triangles(&export(&f));
    let moved = triangles(&back);
    for ((va, ta), (_, tb)) in orig.iter().zip(&moved) {
        for ((pa, _), (pb, _)) in ta.iter().zip(tb) {
            for k in 0..3 {
                for c in 0..3 {
                    let d = if *va == v { t[c] } else { 0.0 };
                    assert!((pa[k][c] + d - pb[k][c]).abs() <= 1e-4, "visual {va}");
                }
            }
        }
    }
    // the moved visual is OGF 4 as XRLC 12 wrote it from 2004-08-19: OGF_VCONTAINER (7) and
    // OGF_ICONTAINER (8) first (xrLC a5f427d74b Save_Normal_PM), no OGF_GCONTAINER (21)
    let ids: Vec<u32> = l.visuals()[v].chunks.iter().map(|c| c.id()).collect();
    assert_eq!(&ids[..3], &[7, 8, 1], "{ids:?}");
    assert!(matches!(
        l.visuals()[v].chunks[2].value,
        OgfChunk::Header(h) if h.format_version == 4
    ));
}

#[test]
fn an_edited_fixture_converts_to_every_build_as_edited() {
    // move visual 2, delete 3, copy tree 4 elsewhere, add a box: the same edits the
    // same-build import tests make
    let f = fixture();
    let mut s = export(&f);
    let m = node_of(&s, 2);
    move_node(&mut s, m, [1.5, -0.25, 3.0]);
    let n = node_of(&s, 4);
    let mut copy = s.nodes[n].clone();
    copy.name.push_str(".001");
    let c = s.add_node(copy);
    let p = s
        .nodes
        .iter()
        .position(|x| x.children.contains(&n))
        .unwrap();
    s.nodes[p].children.push(c);
    move_node(&mut s, c, [4.0, 0.0, -4.0]);
    let d = node_of(&s, 3);
    for node in &mut s.nodes {
        node.children.retain(|&x| x != d);
    }
    s.roots.retain(|&r| r != d);
    add_box(&mut s, [2.0, 1.0, -3.0], "ston/ston_beton04");
    let same = super::import_edit::run(&f, &s);
    assert_eq!(same.summary.removed, vec![3]);
    let edited = export(&super::import_edit::as_files(&same));
    for to in TARGETS {
        let what = format!("edited fixture → {to}");
        let i = convert_scene(&f, &s, to, true).unwrap_or_else(|e| panic!("{what}: {e}"));
        assert_eq!(i.summary.moved, same.summary.moved, "{what}");
        assert_eq!(i.summary.added.len(), 2, "{what}");
        let l = reread(&i, to, &what);
        assert_eq!(l.visuals().len(), same.level.visuals().len(), "{what}");
        same_triangles(&edited, &old_export(&l), 1e-4, uv_tol(to), &what);
    }
}

#[test]
fn without_allow_loss_the_error_names_every_loss() {
    for (name, f) in sources() {
        for to in TARGETS {
            let allowed = convert(&f, to, true).unwrap();
            let lost = &allowed.summary.conversion.as_ref().unwrap().lost;
            match convert(&f, to, false) {
                Ok(i) => {
                    assert!(lost.is_empty(), "{name} → {to}: {lost:?}");
                    assert_eq!(
                        i.level.to_bytes().unwrap(),
                        allowed.level.to_bytes().unwrap()
                    );
                }
                Err(e) => {
                    let msg = e.to_string();
                    assert!(!lost.is_empty(), "{name} → {to}: {msg}");
                    for l in lost {
                        assert!(
                            msg.contains(l.as_str()),
                            "{name} → {to}: {l:?} not in {msg}"
                        );
                    }
                }
            }
        }
    }
}

/// The first vertex of the generated level's quad (visual 0) is `(−1, 0, −1)`: base UV
/// `x/4 + 1/2, z/4 + 1/2 = (0.25, 0.25)` (the generated XRLC 13 level adds 1/3 to u, a value
/// SHORT2 cannot hold: `0.58333…`), lightmap `x/8 + 1/2 … = (0.375, 0.375)` (the generator's
/// hand-known formulas).
#[test]
fn the_old_vertex_layouts_hold_the_hand_computed_values() {
    let first = |f: &Files, to: u16| -> (Level, usize) {
        let i = convert(f, to, true).unwrap();
        let l = Level::read(&i.level.to_bytes().unwrap()).unwrap().0;
        let vc = l.visuals()[0]
            .find_chunk(|c| match c {
                OgfChunk::VContainer(r) => Some(*r),
                _ => None,
            })
            .unwrap();
        assert_eq!(vc[1], 0);
        (l, vc[0] as usize)
    };
    // 10/11: FLOAT3, D3DCOLOR normal, SHORT4 (u·1024, v·1024, lu·32768, lv·32768): 24 bytes
    let g13 = generated(13, false);
    for to in [10u16, 11] {
        let (l, k) = first(&g13, to);
        let b = &l.vertex_buffers().unwrap()[k];
        assert_eq!(b.stride(), 24);
        let d = &b.data[..24];
        assert_eq!(&d[..12], &[0, 0, 128, 191, 0, 0, 0, 0, 0, 0, 128, 191]);
        // the normal (0, 1, 0) packed: ⌊(n + 1)·0.5·255⌋ = 127, 255, 127 as B, G, R; hemi
        // 0.8 → ⌊0.8·255⌋ = 204
        assert_eq!(&d[12..16], &[127, 255, 127, 204]);
        let s = |o: usize| i16::from_le_bytes([d[o], d[o + 1]]);
        assert_eq!([s(16), s(18)], [597, 256], "⌊0.58333·1024⌋, 0.25·1024");
        assert_eq!([s(20), s(22)], [12288, 12288], "0.375·32768");
    }
    // 9, 8: FVF XYZ|NORMAL|TEX2, texture set first; 5, 4: lightmap set first
    let g14 = generated(14, false);
    for to in [9u16, 8, 5, 4] {
        let (l, k) = first(&g14, to);
        let b = &l.fvf_buffers().unwrap()[k];
        assert_eq!(b.fvf, 0x002 | 0x010 | 0x200, "{to}");
        assert_eq!(b.stride(), 40);
        let fl =
            |o: usize| f32::from_le_bytes([b.data[o], b.data[o + 1], b.data[o + 2], b.data[o + 3]]);
        let (tex, lmap) = if to <= 5 { (32, 24) } else { (24, 32) };
        assert_eq!([fl(tex), fl(tex + 4)], [0.25, 0.25], "{to}");
        assert_eq!([fl(lmap), fl(lmap + 4)], [0.375, 0.375], "{to}");
        // the normal (0, 1, 0) as floats: the packed 255 decodes to 1.0
        assert_eq!(fl(16), 1.0, "{to}");
    }
}

/// The top-level chunks of a file as (id without the compression bit, payload).
fn raw_chunks(b: &[u8]) -> Vec<(u32, &[u8])> {
    let mut out = Vec::new();
    let mut at = 0;
    while at + 8 <= b.len() {
        let id = u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        let n = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        out.push((id & 0x7FFF_FFFF, &b[at + 8..at + 8 + n]));
        at += 8 + n;
    }
    assert_eq!(at, b.len());
    out
}

/// Record sizes of the old builds (README table, docs/formats/xray-level.md §3): lights 124 (4/5), 176 (8), 108
/// (9+); glows 24 before 12, 18 from 12; portals 80 bytes with the vertex count at byte 4 in
/// 4/5 and at byte 76 from 8. The fixture has one light, one glow and one 4-vertex portal.
#[test]
fn old_records_have_their_builds_sizes() {
    let f = fixture();
    assert_eq!((f.level.lights().len(), f.level.glows().len()), (1, 1));
    let portal = f.level.portals()[0];
    for to in TARGETS {
        let i = convert(&f, to, true).unwrap();
        let b = i.level.to_bytes().unwrap();
        let chunks = raw_chunks(&b);
        let get = |id: u32| chunks.iter().find(|c| c.0 == id).unwrap().1;
        let (light, glow, portals) = match to {
            4 | 5 => (8, 10, 7),
            8 => (7, 9, 6),
            9 => (8, 9, 6),
            _ => (6, 7, 4),
        };
        let light_size = match to {
            4 | 5 => 124,
            8 => 176,
            _ => 108,
        };
        assert_eq!(get(light).len(), light_size, "{to}");
        assert_eq!(get(glow).len(), if to >= 12 { 18 } else { 24 }, "{to}");
        let p = get(portals);
        assert_eq!(p.len(), 80, "{to}");
        let at = if to <= 5 { 4 } else { 76 };
        assert_eq!(
            u32::from_le_bytes(p[at..at + 4].try_into().unwrap()),
            portal.count,
            "{to}"
        );
    }
}

/// A converted level is a level of its build like any other: imported with its own export
/// (nothing edited) in that build, it gives back the same `level` bytes.
#[test]
fn a_converted_level_imports_unedited_to_the_same_bytes() {
    for (name, f) in sources() {
        for to in TARGETS {
            let i = convert(&f, to, true).unwrap();
            let bytes = i.level.to_bytes().unwrap();
            let l = Level::read(&bytes).unwrap().0;
            let g = Geom { chunks: Vec::new() };
            let cf = embedded(&l).or(i.cform.clone());
            let again = import::import(
                levelgeom_xray::import::Base {
                    level: &l,
                    geom: &g,
                    geomx: None,
                    cform: cf.as_ref(),
                },
                &old_export(&l),
                None,
                &ImportOptions::default(),
            )
            .unwrap_or_else(|e| panic!("{name} → {to}: {e}"));
            assert!(again.level.to_bytes().unwrap() == bytes, "{name} → {to}");
        }
    }
}

/// What no old build can hold is refused, naming it: here a visual of model type 4
/// (`MT_SKELETON_GEOMDEF_PM`, not a level visual type) in a 13 level.
#[test]
fn a_visual_type_old_builds_lack_is_refused_by_name() {
    let mut f = generated(13, false);
    let s = export(&f);
    for c in &mut f.level.chunks {
        if let LevelChunk::Visuals(vs) = &mut c.value {
            for ch in &mut vs[4].value.chunks {
                if let OgfChunk::Header(h) = &mut ch.value {
                    h.model_type = 4;
                }
            }
        }
    }
    for to in [12u16, 9, 4] {
        let e = convert_scene(&f, &s, to, true).unwrap_err();
        let msg = e.to_string();
        assert!(
            matches!(
                e,
                ImportError::OldBuild {
                    version,
                    cause: Unwritable::ModelType {
                        visual: 4,
                        model_type: 4
                    }
                } if version == to
            ),
            "{msg}"
        );
        assert_eq!(
            msg,
            format!(
                "XRLC {to}: visual 4 is of model type 4 (unknown), which levels \
                 of this build do not hold"
            )
        );
    }
}

/// What the engine of XRLC `to` reads, from its own sources (SkyLoaderr/xray-engine-repo,
/// `xr_3da/xrLevel.h` and `xrLC/` at the commit named; XRLC 4 predates that history: the
/// peers), as `(header bytes, top-level ids of level, OGF format byte, light record, glow
/// record)`:
///
/// | to | source |
/// |---|---|
/// | 4 | blender-xray `formats/level/fmt.py` (`Chunks_v4`…, OGF 2 `Chunks_v2`), header inferred from 5 |
/// | 5 | `b4385f03b0` 2002-01-15: `hdrLEVEL {DWORD; char[124]}`, ids 1–11, `xrOGF_FormatVersion 3`; `05d999e07a` xrLC `xrLIGHT` 124 bytes, glows 24 |
/// | 8 | `47bbe94fd9` 2002-04-01: STRINGS table, ids 1–10; `66fe78212a` `xrLIGHT` + `name[64]` = 176 |
/// | 9 | `f57fb25234` 2002-10-01 + `75d170fb2c` 2003-02-26 (12 VBUFFERS_DX9); `b61b6efa96` 7 LIGHT_CONTROL; `{u32 controller; Flight}` 108 |
/// | 10 | `6e603975e5` 2003-06-20: ids 1–10 (4 PORTALS … 10 VB), header still 128 |
/// | 11 | `8215fde6bc` 2003-08-29: `hdrLEVEL {u32}` = 4 bytes, the same ids |
/// | 12 | `2dd23ba610` 2003-10-20: 18-byte glows; `8e15ee2845` 2004-08-19: OGF 4; `a5f427d74b` 2004-10-29: 11 SWIS; no 5 |
/// | 13 | `d9e74c58e4` 2005-02-01: `level` 1–4, 6–8, buffers in `level.geom`; `hdrLEVEL {u32}` |
/// | 14 | `728f27bce1` 2005-04-22 ids as 13; `355d582495` 2005-09-07: `{u16 version; u16 quality}` |
fn engine_structure(to: u16) -> (u32, Vec<u32>, u8, usize, usize) {
    match to {
        4 => (128, vec![1, 2, 3, 4, 5, 6, 7, 8, 10, 11], 2, 124, 24),
        5 => (128, vec![1, 2, 3, 4, 5, 6, 7, 8, 10, 11], 3, 124, 24),
        8 => (128, vec![1, 2, 3, 4, 5, 6, 7, 9, 10], 3, 176, 24),
        9 => (128, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11], 3, 108, 24),
        10 => (128, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, 108, 24),
        11 => (4, vec![1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 3, 108, 24),
        12 => (4, vec![1, 2, 3, 4, 6, 7, 8, 9, 10, 11], 4, 108, 18),
        13 | 14 => (4, vec![1, 2, 3, 4, 6, 7, 8], 4, 108, 18),
        _ => unreachable!(),
    }
}

/// `convert --to-version N` for every N: the written bytes, walked here without our reader,
/// have N's header size, top-level chunk ids, OGF format byte in every visual's `OGF_HEADER`
/// and light and glow record sizes ([`engine_structure`], with the source per N).
#[test]
fn every_target_has_its_engines_structure_sizes() {
    // the fixture (14) to every N but 14; the generated 13 level to 14
    let g13 = generated(13, false);
    let fx = fixture();
    for to in [4u16, 5, 8, 9, 10, 11, 12, 13, 14] {
        let (f, what) = if to == 14 {
            (&g13, "v13")
        } else {
            (&fx, "fixture")
        };
        let i = convert(f, to, true).unwrap_or_else(|e| panic!("{what} → {to}: {e}"));
        let b = i.level.to_bytes().unwrap();
        let (head, ids, ogf, light, glow) = engine_structure(to);
        let chunks = raw_chunks(&b);
        assert_eq!(chunks[0].0, 1, "→ {to}: fsL_HEADER first");
        assert_eq!(chunks[0].1.len() as u32, head, "→ {to}: header size");
        assert_eq!(
            u16::from_le_bytes([chunks[0].1[0], chunks[0].1[1]]),
            to,
            "→ {to}: version"
        );
        if (11..=13).contains(&to) {
            // the u32 forms: the high half 0 (their engines compare the whole word)
            assert_eq!(&chunks[0].1[2..4], &[0, 0], "→ {to}");
        }
        let mut got: Vec<u32> = chunks.iter().map(|c| c.0).collect();
        got.sort_unstable();
        let want: Vec<u32> = ids
            .iter()
            .copied()
            // the optional ones: lights/glows/portals absent in the generated 13 source, the
            // embedded cform (4–9) written since the fixture has a collision
            .filter(|id| got.contains(id) || !(to == 14 && matches!(id, 4 | 6 | 7)))
            .collect();
        assert_eq!(got, want, "→ {to}: chunk ids");
        let at = |id: u32| chunks.iter().find(|c| c.0 == id).map(|c| c.1);
        let (lid, gid, vid) = match to {
            4 | 5 => (8, 10, 4),
            8 => (7, 9, 3),
            9 => (8, 9, 3),
            _ => (6, 7, 3),
        };
        if let Some(l) = at(lid) {
            assert_eq!(l.len() % light, 0, "→ {to}: light records");
            assert!(!l.is_empty() || to == 14, "→ {to}");
        }
        if let Some(g) = at(gid) {
            assert_eq!(g.len() % glow, 0, "→ {to}: glow records");
        }
        // every visual's OGF_HEADER (chunk 1) starts with N's format byte
        let visuals = at(vid).expect("visuals");
        let mut n = 0;
        for (_, v) in raw_chunks(visuals) {
            let h = raw_chunks(v)
                .into_iter()
                .find(|c| c.0 == 1)
                .unwrap_or_else(|| panic!("→ {to}: a visual without OGF_HEADER"));
            assert_eq!(h.1[0], ogf, "→ {to}: OGF format byte");
            n += 1;
        }
        assert!(n > 0, "→ {to}");
        // 13/14: the buffers in level.geom, ids 9 VB, 10 IB (+ 11 SWIS), header as the level's
        if to >= 13 {
            let gb = i.geom.to_bytes().unwrap();
            let gc = raw_chunks(&gb);
            assert_eq!(gc[0].0, 1);
            assert_eq!(gc[0].1.len(), 4, "→ {to}: geom header");
            let gids: Vec<u32> = gc.iter().map(|c| c.0).collect();
            assert!(gids.contains(&9) && gids.contains(&10), "→ {to}: {gids:?}");
        } else {
            assert!(i.geom.chunks.is_empty(), "→ {to}: no level.geom");
        }
    }
}
