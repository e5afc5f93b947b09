//! `export --objects` routes and `replace --routes` on the generated routes level
//! (`generate::routes_level`: two routes with hand-chosen positions, strat records naming the
//! objects' definitions). Expected positions are computed here by hand from the generator's
//! fixed-point words; expected byte ranges from the MAP layout
//! (docs/formats/argonaut-wad.md §18.1–§18.5), counted on the WAD's own bytes.

use std::path::{Path, PathBuf};

use levelgeom_testkit::glb::Glb;
use levelgeom_wad::generate::routes_level;
use levelgeom_wad::level::Level;
use levelgeom_wad::tags::Tag;
use serde_json::Value;

use crate::common::{json, levelgeom, ok, s, write_wad};

fn routes_wad(dir: &Path) -> (PathBuf, Vec<u8>) {
    let (level, _) = routes_level().unwrap();
    write_wad(dir, "routes.wad", level.to_bytes().unwrap())
}

/// Absolute offset of route node `k` in the WAD: the MAP payload's section 4, counted by hand
/// from the header's tile count and the section counts.
fn route_node_offset(bytes: &[u8], k: usize) -> usize {
    let (level, _) = Level::read(bytes).unwrap();
    let base = level.chunk(Tag::MAP).unwrap().offset.unwrap() + 8;
    let u32_at = |p: usize| u32::from_le_bytes(bytes[base + p..base + p + 4].try_into().unwrap());
    let params = 12 + 24 * u32_at(0) as usize;
    let strats = params + 4 + 4 * u32_at(params) as usize;
    let nodes = strats + 4 + 90 * u32_at(strats) as usize;
    base + nodes + 4 + 34 * k
}

#[test]
fn route_lines_sit_at_hand_computed_positions() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, bytes) = routes_wad(dir.path());
    let out = dir.path().join("out");
    ok(&["export", s(&wad), s(&out), "--objects"]);
    // the stored words of node 0: x = 22528, y = 8192, z = 22528 (read from the file itself)
    let at = route_node_offset(&bytes, 0) + 14;
    let word = |p: usize| i32::from_le_bytes(bytes[p..p + 4].try_into().unwrap());
    assert_eq!([word(at), word(at + 4), word(at + 8)], [22528, 8192, 22528]);
    // export space by hand: (x, y, −z) / 4096
    let want0 = [[5.5f32, 2.0, -5.5], [7.5, 2.0, -5.5], [7.5, 3.0, -7.5]];
    let want1 = [[4.5f32, 2.5, -8.5], [8.5, 2.5, -8.5]];
    let glb = Glb::read(&out.join("objects.glb"));
    for (name, want) in [("route_000", &want0[..]), ("route_001", &want1[..])] {
        let node = glb.node(name);
        let m = node["mesh"].as_u64().unwrap() as usize;
        let prim = &glb.array("meshes")[m]["primitives"][0];
        assert_eq!(prim["mode"], 1, "{name}: LINES");
        let pos = glb.rows(prim["attributes"]["POSITION"].as_u64().unwrap() as usize);
        let want: Vec<Vec<f32>> = want.iter().map(|p| p.to_vec()).collect();
        assert_eq!(pos, want, "{name}");
        let (_, idx) = glb.indices(prim["indices"].as_u64().unwrap() as usize);
        let segs: Vec<u32> = (1..want.len() as u32).flat_map(|i| [i - 1, i]).collect();
        assert_eq!(idx, segs);
        assert!(node.get("matrix").is_none(), "{name}: identity");
    }
    let routes = glb.node("routes");
    assert_eq!(routes["children"].as_array().unwrap().len(), 2);
    assert_eq!(
        glb.node("route_000")["extras"]["rotations"],
        "0,0,0;1,512,0;2,1024,0"
    );
    assert_eq!(glb.node("map_object_002")["extras"]["strat_records"], "2");
    // OBJ: one `l` per segment, 3 for the two routes together
    let obj = std::fs::read_to_string(out.join("objects.obj")).unwrap();
    assert_eq!(obj.lines().filter(|l| l.starts_with("l ")).count(), 3);
    // routes.json: the stored words
    let doc: Value =
        serde_json::from_slice(&std::fs::read(out.join("routes.json")).unwrap()).unwrap();
    assert_eq!(
        doc["routes"][0]["nodes"][2]["position"],
        serde_json::json!([30720, 12288, 30720])
    );
    assert_eq!(doc["routes"][1]["first_node"], 3);
}

