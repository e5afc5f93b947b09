//! Edited tree geometry: one edited instance gets its own vertices, the others keep theirs;
//! every instance edited alike rewrites the shared vertices once.

use levelgeom_scene::Scene;
use levelgeom_xray::ogf::model_type;

use crate::import_edit::{as_files, every_level, export, run, world_corners, Files};

fn node_of(s: &Scene, v: usize) -> usize {
    let prefix = format!("visual_{v:04}_");
    s.nodes
        .iter()
        .position(|n| n.name.starts_with(&prefix) && n.mesh.is_some())
        .unwrap()
}

fn close(a: &[[f32; 3]], b: &[[f32; 3]], tol: f32) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.iter().zip(y).all(|(p, q)| (p - q).abs() <= tol))
}

fn trees(f: &Files) -> Vec<usize> {
    f.level
        .visuals()
        .iter()
        .enumerate()
        .filter(|(_, v)| {
            matches!(
                v.model_type(),
                Some(model_type::TREE_ST | model_type::TREE_PM)
            )
        })
        .map(|(i, _)| i)
        .collect()
}

/// Give node `n` its own copy of its mesh and raise its vertex 0 by `dy` (mesh space).
fn edit_vertex0(s: &mut Scene, n: usize, dy: f32) {
    let m = s.nodes[n].mesh.unwrap();
    let mut mesh = s.meshes[m].clone();
    mesh.primitives[0].positions[0][1] += dy;
    s.nodes[n].mesh = Some(s.add_mesh(mesh));
}

fn check_clean(f: &Files) {
    let mut p = levelgeom_xray::check::level(&f.level, Some(&f.geom), f.geomx.as_ref());
    p.extend(levelgeom_xray::check::geom(&f.geom));
    assert!(p.is_empty(), "{p:?}");
}

#[test]
fn an_edited_tree_instance_gets_its_own_geometry() {
    for (name, f) in every_level() {
        let ts = trees(&f);
        let t = ts[0];
        let base_s = export(&f);
        let mut s = base_s.clone();
        let n = node_of(&s, t);
        edit_vertex0(&mut s, n, 0.25);
        let want = world_corners(&s, n);
        let out = run(&f, &s);
        assert_eq!(
            out.summary.edited,
            vec![t],
            "{name}: {:?}",
            out.summary.warnings
        );
        assert!(
            out.summary.moved.is_empty() && out.summary.added.is_empty(),
            "{name}"
        );
        let nf = as_files(&out);
        check_clean(&nf);
        // its own range, appended; the base vertex bytes are a prefix of the new buffers
        let (g0, g1) = (
            f.level.visuals()[t].gcontainer().unwrap(),
            nf.level.visuals()[t].gcontainer().unwrap(),
        );
        assert_ne!(g0, g1, "{name}");
        assert_eq!(
            (g0.vb_count, g0.ib_index, g0.ib_offset, g0.ib_count),
            (g1.vb_count, g1.ib_index, g1.ib_offset, g1.ib_count),
            "{name}: same indices"
        );
        let (ob, nb) = (
            f.geom.vertex_buffers().unwrap(),
            nf.geom.vertex_buffers().unwrap(),
        );
        for (a, b) in ob.iter().zip(nb) {
            assert_eq!(a.data[..], b.data[..a.data.len()], "{name}");
        }
        assert_eq!(f.geom.index_buffers(), nf.geom.index_buffers(), "{name}");
        // the TREEDEF2 matrix is unchanged; every other visual has its bytes
        assert_eq!(
            nf.level.visuals()[t].treedef(),
            f.level.visuals()[t].treedef(),
            "{name}"
        );
        let again = export(&nf);
        for u in 0..f.level.visuals().len() {
            if u == t {
                continue;
            }
            let (a, b) = (
                world_corners(&again, node_of_any(&again, u)),
                world_corners(&base_s, node_of_any(&base_s, u)),
            );
            // (the export's pivots follow the ancestors' recomputed boxes: float rounding)
            assert!(close(&a, &b, 1e-5), "{name}: visual {u}");
            assert_eq!(
                nf.level.visuals()[u].gcontainer(),
                f.level.visuals()[u].gcontainer(),
                "{name}: visual {u}"
            );
        }
        // the edited instance comes back as edited: vertex 0 raised, in world space
        let got = world_corners(&again, node_of(&again, t));
        assert!(close(&got, &want, 1e-4), "{name}");
        assert!(!close(&got, &world_corners(&base_s, n), 1e-3), "{name}");
    }
}

fn node_of_any(s: &Scene, v: usize) -> usize {
    let prefix = format!("visual_{v:04}_");
    s.nodes
        .iter()
        .position(|n| n.name.starts_with(&prefix))
        .unwrap()
}

#[test]
fn every_instance_edited_alike_rewrites_the_shared_vertices_once() {
    let mut tried = 0;
    for (name, f) in every_level() {
        // the trees on one GCONTAINER
        let ts = trees(&f);
        let vs = f.level.visuals();
        let Some(&t) = ts.iter().find(|&&t| {
            ts.iter()
                .filter(|&&u| vs[u].gcontainer() == vs[t].gcontainer())
                .count()
                > 1
        }) else {
            continue;
        };
        tried += 1;
        let group: Vec<usize> = ts
            .iter()
            .copied()
            .filter(|&u| vs[u].gcontainer() == vs[t].gcontainer())
            .collect();
        let mut s = export(&f);
        // the same edit in each instance's own mesh space: the shared mesh edited once
        let mut wants = Vec::new();
        for &u in &group {
            let n = node_of(&s, u);
            edit_vertex0(&mut s, n, 0.25);
        }
        for &u in &group {
            wants.push(world_corners(&s, node_of(&s, u)));
        }
        let out = run(&f, &s);
        let mut edited = out.summary.edited.clone();
        edited.sort_unstable();
        assert_eq!(edited, group, "{name}: {:?}", out.summary.warnings);
        let nf = as_files(&out);
        check_clean(&nf);
        // no new vertices, the same ranges
        let (ob, nb) = (
            f.geom.vertex_buffers().unwrap(),
            nf.geom.vertex_buffers().unwrap(),
        );
        assert_eq!(ob.len(), nb.len(), "{name}");
        for (a, b) in ob.iter().zip(nb) {
            assert_eq!(a.data.len(), b.data.len(), "{name}");
        }
        for &u in &group {
            assert_eq!(nf.level.visuals()[u].gcontainer(), vs[u].gcontainer());
        }
        let again = export(&nf);
        for (k, &u) in group.iter().enumerate() {
            let got = world_corners(&again, node_of(&again, u));
            assert!(close(&got, &wants[k], 1e-4), "{name}: visual {u}");
        }
    }
    assert!(tried > 0, "no level with trees sharing geometry");
}
