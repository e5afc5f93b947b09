//! Visual layouts of particular old eras (issue 22, part B): the OGF 4 visuals of XRLC 12
//! (builds 1935–2218, `OGF_VCONTAINER` 7 + `OGF_ICONTAINER` 8, no `OGF_GCONTAINER`), OGF 3
//! progressive strips (type 10, `OGF_P_LODS` 16) and detail patches (type 6, `OGF_DPATCH` 15)
//! of the engine of 2002, and the OGF format each build's writer uses.
//!
//! Independent facts: the chunk ids and record sizes of the engine history
//! (xray-engine-repo `xr_3da/Fmesh.h` at `8e15ee2845` (2004-08-19): HEADER 1, P_LODS 6,
//! VCONTAINER 7, ICONTAINER 8, CHILDREN_L 10, LODDEF2 11, TREEDEF2 12, SWICONTAINER 20 (from
//! `a5f427d74b`); `ogf_header` 44 bytes with bbox and sphere; `FTreeVisual.h` `_5color` = 20
//! bytes, so TREEDEF2 = 64 + 2·20 = 104; `FLOD.h` `_vertex` = 12 + 8 + 4 + 1 → 28 with
//! padding, ×32 = 896; at `b4385f03b0` (2002-01-15) `FDetailPatch.h` `DPatch` = 32 bytes,
//! `MT_DETAIL_PATCH` 6, `MT_PROGRESSIVE_STRIPS` 10, `OGF_DPATCH` 15, `OGF_P_LODS` 16,
//! `xrOGF_FormatVersion` 3 with `XRCL_PRODUCTION_VERSION` 5), walked here from the bytes, and
//! the generator's hand-known positions. Neither peer reads strips or detail patches (xray_re
//! `xr_ogf_v3.cxx` `load_dpatch` is not implemented, `load_lods` wants a header per level;
//! blender-xray has no such chunks), so their export is checked against hand-computed corners.

use levelgeom_scene::{transform_point, Scene};
use levelgeom_xray::generate::{self, OldVisuals, Options};
use levelgeom_xray::import::{self, Base, ImportOptions};
use levelgeom_xray::level::LevelChunk;
use levelgeom_xray::ogf::OgfChunk;
use levelgeom_xray::{check, files, flat, Info, Level};

use super::import_edit::{move_node, node_of};
use super::import_old::{embedded, empty, export};

/// `(id, payload)` of each chunk of a chunk list, walked from the bytes.
fn walk(mut b: &[u8]) -> Vec<(u32, &[u8])> {
    let mut out = Vec::new();
    while b.len() >= 8 {
        let id = u32::from_le_bytes(b[0..4].try_into().unwrap());
        let n = u32::from_le_bytes(b[4..8].try_into().unwrap()) as usize;
        out.push((id, &b[8..8 + n]));
        b = &b[8 + n..];
    }
    assert!(b.is_empty(), "chunk list does not tile");
    out
}

/// The payloads of the visuals of a `level` file (visuals chunk `id`), each as its chunk list.
fn visuals(bytes: &[u8], id: u32) -> Vec<Vec<(u32, &[u8])>> {
    let top = walk(bytes);
    let vs = top.iter().find(|c| c.0 == id).expect("visuals chunk").1;
    walk(vs).into_iter().map(|(_, b)| walk(b)).collect()
}

fn u32s(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|x| u32::from_le_bytes(x.try_into().unwrap()))
        .collect()
}

/// Every triangle of the scene in world space (glTF frame) with its UV0 per corner.
fn world_triangles(s: &Scene) -> Vec<[([f32; 3], [f32; 2]); 3]> {
    let w = s.world_matrices();
    let mut out = Vec::new();
    for (n, node) in s.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        for p in &s.meshes[m].primitives {
            for t in p.indices.chunks_exact(3) {
                let c = |k: u32| {
                    let k = k as usize;
                    let uv = p.uvs.first().map_or([f32::NAN; 2], |u| u[k]);
                    (transform_point(&w[n], p.positions[k]), uv)
                };
                out.push([c(t[0]), c(t[1]), c(t[2])]);
            }
        }
    }
    out
}

fn near(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5)
}

