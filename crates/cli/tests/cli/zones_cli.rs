//! `export --zones`, `render --zones`, `replace --zones` and the MAP words of `info --json` on
//! the zoned level (`generate::zoned_level`: the demo with a hand-chosen zone table and a
//! hand-drawn grid). Expected values are written out by hand here (masks, palette colours,
//! byte offsets from the MAP layout of docs/formats/argonaut-wad.md §5.12), never taken from
//! the exported files alone.

use std::path::{Path, PathBuf};

use levelgeom_testkit::glb::Glb;
use serde_json::Value;

use crate::common::{json, levelgeom, ok, rgba, s, write_wad, xray_fixture_dir};

fn zoned_wad(dir: &Path) -> (PathBuf, Vec<u8>) {
    let level = levelgeom_wad::generate::zoned_level().unwrap();
    write_wad(dir, "zoned.wad", level.to_bytes().unwrap())
}

/// The hand-drawn grid of the generator, read here on its own: `.` = 0, digits their zone.
fn drawn_grid() -> Vec<u64> {
    levelgeom_wad::generate::ZONED_GRID
        .iter()
        .flat_map(|r| r.chars())
        .map(|c| u64::from(c.to_digit(10).unwrap_or(0)))
        .collect()
}

fn pixel(img: &(u32, u32, Vec<u8>), x: u32, y: u32) -> [u8; 3] {
    let at = ((y * img.0 + x) * 4) as usize;
    [img.2[at], img.2[at + 1], img.2[at + 2]]
}

/// Where the zone table starts in the file: the MAP payload, then the header (12), N tile
/// records (24 each), params (u32 count + 3 × 4), doors (u32 count + 1 × 90) and waypoints
/// (u32 count + 2 × 34) of the demo's MAP (docs/formats/argonaut-wad.md §5.12).
fn zone_table_offset(wad: &Path) -> usize {
    let o = ok(&["info", s(wad), "--json"]);
    let info: Value = serde_json::from_slice(&o.stdout).unwrap();
    let map = info["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tag"] == "MAP ")
        .unwrap();
    let payload = map["offset"].as_u64().unwrap() as usize + 8;
    let n = info["level"]["tiles"].as_u64().unwrap() as usize;
    payload + 12 + 24 * n + (4 + 3 * 4) + (4 + 90) + (4 + 2 * 34)
}

fn differing(a: &[u8], b: &[u8]) -> Vec<usize> {
    assert_eq!(a.len(), b.len());
    (0..a.len()).filter(|&i| a[i] != b[i]).collect()
}

