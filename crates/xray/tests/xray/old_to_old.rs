//! `--to-version` from one old build to another (XRLC 4, 5, 8–12 → each other one): the
//! conversion raises the level to 13 (`import/upgrade`) and writes it in the target build
//! (`import/downgrade`). Facts compared with: the original level's own export (every world
//! triangle of the converted level's export within 1e-4 of one of the original's, and as
//! many), the generator's collision (its two faces, material 3), and the target build's
//! reader and checks.

use levelgeom_scene::Scene;
use levelgeom_xray::cform::Cform;
use levelgeom_xray::import::{self, Base, ImportOptions, Imported};
use levelgeom_xray::{files, generate, Level};

use super::import_old::{embedded, empty, export};

const OLD: [u16; 7] = [4, 5, 8, 9, 10, 11, 12];

fn convert(l: &Level, to: u16) -> Imported {
    let g = empty();
    // XRLC 4–9 keep it inside `level`; beside 10–12 the generator's level.cform (as the
    // xray_generate example writes it)
    let cf = embedded(l).or_else(|| Some(generate::old_cform(levelgeom_xray::cform::VERSION)));
    import::import(
        Base {
            level: l,
            geom: &g,
            geomx: None,
            cform: cf.as_ref(),
        },
        &export(l),
        None,
        &ImportOptions {
            to_version: Some(to),
            allow_loss: true,
            ..ImportOptions::default()
        },
    )
    .unwrap_or_else(|e| panic!("{} → {to}: {e}", l.version().unwrap()))
}

/// Every triangle's world corners in a scene.
fn world_triangles(s: &Scene) -> Vec<[[f32; 3]; 3]> {
    let w = s.world_matrices();
    let mut out = Vec::new();
    for (n, node) in s.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        for p in &s.meshes[m].primitives {
            for t in p.indices.chunks_exact(3) {
                out.push(
                    [t[0], t[1], t[2]]
                        .map(|i| levelgeom_scene::transform_point(&w[n], p.positions[i as usize])),
                );
            }
        }
    }
    out
}

fn same_triangle(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3]) -> bool {
    // the same corners in the same winding, from any start
    (0..3).any(|r| {
        (0..3).all(|k| {
            a[k].iter()
                .zip(&b[(k + r) % 3])
                .all(|(x, y)| (x - y).abs() <= 1e-4)
        })
    })
}

#[test]
fn every_old_build_converts_to_every_other_old_build() {
    for from in OLD {
        let (lb, _) = generate::level_bytes(generate::Options {
            version: from,
            compress: false,
        });
        let l = Level::read(&lb).unwrap().0;
        let want = world_triangles(&export(&l));
        assert!(!want.is_empty());
        for to in OLD.into_iter().filter(|&t| t != from) {
            let name = format!("{from} → {to}");
            let out = convert(&l, to);
            let c = out.summary.conversion.clone().unwrap();
            assert_eq!((c.from, c.to), (from, to), "{name}");
            // nothing beside `level` but the 10–12 level.cform
            assert!(out.geom.chunks.is_empty() && out.geomx.is_none(), "{name}");
            assert_eq!(out.cform.is_some(), to >= 10, "{name}");
            // read back from its bytes as the target build, checks clean
            let bytes = out.level.to_bytes().unwrap();
            let (back, warnings) = Level::read(&bytes).unwrap();
            assert!(warnings.is_empty(), "{name}: {warnings:?}");
            assert_eq!(back.version(), Some(to), "{name}");
            assert!(back.is_old(), "{name}");
            let opened = files::Opened::read(&bytes).unwrap().unwrap().0;
            assert_eq!(opened.check(), vec![], "{name}");
            // the same world triangles
            let got = world_triangles(&export(&back));
            assert_eq!(got.len(), want.len(), "{name}");
            for t in &got {
                assert!(
                    want.iter().any(|w| same_triangle(w, t)),
                    "{name}: triangle {t:?} is not in the original's export"
                );
            }
            // the generator's collision: two faces, material 3, inside `level` up to 9
            let cf: Cform = match &out.cform {
                Some(c) => Cform::read(&c.to_bytes().unwrap()).unwrap().0,
                None => embedded(&back).unwrap_or_else(|| panic!("{name}: no embedded cform")),
            };
            assert_eq!(cf.tris.len(), 2, "{name}");
            for t in &cf.tris {
                let material = match t.old {
                    Some(o) => o.material,
                    None => t.dummy & 0x3FFF,
                };
                assert_eq!(material, 3, "{name}");
            }
        }
    }
}
