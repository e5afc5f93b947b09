//! Reshaped visuals, copies of groups, trees with other triangles, edited LOD billboards:
//! the parts of an edit that change more than a visual's place.
//!
//! Expected values come from the edit the test makes (the base export's positions plus a
//! hand-chosen offset) and from the base files themselves (which collision triangles move
//! when a visual moves: those are the visual's own), never from the import's own output.

use levelgeom_scene::Scene;
use levelgeom_xray::cform::Cform;
use levelgeom_xray::check;
use levelgeom_xray::ogf::model_type;

use crate::import_edit::{
    as_files, assert_check_clean, export, fixture, move_node, run, world_corners, Files,
};
use crate::import_faces::sorted_tris;

fn corners(c: &Cform, k: usize) -> [[f32; 3]; 3] {
    c.tris[k].verts.map(|v| c.vertices[v as usize])
}

/// The triangles node `n` draws, in X-Ray space and winding (z negated, winding reversed).
fn xray_tris(s: &Scene, n: usize) -> Vec<[[f32; 3]; 3]> {
    let c = world_corners(s, n);
    let x = |p: [f32; 3]| [p[0], p[1], 0.0 - p[2]];
    c.chunks_exact(3)
        .map(|t| [x(t[0]), x(t[2]), x(t[1])])
        .collect()
}

fn close_tris(a: &[[[f32; 3]; 3]], b: &[[[f32; 3]; 3]], tol: f32) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| (0..3).all(|i| (0..3).all(|k| (x[i][k] - y[i][k]).abs() <= tol)))
}

fn mesh_node(s: &Scene, v: usize) -> Option<usize> {
    let prefix = format!("visual_{v:04}_");
    s.nodes
        .iter()
        .position(|x| x.name.starts_with(&prefix) && x.mesh.is_some())
}

/// Base cform triangles that move when visual `v` moves (its own, by the import's move path),
/// or `None` when moving it moves none.
fn own_faces(f: &Files, v: usize) -> Option<Vec<usize>> {
    let base_cf = f.cform.as_ref()?;
    let mut s = export(f);
    let n = mesh_node(&s, v)?;
    move_node(&mut s, n, [0.0, 3.0, 0.0]);
    let out = run(f, &s);
    if !out.summary.moved.contains(&v) || out.summary.collision.ambiguous > 0 {
        return None;
    }
    let mc = out.cform.as_ref()?;
    let own: Vec<usize> = (0..base_cf.tris.len())
        .filter(|&t| corners(mc, t) != corners(base_cf, t))
        .collect();
    (!own.is_empty()).then_some(own)
}