#[test]
fn export_zones_writes_the_hand_chosen_table_and_grid() {
    let t = tempfile::tempdir().unwrap();
    let (wad, _) = zoned_wad(t.path());
    let out = t.path().join("out");
    ok(&["export", s(&wad), s(&out), "--zones"]);
    let doc = json(&out.join("zones.json"));
    assert_eq!(doc["width"], 16);
    assert_eq!(doc["height"], 16);
    let zones = doc["zones"].as_array().unwrap();
    assert_eq!(zones.len(), 32);
    let want: [(usize, &[u64], i64); 8] = [
        (0, &[0, 1, 2], 0),
        (1, &[0, 1, 2], -11264), // −2.75 × 4096
        (2, &[1, 2, 3], 4096),
        (3, &[2, 3], 2048),
        (4, &[], 0),
        (5, &[5], 0),
        (7, &[7], 0),
        (31, &[31], -1),
    ];
    for (z, sees, height) in want {
        assert_eq!(zones[z]["zone"], z as u64, "zone {z}");
        let got: Vec<u64> = zones[z]["sees"]
            .as_array()
            .unwrap()
            .iter()
            .map(|v| v.as_u64().unwrap())
            .collect();
        assert_eq!(got, sees, "zone {z} sees");
        assert_eq!(zones[z]["height"], height, "zone {z} height");
    }
    let grid: Vec<u64> = doc["grid"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    assert_eq!(grid, drawn_grid());
    // hand-picked cells, x + 16·z
    assert_eq!(grid[5 + 16 * 5], 1);
    assert_eq!(grid[9 + 16 * 8], 3);
    assert_eq!(grid[12 + 16 * 7], 5);
    assert_eq!(grid[0], 7);
    // tiles stand in x 3..=12, z 3..=11 (the island and its two water rings)
    let tiles = doc["tiles"].as_array().unwrap();
    for z in 0..16u64 {
        for x in 0..16u64 {
            let want = u64::from((3..=12).contains(&x) && (3..=11).contains(&z));
            assert_eq!(
                tiles[(x + 16 * z) as usize],
                want,
                "tile in cell ({x}, {z})"
            );
        }
    }

    // the tiles' nodes carry their zone: tile 0 stands in cell (5, 5), tile 22 (island row 3,
    // column 4) in cell (9, 8)
    let glb = Glb::read(&out.join("level.glb"));
    let extra = |node: &str, key: &str| glb.node(node)["extras"][key].clone();
    assert_eq!(extra("tile_0000_m002", "zone"), "1");
    assert_eq!(extra("tile_0000_m002", "zone_colour"), "#3CB44B");
    assert_eq!(extra("tile_0000_m002", "anim_flag"), "0");
    assert_eq!(extra("tile_0022_m024", "zone"), "3");
    assert_eq!(extra("tile_0022_m024", "zone_colour"), "#4363D8");
    // tile 8 (island row 1, column 2: cell (7, 6)) is the swap tile
    assert_eq!(extra("tile_0008_m010", "anim_flag"), "1");
    assert_eq!(extra("tile_0008_m010", "zone"), "1");

    // zones.png: 8 × 8 pixels a cell, north (cell row 15) at the top
    let img = rgba(&out.join("zones.png"));
    assert_eq!((img.0, img.1), (128, 128));
    let at = |x: u32, z: u32| pixel(&img, x * 8 + 3, (15 - z) * 8 + 4);
    assert_eq!(at(5, 5), [0x3C, 0xB4, 0x4B], "zone 1, a tile");
    assert_eq!(at(9, 8), [0x43, 0x63, 0xD8], "zone 3, a tile");
    assert_eq!(at(12, 7), [0x91, 0x1E, 0xB4], "zone 5, a water tile");
    // no tile: zone 7 (0xF0, 0x32, 0xE6) × 0.35, truncated
    assert_eq!(at(0, 0), [84, 17, 80], "zone 7, no tile");
    // zone 0 (0xE6, 0x19, 0x4B): a tile at (3, 3), none at (15, 15)
    assert_eq!(at(3, 3), [0xE6, 0x19, 0x4B]);
    assert_eq!(at(15, 15), [80, 8, 26]);
}

#[test]
fn a_replaced_zone_table_or_grid_changes_only_its_bytes() {
    let t = tempfile::tempdir().unwrap();
    let (wad, before) = zoned_wad(t.path());
    let out = t.path().join("out");
    ok(&["export", s(&wad), s(&out), "--zones"]);
    let table = zone_table_offset(&wad);
    let original = json(&out.join("zones.json"));

    // the table: zone 3 now also sees zone 1 (mask 0b1100 → 0b1110), zone 4 gets height −2
    let mut doc = original.clone();
    doc["zones"][3]["sees"] = serde_json::json!([1, 2, 3]);
    doc["zones"][4]["height"] = serde_json::json!(-2);
    let edited = t.path().join("table.json");
    std::fs::write(&edited, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let new = t.path().join("table.wad");
    let o = ok(&["replace", s(&wad), "--zones", s(&edited), s(&new)]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("2 table entries and 0 grid cell(s) changed"),
        "{text}"
    );
    let after = std::fs::read(&new).unwrap();
    // zone 3's mask is the u32 at table + 3·8; zone 4's height the i32 at table + 4·8 + 4:
    // 0 → −2 = FE FF FF FF
    let mut want = vec![table + 24];
    want.extend(table + 36..table + 40);
    assert_eq!(differing(&before, &after), want);
    assert_eq!(after[table + 24], 0x0E);
    assert_eq!(&after[table + 36..table + 40], &[0xFE, 0xFF, 0xFF, 0xFF]);
    ok(&["check", s(&new)]);

    // the grid: cell (4, 10), a water tile in zone 0, goes to zone 2
    let mut doc = original.clone();
    doc["grid"][4 + 16 * 10] = serde_json::json!(2);
    let edited = t.path().join("grid.json");
    std::fs::write(&edited, serde_json::to_vec_pretty(&doc).unwrap()).unwrap();
    let new = t.path().join("grid.wad");
    ok(&["replace", s(&wad), "--zones", s(&edited), s(&new)]);
    let after = std::fs::read(&new).unwrap();
    let cell = table + 256 + 4 * (4 + 16 * 10);
    assert_eq!(differing(&before, &after), vec![cell]);
    assert_eq!(&after[cell..cell + 4], &[2, 0, 0, 0]);
    let o = ok(&["check", s(&new)]);
    assert!(String::from_utf8_lossy(&o.stdout).contains("no problems found"));
    // and it exports back as edited
    let again = t.path().join("again");
    ok(&["export", s(&new), s(&again), "--zones"]);
    assert_eq!(json(&again.join("zones.json"))["grid"], doc["grid"]);

    // the unedited JSON gives the same bytes back
    let same = t.path().join("same.wad");
    ok(&[
        "replace",
        s(&wad),
        "--zones",
        s(&out.join("zones.json")),
        s(&same),
    ]);
    assert_eq!(std::fs::read(&same).unwrap(), before);
}

#[test]
fn a_tile_cell_no_zone_sees_is_a_check_warning() {
    let t = tempfile::tempdir().unwrap();
    let (wad, _) = zoned_wad(t.path());
    let out = t.path().join("out");
    ok(&["export", s(&wad), s(&out), "--zones"]);
    // cell (6, 9), an island tile, into zone 9, which sees zone 1 only: no zone of the grid
    // has bit 9 (a mask of 0 would see all zones, itself included)
    let mut doc = json(&out.join("zones.json"));
    doc["grid"][6 + 16 * 9] = serde_json::json!(9);
    doc["zones"][9]["sees"] = serde_json::json!([1]);
    let edited = t.path().join("z.json");
    std::fs::write(&edited, serde_json::to_vec(&doc).unwrap()).unwrap();
    let new = t.path().join("unseen.wad");
    ok(&["replace", s(&wad), "--zones", s(&edited), s(&new)]);
    let o = levelgeom(&["check", s(&new)]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{text}");
    assert!(
        text.contains("warning: MAP/zone_grid[150]: cell (6, 9) holds tiles, but its zone 9"),
        "{text}"
    );
}

#[test]
fn malformed_zones_json_is_a_located_error() {
    let t = tempfile::tempdir().unwrap();
    let (wad, _) = zoned_wad(t.path());
    let out = t.path().join("out");
    ok(&["export", s(&wad), s(&out), "--zones"]);
    let doc = json(&out.join("zones.json"));
    let cases: Vec<(Value, &str)> = vec![
        (
            {
                let mut d = doc.clone();
                d["grid"][12] = serde_json::json!(40);
                d
            },
            "($.grid[12]): zone 40 is over 31",
        ),
        (
            {
                let mut d = doc.clone();
                d["zones"][3]["sees"] = serde_json::json!([2, 32]);
                d
            },
            "($.zones[3].sees[1]): zone 32 is over 31",
        ),
        (
            {
                let mut d = doc.clone();
                d["width"] = serde_json::json!(15);
                d
            },
            "the grid is 15×16, but the WAD's MAP grid is 16×16",
        ),
        (
            {
                let mut d = doc.clone();
                d["grid"].as_array_mut().unwrap().pop();
                d
            },
            "($.grid): 255 entries, but it needs 256",
        ),
        (
            {
                let mut d = doc.clone();
                d["zones"][2]["height"] = serde_json::json!(3e9);
                d
            },
            "($.zones[2].height): height is not a whole number in the i32 range",
        ),
        (
            {
                let mut d = doc.clone();
                d["zones"][5]["zone"] = serde_json::json!(6);
                d
            },
            "zone 6 listed at index 5",
        ),
    ];
    for (k, (d, want)) in cases.into_iter().enumerate() {
        let p = t.path().join(format!("bad{k}.json"));
        std::fs::write(&p, serde_json::to_vec_pretty(&d).unwrap()).unwrap();
        let new = t.path().join(format!("bad{k}.wad"));
        let o = levelgeom(&["replace", s(&wad), "--zones", s(&p), s(&new)]);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "case {k}: {err}");
        assert!(err.contains(want), "case {k}: {err}");
        assert!(err.contains("at byte 0x"), "case {k} names the byte: {err}");
        assert!(!new.exists(), "case {k} wrote no WAD");
    }
    // not JSON at all
    let p = t.path().join("broken.json");
    std::fs::write(&p, b"{\"width\": 16, \"grid\": [1, 2,, 3]}").unwrap();
    let o = levelgeom(&[
        "replace",
        s(&wad),
        "--zones",
        s(&p),
        s(&t.path().join("x.wad")),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("($.grid[") && err.contains("): not JSON"),
        "{err}"
    );
}

#[test]
fn render_zones_draws_tiles_in_their_zone_colour() {
    let t = tempfile::tempdir().unwrap();
    let (wad, _) = zoned_wad(t.path());
    let png = t.path().join("zones_top.png");
    ok(&[
        "render",
        s(&wad),
        s(&png),
        "--zones",
        "--view",
        "top",
        "--size",
        "400x300",
    ]);
    let img = rgba(&png);
    // the centre row crosses island row z = 7: zone 1 in cells x 5..=7, zone 2 in x 8..=10
    let y = img.1 / 2;
    let bg = [158, 178, 200];
    let xs: Vec<u32> = (0..img.0).filter(|&x| pixel(&img, x, y) != bg).collect();
    let (xl, xr) = (xs[0], *xs.last().unwrap());
    let width = xr - xl;
    // shading scales a colour (AMBIENT + DIFFUSE · n·l), so the channel ratios of the palette
    // colour stay: zone 1 (0x3C, 0xB4, 0x4B) has g/r = 3, b/r = 1.25; zone 2 (0xFF, 0xE1,
    // 0x19) has g/r = 0.88, b/r = 0.1
    let ratios = |p: [u8; 3]| {
        let r = f32::from(p[0]).max(1.0);
        (f32::from(p[1]) / r, f32::from(p[2]) / r)
    };
    let near = |got: (f32, f32), want: (f32, f32)| {
        (got.0 - want.0).abs() < 0.15 * want.0 && (got.1 - want.1).abs() < 0.15 * want.1 + 0.05
    };
    let west = pixel(&img, xl + width / 6, y);
    let east = pixel(&img, xr - width / 6, y);
    assert!(near(ratios(west), (3.0, 1.25)), "west {west:?}");
    assert!(near(ratios(east), (0.88, 0.1)), "east {east:?}");
}

#[test]
fn info_json_shows_the_tile_flag_swap_words_and_final_words() {
    let t = tempfile::tempdir().unwrap();
    let (wad, _) = zoned_wad(t.path());
    let o = ok(&["info", s(&wad), "--json"]);
    let info: Value = serde_json::from_slice(&o.stdout).unwrap();
    let map = &info["map"];
    assert_eq!(map["final_u16"], 0);
    assert_eq!(map["pool_size"], 200);
    // island tile 8 (cell (7, 6), model 2 + 8) is the one swap tile; its record names that
    // cell, y 0, model A 10 and the bridge model 1
    assert_eq!(
        map["tile_flags"],
        serde_json::json!([{"anim_flag": 1, "tile": 8}])
    );
    assert_eq!(
        map["swaps"],
        serde_json::json!([{"cell": [7, 0, 6], "model_a": 10, "model_b": 1, "tile": 8}])
    );
}

#[test]
fn zones_options_are_refused_for_an_xray_level() {
    let t = tempfile::tempdir().unwrap();
    let dir = xray_fixture_dir();
    let o = levelgeom(&["export", s(&dir), s(&t.path().join("out")), "--zones"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--zones"), "{err}");
    let o = levelgeom(&["render", s(&dir), s(&t.path().join("x.png")), "--zones"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--zones"), "{err}");
}
