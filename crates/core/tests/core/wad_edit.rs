//! The WAD edit import (issue 23): an export of the full-size generated level, edited the way
//! Blender writes a GLB (node transforms on the exported nodes, one node gone, a new mesh as a
//! root of its own), imported back. What must hold comes from outside our writer:
//! * untouched tiles: the base's own records and models (compared with the base file);
//! * a moved tile: the probe heights of the base at the point the move maps there (glTF's
//!   rotation convention: +90° about +y takes (x, z) to (z, −x); docs/formats/argonaut-wad.md §15's placement turns by
//!   `[[cos, −sin], [sin, cos]]`, so that is yaw −1024 ≡ +3072);
//! * the new cube and the reshaped tile: heights computed by hand from the transform;
//! * `check` and the independent `tools/fixtures/check_wad.py` (with `--base`).

use std::path::Path;
use std::process::Command;

use levelgeom_core::{EngineOptions, ExportOptions, ImportOptions, LevelFile, WadOptions};
use levelgeom_testkit::glb::Glb;
use serde_json::{json, Value};

use crate::workspace;

/// Write a GLB from a JSON document and a BIN chunk (both padded to 4 bytes).
fn write_glb(path: &Path, json: &Value, bin: &[u8]) {
    let mut j = serde_json::to_vec(json).unwrap();
    while j.len() % 4 != 0 {
        j.push(b' ');
    }
    let mut b = bin.to_vec();
    while b.len() % 4 != 0 {
        b.push(0);
    }
    let total = 12 + 8 + j.len() + 8 + b.len();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"glTF");
    out.extend_from_slice(&2u32.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(j.len() as u32).to_le_bytes());
    out.extend_from_slice(b"JSON");
    out.extend_from_slice(&j);
    out.extend_from_slice(&(b.len() as u32).to_le_bytes());
    out.extend_from_slice(b"BIN\0");
    out.extend_from_slice(&b);
    std::fs::write(path, out).unwrap();
}

/// The GLB node index of the exported node of tile `t`.
fn node_of(glb: &Glb, t: usize) -> usize {
    glb.array("nodes")
        .iter()
        .position(|n| {
            n["extras"]["tile"].as_str().map(str::to_string) == Some(t.to_string())
                || n["extras"]["tile"].as_u64() == Some(t as u64)
        })
        .unwrap_or_else(|| panic!("no node for tile {t}"))
}

fn heights(l: &LevelFile, x: f32, z: f32) -> Vec<f32> {
    l.probe(x, z).unwrap().iter().map(|h| h.y).collect()
}

fn close(a: &[f32], b: &[f32], tol: f32) -> bool {
    a.len() == b.len() && a.iter().zip(b).all(|(p, q)| (p - q).abs() <= tol)
}