/// The exported triangle with these glTF corners in this order (from any start), if any.
fn find(
    tris: &[[([f32; 3], [f32; 2]); 3]],
    want: [[f32; 3]; 3],
) -> Option<[([f32; 3], [f32; 2]); 3]> {
    tris.iter()
        .copied()
        .find(|t| (0..3).any(|r| (0..3).all(|k| near(t[(k + r) % 3].0, want[k]))))
}

/// X-Ray → glTF: z mirrored.
fn g(p: [f32; 3]) -> [f32; 3] {
    [p[0], p[1], -p[2]]
}

/// Read, rebuild byte for byte, no view warnings, rules clean (view and opened file).
fn read_clean(l: &Level, what: &str) -> (Level, Vec<u8>) {
    let bytes = l.to_bytes().unwrap();
    let (back, warnings) = Level::read(&bytes).unwrap();
    assert!(warnings.is_empty(), "{what}: {warnings:?}");
    assert_eq!(back.to_bytes().unwrap(), bytes, "{what}: rebuild");
    let f = flat::flatten(&back).unwrap();
    assert_eq!(f.warnings, Vec::<String>::new(), "{what}");
    assert_eq!(
        check::level(&f.level, Some(&f.geom), None),
        vec![],
        "{what}"
    );
    let opened = files::Opened::read(&bytes).unwrap().unwrap().0;
    assert_eq!(opened.check(), vec![], "{what}");
    (back, bytes)
}

#[test]
fn xrlc_12_ogf4_visuals_have_the_engines_chunks_and_export_every_triangle() {
    for compress in [false, true] {
        let o = Options {
            version: 12,
            compress,
        };
        let what = format!("{o:?}");
        let l = generate::old_level_with(o, OldVisuals::Ogf4);
        let (back, bytes) = read_clean(&l, &what);
        // the chunks of each visual, from the bytes (xrLC a5f427d74b order)
        let vs = visuals(&bytes, 3);
        let ids: Vec<Vec<u32>> = vs.iter().map(|v| v.iter().map(|c| c.0).collect()).collect();
        assert_eq!(
            ids,
            vec![
                vec![7, 8, 1],         // normal
                vec![7, 8, 1, 6],      // progressive: windows in OGF_P_LODS
                vec![7, 8, 12, 1, 20], // tree PM
                vec![7, 8, 12, 1],     // tree ST
                vec![1, 10, 11],       // LOD
                vec![1, 10],           // hierarchy
            ],
            "{what}"
        );
        for (k, v) in vs.iter().enumerate() {
            for (id, body) in v {
                let want = match id {
                    1 => 44,     // u8, u8, u16, bbox 24, sphere 16
                    7 | 8 => 12, // three u32
                    12 => 104,   // matrix 64 + two _5color of 20
                    11 => 896,   // 8 quads × 4 × 28
                    20 => 4,
                    6 => 16 + 4 + 2 * 8, // reserved, count, two windows
                    _ => body.len(),
                };
                assert_eq!(body.len(), want, "{what}: visual {k} chunk {id}");
                if *id == 1 {
                    assert_eq!(body[0], 4, "format 4");
                }
            }
        }
        // model types: normal 0, progressive 2, tree PM 11, tree ST 7, LOD 6, hierarchy 1
        let types: Vec<u8> = vs
            .iter()
            .map(|v| v.iter().find(|c| c.0 == 1).unwrap().1[1])
            .collect();
        assert_eq!(types, vec![0, 2, 11, 7, 6, 1], "{what}");
        // the tree's containers: the third buffer from vertex 0, 5 vertices; IB 0 from index
        // 12 (after the two quads), 12 indices
        assert_eq!(u32s(vs[2][0].1), vec![2, 0, 5]);
        assert_eq!(u32s(vs[2][1].1), vec![0, 12, 12]);
        // info names the types
        let info = Info::read("level", &bytes).unwrap();
        let j = serde_json::to_value(&info).unwrap();
        let names: Vec<&str> = j["visuals"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v["type"].as_str().unwrap())
            .collect();
        assert_eq!(
            names,
            [
                "normal",
                "progressive",
                "tree_pm",
                "tree_st",
                "lod",
                "hierarchy"
            ],
            "{what}"
        );
        // export: both quads (the progressive one at sw[0], its full detail) and both trees
        let s = export(&back);
        assert!(s.warnings.is_empty(), "{what}: {:?}", s.warnings);
        let tris = world_triangles(&s);
        assert_eq!(tris.len(), 2 + 2 + 4 + 4, "{what}");
        let q = generate::OLD_QUAD;
        let l = generate::OLD_QUAD_LIT;
        for quad in [q, l] {
            // X-Ray (0, 3, 2) and (0, 2, 1) → glTF reversed winding
            assert!(find(&tris, [g(quad[0]), g(quad[2]), g(quad[3])]).is_some());
            assert!(find(&tris, [g(quad[0]), g(quad[1]), g(quad[2])]).is_some());
        }
        // tree 0: translation only; apex (0, 2, 0) + (10, 0, 5)
        assert!(tris
            .iter()
            .any(|t| t.iter().any(|c| near(c.0, [10.0, 2.0, -5.0]))));
        // base UV of the lightmapped quad: (x/4 + 1/2, z/4 + 1/2)
        let t = find(&tris, [g(q[0]), g(q[2]), g(q[3])]).unwrap();
        let uv = t.iter().find(|c| near(c.0, g(q[2]))).unwrap().1;
        assert_eq!(uv, [0.75, 0.75]);
    }
}