#[test]
fn a_reshaped_visual_gets_new_collision_from_its_new_triangles() {
    let f = fixture();
    let base_cf = f.cform.as_ref().unwrap();
    let sectors = f.level.visual_sectors();
    let mut tried = 0;
    for (v, sector) in sectors.iter().enumerate() {
        if f.level.visuals()[v].model_type() != Some(model_type::NORMAL) {
            continue;
        }
        let Some(own) = own_faces(&f, v) else {
            continue;
        };
        // the most common game material word (with its flags) of its own triangles
        let mut counts: Vec<(u32, usize)> = Vec::new();
        for &t in &own {
            let k = base_cf.tris[t].dummy & 0xFFFF;
            match counts.iter_mut().find(|c| c.0 == k) {
                Some(c) => c.1 += 1,
                None => counts.push((k, 1)),
            }
        }
        let top = counts.iter().map(|c| c.1).max().unwrap();
        if counts.iter().filter(|c| c.1 == top).count() > 1 {
            continue; // a tie: the nearest rule, tested below
        }
        let word = counts.iter().find(|c| c.1 == top).unwrap().0;
        for reshape in ["drag", "cut"] {
            let mut s = export(&f);
            let n = mesh_node(&s, v).unwrap();
            let m = s.nodes[n].mesh.unwrap();
            let p = &mut s.meshes[m].primitives[0];
            if reshape == "drag" {
                // same vertex list: edited in place
                p.positions[0][1] += 0.5;
            } else {
                // other triangles: re-encoded
                p.indices.truncate(6);
            }
            let expect = sorted_tris(xray_tris(&s, n));
            let out = run(&f, &s);
            assert_eq!(out.summary.edited, vec![v], "visual {v} {reshape}");
            let nf = as_files(&out);
            assert_check_clean(&nf);
            let c = nf.cform.as_ref().unwrap();
            let kept = base_cf.tris.len() - own.len();
            // every other triangle keeps its bytes and order
            let others: Vec<_> = (0..base_cf.tris.len())
                .filter(|t| !own.contains(t))
                .map(|t| base_cf.tris[t])
                .collect();
            assert_eq!(c.tris[..kept], others[..], "visual {v} {reshape}");
            assert_eq!(c.vertices[..base_cf.vertices.len()], base_cf.vertices[..]);
            let got = sorted_tris((kept..c.tris.len()).map(|t| corners(c, t)).collect());
            assert!(close_tris(&got, &expect, 1e-4), "visual {v} {reshape}");
            for t in &c.tris[kept..] {
                assert_eq!(t.dummy & 0xFFFF, word, "visual {v} {reshape}");
                assert_eq!(t.sector(), sector[0], "visual {v} {reshape}");
            }
            let cs = &out.summary.collision;
            assert_eq!(cs.replaced, own.len());
            assert_eq!(cs.added, expect.len());
            assert_eq!((cs.removed, cs.moved, cs.ambiguous), (0, 0, 0));
            assert_eq!(cs.added_faces.len(), 1);
            assert_eq!(cs.added_faces[0].visual, v);
            assert_eq!(cs.added_faces[0].material, word & 0x3FFF);
            assert!(cs.added_faces[0]
                .source
                .starts_with(&format!("new shape of visual {v}: ")));
            let j = serde_json::to_value(&out.summary).unwrap();
            assert_eq!(j["collision"]["replaced"], own.len());
            assert!(out.summary.to_string().contains(&format!(
                "{} replaced by new shapes, {} added",
                own.len(),
                expect.len()
            )));
        }
        eprintln!("visual {v}: {} own collision triangles", own.len());
        tried += 1;
        if tried == 3 {
            break;
        }
    }
    assert!(tried > 0, "no fixture visual with its own collision");
}

#[test]
fn an_old_builds_reshaped_quad_gets_its_collision_rewritten() {
    use crate::import_old::{embedded, export as export_old, levels, run as run_old};
    use levelgeom_xray::Level;
    let mut tried = 0;
    for (name, lb) in levels() {
        let l = Level::read(&lb).unwrap().0;
        let Some(base_cf) = embedded(&l) else {
            continue; // XRLC 10–12: level.cform is a file of its own
        };
        // visual 0 is the quad (-1..1, 0, -1..1); raise its corner (1, 0, 1) (glTF (1, 0, -1))
        let mut s = export_old(&l);
        let n = mesh_node(&s, 0).unwrap();
        let w = s.world_matrices()[n];
        let m = s.nodes[n].mesh.unwrap();
        let p = &mut s.meshes[m].primitives[0];
        let k = p
            .positions
            .iter()
            .position(|q| {
                let g = levelgeom_scene::transform_point(&w, *q);
                (g[0] - 1.0).abs() < 1e-6 && g[1].abs() < 1e-6 && (g[2] + 1.0).abs() < 1e-6
            })
            .unwrap();
        p.positions[k][1] += 0.5;
        let out = run_old(&l, &s);
        assert_eq!(out.summary.edited, vec![0], "{name}");
        let c = embedded(&out.level).unwrap();
        assert!(check::cform(&c).is_empty(), "{name}");
        // the two old triangles go; the new ones are the quad with that corner at y = 0.5,
        // the base triangles' winding (0 3 2, 0 2 1), material 3
        let q = [
            [-1.0, 0.0, -1.0],
            [1.0, 0.0, -1.0],
            [1.0, 0.5, 1.0],
            [-1.0, 0.0, 1.0],
        ];
        let expect = sorted_tris(vec![[q[0], q[3], q[2]], [q[0], q[2], q[1]]]);
        assert_eq!(c.tris.len(), 2, "{name}");
        let got = sorted_tris((0..2).map(|t| corners(&c, t)).collect());
        assert!(close_tris(&got, &expect, 1e-6), "{name}: {got:?}");
        for t in &c.tris {
            assert_eq!(t.material(), 3, "{name}");
            // the version-2 fields of the old triangles, kept
            assert_eq!(
                t.old.map(|o| (o.raw, o.raw16)),
                base_cf.tris[0].old.map(|o| (o.raw, o.raw16))
            );
        }
        assert_eq!(out.summary.collision.replaced, 2, "{name}");
        assert_eq!(out.summary.collision.added, 2, "{name}");
        tried += 1;
    }
    assert!(tried >= 4, "XRLC 4, 5, 8, 9 embed a cform");
}

