//! `level.ai` and `level.details`: the generators' files (written byte by byte from the
//! engine's structures, `xrLevel.h` / `DetailFormat.h`) are recognised by content, read into
//! the values the generators put in, write back byte for byte, and `info`/`check` give
//! hand-computed numbers. Hand computation for the AI sample: cell 1 m, box (0,0,0)–(3,2,2),
//! so `row_length = floor(2 + 0.001 + 1.5) = 3` and 4 columns; a node at column x, row z has
//! `xz = 3x + z`.

use levelgeom_xray::ai::generate::{ai_bytes, old_ai_bytes, sample, GUID};
use levelgeom_xray::ai::{Layout, LevelAi, Nodes};
use levelgeom_xray::details::generate::{details_bytes, sample as slots_sample};
use levelgeom_xray::details::Details;
use levelgeom_xray::files::Opened;
use levelgeom_xray::Kind;

#[test]
fn every_decoded_ai_version_round_trips_with_hand_computed_nodes() {
    for (version, node, head) in [
        (5u32, 20usize, 40usize),
        (6, 20, 40),
        (7, 21, 40),
        (8, 21, 56),
        (9, 21, 56),
        (10, 23, 56),
    ] {
        let (h, nodes) = sample(version);
        let bytes = ai_bytes(&h, &nodes);
        assert_eq!(bytes.len(), head + 4 * node, "version {version}");
        assert_eq!(levelgeom_xray::kind(&bytes), Some(Kind::Ai), "v{version}");
        let (ai, w) = LevelAi::read(&bytes).unwrap();
        assert!(w.is_empty(), "{w:?}");
        assert_eq!(ai.to_bytes(), bytes, "version {version}");
        assert_eq!(ai.header.guid.is_some(), version >= 8);
        if version >= 8 {
            assert_eq!(ai.header.guid, Some(GUID));
        }
        let (layout, got) = ai.decoded().unwrap();
        assert_eq!(layout.size(), node);
        assert_eq!(ai.header.row_length(), 3);
        // positions: (0,0,0); (1, 2, 0); (2, 32768/65535·2, 1); (3, 0, 2)
        let pos: Vec<[f32; 3]> = got.iter().map(|n| n.position(&ai.header)).collect();
        assert_eq!(pos[0], [0.0, 0.0, 0.0]);
        assert_eq!(pos[1], [1.0, 2.0, 0.0]);
        assert_eq!(pos[2][0], 2.0);
        assert_eq!(pos[2][2], 1.0);
        assert!((pos[2][1] - 1.000_015_3).abs() < 1e-6, "{}", pos[2][1]);
        assert_eq!(pos[3], [3.0, 0.0, 2.0]);
        assert_eq!(got[2].xz, 7);
        // light, cover, links as put in
        assert_eq!(got[0].light(layout), 15);
        assert_eq!(got[2].light(layout), 7);
        assert_eq!([0, 1, 2, 3].map(|k| got[0].cover(k)), [1, 2, 3, 4]);
        assert_eq!(got[0].link(layout, 1), 1);
        assert_eq!(got[0].link(layout, 0), layout.no_link());
        assert_eq!(got[1].link(layout, 3), 0);
        if layout == Layout::Links12Covers2 {
            assert_eq!([0, 1, 2, 3].map(|k| got[0].low_cover(k)), [5, 6, 7, 8]);
        }
        // the up normal is pvCompress'ed to 126 (0 x bits, 126 y bits)
        assert_eq!(got[0].plane, 126);
        let info = ai.info();
        assert_eq!(info.grid, [4, 3]);
        assert_eq!(info.decoded, Some(4));
        let light = info.light.unwrap();
        assert_eq!((light[0], light[7], light[15]), (2, 1, 1));
        // node 0's mean cover is (1+2+3+4)/4 = 2 (rounded down); the others 0
        let cover = info.mean_cover.unwrap();
        assert_eq!((cover[0], cover[2]), (3, 1));
        assert!(ai.check().is_empty(), "v{version}: {:?}", ai.check());
        let (o, _) = Opened::read(&bytes).unwrap().unwrap();
        assert_eq!(o.to_bytes().unwrap(), bytes);
    }
}