#[test]
fn convert_to_12_writes_ogf4_containers_and_no_gcontainer() {
    let (l14, g14) = generate::level(Options::default());
    let s = levelgeom_xray::to_scene(&l14, &g14, &Default::default()).unwrap();
    let out = import::import(
        Base {
            level: &l14,
            geom: &g14,
            geomx: None,
            cform: None,
        },
        &s,
        None,
        &ImportOptions {
            to_version: Some(12),
            allow_loss: true,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    let (back, bytes) = read_clean(&out.level, "14 → 12");
    let vs = visuals(&bytes, 3);
    let gcs: Vec<Option<&OgfChunk>> = l14
        .visuals()
        .iter()
        .map(|v| v.chunks.iter().find(|c| c.id() == 21).map(|c| &c.value))
        .collect();
    for (k, v) in vs.iter().enumerate() {
        let ids: Vec<u32> = v.iter().map(|c| c.0).collect();
        assert!(
            !ids.contains(&21) && !ids.contains(&22),
            "visual {k}: {ids:?}"
        );
        let h = v.iter().find(|c| c.0 == 1).unwrap().1;
        assert_eq!((h.len(), h[0]), (44, 4), "visual {k}");
        match gcs[k] {
            Some(OgfChunk::GContainer(gc)) => {
                // xrLC's order: VCONTAINER, ICONTAINER first; the same ranges as the 14's
                // GCONTAINER (both buffers kept one for one)
                assert_eq!(&ids[..2], &[7, 8], "visual {k}");
                assert_eq!(u32s(v[0].1), vec![gc.vb_index, gc.vb_offset, gc.vb_count]);
                assert_eq!(u32s(v[1].1), vec![gc.ib_index, gc.ib_offset, gc.ib_count]);
            }
            _ => assert!(!ids.contains(&7), "visual {k}: {ids:?}"),
        }
    }
    // the progressive visual keeps its windows (6), the trees their SWIS item (20)
    assert!(vs[1].iter().any(|c| c.0 == 6));
    assert!(vs[2].iter().any(|c| c.0 == 20) && vs[3].iter().any(|c| c.0 == 20));
    // and reads back with the 14's triangles
    let a = world_triangles(&s);
    let b = world_triangles(&export(&back));
    assert_eq!(a.len(), b.len());
    for t in &a {
        let corners = [t[0].0, t[1].0, t[2].0];
        assert!(find(&b, corners).is_some(), "{corners:?}");
    }
}

#[test]
fn xrlc_5_writes_and_reads_ogf_3_visuals() {
    // the engine of XRLC 5 (2002-01-15) verifies xrOGF_FormatVersion 3: the generator and the
    // writer give XRLC 5 OGF 3 (ids 11 BSPHERE, 10 VCONTAINER), XRLC 4 OGF 2 (12, 11)
    for (v, format, bsphere, vcont) in [(4u16, 2u8, 12u32, 11u32), (5, 3, 11, 10)] {
        let l = generate::old_level(Options {
            version: v,
            compress: false,
        });
        let bytes = l.to_bytes().unwrap();
        let vs = visuals(&bytes, 4);
        let h = vs[0].iter().find(|c| c.0 == 1).unwrap().1;
        assert_eq!((h.len(), h[0]), (4, format), "v{v}");
        assert!(vs[0].iter().any(|c| c.0 == bsphere && c.1.len() == 16));
        assert!(vs[0].iter().any(|c| c.0 == vcont && c.1.len() == 12));
        // the conversion into this build writes the same format
        let (l14, g14) = generate::level(Options::default());
        let s = levelgeom_xray::to_scene(&l14, &g14, &Default::default()).unwrap();
        let out = import::import(
            Base {
                level: &l14,
                geom: &g14,
                geomx: None,
                cform: None,
            },
            &s,
            None,
            &ImportOptions {
                to_version: Some(v),
                allow_loss: true,
                ..ImportOptions::default()
            },
        )
        .unwrap();
        let cb = out.level.to_bytes().unwrap();
        for (k, vis) in visuals(&cb, 4).iter().enumerate() {
            let h = vis.iter().find(|c| c.0 == 1).unwrap().1;
            assert_eq!(h[0], format, "v{v} visual {k}");
        }
    }
}

/// The corners of the generator's detail patches as quads, X-Ray space (hand computed from
/// `generate::old_dpatches`: patch 0 stands on +y, right = +x, half-size 0.25; patch 1 on −z,
/// right = +x, half-size 0.5), in the order (P − r − u, P − r + u, P + r + u, P + r − u).
const PATCH_CORNERS: [[[f32; 3]; 4]; 2] = [
    [
        [9.75, 0.0, 10.0],
        [9.75, 0.5, 10.0],
        [10.25, 0.5, 10.0],
        [10.25, 0.0, 10.0],
    ],
    [
        [11.5, 0.5, 10.5],
        [11.5, 0.5, 9.5],
        [12.5, 0.5, 9.5],
        [12.5, 0.5, 10.5],
    ],
];

#[test]
fn progressive_strips_and_detail_patches_of_2002_read_rebuild_and_export() {
    for v in [5u16, 8] {
        for compress in [false, true] {
            let o = Options {
                version: v,
                compress,
            };
            let what = format!("{o:?}");
            let l = generate::old_level_with(o, OldVisuals::StripsAndPatches);
            let (back, bytes) = read_clean(&l, &what);
            let vid = if v == 5 { 4 } else { 3 };
            let vs = visuals(&bytes, vid);
            let n = vs.len();
            // strips: TEXTURE_L, BBOX, BSPHERE, P_LODS, HEADER (xrLC 05d999e07a order)
            let strips = &vs[n - 2];
            let ids: Vec<u32> = strips.iter().map(|c| c.0).collect();
            assert_eq!(ids, vec![3, 6, 11, 16, 1], "{what}");
            assert_eq!(
                strips[4].1,
                &[3, 10, 0, 0],
                "{what}: OGF 3, MT_PROGRESSIVE_STRIPS"
            );
            let lods = walk(strips[3].1);
            assert_eq!(lods.iter().map(|c| c.0).collect::<Vec<_>>(), vec![0, 1]);
            for (k, (_, body)) in lods.iter().enumerate() {
                let inner = walk(body);
                assert_eq!(inner.iter().map(|c| c.0).collect::<Vec<_>>(), vec![10, 8]);
                let ix = u32s(&inner[1].1[..4])[0] as usize;
                assert_eq!(inner[1].1.len(), 4 + 2 * ix);
                // level 0: one triangle on 3 vertices; level 1 (the last): both, 4 vertices
                assert_eq!(ix, 3 * (k + 1), "{what}");
                assert_eq!(u32s(inner[0].1)[2], [3, 4][k], "{what}");
            }
            // detail patch: header type 6, 2 × 32-byte records
            let dp = &vs[n - 1];
            assert_eq!(dp[0].1, &[3, 6, 0, 0], "{what}");
            let d = dp.iter().find(|c| c.0 == 15).unwrap().1;
            assert_eq!(d.len(), 64);
            // info names both types
            let info = serde_json::to_value(Info::read("level", &bytes).unwrap()).unwrap();
            let ty = |k: usize| info["visuals"][k]["type"].as_str().unwrap().to_string();
            assert_eq!(
                (ty(n - 2), ty(n - 1)),
                ("progressive_strips".into(), "detail_patch".into())
            );
            // the hierarchy lists both
            let root = &back.visuals()[n - 3];
            assert!(root.children().ends_with(&[n as u32 - 2, n as u32 - 1]));
            // export: the two quads, the strips' full detail, two patch quads
            let s = export(&back);
            assert!(s.warnings.is_empty(), "{what}: {:?}", s.warnings);
            let tris = world_triangles(&s);
            assert_eq!(tris.len(), 4 + 2 + 4, "{what}");
            let q = generate::OLD_QUAD_STRIPS;
            assert!(find(&tris, [g(q[0]), g(q[2]), g(q[3])]).is_some(), "{what}");
            assert!(find(&tris, [g(q[0]), g(q[1]), g(q[2])]).is_some(), "{what}");
            for c in PATCH_CORNERS {
                // triangles (0, 1, 2), (0, 2, 3), winding reversed in glTF
                let t = find(&tris, [g(c[0]), g(c[2]), g(c[1])])
                    .unwrap_or_else(|| panic!("{what}: patch triangle {c:?}"));
                // the engine's sprite UVs: (0, 1), (0, 0), (1, 0), (1, 1)
                let uv = |p| t.iter().find(|x| near(x.0, g(p))).unwrap().1;
                assert_eq!(uv(c[0]), [0.0, 1.0]);
                assert_eq!(uv(c[1]), [0.0, 0.0]);
                assert_eq!(uv(c[2]), [1.0, 0.0]);
                assert!(find(&tris, [g(c[0]), g(c[3]), g(c[2])]).is_some());
            }
            // import of an edit: move the lightmapped quad; the strips and patches keep
            // their bytes
            let mut e = export(&back);
            let nq = node_of(&e, 0);
            move_node(&mut e, nq, [0.0, 1.0, 0.0]);
            let cf = embedded(&back);
            let base = Base {
                level: &back,
                geom: &empty(),
                geomx: None,
                cform: cf.as_ref(),
            };
            let out = import::import(base, &e, None, &ImportOptions::default())
                .unwrap_or_else(|err| panic!("{what}: {err}"));
            let ob = out.level.to_bytes().unwrap();
            let ovs = visuals(&ob, vid);
            assert_eq!(ovs[n - 2], vs[n - 2], "{what}: strips unchanged");
            assert_eq!(ovs[n - 1], vs[n - 1], "{what}: patches unchanged");
            assert_ne!(ovs[0], vs[0], "{what}: the moved quad");
            // moving the strips writes a normal visual on their full detail, named in notes
            let mut e = export(&back);
            let ns = node_of(&e, n - 2);
            move_node(&mut e, ns, [0.0, 1.0, 0.0]);
            let out = import::import(base, &e, None, &ImportOptions::default()).unwrap();
            let moved = &out.level.visuals()[n - 2];
            assert_eq!(moved.short_header().map(|h| h.1), Some(0), "{what}");
            assert!(!moved
                .chunks
                .iter()
                .any(|c| matches!(c.value, OgfChunk::PLods(_))));
            let ms = export(&Level::read(&out.level.to_bytes().unwrap()).unwrap().0);
            let mt = world_triangles(&ms);
            let up = |p: [f32; 3]| g([p[0], p[1] + 1.0, p[2]]);
            assert!(
                find(&mt, [up(q[0]), up(q[2]), up(q[3])]).is_some(),
                "{what}"
            );
            assert!(
                find(&mt, [up(q[0]), up(q[1]), up(q[2])]).is_some(),
                "{what}"
            );
            // moving a patch is refused with a message naming it
            let mut e = export(&back);
            let np = node_of(&e, n - 1);
            move_node(&mut e, np, [0.0, 1.0, 0.0]);
            let err = import::import(base, &e, None, &ImportOptions::default()).unwrap_err();
            // typed: the write-back's own error, kept as the source; it names the view's
            // buffer of the patch's quads (2 sprites, 4 corners each)
            let typed = std::error::Error::source(&err)
                .and_then(|s| s.downcast_ref::<flat::UnflattenError>());
            let Some(&flat::UnflattenError::PatchQuadsEdited { buffer }) = typed else {
                panic!("{what}: {err:?}");
            };
            let view = flat::flatten(&back).unwrap();
            assert_eq!(
                view.geom.vertex_buffers().unwrap()[buffer].count,
                8,
                "{what}"
            );
            assert_eq!(
                err.to_string(),
                format!(
                    "XRLC {v}: the quads of a detail patch visual (view vertex buffer {buffer}) \
                     were edited; a detail patch (OGF_DPATCH sprites) has no form for them: \
                     leave it unedited or delete it"
                )
            );
            // convert to 13 and 14: every triangle of the export
            for to in [13u16, 14] {
                let out = import::import(
                    base,
                    &export(&back),
                    None,
                    &ImportOptions {
                        to_version: Some(to),
                        allow_loss: true,
                        ..ImportOptions::default()
                    },
                )
                .unwrap_or_else(|err| panic!("{what} → {to}: {err}"));
                let s2 =
                    levelgeom_xray::to_scene(&out.level, &out.geom, &Default::default()).unwrap();
                let t2 = world_triangles(&s2);
                assert_eq!(t2.len(), tris.len(), "{what} → {to}");
                for t in &tris {
                    let c = [t[0].0, t[1].0, t[2].0];
                    assert!(find(&t2, c).is_some(), "{what} → {to}: {c:?}");
                }
            }
        }
    }
}

#[test]
fn a_detail_patch_chunk_of_another_size_is_kept_raw() {
    // the engine asserts a whole number of 32-byte records; 33 bytes stay as they are
    let mut l = generate::old_level_with(
        Options {
            version: 5,
            compress: false,
        },
        OldVisuals::StripsAndPatches,
    );
    for c in &mut l.chunks {
        if let LevelChunk::Visuals(vs) = &mut c.value {
            let dp = vs.last_mut().unwrap();
            for ch in &mut dp.value.chunks {
                if ch.id() == 15 {
                    ch.value = OgfChunk::Raw(vec![7; 33]);
                }
            }
        }
    }
    let bytes = l.to_bytes().unwrap();
    let back = Level::read(&bytes).unwrap().0;
    assert_eq!(back.to_bytes().unwrap(), bytes);
    assert!(matches!(
        back.visuals().last().unwrap().chunks.last().unwrap().value,
        OgfChunk::Raw(_)
    ));
}

#[test]
fn nested_p_lods_are_read_one_level_deep_and_kept() {
    // hostile input: OGF_P_LODS inside a detail level inside OGF_P_LODS … 2000 deep. The
    // reader reads one level of detail levels and keeps anything nested deeper raw (no
    // unbounded recursion), and writes the bytes back unchanged
    fn chunk(id: u32, body: &[u8]) -> Vec<u8> {
        let mut v = id.to_le_bytes().to_vec();
        v.extend((body.len() as u32).to_le_bytes());
        v.extend_from_slice(body);
        v
    }
    let mut inner = chunk(8, &[0, 0, 0, 0]);
    for _ in 0..2000 {
        inner = chunk(16, &chunk(0, &inner));
    }
    let mut bytes = chunk(1, &[3, 10, 0, 0]);
    bytes.extend(inner);
    let mut r = levelgeom_binary::Reader::new(&bytes);
    let v = levelgeom_xray::ogf::Visual::read_in(&mut r, 5).unwrap();
    let OgfChunk::PLods(levels) = &v.chunks[1].value else {
        panic!("{:?}", v.chunks[1].value)
    };
    assert!(matches!(levels[0].value[0].value, OgfChunk::Raw(_)));
    let mut w = levelgeom_binary::Writer::new();
    v.write(&mut w).unwrap();
    assert_eq!(w.into_inner(), bytes);
}