fn export_routes(dir: &Path) -> (PathBuf, Vec<u8>, Value) {
    let (wad, bytes) = routes_wad(dir);
    let out = dir.join("out");
    ok(&["export", s(&wad), s(&out), "--objects"]);
    let doc = serde_json::from_slice(&std::fs::read(out.join("routes.json")).unwrap()).unwrap();
    (wad, bytes, doc)
}

#[test]
fn an_edited_route_moves_only_its_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, bytes, mut doc) = export_routes(dir.path());
    // unchanged: the same bytes
    let same = dir.path().join("same.json");
    std::fs::write(&same, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let same_wad = dir.path().join("same.wad");
    ok(&["replace", s(&wad), s(&same_wad), "--routes", s(&same)]);
    assert_eq!(std::fs::read(&same_wad).unwrap(), bytes);
    // a routes.json with positions only (as written before rotations and links were in it)
    // keeps the stored rotations and links: the same bytes
    let mut positions_only = doc.clone();
    for route in positions_only["routes"].as_array_mut().unwrap() {
        for node in route["nodes"].as_array_mut().unwrap() {
            for key in ["rotation", "next", "prev"] {
                node.as_object_mut().unwrap().remove(key);
            }
        }
    }
    std::fs::write(&same, serde_json::to_vec_pretty(&positions_only).unwrap()).unwrap();
    let again = dir.path().join("again.wad");
    ok(&["replace", s(&wad), s(&again), "--routes", s(&same)]);
    assert_eq!(std::fs::read(&again).unwrap(), bytes);
    // node 3 (route 1's first) down to y = 1.5, node 1 to x = 6
    doc["routes"][1]["nodes"][0]["position"][1] = Value::from(6144);
    doc["routes"][0]["nodes"][1]["position"][0] = Value::from(6 * 4096);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let new_wad = dir.path().join("new.wad");
    let o = ok(&["replace", s(&wad), s(&new_wad), "--routes", s(&edited)]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("2 route node(s) moved"));
    let new = std::fs::read(&new_wad).unwrap();
    assert_eq!(new.len(), bytes.len());
    let differ: Vec<usize> = (0..new.len()).filter(|&i| new[i] != bytes[i]).collect();
    let y3 = route_node_offset(&bytes, 3) + 14 + 4;
    let x1 = route_node_offset(&bytes, 1) + 14;
    let allowed: Vec<usize> = (x1..x1 + 4).chain(y3..y3 + 4).collect();
    assert!(!differ.is_empty());
    assert!(
        differ.iter().all(|i| allowed.contains(i)),
        "bytes {differ:?} changed, only {allowed:?} may"
    );
    assert_eq!(&new[y3..y3 + 4], &6144i32.to_le_bytes());
    assert_eq!(&new[x1..x1 + 4], &24576i32.to_le_bytes());
    ok(&["check", s(&new_wad)]);
}

/// Rotations and links edited in routes.json: node 1 turned to (7, 600, 3) and its `next` set
/// to 0, which ends route 0 there and makes node 2 a route of its own. Only node 1's `next`
/// word and the rotation bytes that differ change (offsets from the MAP layout,
/// docs/formats/argonaut-wad.md §18.5: next at +0, rot at +8, +10, +12); the export reads
/// three routes back, and `check` stays clean (object 1's route, from node 0, now ends at
/// node 1).
#[test]
fn edited_rotations_and_links_change_only_their_words() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, bytes, mut doc) = export_routes(dir.path());
    let n1 = &mut doc["routes"][0]["nodes"][1];
    assert_eq!(
        n1["rotation"],
        serde_json::json!([1, 512, 0]),
        "as generated"
    );
    assert_eq!(
        (n1["next"].as_u64(), n1["prev"].as_u64()),
        (Some(1), Some(0))
    );
    n1["rotation"] = serde_json::json!([7, 600, 3]);
    n1["next"] = Value::from(0);
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let new_wad = dir.path().join("new.wad");
    let o = ok(&["replace", s(&wad), s(&new_wad), "--routes", s(&edited)]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("0 route node(s) moved, 1 turned, 1 relinked"),
        "{text}"
    );
    let new = std::fs::read(&new_wad).unwrap();
    assert_eq!(new.len(), bytes.len());
    let at = route_node_offset(&bytes, 1);
    // next 1 → 0: its first byte; rot[0] 1 → 7, rot[1] 512 → 600 (0x0200 → 0x0258: the low
    // byte), rot[2] 0 → 3
    let want = [(at, 0u8), (at + 8, 7), (at + 10, 0x58), (at + 12, 3)];
    let differ: Vec<(usize, u8)> = (0..new.len())
        .filter(|&i| new[i] != bytes[i])
        .map(|i| (i, new[i]))
        .collect();
    assert_eq!(differ, want);
    ok(&["check", s(&new_wad)]);
    let out = dir.path().join("again");
    ok(&["export", s(&new_wad), s(&out), "--objects"]);
    let back = json(&out.join("routes.json"));
    let firsts: Vec<u64> = back["routes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|r| r["first_node"].as_u64().unwrap())
        .collect();
    assert_eq!(firsts, [0, 2, 3], "route 0 split after node 1");
}

