//! Import of edited scenes: nothing edited gives the same bytes; a moved, removed, copied or
//! new visual comes back at the positions the edit gave it, everything else untouched.
//!
//! The edited scenes are built from the export scene ([`levelgeom_xray::to_scene`]) by
//! changing node matrices, removing nodes and adding nodes, as a user does in Blender; the
//! expected positions are the base export's plus a hand-chosen offset.

use levelgeom_scene::{Material, Mesh, Node, Primitive, Scene, IDENTITY};
use levelgeom_xray::cform::Cform;
use levelgeom_xray::import::{self, Base, ImportOptions, Imported};
use levelgeom_xray::ogf::model_type;
use levelgeom_xray::{check, generate, Geom, Level, SceneOptions};

pub struct Files {
    pub level: Level,
    pub geom: Geom,
    pub geomx: Option<Geom>,
    pub cform: Option<Cform>,
}

fn read(name: &str) -> Vec<u8> {
    let p = format!(
        "{}/tests/data/xray-v14-micro/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read(&p).unwrap_or_else(|e| panic!("{p}: {e}"))
}

pub fn fixture() -> Files {
    Files {
        level: Level::read(&read("level")).unwrap().0,
        geom: Geom::read(&read("level.geom")).unwrap().0,
        geomx: Some(Geom::read(&read("level.geomx")).unwrap().0),
        cform: Some(Cform::read(&read("level.cform")).unwrap().0),
    }
}

pub fn generated(version: u16, compress: bool) -> Files {
    let (level, geom) = generate::level(generate::Options { version, compress });
    Files {
        level,
        geom,
        geomx: None,
        cform: None,
    }
}

pub fn base(f: &Files) -> Base<'_> {
    Base {
        level: &f.level,
        geom: &f.geom,
        geomx: f.geomx.as_ref(),
        cform: f.cform.as_ref(),
    }
}

pub fn export(f: &Files) -> Scene {
    levelgeom_xray::to_scene(&f.level, &f.geom, &SceneOptions::default()).unwrap()
}

pub fn run(f: &Files, s: &Scene) -> Imported {
    import::import(base(f), s, None, &ImportOptions::default()).unwrap()
}

pub fn as_files(i: &Imported) -> Files {
    Files {
        level: i.level.clone(),
        geom: i.geom.clone(),
        geomx: i.geomx.clone(),
        cform: i.cform.clone(),
    }
}

/// The node named `visual_NNNN_…` for visual `v`.
pub fn node_of(s: &Scene, v: usize) -> usize {
    let prefix = format!("visual_{v:04}_");
    s.nodes
        .iter()
        .position(|n| n.name.starts_with(&prefix))
        .unwrap_or_else(|| panic!("no node for visual {v}"))
}

fn parent_of(s: &Scene, n: usize) -> Option<usize> {
    s.nodes.iter().position(|p| p.children.contains(&n))
}

/// World positions of every triangle corner a node places.
pub fn world_corners(s: &Scene, n: usize) -> Vec<[f32; 3]> {
    let w = s.world_matrices();
    let Some(m) = s.nodes[n].mesh else {
        return Vec::new();
    };
    s.meshes[m]
        .primitives
        .iter()
        .flat_map(|p| {
            p.indices
                .iter()
                .map(|&i| levelgeom_scene::transform_point(&w[n], p.positions[i as usize]))
        })
        .collect()
}

fn translation(t: [f32; 3]) -> [f32; 16] {
    let mut m = IDENTITY;
    m[12] = t[0];
    m[13] = t[1];
    m[14] = t[2];
    m
}

/// Move node `n` by `t` in world space (whatever its parents' matrices).
pub fn move_node(s: &mut Scene, n: usize, t: [f32; 3]) {
    let w = s.world_matrices();
    let pw = parent_of(s, n).map_or(IDENTITY, |p| w[p]);
    let inv = glam::Mat4::from_cols_array(&pw).inverse().to_cols_array();
    let local = levelgeom_scene::mul(
        &inv,
        &levelgeom_scene::mul(
            &translation(t),
            &levelgeom_scene::mul(&pw, &s.nodes[n].matrix),
        ),
    );
    s.nodes[n].matrix = local;
}

fn close(a: &[[f32; 3]], b: &[[f32; 3]], tol: f32) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.iter().zip(y).all(|(p, q)| (p - q).abs() <= tol))
}

pub fn assert_check_clean(f: &Files) {
    let mut p = check::level(&f.level, Some(&f.geom), f.geomx.as_ref());
    p.extend(check::geom(&f.geom));
    if let Some(c) = &f.cform {
        p.extend(check::cform(c));
    }
    assert!(p.is_empty(), "{p:?}");
}

fn bytes(f: &Files) -> [Vec<u8>; 4] {
    [
        f.level.to_bytes().unwrap(),
        f.geom.to_bytes().unwrap(),
        f.geomx
            .as_ref()
            .map(|g| g.to_bytes().unwrap())
            .unwrap_or_default(),
        f.cform
            .as_ref()
            .map(|c| c.to_bytes().unwrap())
            .unwrap_or_default(),
    ]
}

