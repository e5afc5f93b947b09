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

use crate::common::{levelgeom, ok, s, write_wad};

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
    ];
    for (what, d, path) in cases {
        let f = dir.path().join(format!("{what}.json"));
        std::fs::write(&f, serde_json::to_vec_pretty(&d).unwrap()).unwrap();
        let o = levelgeom(&[
            "replace",
            s(&wad),
            s(&dir.path().join("x.wad")),
            "--routes",
            s(&f),
        ]);
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
    let o = levelgeom(&[
        "replace",
        s(&wad),
        s(&dir.path().join("x.wad")),
        "--routes",
        s(&f),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("not JSON") && err.contains("$.routes[0]"),
        "{err}"
    );
}