#[test]
fn equally_common_materials_give_the_nearest_old_triangles() {
    let base = fixture();
    let mut tried = 0;
    for v in 0..base.level.visuals().len() {
        if base.level.visuals()[v].model_type() != Some(model_type::NORMAL) {
            continue;
        }
        let Some(own) = own_faces(&base, v) else {
            continue;
        };
        if own.len() < 2 || own.len() % 2 == 1 {
            continue;
        }
        // cut to its first triangle: the centre of the new shape lies on the old collision
        // triangle with the same corners (distance 0), the nearest
        let mut s = export(&base);
        let n = mesh_node(&s, v).unwrap();
        let m = s.nodes[n].mesh.unwrap();
        s.meshes[m].primitives[0].indices.truncate(3);
        let expect = sorted_tris(xray_tris(&s, n));
        let cf = base.cform.as_ref().unwrap();
        let Some(&on) = own
            .iter()
            .find(|&&t| close_tris(&sorted_tris(vec![corners(cf, t)]), &expect, 1e-4))
        else {
            continue;
        };
        for (a, b) in [(21u32, 22u32), (22, 21)] {
            // half of its triangles material a (the one under the new triangle among them),
            // half b
            let mut f = Files {
                level: base.level.clone(),
                geom: base.geom.clone(),
                geomx: base.geomx.clone(),
                cform: base.cform.clone(),
            };
            let c = f.cform.as_mut().unwrap();
            let mut rest = own.iter().filter(|&&t| t != on);
            let half = own.len() / 2;
            for (k, &t) in std::iter::once(&on).chain(&mut rest).enumerate() {
                let mat = if k < half { a } else { b };
                c.tris[t].dummy = (c.tris[t].dummy & !0x3FFF) | mat;
            }
            let out = run(&f, &s);
            let nf = as_files(&out);
            let c = nf.cform.as_ref().unwrap();
            let kept = cf.tris.len() - own.len();
            assert_eq!(c.tris.len(), kept + 1, "visual {v}");
            assert_eq!(c.tris[kept].material(), a, "visual {v}");
            let fa = &out.summary.collision.added_faces[0];
            assert_eq!(fa.material, a);
            assert!(
                fa.source.contains(&format!("the nearest, face {on}")),
                "{}",
                fa.source
            );
        }
        tried += 1;
    }
    assert!(
        tried > 0,
        "no fixture visual with an even number of its own triangles"
    );
}

/// Shift+D on node `n` in Blender: `n` and everything below it copied (names `….001`), the
/// copy put under `n`'s parent and moved by `offset` (glTF space); the copy's index.
fn copy_group(s: &mut Scene, n: usize, offset: [f32; 3]) -> usize {
    fn deep(s: &mut Scene, n: usize) -> usize {
        let mut c = s.nodes[n].clone();
        c.name.push_str(".001");
        c.children = Vec::new();
        let kids = s.nodes[n].children.clone();
        let i = s.add_node(c);
        for k in kids {
            let ck = deep(s, k);
            s.nodes[i].children.push(ck);
        }
        i
    }
    let c = deep(s, n);
    match s.nodes.iter().position(|p| p.children.contains(&n)) {
        Some(p) => s.nodes[p].children.push(c),
        None => s.roots.push(c),
    }
    move_node(s, c, offset);
    c
}