pub fn every_level() -> Vec<(&'static str, Files)> {
    vec![
        ("fixture", fixture()),
        ("v14", generated(14, false)),
        ("v14 compressed", generated(14, true)),
        ("v13", generated(13, false)),
    ]
}

#[test]
fn nothing_edited_gives_the_same_bytes() {
    for (name, f) in every_level() {
        let out = run(&f, &export(&f));
        assert_eq!(bytes(&as_files(&out)), bytes(&f), "{name}");
        assert!(
            out.summary.moved.is_empty() && out.summary.removed.is_empty(),
            "{name}"
        );
        assert_eq!(out.summary.kept, f.level.visuals().len(), "{name}");
    }
    // the real fixture's files themselves, not only our rebuild of them
    let f = fixture();
    let [l, g, gx, c] = bytes(&as_files(&run(&f, &export(&f))));
    assert_eq!(l, read("level"));
    assert_eq!(g, read("level.geom"));
    assert_eq!(gx, read("level.geomx"));
    assert_eq!(c, read("level.cform"));
}

#[test]
fn a_file_without_the_mapping_is_refused() {
    let f = fixture();
    let mut s = export(&f);
    for n in &mut s.nodes {
        n.name = format!("Object{}", n.name.len());
        n.extras.clear();
    }
    let e = import::import(base(&f), &s, None, &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("Custom Properties"), "{e}");
}

#[test]
fn other_builds_and_broken_nodes_are_refused() {
    let mut f = generated(14, false);
    for c in &mut f.level.chunks {
        if let levelgeom_xray::level::LevelChunk::Header(h) = &mut c.value {
            h.version = 7;
        }
    }
    let s = export(&generated(14, false));
    let e = import::import(base(&f), &s, None, &ImportOptions::default()).unwrap_err();
    assert!(e.to_string().contains("XRLC version 7"), "{e}");
    // a node whose matrix holds NaN
    let f = generated(14, false);
    let mut s = export(&f);
    let n = node_of(&s, 0);
    s.nodes[n].matrix[12] = f32::NAN;
    let e = import::import(base(&f), &s, None, &ImportOptions::default()).unwrap_err();
    assert!(
        e.to_string().contains("visual_0000_normal") && e.to_string().contains("finite"),
        "{e}"
    );
    // the same with the other nodes found unchanged beforehand (their finiteness then known)
    let mut r = import::reference(base(&f)).unwrap().unwrap();
    let read = import::meshes_to_read(&mut r, &s);
    assert!(read.iter().any(|r| !r), "{read:?}");
    let e =
        import::import_with(base(&f), &s, None, &ImportOptions::default(), Some(r)).unwrap_err();
    assert!(
        e.to_string().contains("visual_0000_normal") && e.to_string().contains("finite"),
        "{e}"
    );
}

/// Visual indices by kind in each test level: (a normal visual, a tree visual).
fn picks(name: &str) -> (usize, usize) {
    if name == "fixture" {
        (2, 4)
    } else {
        (0, 2)
    }
}

#[test]
fn a_moved_visual_comes_back_moved_and_nothing_else_changes() {
    let offset = [1.5f32, -0.25, 3.0];
    for (name, f) in every_level() {
        let (v, _) = picks(name);
        let mut s = export(&f);
        let n = node_of(&s, v);
        let before = world_corners(&s, n);
        move_node(&mut s, n, offset);
        let out = run(&f, &s);
        assert_eq!(out.summary.moved, vec![v], "{name}");
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let again = export(&nf);
        let expect: Vec<[f32; 3]> = before
            .iter()
            .map(|p| [p[0] + offset[0], p[1] + offset[1], p[2] + offset[2]])
            .collect();
        assert!(
            close(&world_corners(&again, node_of(&again, v)), &expect, 1e-4),
            "{name}"
        );
        // every other visual: the same positions, the same chunks (but the ancestors' bounds)
        let base_s = export(&f);
        let ancestors = ancestors(&f.level, v);
        for u in 0..f.level.visuals().len() {
            if u == v {
                continue;
            }
            assert_eq!(
                world_corners(&again, node_of(&again, u)),
                world_corners(&base_s, node_of(&base_s, u)),
                "{name}: visual {u}"
            );
            if !ancestors.contains(&u) {
                assert_eq!(
                    nf.level.visuals()[u],
                    f.level.visuals()[u],
                    "{name}: visual {u}"
                );
            }
        }
        // the vertex bytes outside the moved range are the base's
        let g = f.level.visuals()[v].gcontainer().unwrap();
        let (ob, nb) = (
            f.geom.vertex_buffers().unwrap(),
            nf.geom.vertex_buffers().unwrap(),
        );
        for (i, (a, b)) in ob.iter().zip(nb).enumerate() {
            if i as u32 == g.vb_index {
                let s = a.stride();
                let (lo, hi) = (
                    g.vb_offset as usize * s,
                    (g.vb_offset + g.vb_count) as usize * s,
                );
                assert_eq!(a.data[..lo], b.data[..lo], "{name}");
                assert_eq!(
                    a.data[hi..],
                    b.data[hi..lo.max(hi).max(a.data.len())],
                    "{name}"
                );
                assert_ne!(a.data[lo..hi], b.data[lo..hi], "{name}: the range moved");
            } else {
                assert_eq!(a, b, "{name}: vb {i}");
            }
        }
        assert_eq!(f.geom.index_buffers(), nf.geom.index_buffers(), "{name}");
        // the header box moved by the offset (glTF z is X-Ray −z)
        let (h0, h1) = (
            f.level.visuals()[v].header().unwrap(),
            nf.level.visuals()[v].header().unwrap(),
        );
        let d = [offset[0], offset[1], -offset[2]];
        for (k, dk) in d.iter().enumerate() {
            assert!(
                (h1.bbox_min[k] - h0.bbox_min[k] - dk).abs() < 1e-4,
                "{name}"
            );
            assert!(
                (h1.sphere_center[k] - h0.sphere_center[k] - dk).abs() < 1e-4,
                "{name}"
            );
        }
    }
}