fn python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn an_edited_export_keeps_what_was_not_edited() {
    let bytes = crate::full_size_wad().to_vec();
    let base = levelgeom_core::open_bytes("full.wad", bytes.clone()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    base.export(
        &out,
        &ExportOptions {
            engine: EngineOptions {
                wad: Some(WadOptions {
                    collision: true,
                    ..WadOptions::default()
                }),
                ..EngineOptions::default()
            },
            ..ExportOptions::default()
        },
    )
    .unwrap();
    let glb_path = out.join("level.glb");

    // Unedited: the export imported back is the input, byte for byte (GLB and OBJ).
    for mesh in ["level.glb", "level.obj"] {
        let r = base
            .import(&out.join(mesh), &ImportOptions::default())
            .unwrap();
        assert_eq!(r.summary.mode, "edit", "{mesh}");
        assert!(
            r.bytes == bytes,
            "{mesh}: the unedited export changed the level"
        );
    }

    let wad = base.wad().unwrap();
    let map = wad.map().unwrap();
    let trak = wad.trak().unwrap();
    // island tiles with faces, one per cell, not the swap tile, away from each other
    let drawn: Vec<usize> = (0..map.tiles.len())
        .filter(|&t| {
            map.tiles[t].anim_flag == 0
                && !trak.models[map.model_indices[t] as usize].faces.is_empty()
        })
        .collect();
    assert!(drawn.len() > 60, "{} drawn tiles", drawn.len());
    let [up, step, turn, gone, reshaped, under_cube] = [5, 12, 20, 28, 36, 44].map(|k| drawn[k]);
    let centre = |t: usize| (map.tiles[t].pos[0], map.tiles[t].pos[2]);
    let cell = |t: usize| {
        (
            (map.tiles[t].pos[0]).floor() as i64,
            (-map.tiles[t].pos[2]).floor() as i64,
        )
    };
    // the step target (one cell +x) holds exactly one island tile, which stays
    let (sx, sz) = cell(step);
    let neighbour = (0..map.tiles.len())
        .find(|&t| cell(t) == (sx + 1, sz))
        .unwrap();
    for t in [up, turn, gone, reshaped, under_cube] {
        assert_ne!(t, neighbour);
    }

    // Edit the GLB as Blender writes it: transforms on the nodes, a node gone, a new root.
    let glb = Glb::read(&glb_path);
    let mut doc = glb.json.clone();
    let mut bin = glb.bin.clone();
    let set = |doc: &mut Value, t: usize, key: &str, v: Value| {
        doc["nodes"][node_of(&glb, t)][key] = v;
    };
    set(&mut doc, up, "translation", json!([0.0, 1.0, 0.0]));
    set(&mut doc, step, "translation", json!([1.0, 0.0, 0.0]));
    // +90° about +y about the tile's centre c: translation c − R·c, R(x, z) = (z, −x)
    let (cx, cz) = centre(turn);
    let s = std::f64::consts::FRAC_1_SQRT_2;
    set(&mut doc, turn, "rotation", json!([0.0, s, 0.0, s]));
    set(
        &mut doc,
        turn,
        "translation",
        json!([
            f64::from(cx) - f64::from(cz),
            0.0,
            f64::from(cz) + f64::from(cx)
        ]),
    );
    // reshaped: twice as high (scale 2 in y about y = 0)
    set(&mut doc, reshaped, "scale", json!([1.0, 2.0, 1.0]));
    // deleted: gone from the level's children (and so from the scene)
    let gone_node = node_of(&glb, gone) as u64;
    let level = doc["scenes"][0]["nodes"][0].as_u64().unwrap() as usize;
    let kids: Vec<Value> = doc["nodes"][level]["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v.as_u64() != Some(gone_node))
        .cloned()
        .collect();
    doc["nodes"][level]["children"] = Value::Array(kids);
    // a new cube, a root of its own (Shift+A: unparented), over the tile `under_cube`:
    // x, z inside the cell by 0.2, y from 2 to 3
    let (ux, uz) = centre(under_cube);
    let (x0, x1, z0, z1, y0, y1) = (ux - 0.3, ux + 0.3, uz - 0.3, uz + 0.3, 2.0f32, 3.0f32);
    let p = [
        [x0, y0, z0],
        [x1, y0, z0],
        [x1, y0, z1],
        [x0, y0, z1],
        [x0, y1, z0],
        [x1, y1, z0],
        [x1, y1, z1],
        [x0, y1, z1],
    ];
    // counter-clockwise seen from outside (+y top: 4 7 6, 4 6 5)
    let idx: [u16; 36] = [
        4, 7, 6, 4, 6, 5, // top
        0, 1, 2, 0, 2, 3, // bottom
        0, 4, 5, 0, 5, 1, // −z
        3, 2, 6, 3, 6, 7, // +z
        0, 3, 7, 0, 7, 4, // −x
        1, 5, 6, 1, 6, 2, // +x
    ];
    let pos_at = bin.len();
    p.iter()
        .flatten()
        .for_each(|f| bin.extend_from_slice(&f.to_le_bytes()));
    let idx_at = bin.len();
    idx.iter()
        .for_each(|i| bin.extend_from_slice(&i.to_le_bytes()));
    while bin.len() % 4 != 0 {
        bin.push(0);
    }
    doc["buffers"][0]["byteLength"] = json!(bin.len());
    let views = doc["bufferViews"].as_array_mut().unwrap();
    views.push(json!({"buffer": 0, "byteOffset": pos_at, "byteLength": 96}));
    views.push(json!({"buffer": 0, "byteOffset": idx_at, "byteLength": 72}));
    let nv = views.len();
    let acc = doc["accessors"].as_array_mut().unwrap();
    acc.push(
        json!({"bufferView": nv - 2, "componentType": 5126, "count": 8, "type": "VEC3",
        "min": [x0, y0, z0], "max": [x1, y1, z1]}),
    );
    acc.push(json!({"bufferView": nv - 1, "componentType": 5123, "count": 36, "type": "SCALAR"}));
    let na = acc.len();
    let meshes = doc["meshes"].as_array_mut().unwrap();
    meshes.push(json!({"name": "Cube", "primitives": [{"attributes": {"POSITION": na - 2}, "indices": na - 1}]}));
    let nm = meshes.len();
    let nodes = doc["nodes"].as_array_mut().unwrap();
    nodes.push(json!({"name": "Cube", "mesh": nm - 1}));
    let cube_node = nodes.len() - 1;
    doc["scenes"][0]["nodes"]
        .as_array_mut()
        .unwrap()
        .push(json!(cube_node));
    let edited = out.join("level.glb");
    write_glb(&edited, &doc, &bin);

    let r = base.import(&edited, &ImportOptions::default()).unwrap();
    let e = r.summary.edit.clone().expect("an edit");
    let text = r.summary.to_string();
    assert_eq!(e.removed, [gone], "{text}");
    assert_eq!(e.reshaped, [reshaped], "{text}");
    assert!(e.recut.is_empty(), "{text}");
    assert_eq!(e.new_nodes, ["Cube"], "{text}");
    let moved: Vec<(usize, [f32; 3], u32)> =
        e.moved.iter().map(|m| (m.tile, m.to, m.rot_to)).collect();
    let a = |t: usize| map.tiles[t];
    assert_eq!(
        moved,
        [
            (up, [a(up).pos[0], 1.0, a(up).pos[2]], a(up).rot),
            (
                step,
                [a(step).pos[0] + 1.0, 0.0, a(step).pos[2]],
                a(step).rot
            ),
            (turn, a(turn).pos, (a(turn).rot + 3072) % 4096),
        ],
        "{text}"
    );
    assert_eq!(e.swaps_kept.len(), 1, "{text}");
    assert!(e.swaps_dropped.is_empty());
    // swap.glb beside level.glb, unedited
    assert!(e.swap_edits_ignored.is_empty(), "{text}");
    assert!(
        r.collision_from.contains("not edited"),
        "{}",
        r.collision_from
    );
    assert_eq!(r.summary.zones, "kept");

    let new = levelgeom_core::open_bytes("edited.wad", r.bytes.clone()).unwrap();
    assert!(
        new.check().problems.is_empty(),
        "{:?}",
        new.check().problems
    );
    let nw = new.wad().unwrap();
    let nmap = nw.map().unwrap();
    let ntrak = nw.trak().unwrap();

    // every untouched tile: records A and B, model index, colour block; its model
    let edited_tiles = [up, step, turn, gone, reshaped];
    let mut ni = 0usize;
    for t in 0..map.tiles.len() {
        if t == gone || t == reshaped {
            continue;
        }
        if !edited_tiles.contains(&t) {
            assert_eq!(nmap.tiles[ni], map.tiles[t], "tile {t} A");
            assert_eq!(nmap.transforms[ni], map.transforms[t], "tile {t} B");
            assert_eq!(nmap.colours[ni], map.colours[t], "tile {t} colours");
        } else {
            // moved: same model, same colours, a new placement
            assert_eq!(nmap.colours[ni], map.colours[t], "tile {t} colours");
        }
        assert_eq!(
            nmap.model_indices[ni], map.model_indices[t],
            "tile {t} model"
        );
        ni += 1;
    }
    assert_eq!(ni + e.added.len(), nmap.tiles.len());
    assert_eq!(
        &ntrak.models[..trak.models.len()],
        &trak.models[..],
        "base models"
    );
    assert_eq!(nmap.swaps, map.swaps, "swap list");
    assert_eq!(nmap.zones, map.zones, "zone table");
    assert_eq!(nmap.zone_grid, map.zone_grid, "zone grid");
    assert_eq!(
        (&nmap.params, &nmap.strat_records, &nmap.route_nodes),
        (&map.params, &map.strat_records, &map.route_nodes),
        "MAP sections 2–4"
    );
    assert_eq!(
        (
            &nmap.objects,
            nmap.max_objects,
            &nmap.chains,
            nmap.view_distance
        ),
        (
            &map.objects,
            map.max_objects,
            &map.chains,
            map.view_distance
        ),
        "MAP after the colour blocks"
    );

    // probes: the raised tile one unit up, nothing at the old heights
    let (x, z) = centre(up);
    let before = heights(&base, x, z);
    assert!(!before.is_empty());
    let raised: Vec<f32> = before.iter().map(|h| h + 1.0).collect();
    assert!(
        close(&heights(&new, x, z), &raised, 1e-4),
        "{:?} {:?}",
        heights(&new, x, z),
        before
    );
    // the stepped tile: gone from its cell, its floors in the next cell beside the neighbour's
    let (x, z) = (centre(step).0 + 0.2, centre(step).1 - 0.1);
    assert!(heights(&new, x, z).is_empty(), "{:?}", new.probe(x, z));
    let mut want = heights(&base, x, z);
    want.extend(heights(&base, x + 1.0, z));
    want.sort_by(|a, b| b.total_cmp(a));
    assert!(close(&heights(&new, x + 1.0, z), &want, 1e-4));
    // the turned tile: the height at c + R(d) is the old height at c + d
    let (cx, cz) = centre(turn);
    for (dx, dz) in [(0.3f32, 0.2f32), (-0.25, 0.35), (0.1, -0.4)] {
        let old = heights(&base, cx + dx, cz + dz);
        let now = heights(&new, cx + dz, cz - dx);
        assert!(
            close(&now, &old, 1e-3),
            "turned at ({dx}, {dz}): {now:?} vs {old:?}"
        );
    }
    // the deleted tile: nothing
    let (x, z) = centre(gone);
    assert!(new.probe(x, z).unwrap().is_empty());
    // the reshaped tile: its top twice as high, with the old surface's material and group
    let (x, z) = (centre(reshaped).0 + 0.13, centre(reshaped).1 - 0.21);
    let old = base.probe(x, z).unwrap();
    let now = new.probe(x, z).unwrap();
    assert!(
        (now[0].y - 2.0 * old[0].y).abs() < 0.01,
        "{now:?} vs {old:?}"
    );
    assert_eq!(
        (now[0].material, now[0].group),
        (old[0].material, old[0].group)
    );
    // the new cube: its top is the highest floor over the tile under it, which stays
    let (x, z) = centre(under_cube);
    let hits = new.probe(x, z).unwrap();
    assert!((hits[0].y - 3.0).abs() < 0.005, "{hits:?}");
    let rest: Vec<f32> = hits
        .iter()
        .filter(|h| !e.added.contains(&h.tile))
        .map(|h| h.y)
        .collect();
    assert!(close(&rest, &heights(&base, x, z), 1e-4));

    if !python() {
        levelgeom_testkit::tool_missing(
            "python3 (the independent checker tools/fixtures/check_wad.py)",
        );
        return;
    }
    let file = tmp.path().join("edited.wad");
    std::fs::write(&file, &r.bytes).unwrap();
    let base_file = tmp.path().join("full.wad");
    std::fs::write(&base_file, &bytes).unwrap();
    let o = Command::new("python3")
        .arg(workspace("tools/fixtures/check_wad.py"))
        .arg(&file)
        .arg("--base")
        .arg(&base_file)
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "check_wad.py: {}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn an_edited_collision_object_replaces_only_its_material_and_group() {
    let bytes = levelgeom_core::demo_bytes(false).unwrap();
    let base = levelgeom_core::open_bytes("demo.wad", bytes).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    base.export(
        &out,
        &ExportOptions {
            engine: EngineOptions {
                wad: Some(WadOptions {
                    collision: true,
                    ..WadOptions::default()
                }),
                ..EngineOptions::default()
            },
            ..ExportOptions::default()
        },
    )
    .unwrap();
    // the water plane (material 0x1E = 30, group 0) raised by one unit in collision.glb
    let path = out.join("collision.glb");
    let glb = Glb::read(&path);
    let mut doc = glb.json.clone();
    let water = glb
        .array("nodes")
        .iter()
        .position(|n| n["name"] == "mat30_grp0")
        .expect("a water collision object");
    doc["nodes"][water]["translation"] = json!([0.0, 1.0, 0.0]);
    write_glb(&path, &doc, &glb.bin);
    // and the swap alternative in swap.glb raised: reported, not imported
    let path = out.join("swap.glb");
    let glb = Glb::read(&path);
    let mut doc = glb.json.clone();
    let alt = glb
        .array("nodes")
        .iter()
        .position(|n| n["name"].as_str().is_some_and(|s| s.ends_with("_swap")))
        .expect("a swap alternative");
    doc["nodes"][alt]["translation"] = json!([0.0, 0.5, 0.0]);
    write_glb(&path, &doc, &glb.bin);

    let r = base
        .import(&out.join("level.glb"), &ImportOptions::default())
        .unwrap();
    let e = r.summary.edit.clone().unwrap();
    assert_eq!(e.collision_edited, ["mat30_grp0"], "{}", r.summary);
    assert_eq!(
        e.swap_edits_ignored,
        [glb.array("nodes")[alt]["name"].as_str().unwrap()],
        "{}",
        r.summary
    );
    assert_eq!(e.swaps_kept.len(), 1);
    let wad = base.wad().unwrap();
    let new = levelgeom_core::open_bytes("new.wad", r.bytes.clone()).unwrap();
    assert_eq!(
        new.wad().unwrap().map().unwrap().swaps,
        wad.map().unwrap().swaps
    );
    assert!(e.removed.is_empty() && e.moved.is_empty() && e.reshaped.is_empty());
    let new = levelgeom_core::open_bytes("new.wad", r.bytes).unwrap();
    assert!(
        new.check().problems.is_empty(),
        "{:?}",
        new.check().problems
    );
    let wad = base.wad().unwrap();
    let map = wad.map().unwrap();
    let water_tile = (0..map.tiles.len())
        .find(|&t| map.model_indices[t] == 0)
        .unwrap();
    let island_tile = (0..map.tiles.len())
        .find(|&t| map.model_indices[t] >= 2)
        .unwrap();
    let at = |t: usize| (map.tiles[t].pos[0] + 0.1, map.tiles[t].pos[2] - 0.2);
    let (x, z) = at(water_tile);
    assert_eq!(heights(&base, x, z), [-2.75]);
    let now = heights(&new, x, z);
    assert!(close(&now, &[-1.75], 0.005), "{now:?}");
    let (x, z) = at(island_tile);
    assert_eq!(heights(&new, x, z), heights(&base, x, z));
    // the material and group survive the replacement
    let hit = &new.probe(at(water_tile).0, at(water_tile).1).unwrap()[0];
    assert_eq!((hit.material, hit.group), (30, 0));
}

#[test]
fn a_deleted_swap_tile_drops_its_swap_record() {
    let bytes = levelgeom_core::demo_bytes(false).unwrap();
    let base = levelgeom_core::open_bytes("demo.wad", bytes.clone()).unwrap();
    let map = base.wad().unwrap().map().unwrap().clone();
    let swap_tile = (0..map.tiles.len())
        .find(|&t| map.tiles[t].anim_flag != 0)
        .unwrap();
    assert_eq!(map.swaps.as_ref().map(Vec::len), Some(1));
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("out");
    base.export(&out, &ExportOptions::default()).unwrap();
    let path = out.join("level.glb");
    let glb = Glb::read(&path);
    let mut doc = glb.json.clone();
    let gone = node_of(&glb, swap_tile) as u64;
    let level = doc["scenes"][0]["nodes"][0].as_u64().unwrap() as usize;
    let kids: Vec<Value> = doc["nodes"][level]["children"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|v| v.as_u64() != Some(gone))
        .cloned()
        .collect();
    doc["nodes"][level]["children"] = Value::Array(kids);
    write_glb(&path, &doc, &glb.bin);
    let r = base.import(&path, &ImportOptions::default()).unwrap();
    let e = r.summary.edit.clone().unwrap();
    assert_eq!(e.removed, [swap_tile], "{}", r.summary);
    assert_eq!(e.swaps_dropped, [swap_tile]);
    assert!(e.swaps_kept.is_empty());
    // the alternative in swap.glb is as export wrote it: nothing to report
    assert!(e.swap_edits_ignored.is_empty());
    let new = levelgeom_core::open_bytes("new.wad", r.bytes.clone()).unwrap();
    assert!(
        new.check().problems.is_empty(),
        "{:?}",
        new.check().problems
    );
    let nmap = new.wad().unwrap().map().unwrap();
    assert_eq!(nmap.swaps.as_ref().map(Vec::len), Some(0));
    assert_eq!(nmap.tiles.len(), map.tiles.len() - 1);
    assert!(nmap.tiles.iter().all(|t| t.anim_flag == 0));
    let (x, z) = (map.tiles[swap_tile].pos[0], map.tiles[swap_tile].pos[2]);
    assert!(new.probe(x, z).unwrap().is_empty());
    if !python() {
        levelgeom_testkit::tool_missing(
            "python3 (the independent checker tools/fixtures/check_wad.py)",
        );
    } else {
        let file = tmp.path().join("new.wad");
        std::fs::write(&file, &r.bytes).unwrap();
        let base_file = tmp.path().join("demo.wad");
        std::fs::write(&base_file, &bytes).unwrap();
        let o = Command::new("python3")
            .arg(workspace("tools/fixtures/check_wad.py"))
            .arg(&file)
            .arg("--base")
            .arg(&base_file)
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "check_wad.py: {}{}",
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr)
        );
    }
}