#[test]
fn old_ai_versions_keep_their_nodes_as_bytes() {
    for version in [2u32, 3, 4] {
        let (h, _) = sample(version);
        let h = levelgeom_xray::ai::generate::GenHeader { version, ..h };
        // two 22-byte nodes of the 2003 layout, not interpreted
        let nodes: Vec<u8> = (0..44u8).collect();
        let bytes = old_ai_bytes(&h, 2, &nodes);
        assert_eq!(levelgeom_xray::kind(&bytes), Some(Kind::Ai));
        let (ai, _) = LevelAi::read(&bytes).unwrap();
        assert_eq!(ai.header.count, 2);
        assert!(ai.header.guid.is_none());
        assert_eq!(ai.nodes, Nodes::Raw(nodes.clone()));
        assert_eq!(ai.to_bytes(), bytes);
        assert_eq!(ai.info().decoded, None);
    }
}

#[test]
fn ai_check_finds_a_bad_link_and_a_short_file() {
    let (h, mut nodes) = sample(8);
    nodes[3].links[2] = Some(9);
    let bytes = ai_bytes(&h, &nodes);
    let (ai, _) = LevelAi::read(&bytes).unwrap();
    let p = ai.check();
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].path, "node[3]");
    // node 3 starts at 56 + 3 × 21
    assert_eq!(p[0].offset, Some(119));
    // cut inside the last node: 3 whole nodes, 10 bytes kept, the count is short
    let cut = &bytes[..bytes.len() - 11];
    let (ai, w) = LevelAi::read(cut).unwrap();
    assert!(!w.is_empty());
    assert_eq!(ai.to_bytes(), cut);
    assert!(ai
        .check()
        .iter()
        .any(|p| p.message.contains("counts 4 nodes")));
}

#[test]
fn details_of_both_versions_round_trip_with_their_slots() {
    let slots = slots_sample();
    for version in [2u32, 3] {
        let bytes = details_bytes(version, [1, 1], 3, &slots);
        assert_eq!(
            levelgeom_xray::kind(&bytes),
            Some(Kind::Details),
            "v{version}"
        );
        let (d, w) = Details::read(&bytes).unwrap();
        assert!(w.is_empty());
        assert_eq!(d.to_bytes().unwrap(), bytes, "version {version}");
        let info = d.info();
        assert_eq!(info.version, Some(version));
        assert_eq!(info.grid, Some([3, 2]));
        assert_eq!(info.slots, Some(6));
        assert_eq!(info.occupied, Some(5));
        assert_eq!(info.models.len(), 1);
        assert_eq!(info.models[0].texture, "detail\\grass");
        assert_eq!(info.models[0].triangles, 2);
        // offset (1, 1): x from −2 to 3 × 2 − 2 = 4, z from −2 to 2
        assert_eq!(info.area, Some([[-2.0, -2.0], [4.0, 2.0]]));
        let s = d.slots().unwrap();
        // slot 2 (x 2, z 0): floor 1 m, height 1 m; version 3 stores (1 + 200) / 0.2 = 1005
        let v = s.slot(2).unwrap();
        assert!((v.y_base - 1.0).abs() < 1e-4, "{}", v.y_base);
        assert!((v.height - 1.0).abs() < 1e-4);
        assert_eq!(v.items, vec![(0, 0x1111)]);
        assert_eq!(d.slot_min(2), Some([2.0, -2.0]));
        assert_eq!(d.slot_min(4), Some([0.0, 0.0]));
        assert!(s.slot(1).unwrap().items.is_empty());
        // full palette: 16 nibbles of 15 would be 1; one item of 0xFFFF is 60 / 240
        assert_eq!(s.slot(0).unwrap().density(), 0.25);
        assert!(d.check().is_empty(), "{:?}", d.check());
        let (o, _) = Opened::read(&bytes).unwrap().unwrap();
        assert_eq!(o.to_bytes().unwrap(), bytes);
    }
}