fn ancestors(l: &Level, v: usize) -> Vec<usize> {
    let vs = l.visuals();
    let mut out = Vec::new();
    let mut cur = v;
    while let Some(p) = vs.iter().position(|x| x.children().contains(&(cur as u32))) {
        out.push(p);
        cur = p;
    }
    out
}

#[test]
fn a_moved_tree_changes_only_its_matrix() {
    let offset = [-2.0f32, 0.5, 1.0];
    for (name, f) in every_level() {
        let (_, t) = picks(name);
        let mut s = export(&f);
        let n = node_of(&s, t);
        let before = world_corners(&s, n);
        move_node(&mut s, n, offset);
        let out = run(&f, &s);
        // a LOD visual whose only tree moved moves its billboard with it
        let lod = ancestors(&f.level, t)
            .into_iter()
            .find(|&a| f.level.visuals()[a].model_type() == Some(model_type::LOD));
        let mut moved = vec![t];
        moved.extend(lod);
        assert_eq!(out.summary.moved, moved, "{name}");
        let nf = as_files(&out);
        assert_check_clean(&nf);
        assert_eq!(nf.geom, f.geom, "{name}: level.geom untouched");
        if let Some(l) = lod {
            let (q0, q1) = (
                f.level.visuals()[l].lod_quads().unwrap(),
                nf.level.visuals()[l].lod_quads().unwrap(),
            );
            for (a, b) in q0.iter().flatten().zip(q1.iter().flatten()) {
                assert!((b.pos[0] - a.pos[0] - offset[0]).abs() < 1e-4);
                assert!((b.pos[2] - a.pos[2] + offset[2]).abs() < 1e-4);
                assert_eq!((a.uv, a.rgb_hemi, a.pad), (b.uv, b.rgb_hemi, b.pad));
            }
        }
        let (a, b) = (
            f.level.visuals()[t].treedef().unwrap(),
            nf.level.visuals()[t].treedef().unwrap(),
        );
        // row-major D3D: translation in 12..14, glTF z negated
        assert_eq!(a.xform[..12], b.xform[..12], "{name}");
        assert!(
            (b.xform[12] - a.xform[12] - offset[0]).abs() < 1e-5,
            "{name}"
        );
        assert!(
            (b.xform[13] - a.xform[13] - offset[1]).abs() < 1e-5,
            "{name}"
        );
        assert!(
            (b.xform[14] - a.xform[14] + offset[2]).abs() < 1e-5,
            "{name}"
        );
        let again = export(&nf);
        let expect: Vec<[f32; 3]> = before
            .iter()
            .map(|p| [p[0] + offset[0], p[1] + offset[1], p[2] + offset[2]])
            .collect();
        assert!(
            close(&world_corners(&again, node_of(&again, t)), &expect, 1e-4),
            "{name}"
        );
    }
}

#[test]
fn a_rotated_visual_turns_its_normals() {
    let f = generated(14, false);
    let mut s = export(&f);
    let n = node_of(&s, 0);
    // a quarter turn about +x through the origin: the quad (y = 0, normals +y) stands up
    s.nodes[n].matrix = [
        1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0,
    ];
    let out = run(&f, &s);
    assert_eq!(out.summary.moved, vec![0]);
    let nf = as_files(&out);
    assert_check_clean(&nf);
    let again = export(&nf);
    let p = &again.meshes[again.nodes[node_of(&again, 0)].mesh.unwrap()].primitives[0];
    // glTF +y turns to +z: every normal is (0, 0, 1) within the packed form's step
    for nrm in &p.normals {
        assert!(
            (nrm[2] - 1.0).abs() < 0.01 && nrm[1].abs() < 0.01,
            "{nrm:?}"
        );
    }
    for q in &p.positions {
        assert!(q[1].abs() <= 1.0 + 1e-6 && q[2].abs() < 1e-6, "{q:?}");
    }
}

