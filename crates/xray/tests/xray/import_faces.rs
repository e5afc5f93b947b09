//! Collision for the visuals an import adds: a copy gets its original's cform triangles moved
//! to it, a new mesh gets its own triangles with a game material from its extras or from the
//! nearest collision triangle (checked against the real fixture's `level.cform`).

use levelgeom_scene::{Node, Scene};
use levelgeom_xray::cform::Cform;
use levelgeom_xray::check;
use levelgeom_xray::import::{self, Base, ImportOptions};

use crate::import_edit::{add_box, cube, export, fixture, move_node, run, world_corners};

fn corners(c: &Cform, k: usize) -> [[f32; 3]; 3] {
    c.tris[k].verts.map(|v| c.vertices[v as usize])
}

fn assert_cform_clean(c: &Cform) {
    let p = check::cform(c);
    assert!(p.is_empty(), "{p:?}");
}

/// Copy node `n` as `NAME.001` under the same parent, moved by `offset` (glTF space).
fn copy_node(s: &mut Scene, n: usize, offset: [f32; 3]) -> usize {
    let mut copy = s.nodes[n].clone();
    copy.name.push_str(".001");
    let c = s.add_node(copy);
    match s.nodes.iter().position(|p| p.children.contains(&n)) {
        Some(p) => s.nodes[p].children.push(c),
        None => s.roots.push(c),
    }
    move_node(s, c, offset);
    c
}

#[test]
fn a_copied_visual_gets_its_originals_collision_moved() {
    let f = fixture();
    let base_cf = f.cform.as_ref().unwrap();
    let offset = [3.0f32, 0.5, -2.0];
    // X-Ray space: z negated
    let dx = [offset[0], offset[1], -offset[2]];
    let mut tried = 0;
    for v in 0..f.level.visuals().len() {
        let s0 = export(&f);
        let Some(n) = s0
            .nodes
            .iter()
            .position(|x| x.name.starts_with(&format!("visual_{v:04}_")) && x.mesh.is_some())
        else {
            continue;
        };
        // the triangles the original has: those that move when it moves
        let mut moved = s0.clone();
        move_node(&mut moved, n, offset);
        let moved_out = run(&f, &moved);
        let k = moved_out.summary.collision.moved;
        if k == 0 || !moved_out.summary.moved.contains(&v) {
            continue;
        }
        let mut s = s0.clone();
        copy_node(&mut s, n, offset);
        let out = run(&f, &s);
        if out
            .summary
            .warnings
            .iter()
            .any(|w| w.contains("no hierarchy visual above it"))
        {
            continue; // a sector root: no place for a copy
        }
        eprintln!("visual {v}: {k} collision triangles");
        tried += 1;
        assert_eq!(
            out.summary.added.len(),
            1,
            "visual {v}: {:?}",
            out.summary.warnings
        );
        let c = out.cform.as_ref().unwrap();
        assert_cform_clean(c);
        assert_eq!(out.summary.collision.added, k, "visual {v}");
        assert_eq!(c.tris.len(), base_cf.tris.len() + k, "visual {v}");
        assert_eq!(out.summary.collision.mode, "followed");
        let fa = &out.summary.collision.added_faces;
        assert_eq!(fa.len(), 1);
        assert_eq!(fa[0].visual, out.summary.added[0].visual);
        assert_eq!(fa[0].source, format!("copy of visual {v}"));
        // the base triangles keep their bytes, in order
        assert_eq!(c.tris[..base_cf.tris.len()], base_cf.tris[..], "visual {v}");
        // every added triangle is a base triangle moved by the offset, same material word;
        // and the moved level's triangles are the same set
        let mc = moved_out.cform.as_ref().unwrap();
        let moved_set: Vec<([[f32; 3]; 3], u32)> = (0..mc.tris.len())
            .filter(|&t| corners(mc, t) != corners(base_cf, t))
            .map(|t| (corners(mc, t), mc.tris[t].dummy))
            .collect();
        assert_eq!(moved_set.len(), k);
        for t in base_cf.tris.len()..c.tris.len() {
            let got = corners(c, t);
            let found = (0..base_cf.tris.len()).any(|b| {
                let o = corners(base_cf, b);
                c.tris[t].dummy & 0xFFFF == base_cf.tris[b].dummy & 0xFFFF
                    && (0..3).all(|i| (0..3).all(|a| (o[i][a] + dx[a] - got[i][a]).abs() < 1e-4))
            });
            assert!(found, "visual {v}: added triangle {t} {got:?}");
            assert!(
                moved_set.iter().any(
                    |(m, _)| (0..3).all(|i| (0..3).all(|a| (m[i][a] - got[i][a]).abs() < 1e-4))
                ),
                "visual {v}: triangle {t} is not where moving the original puts it"
            );
        }
        // and the header box holds them
        for p in &c.vertices {
            for ((x, lo), hi) in p.iter().zip(c.bbox_min).zip(c.bbox_max) {
                assert!(*x >= lo && *x <= hi);
            }
        }
    }
    assert!(tried > 0, "no fixture visual with collision triangles");
}

