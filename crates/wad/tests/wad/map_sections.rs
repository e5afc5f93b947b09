//! MAP sections 3 and 4 typed: hand-written records read into the fields the game's loader
//! (ENG-RE `REVERSED/decompiled/sub_42AC50.c`) gives them, and written back byte for byte.

use levelgeom_binary::{Reader, Writer};
use levelgeom_wad::map::routes::routes;
use levelgeom_wad::map::{RouteNode, StratRecord};

/// Put `v` little-endian at `at`.
fn put(b: &mut [u8], at: usize, v: &[u8]) {
    b[at..at + v.len()].copy_from_slice(v);
}

#[test]
fn a_strat_record_reads_its_fields_at_the_loaders_offsets() {
    // every byte distinct (0x80 + i) so a field read from the wrong offset shows
    let mut b: Vec<u8> = (0..90u8).map(|i| 0x80 ^ i).collect();
    put(&mut b, 0x20, &8u32.to_le_bytes()); // flags: the loader's bit 3
    put(&mut b, 0x28, &0x1234u32.to_le_bytes()); // STPC script offset
    put(&mut b, 0x38, &0xBEEFu16.to_le_bytes());
    put(&mut b, 0x3a, &100i32.to_le_bytes()); // range_min
    put(&mut b, 0x3e, &(-6i32).to_le_bytes());
    put(&mut b, 0x42, &50i32.to_le_bytes()); // range_max[0] ≤ range_min[0]
    put(&mut b, 0x46, &7i32.to_le_bytes());
    put(&mut b, 0x56, &0xCAFE_F00Du32.to_le_bytes()); // the last field ends at byte 90
    let mut r = Reader::new(&b);
    let s = StratRecord::read(&mut r).unwrap();
    assert!(r.is_empty(), "90 bytes exactly");
    assert_eq!(s.unknown_0x00, 0x8382_8180);
    assert_eq!(s.unknown_0x1c, u32::from_le_bytes([0x9c, 0x9d, 0x9e, 0x9f]));
    assert_eq!(s.flags, 8);
    assert_eq!(s.script_offset, 0x1234);
    assert_eq!(s.unknown_0x38, 0xBEEF);
    assert_eq!(s.range_min, [100, -6]);
    assert_eq!(s.range_max, [50, 7]);
    // the loader's default: x + (x >> 1) per component (−6 >> 1 = −3 arithmetic)
    assert_eq!(s.effective_range_max(), [150, -9]);
    assert_eq!(s.unknown_0x4a, u32::from_le_bytes([0xca, 0xcb, 0xcc, 0xcd]));
    assert_eq!(s.unknown_0x52, u16::from_le_bytes([0xd2, 0xd3]));
    assert_eq!(s.unknown_0x54, u16::from_le_bytes([0xd4, 0xd5]));
    assert_eq!(s.unknown_0x56, 0xCAFE_F00D);
    let mut w = Writer::new();
    s.write(&mut w);
    assert_eq!(w.into_inner(), b);
}

#[test]
fn a_route_node_reads_links_rotation_and_position() {
    let mut b = [0u8; 34];
    put(&mut b, 0x00, &1u32.to_le_bytes()); // next: continues
    put(&mut b, 0x04, &0xDEAD_BEEFu32.to_le_bytes()); // prev word as stored
    put(&mut b, 0x08, &1u16.to_le_bytes());
    put(&mut b, 0x0a, &1024u16.to_le_bytes()); // yaw: a quarter turn
    put(&mut b, 0x0c, &3u16.to_le_bytes());
    put(&mut b, 0x0e, &(5 * 4096 + 2048i32).to_le_bytes()); // x = 5.5
    put(&mut b, 0x12, &4096i32.to_le_bytes()); // y = 1
    put(&mut b, 0x16, &(6 * 4096i32).to_le_bytes()); // game z = 6 → export z = −6
    put(&mut b, 0x1a, &0x0102_0304u32.to_le_bytes());
    put(&mut b, 0x1e, &0xA0B0_C0D0u32.to_le_bytes());
    let mut r = Reader::new(&b);
    let n = RouteNode::read(&mut r).unwrap();
    assert!(r.is_empty(), "34 bytes exactly");
    assert_eq!((n.next, n.prev), (1, 0xDEAD_BEEF));
    assert_eq!(n.rot, [1, 1024, 3]);
    assert_eq!(n.pos, [22528, 4096, 24576]);
    assert_eq!(n.export_position(), [5.5, 1.0, -6.0]);
    assert_eq!((n.unknown_0x1a, n.unknown_0x1e), (0x0102_0304, 0xA0B0_C0D0));
    let mut w = Writer::new();
    n.write(&mut w);
    assert_eq!(w.into_inner(), b.to_vec());
}

#[test]
fn routes_end_at_a_zero_next_word() {
    let node = |next| RouteNode {
        next,
        ..RouteNode::default()
    };
    // 0 → 1 → 2 end; 3 end alone; 4 → 5, chain cut by the end of the list
    let nodes = [node(1), node(5), node(0), node(0), node(1), node(1)];
    assert_eq!(routes(&nodes), vec![0..3, 3..4, 4..6]);
}