#[test]
fn a_mirrored_visual_keeps_its_faces_facing_out() {
    for (name, f) in every_level() {
        let (v, _) = picks(name);
        let mut s = export(&f);
        let n = node_of(&s, v);
        let m = &mut s.nodes[n].matrix;
        // x → −x after the node's own matrix
        for k in [0, 4, 8, 12] {
            m[k] = -m[k];
        }
        let out = run(&f, &s);
        assert_eq!(out.summary.moved, vec![v], "{name}");
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let again = export(&nf);
        let p = &again.meshes[again.nodes[node_of(&again, v)].mesh.unwrap()].primitives[0];
        let base_s = export(&f);
        let bp = &base_s.meshes[base_s.nodes[node_of(&base_s, v)].mesh.unwrap()].primitives[0];
        // every vertex mirrored in x
        for (a, b) in p.positions.iter().zip(&bp.positions) {
            assert!(
                (a[0] + b[0]).abs() < 1e-4 && (a[1] - b[1]).abs() < 1e-4,
                "{name}"
            );
        }
        // each triangle's winding agrees with its vertex normals as much as before
        let facing = |p: &Primitive| {
            p.indices
                .chunks_exact(3)
                .filter(|t| {
                    let [a, b, c] = [0, 1, 2].map(|k| glam::Vec3::from(p.positions[t[k] as usize]));
                    let g = (b - a).cross(c - a);
                    let n: glam::Vec3 = t
                        .iter()
                        .map(|&i| glam::Vec3::from(p.normals[i as usize]))
                        .sum();
                    g.dot(n) > 0.0
                })
                .count()
        };
        assert_eq!(facing(p), facing(bp), "{name}");
        assert!(facing(bp) > 0, "{name}");
    }
}

#[test]
fn a_deleted_visual_is_removed_and_indices_renumbered() {
    for (name, f) in every_level() {
        let v = if name == "fixture" { 3 } else { 1 };
        let mut s = export(&f);
        let n = node_of(&s, v);
        for node in &mut s.nodes {
            node.children.retain(|&c| c != n);
        }
        s.roots.retain(|&r| r != n);
        let out = run(&f, &s);
        assert_eq!(out.summary.removed, vec![v], "{name}");
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let before = f.level.visuals().len();
        assert_eq!(nf.level.visuals().len(), before - 1, "{name}");
        // every other visual is there, in order, with its children renumbered
        let old = f.level.visuals();
        let new = nf.level.visuals();
        for (u, ou) in old.iter().enumerate() {
            if u == v {
                continue;
            }
            let k = if u > v { u - 1 } else { u };
            assert_eq!(ou.model_type(), new[k].model_type(), "{name}");
            let kids: Vec<u32> = ou
                .children()
                .iter()
                .filter(|&&c| c as usize != v)
                .map(|&c| if c as usize > v { c - 1 } else { c })
                .collect();
            assert_eq!(new[k].children(), kids.as_slice(), "{name}: visual {u}");
        }
        // every visual in exactly one sector
        for (k, s) in nf.level.visual_sectors().iter().enumerate() {
            assert_eq!(s.len(), 1, "{name}: visual {k} in sectors {s:?}");
        }
        if name == "fixture" {
            // the cform loses the faces that lay on the removed visual
            let c0 = f.cform.as_ref().unwrap().tris.len();
            let c1 = nf.cform.as_ref().unwrap().tris.len();
            assert_eq!(c0 - c1, out.summary.collision.removed);
            assert!(out.summary.collision.removed > 0);
        }
    }
}

#[test]
fn a_lod_goes_with_its_last_tree() {
    let f = fixture();
    let mut s = export(&f);
    // tree 4 is the only child of LOD 5
    assert_eq!(f.level.visuals()[5].children(), &[4]);
    let n = node_of(&s, 4);
    for node in &mut s.nodes {
        node.children.retain(|&c| c != n);
    }
    let out = run(&f, &s);
    assert_eq!(out.summary.removed, vec![4, 5]);
    let nf = as_files(&out);
    assert_check_clean(&nf);
    assert_eq!(nf.level.visuals().len(), 14);
    // hierarchy 14 (now 12) lost its child 5: [0, 3, 13] → [0, 3, 11]
    assert_eq!(nf.level.visuals()[12].children(), &[0, 3, 11]);
}

