//! Issue 22's "Done when", over every era variant the generator writes (each an XRLC layout as
//! the engine history writes it, `generate::old_level_with` / `generate::old_level_era`, and
//! the 13/14 levels): `info` names the version (and the header's name in 4–10); the level
//! rebuilds byte for byte; the export has every triangle the level draws at its place; the
//! collision export has the collision's triangles; an edit imports back into the same layout;
//! the level converts to 13 and 14.
//!
//! The facts are the generator's documented constants, written out here by hand in glTF's
//! frame (X-Ray's z mirrored): the lightmapped quad `OLD_QUAD` = x, z ∈ {−1, 1} at y = 0, the
//! vertex-lit quad x ∈ {3, 5}, the tree apexes (0, 2, 0) placed at `TREE_OFFSETS` (10, 2, −5)
//! and, for the quarter-turned instance, (−4, 3, 6); the two collision triangles of
//! `old_cform` on the lightmapped quad.

use levelgeom_scene::Scene;
use levelgeom_xray::cform::{self, Cform};
use levelgeom_xray::generate::{self, Era, OldVisuals, Options, OLD_LEVEL_NAME};
use levelgeom_xray::import::{self, Base, ImportOptions};
use levelgeom_xray::info::Info;
use levelgeom_xray::{check, files, flat, level, Geom, Level, SceneOptions};

use super::import_edit::{move_node, node_of};
use super::old::world_triangles;

/// One era variant: its name (as `xray_generate` names its folder), the level and its
/// `level.geom` (13/14), and how many triangles its visuals draw beyond the base level's.
struct Variant {
    name: &'static str,
    level: Level,
    geom: Geom,
    extra: usize,
}

fn plain(v: u16) -> Level {
    generate::old_level(Options {
        version: v,
        compress: false,
    })
}

fn variants() -> Vec<Variant> {
    let old = |name, level: Level, extra| Variant {
        name,
        level,
        geom: Geom { chunks: Vec::new() },
        extra,
    };
    let with = |v, layout| {
        generate::old_level_with(
            Options {
                version: v,
                compress: false,
            },
            layout,
        )
    };
    let new = |name, v| {
        let (level, geom) = generate::level(Options {
            version: v,
            compress: false,
        });
        Variant {
            name,
            level,
            geom,
            extra: 0,
        }
    };
    vec![
        old("v4", plain(4), 0),
        old("v5", plain(5), 0),
        // the full detail level of the strips visual (2 triangles, `strips_and_patches`) and
        // the detail patch's 2 sprites as quads (4 triangles)
        old("v5-strips", with(5, OldVisuals::StripsAndPatches), 6),
        old("v8", plain(8), 0),
        old("v8-late", generate::old_level_era(Era::Xrlc8Late), 0),
        old(
            "v8-0930",
            generate::old_level_era(Era::Xrlc8LightControl),
            0,
        ),
        old("v9", plain(9), 0),
        old("v10", plain(10), 0),
        old("v11", plain(11), 0),
        old("v11-early", generate::old_level_era(Era::Xrlc11Early), 0),
        old("v11-tmp", generate::old_level_era(Era::Xrlc11Tmp), 0),
        old("v11-tmpsun", generate::old_level_era(Era::Xrlc11TmpSun), 0),
        old("v12", plain(12), 0),
        old("v12-ogf4", with(12, OldVisuals::Ogf4), 0),
        old(
            "v12-earlyglows",
            generate::old_level_era(Era::Xrlc12EarlyGlows),
            0,
        ),
        new("v13", 13),
        new("v14", 14),
    ]
}

fn near(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() < 1e-4)
}

/// True when `tris` has a triangle with these corners (in any order: the positions are the
/// fact here; the winding is checked by the per-version tests).
fn has(tris: &[[([f32; 3], [f32; 2]); 3]], want: [[f32; 3]; 3]) -> bool {
    tris.iter()
        .any(|t| want.iter().all(|w| t.iter().any(|c| near(c.0, *w))))
}

fn shift(t: [[f32; 3]; 3], d: [f32; 3]) -> [[f32; 3]; 3] {
    t.map(|p| [p[0] + d[0], p[1] + d[1], p[2] + d[2]])
}