pub fn sorted_tris(mut t: Vec<[[f32; 3]; 3]>) -> Vec<[[f32; 3]; 3]> {
    for x in &mut t {
        // rotate so the smallest corner is first (winding kept)
        let k = (0..3)
            .min_by(|&a, &b| x[a].partial_cmp(&x[b]).unwrap())
            .unwrap();
        x.rotate_left(k);
    }
    t.sort_by(|a, b| a.partial_cmp(b).unwrap());
    t
}

/// The cube's 12 triangles in X-Ray space and winding (z negated, so the winding reverses).
fn cube_tris_xray(c: [f32; 3]) -> Vec<[[f32; 3]; 3]> {
    let p = cube(c);
    let x = |i: u32| {
        let q = p.positions[i as usize];
        [q[0], q[1], -q[2]]
    };
    p.indices
        .chunks_exact(3)
        .map(|t| [x(t[0]), x(t[2]), x(t[1])])
        .collect()
}

#[test]
fn a_new_box_with_a_game_material_extra_gets_its_own_collision() {
    let f = fixture();
    let base_cf = f.cform.as_ref().unwrap();
    let mut s = export(&f);
    let c = [2.0f32, 1.0, -3.0];
    let n = add_box(&mut s, c, "ston/ston_beton04");
    s.nodes[n].extras.push(("game_material".into(), "7".into()));
    s.nodes[n]
        .extras
        .push(("suppress_wallmarks".into(), "true".into()));
    let out = run(&f, &s);
    let cf = out.cform.as_ref().unwrap();
    assert_cform_clean(cf);
    let nb = base_cf.tris.len();
    assert_eq!(cf.tris.len(), nb + 12);
    assert_eq!(out.summary.collision.added, 12);
    assert_eq!(cf.tris[..nb], base_cf.tris[..]);
    let sector = out.level.visual_sectors()[out.summary.added[0].visual][0];
    for t in &cf.tris[nb..] {
        assert_eq!(t.material(), 7);
        assert!(t.suppress_wallmarks() && !t.suppress_shadows());
        assert_eq!(t.sector(), sector);
    }
    let got = sorted_tris((nb..cf.tris.len()).map(|k| corners(cf, k)).collect());
    assert_eq!(got, sorted_tris(cube_tris_xray(c)));
    // 8 corners welded
    assert_eq!(cf.vertices.len(), base_cf.vertices.len() + 8);
    let fa = &out.summary.collision.added_faces[0];
    assert_eq!((fa.faces, fa.material), (12, 7));
    assert_eq!(fa.source, "extra game_material");
    // the JSON summary lists them
    let j = serde_json::to_value(&out.summary).unwrap();
    assert_eq!(j["collision"]["added"], 12);
    assert_eq!(j["collision"]["added_faces"][0]["material"], 7);
    assert_eq!(j["collision"]["added_faces"][0]["faces"], 12);
    // our collision export of the new level: a node mat7_sec{sector} with the box's
    // triangles at the cube's glTF corners
    let mut sc = Scene::default();
    levelgeom_xray::collision::add_collision(&mut sc, cf);
    let node = sc
        .nodes
        .iter()
        .position(|x: &Node| x.name == format!("mat7_sec{sector}"))
        .unwrap();
    let mut got: Vec<[f32; 3]> = world_corners(&sc, node);
    got.sort_by(|a, b| a.partial_cmp(b).unwrap());
    got.dedup();
    let mut expect = cube(c).positions;
    expect.sort_by(|a, b| a.partial_cmp(b).unwrap());
    assert_eq!(got, expect);
    // a bad value is refused
    let mut bad = export(&f);
    let n = add_box(&mut bad, c, "ston/ston_beton04");
    bad.nodes[n]
        .extras
        .push(("game_material".into(), "20000".into()));
    let base = Base {
        level: &f.level,
        geom: &f.geom,
        geomx: f.geomx.as_ref(),
        cform: f.cform.as_ref(),
    };
    let e = import::import(base, &bad, None, &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("game_material"), "{e}");
}

#[test]
fn a_new_box_without_extras_takes_the_nearest_triangles_material() {
    let f = fixture();
    let base_cf = f.cform.as_ref().unwrap();
    // centre the box on the centroid of a triangle: that one is nearest (distance 0)
    for j in [0usize, base_cf.tris.len() / 2, base_cf.tris.len() - 1] {
        let o = corners(base_cf, j);
        let cx: [f32; 3] = [0, 1, 2].map(|a| (o[0][a] + o[1][a] + o[2][a]) / 3.0);
        let c = [cx[0], cx[1], -cx[2]]; // glTF
        let mut s = export(&f);
        add_box(&mut s, c, "ston/ston_beton04");
        let out = run(&f, &s);
        let cf = out.cform.as_ref().unwrap();
        assert_cform_clean(cf);
        let fa = &out.summary.collision.added_faces;
        assert_eq!(fa.len(), 1);
        assert_eq!(fa[0].source, format!("nearest face {j}"));
        assert_eq!(fa[0].material, base_cf.tris[j].material());
        let nb = base_cf.tris.len();
        assert_eq!(cf.tris.len(), nb + 12);
        for t in &cf.tris[nb..] {
            assert_eq!(t.material(), base_cf.tris[j].material());
            assert!(!t.suppress_wallmarks() && !t.suppress_shadows());
        }
        assert!(out.summary.to_string().contains("nearest face"));
    }
}