#[test]
fn a_missing_visual_of_a_partial_export_is_kept() {
    // no tree in the file at all (as `--only static` would write it): trees are kept
    let f = fixture();
    let mut s = export(&f);
    let trees: Vec<usize> = (0..f.level.visuals().len())
        .filter(|&v| f.level.visuals()[v].model_type() == Some(model_type::TREE_ST))
        .map(|v| node_of(&s, v))
        .collect();
    for node in &mut s.nodes {
        node.children.retain(|c| !trees.contains(c));
    }
    let out = run(&f, &s);
    assert!(out.summary.removed.is_empty());
    assert_eq!(out.summary.kept_absent, trees.len());
    assert_eq!(bytes(&as_files(&out)), bytes(&f));
    // with delete_missing they go
    let out = import::import(
        base(&f),
        &s,
        None,
        &ImportOptions {
            delete_missing: true,
            ..ImportOptions::default()
        },
    )
    .unwrap();
    // the trees and the LOD visuals that only stood for them
    let lods = f
        .level
        .visuals()
        .iter()
        .filter(|v| v.model_type() == Some(model_type::LOD))
        .count();
    assert_eq!(out.summary.removed.len(), trees.len() + lods);
    assert_check_clean(&as_files(&out));
}

#[test]
fn a_copied_tree_is_a_new_treedef_on_the_same_geometry() {
    let offset = [4.0f32, 0.0, -4.0];
    for (name, f) in every_level() {
        let (_, t) = picks(name);
        let mut s = export(&f);
        let n = node_of(&s, t);
        let mut copy = s.nodes[n].clone();
        copy.name.push_str(".001");
        let c = s.add_node(copy);
        let p = parent_of(&s, n).unwrap();
        s.nodes[p].children.push(c);
        move_node(&mut s, c, offset);
        let before = world_corners(&s, n);
        let out = run(&f, &s);
        assert_eq!(out.summary.added.len(), 1, "{name}");
        let nv = f.level.visuals().len();
        assert_eq!(out.summary.added[0].visual, nv, "{name}");
        let nf = as_files(&out);
        assert_check_clean(&nf);
        assert_eq!(nf.geom, f.geom, "{name}: no new geometry");
        let new = &nf.level.visuals()[nv];
        assert_eq!(
            new.gcontainer(),
            f.level.visuals()[t].gcontainer(),
            "{name}"
        );
        assert_eq!(
            new.model_type(),
            f.level.visuals()[t].model_type(),
            "{name}"
        );
        let again = export(&nf);
        let expect: Vec<[f32; 3]> = before
            .iter()
            .map(|p| [p[0] + offset[0], p[1] + offset[1], p[2] + offset[2]])
            .collect();
        assert!(
            close(&world_corners(&again, node_of(&again, nv)), &expect, 1e-4),
            "{name}"
        );
        assert!(
            close(&world_corners(&again, node_of(&again, t)), &before, 0.0),
            "{name}"
        );
        for (k, s) in nf.level.visual_sectors().iter().enumerate() {
            assert_eq!(s.len(), 1, "{name}: visual {k} in sectors {s:?}");
        }
    }
}

/// The visual's FASTPATH range in `gx` has the positions and triangles of its range in `g`.
fn assert_fast_copy(g: &Geom, gx: &Geom, v: &levelgeom_xray::ogf::Visual) {
    let (a, b) = (v.gcontainer().unwrap(), v.fastpath().expect("a FASTPATH"));
    let pos = |geom: &Geom, c: &levelgeom_xray::ogf::GContainer| {
        let vb = &geom.vertex_buffers().unwrap()[c.vb_index as usize];
        let s = vb.stride();
        let raw = &vb.data[c.vb_offset as usize * s..(c.vb_offset + c.vb_count) as usize * s];
        let d = levelgeom_xray::vertex::decode(&vb.decl, raw);
        let ib = &geom.index_buffers().unwrap()[c.ib_index as usize];
        let idx = &ib[c.ib_offset as usize..(c.ib_offset + c.ib_count) as usize];
        idx.iter()
            .map(|&i| d.positions[i as usize])
            .collect::<Vec<_>>()
    };
    assert_eq!(pos(g, &a), pos(gx, &b));
}