fn named(s: &Scene, v: usize) -> usize {
    let prefix = format!("visual_{v:04}_");
    s.nodes
        .iter()
        .position(|x| x.name.starts_with(&prefix) && !x.name.contains('.'))
        .unwrap()
}

fn shifted(p: &[[f32; 3]], t: [f32; 3]) -> Vec<[f32; 3]> {
    p.iter()
        .map(|q| [q[0] + t[0], q[1] + t[1], q[2] + t[2]])
        .collect()
}

fn close(a: &[[f32; 3]], b: &[[f32; 3]], tol: f32) -> bool {
    a.len() == b.len()
        && a.iter()
            .zip(b)
            .all(|(x, y)| x.iter().zip(y).all(|(p, q)| (p - q).abs() <= tol))
}

/// The visuals below `v` (children first, depth first), `v` included.
fn subtree(l: &levelgeom_xray::Level, v: usize) -> Vec<usize> {
    let mut out = vec![v];
    for &c in l.visuals()[v].children() {
        out.extend(subtree(l, c as usize));
    }
    out
}

fn lods_scene(f: &Files) -> Scene {
    levelgeom_xray::to_scene(
        &f.level,
        &f.geom,
        &levelgeom_xray::SceneOptions {
            lods: true,
            ..Default::default()
        },
    )
    .unwrap()
}

/// The box of group `v` recomputed from the base: the boxes of its children (groups
/// recomputed alike) and its billboard's corners.
fn union_box(l: &levelgeom_xray::Level, v: usize) -> [[f32; 3]; 2] {
    let x = &l.visuals()[v];
    if x.children().is_empty() {
        let h = x.header().unwrap();
        return [h.bbox_min, h.bbox_max];
    }
    let mut pts: Vec<[f32; 3]> = x
        .children()
        .iter()
        .flat_map(|&c| union_box(l, c as usize))
        .collect();
    pts.extend(x.lod_quads().into_iter().flatten().flatten().map(|q| q.pos));
    let lo = pts
        .iter()
        .fold([f32::MAX; 3], |a, p| [0, 1, 2].map(|k| a[k].min(p[k])));
    let hi = pts
        .iter()
        .fold([f32::MIN; 3], |a, p| [0, 1, 2].map(|k| a[k].max(p[k])));
    [lo, hi]
}

/// Copy group visual `g` (with everything below it) by `offset`; check the new level.
fn check_group_copy(label: &str, f: &Files, g: usize, offset: [f32; 3]) {
    let nv = f.level.visuals().len();
    let parents: Vec<usize> = (0..nv)
        .filter(|&p| f.level.visuals()[p].children().contains(&(g as u32)))
        .collect();
    let group = subtree(&f.level, g);
    let mut s = export(f);
    let top = named(&s, g);
    copy_group(&mut s, top, offset);
    let out = run(f, &s);
    assert_eq!(
        out.summary.added.len(),
        group.len(),
        "{label}: {:?}",
        out.summary.warnings
    );
    assert!(
        out.summary.moved.is_empty() && out.summary.edited.is_empty(),
        "{label}"
    );
    let nf = as_files(&out);
    assert_check_clean(&nf);
    let vs = nf.level.visuals();
    assert_eq!(vs.len(), nv + group.len());
    // the copy of the group: under the group's parent, holding the copies of its children
    let added = &out.summary.added;
    let new_of = |v: usize| added.iter().find(|a| a.copy_of == Some(v)).unwrap().visual;
    let ng = new_of(g);
    assert!(vs[parents[0]].children().contains(&(ng as u32)), "{label}");
    for &v in &group {
        let n = new_of(v);
        assert_eq!(
            vs[n].model_type(),
            f.level.visuals()[v].model_type(),
            "{label}"
        );
        let kids: Vec<u32> = f.level.visuals()[v]
            .children()
            .iter()
            .map(|&c| new_of(c as usize) as u32)
            .collect();
        assert_eq!(vs[n].children(), kids.as_slice(), "{label} visual {v}");
    }
    // every copy where the original is, moved by the offset (LOD billboards included)
    let (before, after) = (lods_scene(f), lods_scene(&nf));
    for &v in &group {
        let (Some(a), Some(b)) = (mesh_node(&before, v), mesh_node(&after, new_of(v))) else {
            continue;
        };
        let want = shifted(&world_corners(&before, a), offset);
        assert!(
            close(&world_corners(&after, b), &want, 1e-4),
            "{label}: copy of visual {v}"
        );
    }
    // its box: that of the base group's children (and billboard) moved by the offset (X-Ray
    // space: z negated); xrLC's own boxes of groups may differ
    let dx = [offset[0], offset[1], -offset[2]];
    let [lo, hi] = union_box(&f.level, g);
    let h1 = vs[ng].header().unwrap();
    assert!(
        close(&[h1.bbox_min, h1.bbox_max], &shifted(&[lo, hi], dx), 1e-4),
        "{label}: {h1:?} {lo:?} {hi:?}"
    );
    // the other visuals keep their chunks (the group's parents and their ancestors: children
    // and bounds)
    let mut touched = parents.clone();
    while let Some(p) = touched.last().copied() {
        match (0..nv).find(|&q| f.level.visuals()[q].children().contains(&(p as u32))) {
            Some(q) if !touched.contains(&q) => touched.push(q),
            _ => break,
        }
    }
    for v in (0..nv).filter(|v| !touched.contains(v)) {
        assert_eq!(vs[v], f.level.visuals()[v], "{label}: visual {v}");
    }
}