/// Where MAP section 4 starts in a MAP payload, counted by hand from the header's tile count
/// and the section counts (docs/formats/argonaut-wad.md §18.1–§18.5).
fn route_nodes_at(payload: &[u8]) -> usize {
    let u32_at = |p: usize| u32::from_le_bytes(payload[p..p + 4].try_into().unwrap()) as usize;
    let params = 12 + 24 * u32_at(0);
    let strats = params + 4 + 4 * u32_at(params);
    let nodes = strats + 4 + 90 * u32_at(strats);
    nodes + 4
}

#[test]
fn the_routes_level_stores_the_hand_chosen_routes() {
    use levelgeom_wad::generate::{routes_level, ROUTES_PARAMS};
    use levelgeom_wad::level::Level;
    use levelgeom_wad::tags::Tag;

    let (level, facts) = routes_level().unwrap();
    assert!(levelgeom_wad::check::check(&level).is_empty());
    let bytes = level.to_bytes().unwrap();
    let (back, warnings) = Level::read(&bytes).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(back.to_bytes().unwrap(), bytes, "rebuilds byte for byte");
    let map = back.map().unwrap();
    assert_eq!(map.params, ROUTES_PARAMS);
    assert_eq!(map.strat_records.len(), 3);
    assert_eq!(map.strat_records[0].script_offset, facts.modder.direct);
    assert_eq!(map.route_nodes.len(), 5);
    assert_eq!(routes(&map.route_nodes), vec![0..3, 3..5]);
    // the raw words of node 2 (route 0's last: export (7.5, 3, −7.5)), read from the file's
    // bytes at the offset counted by hand: next 0, yaw 2·512, position (7.5, 3, 7.5)·4096
    let chunk = back.chunk(Tag::MAP).unwrap();
    let payload = &bytes[chunk.offset.unwrap() + 8..];
    let node2 = route_nodes_at(payload) + 2 * 34;
    let word = |p: usize| i32::from_le_bytes(payload[p..p + 4].try_into().unwrap());
    assert_eq!(word(node2), 0, "next");
    assert_eq!(
        u16::from_le_bytes([payload[node2 + 10], payload[node2 + 11]]),
        1024
    );
    assert_eq!(
        [word(node2 + 14), word(node2 + 18), word(node2 + 22)],
        [30720, 12288, 30720]
    );
    assert_eq!(word(node2 - 34), 1, "node 1 continues the route");
}

#[test]
fn route_lines_and_strat_extras_in_the_objects_scene() {
    use levelgeom_scene::Topology;
    use levelgeom_wad::generate::routes_level;
    use levelgeom_wad::scene::{to_scene, SceneOptions};

    let (level, _) = routes_level().unwrap();
    for mirror_z in [false, true] {
        let s = to_scene(
            &level,
            &SceneOptions {
                objects: true,
                mirror_z,
                ..SceneOptions::default()
            },
        )
        .unwrap();
        let find = |name: &str| s.nodes.iter().find(|n| n.name == name).unwrap();
        let extra = |n: &levelgeom_scene::Node, k: &str| {
            n.extras
                .iter()
                .find(|(a, _)| a == k)
                .map(|(_, v)| v.clone())
        };
        let r0 = find("route_000");
        let p = &s.meshes[r0.mesh.unwrap()].primitives[0];
        assert_eq!(p.topology, Topology::Lines);
        assert_eq!(p.indices, vec![0, 1, 1, 2]);
        // 22528/4096 = 5.5, 8192/4096 = 2, game z 22528 → export z −5.5; …
        let sz = if mirror_z { -1.0 } else { 1.0 };
        assert_eq!(
            p.positions,
            vec![
                [5.5, 2.0, -5.5 * sz],
                [7.5, 2.0, -5.5 * sz],
                [7.5, 3.0, -7.5 * sz]
            ]
        );
        assert_eq!(extra(r0, "rotations").unwrap(), "0,0,0;1,512,0;2,1024,0");
        assert_eq!(extra(r0, "next").unwrap(), "1,1,0");
        assert_eq!(extra(r0, "objects").unwrap(), "1");
        let r1 = find("route_001");
        assert_eq!(extra(r1, "first_node").unwrap(), "3");
        assert_eq!(extra(r1, "objects").unwrap(), "2");
        // strat records: 0 names objects 0 and 3's definition, 2 names object 2's
        for (object, want) in [(0, Some("0")), (1, None), (2, Some("2")), (3, Some("0"))] {
            let o = find(&format!("map_object_{object:03}"));
            assert_eq!(
                extra(o, "strat_records").as_deref(),
                want,
                "object {object}"
            );
        }
        let o0 = find("map_object_000");
        assert_eq!(extra(o0, "strat_record_0.flags").unwrap(), "8");
        assert_eq!(extra(o0, "strat_record_0.range_min").unwrap(), "4096,8192");
    }
}