/// X-Ray triangle (0, 3, 2) of the lightmapped quad, `(−1,0,−1), (−1,0,1), (1,0,1)`, in glTF's
/// frame (z mirrored, winding reversed): `(−1,0,1), (1,0,−1), (−1,0,−1)`.
const QUAD_TRI: [[f32; 3]; 3] = [[-1.0, 0.0, 1.0], [1.0, 0.0, -1.0], [-1.0, 0.0, -1.0]];

fn triangles_in(s: &Scene, hidden: bool) -> Vec<[([f32; 3], [f32; 2]); 3]> {
    let mut s = s.clone();
    // keep the meshes of the hidden (collision) tree or of the visible one
    let mut under_hidden = vec![false; s.nodes.len()];
    for (i, n) in s.nodes.iter().enumerate() {
        if n.hidden {
            let mut stack = vec![i];
            while let Some(k) = stack.pop() {
                under_hidden[k] = true;
                stack.extend(&s.nodes[k].children);
            }
        }
    }
    for (i, n) in s.nodes.iter_mut().enumerate() {
        if under_hidden[i] != hidden {
            n.mesh = None;
        }
    }
    world_triangles(&s)
}

/// The collision beside the level for 10–14 (`xray_generate` writes it there): the
/// generator's two triangles.
fn cform_file() -> Vec<u8> {
    generate::old_cform(cform::VERSION).to_bytes().unwrap()
}