#[test]
fn the_density_map_has_a_pixel_per_slot_with_z_up() {
    let bytes = details_bytes(3, [1, 1], 3, &slots_sample());
    let (d, _) = Details::read(&bytes).unwrap();
    let png = levelgeom_xray::details::scene::density_png(&d).unwrap();
    let img = levelgeom_xray::dds::decode_png(&png, &levelgeom_binary::Limits::DEFAULT).unwrap();
    assert_eq!((img.width, img.height), (3, 2));
    let grey = |x: usize, y: usize| img.pixels[(y * 3 + x) * 4];
    // row 1 (bottom) is z 0: 0.25 → 64, empty → 0, 0x1111 = 4/240 → 4
    assert_eq!([grey(0, 1), grey(1, 1), grey(2, 1)], [64, 0, 4]);
    // row 0 (top) is z 1: 0x00FF = 30/240 → 32
    assert_eq!([grey(0, 0), grey(1, 0), grey(2, 0)], [32, 32, 32]);
}

#[test]
fn details_check_finds_a_wrong_slot_count() {
    let mut slots = slots_sample();
    slots.pop();
    // 5 slots on a 3-wide grid: size_z = 1 in the header, 5 slots stored
    let bytes = details_bytes(3, [0, 0], 3, &slots);
    let (d, _) = Details::read(&bytes).unwrap();
    let p = d.check();
    assert!(
        p.iter()
            .any(|p| p.path == "FSD_SLOTS" && p.message.contains("3 × 1")),
        "{p:?}"
    );
}

/// The edit of [`an_edit_reports_stale_nodes_and_slots_where_the_test_computes`]: on the
/// generated XRLC 14 level (visual 0: the quad x −1…1, z −1…1 at y 0; visual 1: the grid
/// x 3…5, z −1…1 at y 0, both in level space), visual 0 moved by (+1.5, +0.6, 0) in level
/// space (glTF (1.5, 0.6, −0)) to x 0.5…2.5 at y 0.6, visual 1 deleted.
fn moved_and_deleted() -> (
    crate::import_edit::Files,
    levelgeom_scene::Scene,
    levelgeom_xray::import::Imported,
) {
    use crate::import_edit::{export, generated, move_node, node_of, run};
    let f = generated(14, false);
    let mut s = export(&f);
    let n0 = node_of(&s, 0);
    move_node(&mut s, n0, [1.5, 0.6, 0.0]);
    let n1 = node_of(&s, 1);
    for node in &mut s.nodes {
        node.children.retain(|&c| c != n1);
    }
    s.roots.retain(|&r| r != n1);
    let out = run(&f, &s);
    assert_eq!(out.summary.moved, vec![0]);
    assert_eq!(out.summary.removed, vec![1]);
    (f, s, out)
}

/// AI nodes on a 1 m grid from (−2, 0, −2): A (0, 0, 0) on the old quad; B (4, 0, 0) on the
/// deleted grid; C (2, 0, 0) under the moved quad's new place (0.6 m above it: inside);
/// D (−2, 0, 5) away from both; E (1, 0, 0) on the old quad's edge and under the new quad.
fn edit_ai() -> LevelAi {
    use levelgeom_xray::ai::generate::{GenHeader, GenNode};
    let h = GenHeader {
        version: 8,
        size: 1.0,
        size_y: 2.0,
        aabb: [[-2.0, 0.0, -2.0], [6.0, 2.0, 12.0]],
    };
    let at = |x: i32, z: i32| GenNode {
        x: (x + 2) as u32,
        z: (z + 2) as u32,
        y: 0,
        normal: [0.0, 1.0, 0.0],
        cover: [0; 4],
        low_cover: [0; 4],
        light: 0,
        links: [None; 4],
    };
    let nodes = [at(0, 0), at(4, 0), at(2, 0), at(-2, 5), at(1, 0)];
    LevelAi::read(&ai_bytes(&h, &nodes)).unwrap().0
}

/// Slots of 2 m, offset (1, 1): slot (ix, iz) has its centre at ((ix − 1) · 2 + 1,
/// (iz − 1) · 2 + 1), so x −1, 1, 3, 5 and z −1, 1, 3 …; 4 × 3 slots, all at floor 0 with
/// model 0.
fn edit_details() -> Details {
    use levelgeom_xray::details::generate::GenSlot;
    let slot = GenSlot {
        y_base: 0.0,
        height: 1.0,
        items: [Some((0, 0xffff)), None, None, None],
    };
    Details::read(&details_bytes(3, [1, 1], 4, &[slot; 12]))
        .unwrap()
        .0
}