/// A MAP payload written by hand (docs/formats/argonaut-wad.md §5.12, WFPC 0): no tiles, a 1×1
/// grid, section 2 = `params`, no strat records, the route nodes given as `next` words (the
/// other 30 bytes 0), the 256-byte zone table and the one-cell grid 0, then the objects as
/// `(local_count, section2_index, section4_index)` (the other 52 bytes 0) and the final u16.
fn map_payload(params: &[u32], nexts: &[u32], objects: &[(u32, u32, u32)]) -> Vec<u8> {
    let mut b = Vec::new();
    let u32s = |b: &mut Vec<u8>, v: &[u32]| v.iter().for_each(|x| b.extend(x.to_le_bytes()));
    u32s(&mut b, &[0, 1, 1]); // N, W, H
    u32s(&mut b, &[params.len() as u32]);
    u32s(&mut b, params);
    u32s(&mut b, &[0]); // strat records
    u32s(&mut b, &[nexts.len() as u32]);
    for &next in nexts {
        u32s(&mut b, &[next]);
        b.extend([0u8; 30]); // prev, rot, pos, two unknown words
    }
    b.extend([0u8; 256]); // zone table
    u32s(&mut b, &[0]); // zone grid, one cell
    u32s(&mut b, &[objects.len() as u32, objects.len() as u32]);
    for &(count, s2, s4) in objects {
        b.extend([0u8; 22]); // rot, pos, script offset
        u32s(&mut b, &[count, s2, 0, 0, 0, 0, s4, 0]);
        b.extend([0u8; 4]); // flags, extra
    }
    b.extend([0u8; 2]); // final u16
    b
}

/// `check`'s rules for the objects' `section2_index` (with `local_count`) and `section4_index`,
/// as the game resolves them (ENG-RE `sub_42AC50.c`: `params + 4·index` and
/// `nodes + 0x30·index`, unchecked, the route walked to its end at load; `sub_54CFC0.c` /
/// `sub_54BFC0.c`: the spawn pops `local_count` words from there): on hand-written bytes,
/// section 2 = 3 words, section 4 = nodes with `next` 1, 0, 1 (node 2, the last, points
/// past the list).
#[test]
fn object_indices_are_checked_against_sections_2_and_4() {
    use levelgeom_binary::Severity;
    use levelgeom_wad::check::{check_parts, Parts};
    use levelgeom_wad::map::Map;

    const NONE: u32 = u32::MAX;
    let objects = [
        (2, 1, 0),       // 0: words 1..3, route 0..2: fine
        (2, 2, NONE),    // 1: words 2..4 of 3
        (1, NONE, NONE), // 2: a count without a list
        (0, 7, NONE),    // 3: past the list, but reads nothing
        (0, NONE, 3),    // 4: node 3 of 3
        (0, NONE, 2),    // 5: node 2's route runs past the list
        (0, 3, 1),       // 6: the empty range at the end; route 1..2: fine
    ];
    let bytes = map_payload(&[10, 20, 30], &[1, 0, 1], &objects);
    let mut r = Reader::new(&bytes);
    let map = Map::read(&mut r, 0, &[]).unwrap();
    assert!(r.is_empty(), "the hand-written payload reads to its end");
    assert_eq!(map.objects.len(), 7);
    // what the spawn reads for object 0: section 2 words 1 and 2
    let words = map.objects[0].params(map.params.len()).unwrap().unwrap();
    assert_eq!(map.params[words], [20, 30]);
    assert_eq!(map.objects[0].route(&map.route_nodes), Ok(Some(0..2)));
    let problems = check_parts(&Parts {
        wfpc: Some(0),
        map: Some(&map),
        ..Parts::default()
    });
    let got: Vec<(String, Severity, String)> = problems
        .iter()
        .map(|p| (p.path.clone(), p.severity, p.message.clone()))
        .collect();
    let error = Severity::Error;
    let want = [
        (
            "MAP/objects[1].section2_index",
            error,
            "2 + local_count 2 runs past section 2's 3 words",
        ),
        (
            "MAP/objects[2].section2_index",
            error,
            "is 0xFFFFFFFF (no parameters), but local_count is 1",
        ),
        (
            "MAP/objects[3].section2_index",
            Severity::Warning,
            "7 lies past section 2's 3 words; harmless while local_count is 0",
        ),
        (
            "MAP/objects[4].section4_index",
            error,
            "3 is not below section 4's 3 route nodes",
        ),
        (
            "MAP/objects[5].section4_index",
            error,
            "2 starts a route that reaches node 2, the last of section 4, whose next word is 1",
        ),
    ];
    assert_eq!(got.len(), want.len(), "{got:#?}");
    for ((path, sev, msg), (wpath, wsev, wmsg)) in got.iter().zip(want) {
        assert_eq!((path.as_str(), *sev), (wpath, wsev), "{msg}");
        assert!(msg.starts_with(wmsg), "{path}: {msg}");
    }
    assert_eq!(
        problems[3].to_string(),
        "MAP/objects[4].section4_index: 3 is not below section 4's 3 route nodes: loading the \
         level follows the links of a record outside the list"
    );
}