#[test]
fn a_copied_group_becomes_a_new_group_of_copies() {
    use levelgeom_xray::ogf::model_type as mt;
    let f = fixture();
    // hierarchy 14: two normal visuals and two LODs with a tree each
    assert_eq!(f.level.visuals()[14].model_type(), Some(mt::HIERARCHY));
    check_group_copy("fixture hierarchy 14", &f, 14, [4.0, 0.5, -3.0]);
    // hierarchy 15, the sector's root, has nothing above it: its copy is left out, with
    // everything in it
    let mut s = export(&f);
    let top = named(&s, 15);
    copy_group(&mut s, top, [0.0, 0.0, 50.0]);
    let out = run(&f, &s);
    assert!(out.summary.added.is_empty(), "{:?}", out.summary.added);
    assert!(out
        .summary
        .warnings
        .iter()
        .any(|w| w.contains("visual 15, which has no visual above it")));
    assert_eq!(out.level.visuals().len(), f.level.visuals().len());
    let mut lods = 0;
    for (label, f) in crate::import_edit::every_level() {
        let Some(lod) = (0..f.level.visuals().len())
            .find(|&v| f.level.visuals()[v].model_type() == Some(mt::LOD))
        else {
            continue;
        };
        check_group_copy(&format!("{label} lod {lod}"), &f, lod, [-2.0, 0.0, 5.0]);
        lods += 1;
    }
    assert!(lods > 0);
}

