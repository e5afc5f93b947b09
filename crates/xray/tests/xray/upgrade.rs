//! `--to-version 13|14` from the old builds (XRLC 4, 5, 8–12; `import/upgrade`): the generated
//! level of every old build, plain and compressed, imported unedited (and edited) into 13 and 14.
//!
//! The facts compared with: the generator's hand-known values (`generate::OLD_QUAD`,
//! `old_uv`, `old_tree_xform`, `old_cform`: the quad's collision faces with material 3), the
//! the layouts of (docs/formats/xray-level.md §2.2, §3: v13 static vertices 36 bytes, v14 32, trees 32, level.geomx 16 /
//! 12 bytes; chunk order 1, 4, 6, 7, 3, 2, 8), and the original level's own export.

use levelgeom_scene::Scene;
use levelgeom_xray::cform::Cform;
use levelgeom_xray::import::{self, Base, ImportError, ImportOptions, Imported};
use levelgeom_xray::ogf::{model_type, OgfChunk};
use levelgeom_xray::{check, generate, to_scene, Geom, Level, SceneOptions};

use super::import_edit::{move_node, node_of, world_corners};
use super::import_old::{embedded, empty, export};

const OLD: [u16; 7] = [4, 5, 8, 9, 10, 11, 12];

fn levels() -> Vec<(String, u16, Level)> {
    OLD.iter()
        .flat_map(|&version| {
            [false, true].map(move |compress| {
                let (lb, _) = generate::level_bytes(generate::Options { version, compress });
                (
                    format!("v{version} compress={compress}"),
                    version,
                    Level::read(&lb).unwrap().0,
                )
            })
        })
        .collect()
}

fn convert(l: &Level, s: &Scene, to: u16, allow_loss: bool) -> Result<Imported, ImportError> {
    let g = empty();
    let cf = embedded(l);
    import::import(
        Base {
            level: l,
            geom: &g,
            geomx: None,
            cform: cf.as_ref(),
        },
        s,
        None,
        &ImportOptions {
            to_version: Some(to),
            allow_loss,
            ..ImportOptions::default()
        },
    )
}

/// The written files read back by our readers from their bytes.
struct Back {
    level: Level,
    geom: Geom,
    geomx: Geom,
    cform: Option<Cform>,
}

fn reread(i: &Imported) -> Back {
    Back {
        level: Level::read(&i.level.to_bytes().unwrap()).unwrap().0,
        geom: Geom::read(&i.geom.to_bytes().unwrap()).unwrap().0,
        geomx: Geom::read(&i.geomx.as_ref().unwrap().to_bytes().unwrap())
            .unwrap()
            .0,
        cform: i
            .cform
            .as_ref()
            .map(|c| Cform::read(&c.to_bytes().unwrap()).unwrap().0),
    }
}

/// Corners (glTF world position, base UV) of every triangle a node draws.
fn corners_uv(s: &Scene, n: usize) -> Vec<([f32; 3], [f32; 2])> {
    let w = s.world_matrices();
    let Some(m) = s.nodes[n].mesh else {
        return Vec::new();
    };
    s.meshes[m]
        .primitives
        .iter()
        .flat_map(|p| {
            p.indices.iter().map(|&i| {
                (
                    levelgeom_scene::transform_point(&w[n], p.positions[i as usize]),
                    p.uvs[0][i as usize],
                )
            })
        })
        .collect()
}

fn near(a: &[f32], b: &[f32], tol: f32) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(x, y)| (x - y).abs() <= tol)
}

