//! `info`: the typed report, its text and its JSON.

use levelgeom_wad::container::RawWad;
use levelgeom_wad::{info, Level};

const INDEP: &[u8] = include_bytes!("../data/independent/indep.wad");

#[test]
fn json_of_the_independent_wad_has_the_container_walk() {
    let (level, warnings) = Level::read(INDEP).unwrap();
    let i = info(&level, "indep.wad", INDEP.len(), &warnings);
    let v = serde_json::to_value(&i).unwrap();
    let (raw, _) = RawWad::parse(INDEP).unwrap();
    let chunks = v["chunks"].as_array().unwrap();
    assert_eq!(chunks.len(), raw.chunks.len());
    for (j, c) in chunks.iter().zip(&raw.chunks) {
        assert_eq!(j["tag"], c.tag.name());
        assert_eq!(j["offset"], c.offset);
        assert_eq!(j["declared_size"], c.declared_size);
        assert_eq!(j["size"], c.payload.len());
        assert!(j["contents"].is_string());
    }
    assert_eq!(chunks[12]["tag"], "MAP ");
    assert_eq!(
        chunks[12]["contents"],
        "8×8 grid, 5 tiles, 1 tile swap, 2 objects"
    );
    assert_eq!(v["format"], "argonaut-wad");
    assert_eq!(v["file"], "indep.wad");
    assert_eq!(v["size"], INDEP.len());
    assert_eq!(v["header"]["value"], raw.header);
    assert_eq!(v["header"]["bias"], 0);
    assert_eq!(v["trailing_bytes"], 0);
    assert_eq!(v["level"]["grid"], serde_json::json!([8, 8]));
    assert_eq!(v["level"]["tiles"], 5);
    assert_eq!(v["level"]["trak_models"], 4);
    assert_eq!(v["level"]["stpc_models"], 2);
    assert_eq!(v["level"]["texture_pages"], 3);
    assert_eq!(v["level"]["texture_entries"], 7);
    assert_eq!(v["level"]["wfpc"], level.wfpc());
    assert_eq!(v["warnings"], serde_json::json!([]));
    // the MAP words as tools/fixtures/make_indep_wad.py writes them: TILES (tile 3 flagged),
    // SWAPS = [(3, 2048, 2, 1, 3)], VIEW_DISTANCE = 200, FINAL_U16 = 1
    assert_eq!(
        v["map"],
        serde_json::json!({
            "final_u16": 1,
            "pool_size": 200,
            "swaps": [{"cell": [3, 2048, 2], "model_a": 1, "model_b": 3, "tile": 3}],
            "tile_flags": [{"anim_flag": 1, "tile": 3}],
        })
    );
    // entry 4 of the independent WAD is its flat colour (make_indep_wad.py: flags bit 0,
    // R = 200, G = 100, B = 50, fourth byte 7)
    let entries = v["entries"].as_array().unwrap();
    assert_eq!(entries.len(), 7);
    assert_eq!(entries[4]["index"], 4);
    assert_eq!(
        entries[4]["flags"]["names"],
        serde_json::json!(["flat_colour"])
    );
    assert_eq!(entries[4]["rect"], serde_json::json!([200, 100, 50, 7]));
    let keys: Vec<&String> = v.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "chunks",
            "entries",
            "file",
            "format",
            "header",
            "level",
            "map",
            "size",
            "trailing_bytes",
            "warnings"
        ]
    );
}

#[test]
fn display_is_the_info_text() {
    let (level, warnings) = Level::read(INDEP).unwrap();
    let text = info(&level, "indep.wad", INDEP.len(), &warnings).to_string();
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(
        lines[0],
        "indep.wad: Argonaut level WAD (The Emperor's New Groove PC), 28775 bytes"
    );
    assert_eq!(lines[1], "header 0x00007063 (file size − 4 + 0)");
    assert_eq!(
        lines[2],
        "offset      tag     declared        size  contents"
    );
    assert_eq!(
        lines[13],
        "0x000060F5  TRAK        1412        1412  4 models, 21 vertices, 10 faces, 3 collision polygons"
    );
    assert_eq!(lines.len(), 3 + level.chunks.len());
    assert!(text.ends_with("end, 0 payload bytes\n"));
}

#[test]
fn trailing_bytes_and_warnings_are_reported() {
    let mut bytes = INDEP.to_vec();
    bytes.extend_from_slice(&[0xEE; 3]);
    let (level, warnings) = Level::read(&bytes).unwrap();
    let i = info(&level, "x.wad", bytes.len(), &warnings);
    assert_eq!(i.trailing_bytes, 3);
    assert_eq!(i.header.bias, -3);
    let text = i.to_string();
    assert!(text.contains("(file size − 4 − 3)"), "{text}");
    assert!(
        text.contains("\n3 bytes after END (kept verbatim)\n"),
        "{text}"
    );
    assert!(text.contains("\nwarning: at 0x"), "{text}");
}