#[test]
fn an_edited_vertex_moves_in_geom_and_geomx() {
    let f = fixture();
    let mut s = export(&f);
    let n = node_of(&s, 3);
    let m = s.nodes[n].mesh.unwrap();
    // drag vertex 0 up by 0.5: same vertex list, other positions
    s.meshes[m].primitives[0].positions[0][1] += 0.5;
    let base_s = export(&f);
    // world positions: the export places each visual at its own pivot (its box centre), which
    // moves when a vertex does
    let world = |s: &Scene, n: usize| -> Vec<[f32; 3]> {
        let w = s.world_matrices();
        s.meshes[s.nodes[n].mesh.unwrap()].primitives[0]
            .positions
            .iter()
            .map(|&p| levelgeom_scene::transform_point(&w[n], p))
            .collect()
    };
    let before = &world(&base_s, n);
    let out = run(&f, &s);
    assert_eq!(out.summary.edited, vec![3]);
    let nf = as_files(&out);
    assert_check_clean(&nf);
    let v = &nf.level.visuals()[3];
    assert_fast_copy(&nf.geom, nf.geomx.as_ref().unwrap(), v);
    let again = export(&nf);
    let after = &world(&again, node_of(&again, 3));
    assert_eq!(before.len(), after.len());
    // vertex 0 up by 0.5, every other vertex where it was (to f32 rounding of the pivots)
    let close = |a: [f32; 3], b: [f32; 3]| (0..3).all(|k| (a[k] - b[k]).abs() < 1e-5);
    assert!((after[0][1] - before[0][1] - 0.5).abs() < 1e-5);
    assert!(close(
        [after[0][0], 0.0, after[0][2]],
        [before[0][0], 0.0, before[0][2]]
    ));
    for (a, b) in before[1..].iter().zip(&after[1..]) {
        assert!(close(*a, *b), "{a:?} vs {b:?}");
    }
    // in level.geom only vertex 0's bytes changed (the others keep theirs, normals included)
    let g = f.level.visuals()[3].gcontainer().unwrap();
    assert_eq!(
        nf.level.visuals()[3].gcontainer().unwrap(),
        g,
        "edited in place"
    );
    let (a, b) = (
        &f.geom.vertex_buffers().unwrap()[g.vb_index as usize],
        &nf.geom.vertex_buffers().unwrap()[g.vb_index as usize],
    );
    let st = a.stride();
    let first = g.vb_offset as usize * st;
    assert_ne!(a.data[first..first + st], b.data[first..first + st]);
    assert_eq!(a.data[..first], b.data[..first]);
    assert_eq!(a.data[first + st..], b.data[first + st..]);
}

/// A 2 m box centred at `c` (glTF space), 8 corners, 12 triangles facing out.
pub fn cube(c: [f32; 3]) -> Primitive {
    let mut positions = Vec::new();
    for k in 0..8 {
        let s = |b: usize| if k >> b & 1 == 1 { 1.0 } else { -1.0 };
        positions.push([c[0] + s(0), c[1] + s(1), c[2] + s(2)]);
    }
    // counter-clockwise seen from outside (glTF)
    let indices = vec![
        0, 2, 3, 0, 3, 1, // -z
        4, 5, 7, 4, 7, 6, // +z
        0, 1, 5, 0, 5, 4, // -y
        2, 6, 7, 2, 7, 3, // +y
        0, 4, 6, 0, 6, 2, // -x
        1, 3, 7, 1, 7, 5, // +x
    ];
    let uv = positions.iter().map(|p| [p[0] * 0.5, p[1] * 0.5]).collect();
    Primitive {
        positions,
        indices,
        uvs: vec![uv],
        ..Primitive::default()
    }
}

pub fn add_box(s: &mut Scene, c: [f32; 3], material: &str) -> usize {
    s.materials.push(Material {
        name: material.into(),
        ..Material::default()
    });
    let mut p = cube(c);
    p.material = Some(s.materials.len() - 1);
    let m = s.add_mesh(Mesh {
        name: "Cube".into(),
        primitives: vec![p],
    });
    let n = s.add_node(Node {
        name: "Cube".into(),
        mesh: Some(m),
        ..Node::default()
    });
    s.roots.push(n);
    n
}

#[test]
fn a_new_box_becomes_a_normal_visual_at_its_corners() {
    for (name, f) in every_level() {
        let (texture, sid) = if name == "fixture" {
            ("ston/ston_beton04", 2u16)
        } else {
            ("ston/ston_01", 1u16)
        };
        let mut s = export(&f);
        let c = [2.0f32, 1.0, -3.0];
        add_box(&mut s, c, texture);
        let out = run(&f, &s);
        let nv = f.level.visuals().len();
        assert_eq!(out.summary.added.len(), 1, "{name}");
        assert_eq!(out.summary.added[0].from, "new mesh", "{name}");
        assert!(
            out.summary.shaders_added.is_empty(),
            "{name}: {:?}",
            out.summary.shaders_added
        );
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let new = &nf.level.visuals()[nv];
        assert_eq!(new.model_type(), Some(model_type::NORMAL));
        assert_eq!(new.header().unwrap().shader_id, sid, "{name}");
        // its vertices are in a buffer of the declaration the same shader's visuals use
        let same = f
            .level
            .visuals()
            .iter()
            .find(|v| v.header().unwrap().shader_id == sid && v.gcontainer().is_some())
            .unwrap()
            .gcontainer()
            .unwrap();
        let vbs = nf.geom.vertex_buffers().unwrap();
        assert_eq!(
            vbs[new.gcontainer().unwrap().vb_index as usize].decl,
            vbs[same.vb_index as usize].decl
        );
        // the existing vertex bytes are a prefix of the new buffers
        for (a, b) in f.geom.vertex_buffers().unwrap().iter().zip(vbs) {
            assert_eq!(a.data[..], b.data[..a.data.len()], "{name}");
        }
        let again = export(&nf);
        let mut corners = world_corners(&again, node_of(&again, nv));
        corners.sort_by(|a, b| a.partial_cmp(b).unwrap());
        corners.dedup();
        let mut expect: Vec<[f32; 3]> = cube(c).positions;
        expect.sort_by(|a, b| a.partial_cmp(b).unwrap());
        assert!(close(&corners, &expect, 1e-6), "{name}: {corners:?}");
        // the box stands in one sector, under a hierarchy visual
        let secs = nf.level.visual_sectors();
        assert_eq!(secs[nv].len(), 1, "{name}");
        // in a level with level.geomx, its FASTPATH copy there holds the same positions
        if let Some(gx) = &nf.geomx {
            assert_fast_copy(&nf.geom, gx, new);
        }
        // the header box is the cube's (X-Ray z = −glTF z)
        let h = new.header().unwrap();
        assert_eq!(h.bbox_min, [1.0, 0.0, 2.0]);
        assert_eq!(h.bbox_max, [3.0, 2.0, 4.0]);
    }
}

