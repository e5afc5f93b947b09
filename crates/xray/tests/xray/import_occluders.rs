//! `level.hom` / `level.som` follow an import: the generator's occluders
//! ([`LEVEL_HOM_POLYS`], [`LEVEL_SOM_POLYS`]: each placed on or inside one visual of the
//! generated XRLC 14 level, or far from all) move, go and copy with their visuals. Expected
//! positions are written out by hand from those constants and the edit's offsets; byte offsets
//! are hand computed (chunk 0 is 12 bytes, chunk 1's polygons start at 20; 40 bytes per HOM
//! polygon, 44 per SOM polygon).

use levelgeom_scene::Scene;
use levelgeom_xray::import::{self, occluders, ImportOptions, Imported};
use levelgeom_xray::occluders::generate::{
    hom_bytes_of, som_bytes_of, LEVEL_HOM_POLYS, LEVEL_SOM_POLYS,
};
use levelgeom_xray::occluders::{Hom, Som};

use crate::import_edit::{base, export, generated, move_node, node_of, run, Files};

fn files() -> (Files, Vec<u8>, Vec<u8>) {
    (
        generated(14, false),
        hom_bytes_of(&LEVEL_HOM_POLYS),
        som_bytes_of(&LEVEL_SOM_POLYS),
    )
}

fn read(hb: &[u8], sb: &[u8]) -> (Hom, Som) {
    (Hom::read(hb).unwrap().0, Som::read(sb).unwrap().0)
}

/// Copy node `n` as `NAME.001` under the same parent, moved by `offset` (glTF space).
fn copy_node(s: &mut Scene, n: usize, offset: [f32; 3]) {
    let mut copy = s.nodes[n].clone();
    copy.name.push_str(".001");
    let c = s.add_node(copy);
    match s.nodes.iter().position(|p| p.children.contains(&n)) {
        Some(p) => s.nodes[p].children.push(c),
        None => s.roots.push(c),
    }
    move_node(s, c, offset);
}

fn delete_node(s: &mut Scene, n: usize) {
    for node in &mut s.nodes {
        node.children.retain(|&c| c != n);
    }
    s.roots.retain(|&r| r != n);
}

fn close(a: &[[f32; 3]; 3], b: &[[f32; 3]; 3]) -> bool {
    a.iter()
        .flatten()
        .zip(b.iter().flatten())
        .all(|(x, y)| (x - y).abs() <= 1e-5)
}

fn follow(f: &Files, s: &Scene, hom: &Hom, som: &Som) -> Imported {
    let mut out = run(f, s);
    occluders::follow(&mut out, Some(hom), Some(som), Some(s)).unwrap();
    out
}

#[test]
fn nothing_edited_keeps_both_files_byte_for_byte() {
    let (f, hb, sb) = files();
    let (hom, som) = read(&hb, &sb);
    let out = follow(&f, &export(&f), &hom, &som);
    assert_eq!(out.summary.hom.mode, "kept");
    assert_eq!(out.summary.som.mode, "kept");
    assert_eq!(out.hom.unwrap().to_bytes().unwrap(), hb);
    assert_eq!(out.som.unwrap().to_bytes().unwrap(), sb);
}