#[test]
fn an_edit_reports_stale_nodes_and_slots_where_the_test_computes() {
    let (f, s, out) = moved_and_deleted();
    let ai = edit_ai();
    let details = edit_details();
    let base = crate::import_edit::base(&f);
    let (report, followed) = levelgeom_xray::import::stale::stale(
        base,
        &s,
        &out.summary,
        Some(&ai),
        Some(&details),
        false,
    )
    .unwrap();
    assert!(followed.is_none());
    let a = report.ai.unwrap();
    // A, B, E under the changed shapes (in file order); C and E under the new quad at 0.6 m
    assert_eq!(
        a.under_changed_at,
        vec![[0.0, 0.0, 0.0], [4.0, 0.0, 0.0], [1.0, 0.0, 0.0]]
    );
    assert_eq!(a.under_changed, 3);
    assert_eq!(a.inside_new_at, vec![[2.0, 0.0, 0.0], [1.0, 0.0, 0.0]]);
    let d = report.details.unwrap();
    // row z = −1 then z = 1: x 3 and 5 over the deleted grid, x −1 and 1 over the old quad
    assert_eq!(
        d.over_removed_at,
        vec![
            [3.0, 0.0, -1.0],
            [5.0, 0.0, -1.0],
            [3.0, 0.0, 1.0],
            [5.0, 0.0, 1.0]
        ]
    );
    assert_eq!(
        d.over_moved_at,
        vec![
            [-1.0, 0.0, -1.0],
            [1.0, 0.0, -1.0],
            [-1.0, 0.0, 1.0],
            [1.0, 0.0, 1.0]
        ]
    );
    assert_eq!((d.emptied, d.shifted, d.followed), (0, 0, false));
}

#[test]
fn details_follow_empties_slots_over_removed_floor_and_lifts_those_over_the_moved_one() {
    let (f, s, out) = moved_and_deleted();
    let details = edit_details();
    let base = crate::import_edit::base(&f);
    let (report, followed) =
        levelgeom_xray::import::stale::stale(base, &s, &out.summary, None, Some(&details), true)
            .unwrap();
    let d = report.details.unwrap();
    // over the deleted grid: 4 emptied; over the old quad: x −1 is no longer under it
    // (emptied), x 1 is (the new quad spans x 0.5…2.5): raised by 0.6 m = 3 steps of 0.2
    assert_eq!((d.emptied, d.shifted), (6, 2));
    let new = followed.unwrap();
    let slots = new.slots().unwrap();
    let index = |x: i32, z: i32| (((z - 1) / 2 + 1) * 4 + (x - 1) / 2 + 1) as usize;
    for (x, z) in [(3, -1), (5, -1), (3, 1), (5, 1), (-1, -1), (-1, 1)] {
        assert!(
            slots.slot(index(x, z)).unwrap().items.is_empty(),
            "({x}, {z})"
        );
    }
    for (x, z) in [(1, -1), (1, 1)] {
        let v = slots.slot(index(x, z)).unwrap();
        assert!((v.y_base - 0.6).abs() < 1e-4, "{}", v.y_base);
        assert_eq!(v.items, vec![(0, 0xffff)]);
    }
    // the third row (z 3) untouched, byte for byte
    let (Some(levelgeom_xray::details::Slots::V3(a)), Some(levelgeom_xray::details::Slots::V3(b))) =
        (details.slots(), new.slots())
    else {
        panic!("version 3 slots");
    };
    assert_eq!(a[8..], b[8..]);
    // only the slots changed: the header and models are the same bytes
    let (old_b, new_b) = (details.to_bytes().unwrap(), new.to_bytes().unwrap());
    assert_eq!(old_b.len(), new_b.len());
    let slots_at = old_b.len() - 12 * 16;
    assert_eq!(old_b[..slots_at], new_b[..slots_at]);
}