#[test]
fn a_new_texture_adds_a_default_shader_entry() {
    for (name, f) in [
        ("fixture", fixture()),
        ("v14 compressed", generated(14, true)),
    ] {
        let mut s = export(&f);
        add_box(&mut s, [0.0, 5.0, 0.0], "my_new_wall.png");
        let out = run(&f, &s);
        assert_eq!(
            out.summary.shaders_added,
            vec!["default/my_new_wall".to_string()],
            "{name}"
        );
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let shaders = nf.level.shaders().unwrap();
        assert_eq!(shaders.len(), f.level.shaders().unwrap().len() + 1);
        let h = nf.level.visuals()[f.level.visuals().len()]
            .header()
            .unwrap();
        assert_eq!(usize::from(h.shader_id), shaders.len() - 1);
        assert!(!out.summary.defaulted.is_empty());
        // written and read back: a compressed shader chunk stays compressed, re-encoded
        let bytes = nf.level.to_bytes().unwrap();
        let back = Level::read(&bytes).unwrap().0;
        assert_eq!(back.shaders(), nf.level.shaders(), "{name}");
        let flag = |l: &Level| {
            l.chunks
                .iter()
                .find(|c| c.id() == levelgeom_xray::level::SHADERS)
                .map(|c| c.raw_id)
        };
        assert_eq!(flag(&back), flag(&f.level), "{name}");
    }
}

#[test]
fn a_new_mesh_past_65535_vertices_is_split_into_visuals() {
    let f = generated(14, false);
    let mut s = export(&f);
    // a 260 × 260 grid of vertices: 67,600 vertices, 2 × 259² triangles
    let k = 260u32;
    let mut p = Primitive::default();
    for z in 0..k {
        for x in 0..k {
            p.positions.push([x as f32 * 0.1, 5.0, -(z as f32) * 0.1]);
        }
    }
    for z in 0..k - 1 {
        for x in 0..k - 1 {
            let a = z * k + x;
            p.indices.extend([a, a + 1, a + k + 1, a, a + k + 1, a + k]);
        }
    }
    let tris = p.indices.len() / 3;
    let m = s.add_mesh(Mesh {
        name: "grid".into(),
        primitives: vec![p],
    });
    let n = s.add_node(Node {
        name: "grid".into(),
        mesh: Some(m),
        ..Node::default()
    });
    s.roots.push(n);
    let out = run(&f, &s);
    assert_eq!(out.summary.added.len(), 2, "{:?}", out.summary.added);
    let nf = as_files(&out);
    assert_check_clean(&nf);
    assert!(nf
        .geom
        .vertex_buffers()
        .unwrap()
        .iter()
        .all(|b| b.count <= 65_535));
    let nv = f.level.visuals().len();
    let drawn: u32 = nf.level.visuals()[nv..]
        .iter()
        .map(|v| v.gcontainer().unwrap().ib_count / 3)
        .sum();
    assert_eq!(drawn as usize, tris);
}