#[test]
fn an_old_builds_copied_lod_group_is_written_in_its_layout() {
    use crate::import_old::{embedded, export as export_old, levels, run as run_old};
    use levelgeom_xray::Level;
    let offset = [-2.0f32, 0.0, 5.0];
    let dx = [offset[0], offset[1], -offset[2]];
    let mut tried = 0;
    for (name, lb) in levels() {
        let l = Level::read(&lb).unwrap().0;
        let nv = l.visuals().len();
        // XRLC ≥ 9: visual 4 is a LOD over the trees 2 and 3, under the last (hierarchy)
        if nv < 6 || l.visuals()[4].children() != [2, 3] {
            continue;
        }
        let mut s = export_old(&l);
        let top = named(&s, 4);
        copy_group(&mut s, top, offset);
        let out = run_old(&l, &s);
        assert_eq!(
            out.summary.added.len(),
            3,
            "{name}: {:?}",
            out.summary.warnings
        );
        let nl = crate::import_old::written(&name, &out);
        assert_eq!(nl.version(), l.version(), "{name}");
        let vs = nl.visuals();
        // the new LOD (nv), then its trees' copies, under the hierarchy
        assert_eq!(vs[nv].children(), [nv as u32 + 1, nv as u32 + 2], "{name}");
        assert!(vs[nv - 1].children().contains(&(nv as u32)), "{name}");
        // its quads: the base's moved by the offset (UVs, colours, pad bytes kept)
        let (q0, q1) = (
            l.visuals()[4].lod_quads().unwrap(),
            vs[nv].lod_quads().unwrap(),
        );
        assert_eq!(q0.len(), q1.len());
        for (a, b) in q0.iter().flatten().zip(q1.iter().flatten()) {
            assert_eq!(
                (a.uv, a.rgb_hemi, a.sun, a.pad),
                (b.uv, b.rgb_hemi, b.sun, b.pad)
            );
            assert!(close(&[b.pos], &shifted(&[a.pos], dx), 1e-5), "{name}");
        }
        // the trees' copies: where the trees are, moved by the offset
        let (before, after) = (export_old(&l), export_old(&nl));
        for (t, c) in [(2, nv + 1), (3, nv + 2)] {
            let want = shifted(
                &world_corners(&before, mesh_node(&before, t).unwrap()),
                offset,
            );
            let got = world_corners(&after, mesh_node(&after, c).unwrap());
            assert!(close(&got, &want, 1e-4), "{name}: copy of tree {t}");
        }
        // every base visual but the hierarchy keeps its chunks; the cform is untouched
        for (v, (a, b)) in vs.iter().zip(l.visuals()).take(nv - 1).enumerate() {
            assert_eq!(*a, b, "{name}: visual {v}");
        }
        assert_eq!(embedded(&nl), embedded(&l), "{name}");
        tried += 1;
    }
    assert!(tried >= 4, "XRLC 9–12 have a LOD");
}

#[test]
fn a_lod_copy_whose_billboard_and_tree_moved_apart_is_refused() {
    let f = fixture();
    // exported with --lods: the LOD node has its billboard as a mesh
    let mut s = lods_scene(&f);
    let lod = named(&s, 5);
    let c = copy_group(&mut s, lod, [3.0, 0.0, 0.0]);
    // the tree's copy moved on by another metre: no longer under its billboard
    let tree = s.nodes[c].children[0];
    move_node(&mut s, tree, [0.0, 0.0, 1.0]);
    let out = run(&f, &s);
    assert!(out.summary.added.is_empty(), "{:?}", out.summary.added);
    assert!(
        out.summary
            .warnings
            .iter()
            .any(|w| w.contains("a copy of LOD visual 5") && w.contains("left out")),
        "{:?}",
        out.summary.warnings
    );
    assert_eq!(out.level.visuals().len(), f.level.visuals().len());
    // moved alike, the same file gives the copy
    let mut s = lods_scene(&f);
    let lod = named(&s, 5);
    copy_group(&mut s, lod, [3.0, 0.0, 0.0]);
    let out = run(&f, &s);
    assert_eq!(out.summary.added.len(), 2, "{:?}", out.summary.warnings);
}

/// Give node `n` its own mesh (Blender's "make single user") with only its first `k`
/// triangles: other triangles, the same vertices at the same places.
fn cut_own_mesh(s: &mut Scene, n: usize, k: usize) {
    let m = s.nodes[n].mesh.unwrap();
    let mut mesh = s.meshes[m].clone();
    mesh.primitives[0].indices.truncate(3 * k);
    s.nodes[n].mesh = Some(s.add_mesh(mesh));
}

/// Decoded vertices `[offset, offset + count)` of buffer `vb`.
fn range(
    g: &levelgeom_xray::Geom,
    c: &levelgeom_xray::ogf::GContainer,
) -> levelgeom_xray::vertex::Vertices {
    let b = &g.vertex_buffers().unwrap()[c.vb_index as usize];
    let s = b.stride();
    let raw = &b.data[c.vb_offset as usize * s..(c.vb_offset + c.vb_count) as usize * s];
    levelgeom_xray::vertex::decode(&b.decl, raw)
}