#[test]
fn every_old_build_converts_unedited_to_13_and_14() {
    for (name, version, l) in levels() {
        let before = export(&l);
        let (trees, _) = generate::old_features(version);
        for to in [13u16, 14] {
            let name = format!("{name} → {to}");
            let out = convert(&l, &before, to, true).unwrap();
            let c = out.summary.conversion.clone().unwrap();
            assert_eq!((c.from, c.to), (version, to), "{name}");
            assert_eq!(out.summary.build_out, to, "{name}");
            let b = reread(&out);
            // the files read back as the target build
            assert_eq!(b.level.version(), Some(to), "{name}");
            assert_eq!(b.geom.header().unwrap().version, to, "{name}");
            assert_eq!(b.geomx.header().unwrap().version, to, "{name}");
            assert!(!b.level.is_old(), "{name}");
            // xrLC's chunk order 1, 4, 6, 7, 3, 2, 8 (every part present here)
            let ids: Vec<u32> = b.level.chunks.iter().map(|c| c.id()).collect();
            assert_eq!(ids, vec![1, 4, 6, 7, 3, 2, 8], "{name}");
            // the spec's strides: statics 36 (13) / 32 (14), trees 32, geomx 16 (13) / 12 (14)
            let vbs = b.geom.vertex_buffers().unwrap();
            for vb in vbs {
                let tree = vb.decl == levelgeom_xray::decl::mu_model();
                let want = if tree || to == 14 { 32 } else { 36 };
                assert_eq!(vb.stride(), want, "{name}: {:?}", vb.decl);
            }
            assert_eq!(
                vbs.len(),
                2 + usize::from(trees),
                "{name}: lmap, vertex-lit, tree"
            );
            for vb in b.geomx.vertex_buffers().unwrap() {
                assert_eq!(vb.stride(), if to == 13 { 16 } else { 12 }, "{name}");
            }
            // our rules find nothing
            let mut p = check::level(&b.level, Some(&b.geom), Some(&b.geomx));
            p.extend(check::geom(&b.geom));
            p.extend(check::geom(&b.geomx));
            if let Some(cf) = &b.cform {
                p.extend(check::cform(cf));
            }
            assert_eq!(p, vec![], "{name}");
            // every visual is OGF 4 in xrLC's sub-chunk order
            for (i, v) in b.level.visuals().iter().enumerate() {
                let h = v.header().unwrap();
                assert_eq!(h.format_version, 4, "{name}: visual {i}");
                let ids: Vec<u32> = v.chunks.iter().map(|c| c.id()).collect();
                let want: Vec<u32> = match h.model_type {
                    model_type::NORMAL => vec![21, 22, 1],
                    model_type::TREE_ST => vec![21, 12, 1],
                    model_type::HIERARCHY => vec![1, 10],
                    model_type::LOD => vec![1, 10, 11],
                    t => panic!("{name}: visual {i} of type {t}"),
                };
                assert_eq!(ids, want, "{name}: visual {i}");
            }
            // the export: every visual where the original's export has it
            let after = to_scene(&b.level, &b.geom, &SceneOptions::default()).unwrap();
            let nv = l.visuals().len();
            assert_eq!(b.level.visuals().len(), nv, "{name}");
            let uv_tol = if to == 13 {
                0.0
            } else {
                1.0 / (255.5 * 1024.0)
            };
            for v in 0..nv {
                let (o, n) = (node_of(&before, v), node_of(&after, v));
                let (a, z) = (corners_uv(&before, o), corners_uv(&after, n));
                assert_eq!(a.len(), z.len(), "{name}: visual {v}");
                for ((pa, ua), (pz, uz)) in a.iter().zip(&z) {
                    assert!(near(pa, pz, 1e-4), "{name}: visual {v} {pa:?} {pz:?}");
                    assert!(
                        near(ua, uz, uv_tol + 1e-7),
                        "{name}: visual {v} {ua:?} {uz:?}"
                    );
                }
            }
            // the generator's hand-known values: visual 0 is OLD_QUAD (glTF z = −X-Ray z)
            // with base UVs old_uv, triangles 0 3 2, 0 2 1 (wound back for glTF)
            let q = corners_uv(&after, node_of(&after, 0));
            assert_eq!(q.len(), 6, "{name}");
            for (p, uv) in &q {
                let x = [p[0], p[1], -p[2]];
                assert!(
                    generate::OLD_QUAD.iter().any(|c| near(c, &x, 1e-6)),
                    "{name}: {x:?}"
                );
                assert!(
                    near(uv, &generate::old_uv(x), uv_tol + 1e-7),
                    "{name}: {uv:?}"
                );
            }
            // the tree matrices are the generator's
            if trees {
                for k in 0..2 {
                    let td = b.level.visuals()[2 + k].treedef().unwrap();
                    assert_eq!(td.xform, generate::old_tree_xform(k), "{name}: tree {k}");
                }
                // both instances share one range
                assert_eq!(
                    b.level.visuals()[2].gcontainer(),
                    b.level.visuals()[3].gcontainer(),
                    "{name}"
                );
            }
            // the collision: XRLC ≤ 9's embedded faces at the same places, same materials
            if version <= 9 {
                let (a, z) = (embedded(&l).unwrap(), b.cform.clone().unwrap());
                assert_eq!(z.version, 4, "{name}");
                assert_eq!(a.tris.len(), z.tris.len(), "{name}");
                for (ta, tz) in a.tris.iter().zip(&z.tris) {
                    assert_eq!(ta.material(), 3, "{name}: old_cform's material");
                    assert_eq!(tz.material(), ta.material(), "{name}");
                    assert_eq!(tz.sector(), ta.sector(), "{name}");
                    for k in 0..3 {
                        assert_eq!(
                            z.vertices[tz.verts[k] as usize], a.vertices[ta.verts[k] as usize],
                            "{name}"
                        );
                    }
                }
            } else {
                assert!(
                    b.cform.is_none(),
                    "{name}: the generator gives 10–12 no cform"
                );
            }
            // 8 static + 5 tree vertices raised to 13; 13 → 14 re-encodes the 8 static ones
            // again (counts of the steps are summed)
            let statics = if to == 13 { 8 } else { 16 };
            assert_eq!(c.vertices, statics + if trees { 5 } else { 0 }, "{name}");
            if std::env::var_os("UPGRADE_DEBUG").is_some() {
                eprintln!("{name}\n  lost {:#?}\n  notes {:#?}", c.lost, c.notes);
            }
        }
    }
}