#[test]
fn progressive_visuals_move_copy_and_become_normal_when_reshaped() {
    for version in [13, 14] {
        let f = generated(version, false);
        let v = 1; // MT_PROGRESSIVE with inline windows
        assert_eq!(
            f.level.visuals()[v].model_type(),
            Some(model_type::PROGRESSIVE)
        );
        // moved and copied: both keep the windows, the copy shares the index range
        let mut s = export(&f);
        let n = node_of(&s, v);
        let before = world_corners(&s, n);
        let mut copy = s.nodes[n].clone();
        copy.name.push_str(".001");
        let c = s.add_node(copy);
        let p = parent_of(&s, n).unwrap();
        s.nodes[p].children.push(c);
        move_node(&mut s, n, [0.0, 2.0, 0.0]);
        move_node(&mut s, c, [0.0, 0.0, 7.0]);
        let out = run(&f, &s);
        assert_eq!(out.summary.moved, vec![v]);
        assert_eq!(out.summary.added.len(), 1);
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let nv = f.level.visuals().len();
        let (orig, dup) = (&nf.level.visuals()[v], &nf.level.visuals()[nv]);
        assert_eq!(orig.swidata(), f.level.visuals()[v].swidata());
        assert_eq!(dup.swidata(), f.level.visuals()[v].swidata());
        let g0 = f.level.visuals()[v].gcontainer().unwrap();
        let gd = dup.gcontainer().unwrap();
        assert_eq!(
            (gd.ib_index, gd.ib_offset, gd.ib_count),
            (g0.ib_index, g0.ib_offset, g0.ib_count)
        );
        assert_ne!(gd.vb_offset, g0.vb_offset);
        let again = export(&nf);
        let up: Vec<[f32; 3]> = before.iter().map(|p| [p[0], p[1] + 2.0, p[2]]).collect();
        let far: Vec<[f32; 3]> = before.iter().map(|p| [p[0], p[1], p[2] + 7.0]).collect();
        assert!(close(&world_corners(&again, node_of(&again, v)), &up, 1e-4));
        assert!(close(
            &world_corners(&again, node_of(&again, nv)),
            &far,
            1e-4
        ));
        // reshaped to one triangle: a normal visual without windows, with a warning
        let mut s = export(&f);
        let n = node_of(&s, v);
        let m = s.nodes[n].mesh.unwrap();
        s.meshes[m].primitives[0].indices.truncate(3);
        let out = run(&f, &s);
        assert_eq!(out.summary.edited, vec![v]);
        assert!(out
            .summary
            .warnings
            .iter()
            .any(|w| w.contains("progressive")));
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let x = &nf.level.visuals()[v];
        assert_eq!(x.model_type(), Some(model_type::NORMAL));
        assert!(x.swidata().is_none());
        assert_eq!(x.gcontainer().unwrap().ib_count, 3);
    }
}

/// `scene` with every mesh that `read` leaves out stripped to its positions and triangles, as
/// a deferred GLB read leaves it.
fn stripped(scene: &Scene, read: &[bool]) -> Scene {
    let mut s = scene.clone();
    for (m, mesh) in s.meshes.iter_mut().enumerate() {
        if !read[m] {
            for p in &mut mesh.primitives {
                *p = Primitive {
                    positions: std::mem::take(&mut p.positions),
                    indices: std::mem::take(&mut p.indices),
                    material: p.material,
                    ..Primitive::default()
                };
            }
        }
    }
    s
}

#[test]
fn an_import_reads_only_the_positions_of_the_meshes_found_unchanged() {
    let f = fixture();
    let b = base(&f);
    let scene = export(&f);
    let mut r = import::reference(b).unwrap().expect("an XRLC 14 reference");
    let read = import::meshes_to_read(&mut r, &scene);
    assert_eq!(read.len(), scene.meshes.len());
    assert!(read.iter().all(|r| !r), "{read:?}");
    // the unedited export stripped of everything but positions and triangles: the same bytes
    let out = import::import_with(
        b,
        &stripped(&scene, &read),
        None,
        &ImportOptions::default(),
        Some(r),
    )
    .unwrap();
    assert_eq!(out.level.to_bytes().unwrap(), f.level.to_bytes().unwrap());
    assert_eq!(out.geom.to_bytes().unwrap(), f.geom.to_bytes().unwrap());

    // one vertex of a mesh placed by one node dragged by 0.5 m: that mesh is read, no other
    let mut edited = scene.clone();
    let (n, m) = edited
        .nodes
        .iter()
        .enumerate()
        .filter_map(|(i, node)| node.mesh.map(|m| (i, m)))
        .find(|&(_, m)| edited.nodes.iter().filter(|x| x.mesh == Some(m)).count() == 1)
        .expect("a mesh of one node");
    edited.meshes[m].primitives[0].positions[0][1] += 0.5;
    let mut r = import::reference(b).unwrap().unwrap();
    let read = import::meshes_to_read(&mut r, &edited);
    let expect: Vec<bool> = (0..edited.meshes.len()).map(|k| k == m).collect();
    assert_eq!(read, expect, "node {n}");
    // imported stripped as the reader would leave it, it gives the bytes of the whole scene
    let lean = import::import_with(
        b,
        &stripped(&edited, &read),
        None,
        &ImportOptions::default(),
        Some(r),
    )
    .unwrap();
    let whole = import::import(b, &edited, None, &ImportOptions::default()).unwrap();
    assert_eq!(whole.summary.edited.len() + whole.summary.moved.len(), 1);
    assert_eq!(
        lean.level.to_bytes().unwrap(),
        whole.level.to_bytes().unwrap()
    );
    assert_eq!(
        lean.geom.to_bytes().unwrap(),
        whole.geom.to_bytes().unwrap()
    );
    assert_eq!(
        lean.geomx.map(|g| g.to_bytes().unwrap()),
        whole.geomx.map(|g| g.to_bytes().unwrap())
    );
    assert_eq!(
        lean.cform.map(|c| c.to_bytes().unwrap()),
        whole.cform.map(|c| c.to_bytes().unwrap())
    );
}