#[test]
fn a_tree_with_other_triangles_gets_its_own_geometry() {
    use levelgeom_xray::ogf::model_type as mt;
    for (label, f) in crate::import_edit::every_level() {
        let nv = f.level.visuals().len();
        let trees: Vec<usize> = (0..nv)
            .filter(|&v| {
                matches!(
                    f.level.visuals()[v].model_type(),
                    Some(mt::TREE_ST | mt::TREE_PM)
                )
            })
            .collect();
        for &t in &trees {
            let base_vis = &f.level.visuals()[t];
            let g0 = base_vis.gcontainer().unwrap();
            let mut s = export(&f);
            let n = mesh_node(&s, t).unwrap();
            cut_own_mesh(&mut s, n, 2);
            let want = world_corners(&s, n);
            let out = run(&f, &s);
            assert_eq!(
                out.summary.edited,
                vec![t],
                "{label} tree {t}: {:?}",
                out.summary.warnings
            );
            let nf = as_files(&out);
            assert_check_clean(&nf);
            let vs = nf.level.visuals();
            let x = &vs[t];
            // only its matrix stays; its own ranges, 2 triangles
            assert_eq!(x.treedef(), base_vis.treedef(), "{label}");
            let g1 = x.gcontainer().unwrap();
            assert_eq!(g1.ib_count, 6);
            assert_ne!((g1.vb_index, g1.vb_offset), (g0.vb_index, g0.vb_offset));
            if base_vis.model_type() == Some(mt::TREE_PM) {
                assert_eq!(x.model_type(), Some(mt::TREE_ST), "{label}");
                assert!(x.swi_container().is_none() && x.swidata().is_none());
                assert!(out.summary.warnings.iter().any(|w| w.contains("tree_st")));
            } else {
                assert_eq!(x.model_type(), base_vis.model_type());
            }
            // each new vertex is an old one (the cut moved none): same place in model
            // space, same wind
            let (old, new) = (range(&f.geom, &g0), range(&nf.geom, &g1));
            for i in 0..new.count {
                let j = (0..old.count)
                    .find(|&j| close(&[old.positions[j]], &[new.positions[i]], 1e-5))
                    .unwrap_or_else(|| panic!("{label}: new vertex {i} is no old vertex"));
                assert_eq!(new.wind[i], old.wind[j], "{label} vertex {i}");
            }
            // the other instances keep the shared range
            for u in trees.iter().filter(|&&u| u != t) {
                assert_eq!(vs[*u], f.level.visuals()[*u], "{label} tree {u}");
            }
            // and it exports back where the edit put it
            let again = export(&nf);
            let got = world_corners(&again, mesh_node(&again, t).unwrap());
            assert!(close(&got, &want, 1e-4), "{label} tree {t}");
        }
    }
}

#[test]
fn an_old_builds_tree_with_other_triangles_is_written_in_its_layout() {
    use crate::import_old::{export as export_old, levels, run as run_old};
    use levelgeom_xray::Level;
    let mut tried = 0;
    for (name, lb) in levels() {
        let l = Level::read(&lb).unwrap().0;
        if l.visuals().len() < 6 {
            continue; // XRLC 4–8: no trees
        }
        // tree 2: the pyramid's first two sides only
        let mut s = export_old(&l);
        let n = mesh_node(&s, 2).unwrap();
        cut_own_mesh(&mut s, n, 2);
        let want = world_corners(&s, n);
        let out = run_old(&l, &s);
        assert_eq!(
            out.summary.edited,
            vec![2],
            "{name}: {:?}",
            out.summary.warnings
        );
        let nl = crate::import_old::written(&name, &out);
        // tree 3 keeps its chunks (and so the shared vertices)
        assert_eq!(nl.visuals()[3], l.visuals()[3], "{name}");
        assert_eq!(
            nl.visuals()[2].treedef(),
            l.visuals()[2].treedef(),
            "{name}"
        );
        let again = export_old(&nl);
        let got = world_corners(&again, mesh_node(&again, 2).unwrap());
        assert!(close(&got, &want, 1e-4), "{name}: {got:?} {want:?}");
        assert_eq!(got.len(), 6);
        tried += 1;
    }
    assert!(tried >= 4);
}