#[test]
fn a_bad_routes_json_is_located_and_refused() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _, doc) = export_routes(dir.path());
    let cases: Vec<(&str, Value, &str)> = vec![
        (
            "fraction",
            {
                let mut d = doc.clone();
                d["routes"][1]["nodes"][0]["position"][1] = Value::from(1.5);
                d
            },
            "$.routes[1].nodes[0].position[1]",
        ),
        (
            "too big",
            {
                let mut d = doc.clone();
                d["routes"][0]["nodes"][2]["position"][0] = Value::from(1i64 << 31);
                d
            },
            "$.routes[0].nodes[2].position[0]",
        ),
        (
            "route removed",
            {
                let mut d = doc.clone();
                d["routes"].as_array_mut().unwrap().pop();
                d
            },
            "$.routes",
        ),
        (
            "node added",
            {
                let mut d = doc.clone();
                let n = d["routes"][1]["nodes"][0].clone();
                d["routes"][1]["nodes"].as_array_mut().unwrap().push(n);
                d
            },
            "$.routes[1].nodes",
        ),
        (
            "wrong id",
            {
                let mut d = doc.clone();
                d["routes"][1]["id"] = Value::from(7);
                d
            },
            "$.routes[1].id",
        ),
        (
            "rotation past u16",
            {
                let mut d = doc.clone();
                d["routes"][0]["nodes"][0]["rotation"][0] = Value::from(65536);
                d
            },
            "$.routes[0].nodes[0].rotation[0]",
        ),
        (
            "negative link",
            {
                let mut d = doc.clone();
                d["routes"][0]["nodes"][0]["next"] = Value::from(-1);
                d
            },
            "$.routes[0].nodes[0].next",
        ),
        (
            // node 4 is the last of section 4: a non-zero next links past the list
            "next past the list",
            {
                let mut d = doc.clone();
                d["routes"][1]["nodes"][1]["next"] = Value::from(1);
                d
            },
            "$.routes[1].nodes[1].next",
        ),
        (
            // node 3 starts route 1 (node 2's next is 0): its prev is kept as a link
            "prev before a route",
            {
                let mut d = doc.clone();
                d["routes"][1]["nodes"][0]["prev"] = Value::from(5);
                d
            },
            "$.routes[1].nodes[0].prev",
        ),
    ];
    let replace_with = |f: &Path| {
        levelgeom(&[
            "replace",
            s(&wad),
            s(&dir.path().join("x.wad")),
            "--routes",
            s(f),
        ])
    };
    for (what, d, path) in cases {
        let f = dir.path().join(format!("{what}.json"));
        std::fs::write(&f, serde_json::to_vec_pretty(&d).unwrap()).unwrap();
        let o = replace_with(&f);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{what}: {err}");
        assert!(
            err.contains(path) && err.contains("at byte 0x"),
            "{what}: {err}"
        );
        assert!(
            !dir.path().join("x.wad").exists(),
            "{what}: nothing written"
        );
    }
    let f = dir.path().join("broken.json");
    std::fs::write(&f, b"{\"routes\": [ {\"id\": 0,, } ]}").unwrap();
    let o = replace_with(&f);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not JSON") && err.contains("$.routes[0]"),
        "{err}"
    );
}