#[test]
fn a_lossy_upgrade_is_refused_naming_each_loss() {
    for (name, version, l) in levels() {
        let s = export(&l);
        for to in [13u16, 14] {
            let name = format!("{name} → {to}");
            let allowed = convert(&l, &s, to, true).unwrap();
            let lost = allowed.summary.conversion.unwrap().lost;
            // XRLC 4/5/8 D3D7 lights lose their tails; ≤ 11 glows their index pairs; FVF
            // builds (≤ 9) pack float normals; XRLC 12 (D3D9, FLOAT2 UVs, 108-byte lights,
            // 18-byte glows) has nothing the 13 layouts cannot hold, and its UVs (multiples
            // of 1/1024) survive 14's SHORT2 + fraction encoding
            if version <= 8 {
                assert!(
                    lost.iter().any(|x| x.contains("lights")),
                    "{name}: {lost:?}"
                );
            }
            if version <= 11 {
                assert!(lost.iter().any(|x| x.contains("glows")), "{name}: {lost:?}");
            } else {
                assert_eq!(lost, Vec::<String>::new(), "{name}");
            }
            if version <= 9 {
                assert!(
                    lost.iter().any(|x| x.contains("normals of")),
                    "{name}: {lost:?}"
                );
            }
            match convert(&l, &s, to, false) {
                Err(ImportError::Loss {
                    from,
                    to: t,
                    lost: e,
                }) => {
                    assert!(!lost.is_empty(), "{name}");
                    assert_eq!((from, t), (version, to), "{name}");
                    for x in &lost {
                        assert!(e.contains(x.as_str()), "{name}: {x} not in {e}");
                    }
                }
                Ok(_) => assert!(lost.is_empty(), "{name}: accepted although {lost:?}"),
                Err(e) => panic!("{name}: {e}"),
            }
        }
    }
}

#[test]
fn an_edited_old_level_converted_to_14_has_the_moved_visual_at_its_offset() {
    let offset = [1.5f32, -0.25, 3.0];
    for (name, _, l) in levels() {
        let before = export(&l);
        let mut s = before.clone();
        let n0 = node_of(&s, 0);
        move_node(&mut s, n0, offset);
        let out = convert(&l, &s, 14, true).unwrap();
        assert_eq!(out.summary.moved, vec![0], "{name}");
        let b = reread(&out);
        let after = to_scene(&b.level, &b.geom, &SceneOptions::default()).unwrap();
        let want: Vec<[f32; 3]> = world_corners(&before, node_of(&before, 0))
            .iter()
            .map(|p| [p[0] + offset[0], p[1] + offset[1], p[2] + offset[2]])
            .collect();
        let got = world_corners(&after, node_of(&after, 0));
        assert_eq!(got.len(), want.len(), "{name}");
        for (g, w) in got.iter().zip(&want) {
            assert!(near(g, w, 1e-4), "{name}: {g:?} want {w:?}");
        }
        // the others stay
        for v in 1..l.visuals().len() {
            let (a, z) = (
                world_corners(&before, node_of(&before, v)),
                world_corners(&after, node_of(&after, v)),
            );
            assert_eq!(a.len(), z.len(), "{name}: visual {v}");
            assert!(
                a.iter().zip(&z).all(|(x, y)| near(x, y, 1e-4)),
                "{name}: visual {v}"
            );
        }
        // the fast path of visual 0 moved with it (level.geomx positions)
        let f = b.level.visuals()[0].fastpath().unwrap();
        let xs = b.geomx.vertex_buffers().unwrap()[f.vb_index as usize].decode();
        for p in &xs.positions[f.vb_offset as usize..(f.vb_offset + f.vb_count) as usize] {
            let gl = [p[0], p[1], -p[2]];
            assert!(want.iter().any(|w| near(w, &gl, 1e-4)), "{name}: {p:?}");
        }
        let mut p = check::level(&b.level, Some(&b.geom), Some(&b.geomx));
        p.extend(check::geom(&b.geom));
        assert_eq!(p, vec![], "{name}");
        // and the tree instances are still trees with their own matrices
        if let Some(t) = b.level.visuals().get(2).and_then(|v| v.treedef()) {
            assert_eq!(t.xform, generate::old_tree_xform(0), "{name}");
            assert!(b.level.visuals()[2]
                .chunks
                .iter()
                .any(|c| matches!(c.value, OgfChunk::TreeDef(_))));
        }
    }
}