/// Raise the first billboard quad of LOD visual `lod` by 1 m in a `--lods` export: the LOD's
/// mesh vertices 0–3 (four per quad, in order).
fn raise_first_quad(s: &mut Scene, lod: usize) {
    let n = mesh_node(s, lod).unwrap();
    let w = glam::Mat4::from_cols_array(&s.world_matrices()[n]);
    let up = w.inverse().transform_vector3(glam::Vec3::Y).to_array();
    let m = s.nodes[n].mesh.unwrap();
    for p in &mut s.meshes[m].primitives[0].positions[..4] {
        for k in 0..3 {
            p[k] += up[k];
        }
    }
}

fn assert_first_quad_raised(
    label: &str,
    before: &levelgeom_xray::ogf::Visual,
    after: &levelgeom_xray::ogf::Visual,
) {
    let (q0, q1) = (before.lod_quads().unwrap(), after.lod_quads().unwrap());
    assert_eq!(q0.len(), q1.len(), "{label}");
    for (k, (a, b)) in q0.iter().zip(q1).enumerate() {
        for (x, y) in a.iter().zip(b) {
            // UVs, colours, sun and the pad bytes kept
            assert_eq!(
                (x.uv, x.rgb_hemi, x.sun, x.pad),
                (y.uv, y.rgb_hemi, y.sun, y.pad)
            );
            let want = if k == 0 {
                [x.pos[0], x.pos[1] + 1.0, x.pos[2]]
            } else {
                x.pos
            };
            assert!(
                close(&[y.pos], &[want], 1e-5),
                "{label}: quad {k} {:?}",
                y.pos
            );
        }
    }
}

#[test]
fn an_edited_lod_billboard_rewrites_its_quads() {
    use levelgeom_xray::ogf::model_type as mt;
    let mut tried = 0;
    for (label, f) in crate::import_edit::every_level() {
        let nv = f.level.visuals().len();
        let Some(lod) = (0..nv).find(|&v| f.level.visuals()[v].model_type() == Some(mt::LOD))
        else {
            continue;
        };
        let mut s = lods_scene(&f);
        raise_first_quad(&mut s, lod);
        let out = run(&f, &s);
        assert_eq!(
            out.summary.edited,
            vec![lod],
            "{label}: {:?}",
            out.summary.warnings
        );
        assert_eq!(
            out.summary.collision.added, 0,
            "{label}: a billboard has no collision"
        );
        let nf = as_files(&out);
        assert_check_clean(&nf);
        let vs = nf.level.visuals();
        assert_first_quad_raised(label, f.level.visuals()[lod], vs[lod]);
        // its box: its trees' and its quads'
        let [lo, hi] = union_box(&nf.level, lod);
        let h = vs[lod].header().unwrap();
        assert!(close(&[h.bbox_min, h.bbox_max], &[lo, hi], 1e-5), "{label}");
        // nothing else in level.geom changed; the LOD's trees keep their chunks
        assert_eq!(nf.geom, f.geom, "{label}");
        for &c in f.level.visuals()[lod].children() {
            assert_eq!(vs[c as usize], f.level.visuals()[c as usize]);
        }
        tried += 1;
    }
    assert!(tried > 0);
    // an old build's LOD (XRLC 9–12: visual 4), in its own layout
    use crate::import_old::{levels, run as run_old};
    use levelgeom_xray::Level;
    let mut old = 0;
    for (name, lb) in levels() {
        let l = Level::read(&lb).unwrap().0;
        if l.visuals().len() < 6 {
            continue;
        }
        let g = levelgeom_xray::Geom { chunks: Vec::new() };
        let mut s = levelgeom_xray::to_scene(
            &l,
            &g,
            &levelgeom_xray::SceneOptions {
                lods: true,
                ..Default::default()
            },
        )
        .unwrap();
        raise_first_quad(&mut s, 4);
        let out = run_old(&l, &s);
        assert_eq!(
            out.summary.edited,
            vec![4],
            "{name}: {:?}",
            out.summary.warnings
        );
        let nl = crate::import_old::written(&name, &out);
        assert_first_quad_raised(&name, l.visuals()[4], nl.visuals()[4]);
        for v in [0, 1, 2, 3] {
            assert_eq!(nl.visuals()[v], l.visuals()[v], "{name}: visual {v}");
        }
        old += 1;
    }
    assert!(old >= 4);
}