#[test]
fn polygons_move_go_and_copy_with_their_visuals() {
    let (f, hb, sb) = files();
    let (hom, som) = read(&hb, &sb);
    let mut s = export(&f);
    // the first tree (visual 2) moved by glTF (2, 0, 3) = X-Ray (2, 0, −3)
    let tree = node_of(&s, 2);
    move_node(&mut s, tree, [2.0, 0.0, 3.0]);
    // the grid (visual 1) deleted
    let grid = node_of(&s, 1);
    delete_node(&mut s, grid);
    // the quad (visual 0) copied by glTF (0, 0, −10) = X-Ray (0, 0, 10)
    let quad = node_of(&s, 0);
    copy_node(&mut s, quad, [0.0, 0.0, -10.0]);
    let out = follow(&f, &s, &hom, &som);
    assert_eq!(out.summary.moved, vec![2]);
    assert_eq!(out.summary.removed, vec![1]);
    assert_eq!(out.summary.added.len(), 1);

    // HOM: 0 kept (on the quad), 1 gone (on the grid), 2 moved (in the tree), 3 and 4 kept,
    // then the quad's copy of 0
    let h = out.hom.as_ref().unwrap();
    let got: Vec<_> = h.polys().map(|p| (p.v, p.flags)).collect();
    let want: [([[f32; 3]; 3], u32); 5] = [
        ([[-1.0, 0.0, -1.0], [-1.0, 0.0, 1.0], [1.0, 0.0, 1.0]], 1),
        ([[11.8, 0.5, 2.0], [12.0, 1.5, 2.0], [12.2, 0.5, 2.0]], 0),
        ([[20.0, 0.0, 20.0], [24.0, 0.0, 20.0], [24.0, 3.0, 20.0]], 0),
        ([[-4.2, 1.5, -6.0], [-4.0, 2.5, -6.0], [-3.8, 1.5, -6.0]], 1),
        ([[-1.0, 0.0, 9.0], [-1.0, 0.0, 11.0], [1.0, 0.0, 11.0]], 1),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(&want) {
        assert!(close(&g.0, &w.0) && g.1 == w.1, "{g:?} != {w:?}");
    }
    let s_h = &out.summary.hom;
    assert_eq!(s_h.mode, "followed");
    assert_eq!(
        (
            s_h.polygons_before,
            s_h.polygons_after,
            s_h.moved,
            s_h.removed,
            s_h.copied
        ),
        (5, 5, 1, 1, 1)
    );
    assert_eq!((s_h.dropped, s_h.ambiguous), (0, 0));
    // untouched polygons byte for byte: new 0 = old 0, new 2 = old 3, new 3 = old 4
    let hb2 = h.to_bytes().unwrap();
    assert_eq!(hb2.len(), 20 + 5 * 40);
    assert_eq!(hb2[..60], hb[..60]);
    assert_eq!(hb2[100..180], hb[140..220]);

    // SOM: 0 kept (quad), 1 moved (tree), 2 gone (grid), 3 kept, the copy of 0
    let so = out.som.as_ref().unwrap();
    let got: Vec<_> = so.polys().map(|p| (p.v, p.b2sided, p.occ)).collect();
    let want: [([[f32; 3]; 3], u32, f32); 4] = [
        (
            [[-1.0, 0.0, -1.0], [1.0, 0.0, 1.0], [1.0, 0.0, -1.0]],
            0,
            0.5,
        ),
        (
            [[11.7, 0.2, 1.8], [12.0, 1.0, 2.2], [12.3, 0.2, 1.8]],
            1,
            0.25,
        ),
        (
            [
                [-20.0, 0.0, -20.0],
                [-16.0, 0.0, -20.0],
                [-16.0, 4.0, -20.0],
            ],
            0,
            1.0,
        ),
        (
            [[-1.0, 0.0, 9.0], [1.0, 0.0, 11.0], [1.0, 0.0, 9.0]],
            0,
            0.5,
        ),
    ];
    assert_eq!(got.len(), want.len(), "{got:?}");
    for (g, w) in got.iter().zip(&want) {
        assert!(
            close(&g.0, &w.0) && g.1 == w.1 && g.2 == w.2,
            "{g:?} != {w:?}"
        );
    }
    let s_s = &out.summary.som;
    assert_eq!(
        (
            s_s.polygons_before,
            s_s.polygons_after,
            s_s.moved,
            s_s.removed,
            s_s.copied
        ),
        (4, 4, 1, 1, 1)
    );
    let sb2 = so.to_bytes().unwrap();
    assert_eq!(sb2[..64], sb[..64]);
    assert_eq!(sb2[108..152], sb[152..196]);
    // the summary says it, as for the collision
    let text = out.summary.to_string();
    assert!(
        text.contains("level.hom: followed, 5 polygons before, 5 after (1 moved, 1 removed, 1 copied, 0 dropped"),
        "{text}"
    );
    assert!(
        text.contains("level.som: followed, 4 polygons before, 4 after"),
        "{text}"
    );
    let json = serde_json::to_value(&out.summary).unwrap();
    assert_eq!(json["hom"]["copied"], 1);
    assert_eq!(json["som"]["removed"], 1);
}

#[test]
fn a_reshaped_visuals_polygons_are_dropped_and_counted() {
    let (f, hb, sb) = files();
    let (hom, som) = read(&hb, &sb);
    let mut s = export(&f);
    // lift one corner of the quad (visual 0): same topology, other positions
    let quad = node_of(&s, 0);
    let m = s.nodes[quad].mesh.unwrap();
    s.meshes[m].primitives[0].positions[0][1] += 0.5;
    let out = follow(&f, &s, &hom, &som);
    assert_eq!(out.summary.edited, vec![0]);
    assert_eq!(out.summary.hom.dropped, 1);
    assert_eq!(out.summary.som.dropped, 1);
    let h = out.hom.unwrap();
    assert_eq!(h.polys().count(), 4);
    // what stays is the old polygons 1–4, byte for byte
    assert_eq!(h.to_bytes().unwrap()[20..], hb[60..]);
    assert!(out
        .summary
        .warnings
        .iter()
        .any(|w| w.starts_with("level.hom: 1 polygon(s) of reshaped visuals dropped")));
}

#[test]
fn an_edited_occluders_tree_replaces_the_files_an_unedited_one_does_not() {
    let (f, hb, sb) = files();
    let (hom, som) = read(&hb, &sb);
    let mut s = export(&f);
    assert!(
        levelgeom_xray::occluders::scene::add_occluders(&mut s, Some(&hom), Some(&som)).is_empty()
    );
    // unedited: the files follow (nothing moved: kept)
    let out = follow(&f, &s, &hom, &som);
    assert_eq!(out.summary.hom.mode, "kept");
    assert_eq!(out.hom.unwrap().to_bytes().unwrap(), hb);
    // one HOM leaf moved up by 1 m (glTF y = X-Ray y): the tree replaces level.hom only
    let leaf = s.nodes.iter().position(|n| n.name == "hom_flags0").unwrap();
    move_node(&mut s, leaf, [0.0, 1.0, 0.0]);
    let out = follow(&f, &s, &hom, &som);
    assert_eq!(out.summary.hom.mode, "replaced");
    assert_eq!(out.summary.som.mode, "kept");
    let h = out.hom.unwrap();
    let polys: Vec<_> = h.polys().collect();
    assert_eq!(polys.len(), 5);
    // the flags-0 polygons (1, 2, 3 of the file) one metre up, corners and winding as written
    let flags0: Vec<_> = polys.iter().filter(|p| p.flags == 0).collect();
    assert_eq!(flags0.len(), 3);
    assert!(close(
        &flags0[0].v,
        &[[3.0, 1.0, -1.0], [3.0, 1.0, 1.0], [5.0, 1.0, 1.0]]
    ));
    let flags1: Vec<_> = polys.iter().filter(|p| p.flags == 1).collect();
    assert_eq!(flags1[0].v, LEVEL_HOM_POLYS[0].0);
}

#[test]
fn a_build_without_the_file_does_not_get_it_and_says_so() {
    let (f, hb, sb) = files();
    let (hom, som) = read(&hb, &sb);
    let s = export(&f);
    let convert = |to: u16| {
        let mut out = import::import(
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
        occluders::follow(&mut out, Some(&hom), Some(&som), Some(&s)).unwrap();
        out
    };
    // XRLC 12: the engine reads level.hom (since 2002-06-07), not level.som (2005-02-26)
    let out = convert(12);
    assert_eq!(out.hom.unwrap().to_bytes().unwrap(), hb);
    assert!(out.som.is_none());
    assert!(
        out.summary.som.note.contains("reads no level.som"),
        "{:?}",
        out.summary.som
    );
    // XRLC 5: neither
    let out = convert(5);
    assert!(out.hom.is_none() && out.som.is_none());
    assert!(out.summary.hom.note.contains("2002-06-07"));
    // XRLC 13 has both
    let out = convert(13);
    assert_eq!(out.som.unwrap().to_bytes().unwrap(), sb);
}