#[test]
fn every_era_variant_meets_the_issues_done_when() {
    let dir = std::env::temp_dir().join(format!("levelgeom-eras-{}", std::process::id()));
    for x in variants() {
        let name = x.name;
        let v = x.level.version().unwrap();
        let bytes = x.level.to_bytes().unwrap();
        let geom_bytes = if x.geom.chunks.is_empty() {
            None
        } else {
            Some(x.geom.to_bytes().unwrap())
        };
        // --- info names the version and, in 4–10, the header's name
        let info = Info::read("level", &bytes).unwrap().to_string();
        assert!(
            info.contains(&format!("XRLC version {v}")),
            "{name}: {info}"
        );
        if v <= 10 {
            assert!(
                info.contains(&format!("name {OLD_LEVEL_NAME:?}")),
                "{name}: {info}"
            );
        }
        // --- rebuild: byte-identical
        let (l, _) = Level::read(&bytes).unwrap();
        assert_eq!(l.to_bytes().unwrap(), bytes, "{name}: rebuild");
        let g = match &geom_bytes {
            Some(b) => {
                let g = Geom::read(b).unwrap().0;
                assert_eq!(&g.to_bytes().unwrap(), b, "{name}: geom rebuild");
                g
            }
            None => Geom { chunks: Vec::new() },
        };
        // --- the files as xray_generate writes them: level (+ level.geom), and level.cform
        // beside the levels that no longer embed it
        let d = dir.join(name);
        std::fs::create_dir_all(&d).unwrap();
        std::fs::write(d.join("level"), &bytes).unwrap();
        if let Some(b) = &geom_bytes {
            std::fs::write(d.join("level.geom"), b).unwrap();
        }
        if v >= 10 {
            std::fs::write(d.join("level.cform"), cform_file()).unwrap();
        }
        let f = files::LevelFiles::open(&d).unwrap();
        assert_eq!(f.check().problems, vec![], "{name}");
        // --- export: every triangle the level draws, at its place
        let s = f.to_scene(&SceneOptions::default()).unwrap();
        let tris = world_triangles(&s);
        let want = match v {
            // 13/14 (`generate::level`): quad 2, progressive grid 8, two trees 4 each
            13 | 14 => 18,
            // the two quads, and from 9 two tree instances of 4 triangles
            _ => 4 + if v >= 9 { 8 } else { 0 } + x.extra,
        };
        assert_eq!(tris.len(), want, "{name}: triangles");
        assert!(has(&tris, QUAD_TRI), "{name}: lightmapped quad");
        if v <= 12 {
            assert!(
                has(&tris, [[3.0, 0.0, 1.0], [5.0, 0.0, -1.0], [3.0, 0.0, -1.0]]),
                "{name}: vertex-lit quad"
            );
        }
        if (9..=12).contains(&v) {
            for apex in [[10.0, 2.0, -5.0], [-4.0, 3.0, 6.0]] {
                assert!(
                    tris.iter().any(|t| t.iter().any(|c| near(c.0, apex))),
                    "{name}: tree apex {apex:?}"
                );
            }
        }
        if name == "v5-strips" {
            // the strips' full detail on `OLD_QUAD_STRIPS` (x 6..8): the quad pattern moved by
            // 7 along x (the patches' sprites are checked corner by corner in old_ogf.rs)
            assert!(
                has(&tris, shift(QUAD_TRI, [7.0, 0.0, 0.0])),
                "{name}: strips"
            );
        }
        // --- the collision: embedded in 4–9 (packed), beside the level from 10
        if v <= 9 {
            let c = level::embedded_cform(&bytes, levelgeom_binary::Limits::DEFAULT)
                .unwrap()
                .unwrap_or_else(|| panic!("{name}: no embedded cform"));
            assert_eq!(c.tris.len(), 2, "{name}");
        }
        let cs = f
            .to_scene(&SceneOptions {
                collision: true,
                ..SceneOptions::default()
            })
            .unwrap();
        let ct = triangles_in(&cs, true);
        assert_eq!(ct.len(), 2, "{name}: collision triangles");
        assert!(has(&ct, QUAD_TRI), "{name}: collision on the quad");
        // --- import of an edit: visual 0 moved comes back at its new place, same build
        let cf: Option<Cform> = f.cform.as_ref().map(|c| c.cform.clone());
        let base = Base {
            level: &l,
            geom: &g,
            geomx: None,
            cform: cf.as_ref(),
        };
        let mut edited = levelgeom_xray::to_scene(&l, &g, &SceneOptions::default()).unwrap();
        let d0 = [1.5f32, -0.25, 3.0];
        let n0 = node_of(&edited, 0);
        move_node(&mut edited, n0, d0);
        let out = import::import(base, &edited, None, &ImportOptions::default())
            .unwrap_or_else(|e| panic!("{name}: import: {e}"));
        assert_eq!(out.summary.moved, vec![0], "{name}");
        let nb = out.level.to_bytes().unwrap();
        let nl = Level::read(&nb).unwrap().0;
        assert_eq!(nl.version(), Some(v), "{name}: the same build");
        assert_eq!(nl.ids(), l.ids(), "{name}: the same chunk ids");
        let ng = if out.geom.chunks.is_empty() {
            Geom { chunks: Vec::new() }
        } else {
            Geom::read(&out.geom.to_bytes().unwrap()).unwrap().0
        };
        let re = levelgeom_xray::to_scene(&nl, &ng, &SceneOptions::default()).unwrap();
        let rt = world_triangles(&re);
        assert_eq!(rt.len(), want, "{name}: edited triangles");
        assert!(has(&rt, shift(QUAD_TRI, d0)), "{name}: moved quad");
        // --- convert to 13 and 14: read back, rules clean, the same triangles
        for to in [13u16, 14] {
            let out = import::import(
                base,
                &levelgeom_xray::to_scene(&l, &g, &SceneOptions::default()).unwrap(),
                None,
                &ImportOptions {
                    to_version: Some(to),
                    allow_loss: true,
                    ..ImportOptions::default()
                },
            )
            .unwrap_or_else(|e| panic!("{name} → {to}: {e}"));
            let cl = Level::read(&out.level.to_bytes().unwrap()).unwrap().0;
            let cg = Geom::read(&out.geom.to_bytes().unwrap()).unwrap().0;
            assert_eq!(cl.version(), Some(to), "{name} → {to}");
            assert_eq!(check::level(&cl, Some(&cg), None), vec![], "{name} → {to}");
            let ct = world_triangles(
                &levelgeom_xray::to_scene(&cl, &cg, &SceneOptions::default()).unwrap(),
            );
            assert_eq!(ct.len(), want, "{name} → {to}: triangles");
            assert!(has(&ct, QUAD_TRI), "{name} → {to}: quad");
        }
        // the flattened view of an old level passes the rules too
        if v <= 12 {
            let fl = flat::flatten(&l).unwrap();
            assert_eq!(
                check::level(&fl.level, Some(&fl.geom), None),
                vec![],
                "{name}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