#[test]
fn chunks_the_13_level_cannot_carry_are_named() {
    use levelgeom_xray::chunk::Framed;
    use levelgeom_xray::level::LevelChunk;
    let (lb, _) = generate::level_bytes(generate::Options {
        version: 9,
        compress: false,
    });
    let mut l = Level::read(&lb).unwrap().0;
    // XRLC 9's shader constants (chunk 7), a chunk of unknown use (40), and a visual chunk of
    // unknown use (OGF 3 id 30) in visual 0
    l.chunks
        .push(Framed::plain(7, LevelChunk::Raw(vec![1, 2, 3, 4])));
    l.chunks
        .push(Framed::plain(40, LevelChunk::Raw(vec![0; 6])));
    for c in &mut l.chunks {
        if let LevelChunk::Visuals(vs) = &mut c.value {
            vs[0]
                .value
                .chunks
                .push(Framed::plain(30, OgfChunk::Raw(vec![9, 9])));
        }
    }
    let l = Level::read(&l.to_bytes().unwrap()).unwrap().0;
    let out = convert(&l, &export(&l), 13, true).unwrap();
    let lost = out.summary.conversion.clone().unwrap().lost;
    for want in [
        "chunk 7 of `level` (LightControl, 4 bytes)",
        "chunk 40 of `level` (unknown, 6 bytes)",
        "1 visual chunks without a format-4 counterpart",
    ] {
        assert!(
            lost.iter().any(|x| x.contains(want)),
            "{want} not in {lost:?}"
        );
    }
    // and the 13 level has none of them
    let b = reread(&out);
    let ids: Vec<u32> = b.level.chunks.iter().map(|c| c.id()).collect();
    assert_eq!(ids, vec![1, 4, 6, 7, 3, 2, 8]);
    assert!(b.level.visuals()[0]
        .chunks
        .iter()
        .all(|c| !matches!(c.value, OgfChunk::Raw(_))));
}

/// An embedded collision (`fsL_CFORM`, XRLC 4–9) that cannot be read stops the conversion to
/// 13 with the read error as its typed source, naming the build and the chunk: here the
/// generator's XRLC 9 cform cut to 6 bytes (its version-2 header alone is 4 + 4 + 4 + 24).
#[test]
fn an_unreadable_embedded_collision_is_refused_with_its_read_error() {
    use levelgeom_xray::level::{LevelChunk, Part};
    let (lb, _) = generate::level_bytes(generate::Options {
        version: 9,
        compress: false,
    });
    let mut l = Level::read(&lb).unwrap().0;
    let mut cut = false;
    for c in &mut l.chunks {
        if levelgeom_xray::level::part(9, c.id()) == Some(Part::Cform) {
            if let LevelChunk::Raw(b) = &mut c.value {
                b.truncate(6);
                cut = true;
            }
        }
    }
    assert!(cut, "the generator's XRLC 9 level embeds its collision");
    let g = empty();
    let e = import::import(
        Base {
            level: &l,
            geom: &g,
            geomx: None,
            cform: None,
        },
        &export(&l),
        None,
        &ImportOptions {
            to_version: Some(13),
            allow_loss: true,
            ..ImportOptions::default()
        },
    )
    .unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(e, ImportError::EmbeddedCollision { version: 9, .. }),
        "{msg}"
    );
    let source = std::error::Error::source(&e).expect("the read error as source");
    assert!(source.is::<levelgeom_binary::ReadError>(), "{source:?}");
    assert!(
        msg.starts_with("XRLC 9: the collision inside `level` (fsL_CFORM): "),
        "{msg}"
    );
}
