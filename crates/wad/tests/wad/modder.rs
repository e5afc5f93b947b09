//! The modder's level (`generate::modder_level`): MAP objects with STPC meshes where they
//! stand, lights in export space, the sine sound through PSX ADPCM. Expected values are
//! computed here by hand from the generator's inputs and the rules in the module docs of
//! `scene::objects` / `scene::lights` (not read back from the export).

use levelgeom_scene::{transform_point, LightKind, Scene};
use levelgeom_wad::generate::{self, MODDER_SINE};
use levelgeom_wad::level::{ChunkData, Level};
use levelgeom_wad::scene::{to_scene, SceneOptions};

fn modder() -> (Level, generate::ModderFacts) {
    generate::modder_level().unwrap()
}

fn objects_scene(level: &Level, mirror_z: bool) -> Scene {
    to_scene(
        level,
        &SceneOptions {
            objects: true,
            mirror_z,
            ..SceneOptions::default()
        },
    )
    .unwrap()
}

fn node(s: &Scene, name: &str) -> usize {
    s.nodes
        .iter()
        .position(|n| n.name == name)
        .unwrap_or_else(|| panic!("no node {name}"))
}

#[test]
fn the_modder_level_is_consistent_and_round_trips() {
    let (level, _) = modder();
    assert!(levelgeom_wad::check::check(&level).is_empty());
    let bytes = level.to_bytes().unwrap();
    let (back, warnings) = Level::read(&bytes).unwrap();
    assert!(warnings.is_empty(), "{warnings:?}");
    assert_eq!(back.to_bytes().unwrap(), bytes);
    // the demo itself is untouched by the modder's additions
    assert_eq!(
        generate::demo_level().unwrap(),
        generate::generate(&generate::LevelSpec::demo())
            .unwrap()
            .to_bytes()
            .unwrap()
    );
}

#[test]
fn mesh_references_follow_the_b2_rule() {
    let (level, f) = modder();
    let (payload, offsets) = level.stpc().unwrap().encode_with_model_offsets().unwrap();
    assert_eq!(offsets, f.model_offsets);
    assert_eq!(offsets[0], 4, "the first record follows the u32 count");
    let refs = levelgeom_wad::scene::objects::mesh_references(
        &payload,
        &offsets,
        &level.map().unwrap().objects,
    );
    let got: Vec<Vec<(usize, bool, usize)>> = refs
        .iter()
        .map(|v| {
            v.iter()
                .map(|r| (r.model, r.delegated, r.operand_offset))
                .collect()
        })
        .collect();
    // direct: opcode at direct + 4 (after one plain word); delegating → shared → totem
    let (d, s) = (f.direct as usize, f.shared as usize);
    assert_eq!(
        got,
        vec![
            vec![(0, false, d + 4)],
            vec![(1, true, s)],
            vec![],
            vec![(0, false, d + 4)]
        ]
    );
}

#[test]
fn objects_stand_at_their_map_positions_with_their_meshes() {
    let (level, _) = modder();
    let stpc = level.stpc().unwrap();
    for mirror in [false, true] {
        let s = objects_scene(&level, mirror);
        let root = s
            .roots
            .iter()
            .copied()
            .find(|&r| s.nodes[r].name == "objects");
        let root = root.expect("objects root");
        // the four objects, then the `routes` group (the demo's two one-node routes)
        let names: Vec<&str> = s.nodes[root]
            .children
            .iter()
            .map(|&c| s.nodes[c].name.as_str())
            .collect();
        assert_eq!(
            names,
            [
                "map_object_000",
                "map_object_001",
                "map_object_002",
                "map_object_003",
                "routes"
            ]
        );
        let w = s.world_matrices();
        let sz: f64 = if mirror { -1.0 } else { 1.0 };
        // (name, position, yaw in turns, mesh model or None for the marker)
        let cases: [(&str, [f64; 3], f64, Option<usize>); 4] = [
            ("map_object_000", [5.5, 1.0, -5.5], 0.25, Some(0usize)),
            ("map_object_001", [6.25, 1.5, -4.75], 0.0, Some(1)),
            ("map_object_002", [7.0, 0.5, -6.0], 0.0, None),
            ("map_object_003", [4.5, 1.25, -6.5], 0.125, Some(0)),
        ];
        let mut crate_meshes = Vec::new();
        for (name, pos, turns, model) in cases {
            let n = node(&s, name);
            let origin = transform_point(&w[n], [0.0; 3]);
            let want = [pos[0], pos[1], sz * pos[2]];
            for k in 0..3 {
                assert!(
                    (f64::from(origin[k]) - want[k]).abs() < 1e-6,
                    "{name} {origin:?}"
                );
            }
            let child = s.nodes[n].children[0];
            let Some(m) = model else {
                assert_eq!(s.nodes[child].name, format!("{name}_marker"));
                continue;
            };
            assert_eq!(s.nodes[child].name, format!("{name}_stpc_{m:03}"));
            if m == 0 {
                crate_meshes.push(s.nodes[child].mesh.unwrap());
            }
            // every model vertex, placed by hand: lx = vx, lz = −vz, turned by the yaw
            let a = turns * std::f64::consts::TAU;
            let (c, si) = (a.cos(), a.sin());
            let prim_pts: Vec<[f32; 3]> = s.meshes[s.nodes[child].mesh.unwrap()]
                .primitives
                .iter()
                .flat_map(|p| p.positions.iter().map(|&v| transform_point(&w[child], v)))
                .collect();
            for v in &stpc.models[m].vertices {
                let (lx, lz) = (f64::from(v.pos[0]), -f64::from(v.pos[2]));
                let x = pos[0] + lx * c - lz * si;
                let y = pos[1] + f64::from(v.pos[1]);
                let z = sz * (pos[2] + lx * si + lz * c);
                assert!(
                    prim_pts.iter().any(|p| (f64::from(p[0]) - x).abs() < 1e-5
                        && (f64::from(p[1]) - y).abs() < 1e-5
                        && (f64::from(p[2]) - z).abs() < 1e-5),
                    "{name}: no vertex at {x} {y} {z}"
                );
            }
        }
        assert_eq!(crate_meshes.len(), 2);
        assert_eq!(
            crate_meshes[0], crate_meshes[1],
            "one crate mesh, instanced"
        );
        let e = &s.nodes[node(&s, "map_object_001")].extras;
        let get = |k: &str| e.iter().find(|(a, _)| a == k).map(|(_, b)| b.as_str());
        assert_eq!(get("mesh_reference"), Some("delegated"));
        assert_eq!(get("stpc_models"), Some("1"));
        assert_eq!(
            get("u32_26"),
            Some("32768"),
            "spawn flags of the demo's objects"
        );
    }
}

#[test]
fn lights_are_punctual_lights_in_export_space() {
    let (level, _) = modder();
    for mirror in [false, true] {
        let s = objects_scene(&level, mirror);
        assert_eq!(s.lights.len(), 3);
        let w = s.world_matrices();
        let sz = if mirror { -1.0f32 } else { 1.0 };
        // light 0: type 1, vector (0.3, 1.0, 0.2) = the direction the light travels
        let n0 = node(&s, "light_000");
        assert!(matches!(s.lights[0].kind, LightKind::Directional));
        let l = (0.09f32 + 1.0 + 0.04).sqrt();
        let dir = [0.3 / l, 1.0 / l, sz * 0.2 / l];
        let m = &w[n0];
        for k in 0..3 {
            assert!((-m[8 + k] - dir[k]).abs() < 1e-6, "local −Z");
        }
        assert_eq!(s.lights[0].color, [1.0, 240.0 / 255.0, 224.0 / 255.0]);
        // light 1: type 2 at (10, 2, −10), outer radius 1.0
        let p = transform_point(&w[node(&s, "light_001")], [0.0; 3]);
        assert_eq!(p, [10.0, 2.0, sz * -10.0]);
        assert!(matches!(s.lights[1].kind, LightKind::Point));
        assert_eq!(s.lights[1].range, Some(1.0));
        // light 2: type 4, a point light marked negative
        let e = &s.nodes[node(&s, "light_002")].extras;
        assert!(e.contains(&("negative".into(), "true".into())));
        assert_eq!(s.lights[2].range, Some(5.0));
        // the lights are in the level tree (so they go into level.glb)
        let level_root = s.roots[0];
        assert_eq!(s.nodes[level_root].name, "level");
        assert!(s.nodes[level_root].children.contains(&n0));
    }
}

/// The sine survives encode → decode within the codec's error. The bound, by hand: a 440 Hz
/// sine at 22050 Hz has `|x_n − (122·x_{n−1} − 60·x_{n−2})/64| ≤ A·|1 − 1.906e^{−iω} +
/// 0.9375e^{−2iω}| ≈ 0.0178·A = 285` for A = 16000, so filter 4 with shift 6 (step 64,
/// nibbles up to ±7.5 steps = 480) fits every block after the first and keeps each sample
/// within 32; the first block starts from silence (x₁ ≈ 2000 with no history), so it needs
/// step 512 (error ≤ 256). The encoder keeps the smallest squared error per block, so its
/// noise energy is at most 28·256² + 2772·32², i.e. an RMS of 40.9 against the sine's
/// 16000/√2: SNR ≥ 20·log10(11314/40.9) = 48.8 dB.
#[test]
fn the_sine_survives_adpcm_within_the_codecs_error() {
    let (level, _) = modder();
    let smpc = level
        .chunks
        .iter()
        .find_map(|c| match &c.data {
            ChunkData::Smpc(s) => Some(s),
            _ => None,
        })
        .unwrap();
    let snd = &smpc.sounds[1];
    assert_eq!(snd.adpcm.len(), 100 * 16);
    assert_eq!(snd.header.unwrap().audio_bytes, 1600);
    let got = levelgeom_wad::adpcm::decode(&snd.adpcm);
    let want = generate::modder_sine();
    assert_eq!(got.len(), MODDER_SINE.3);
    let (mut sig, mut noise) = (0f64, 0f64);
    for (g, w) in got.iter().zip(&want) {
        sig += f64::from(*w).powi(2);
        noise += (f64::from(*g) - f64::from(*w)).powi(2);
    }
    let snr = 10.0 * (sig / noise).log10();
    eprintln!("sine through ADPCM: SNR {snr:.1} dB (bound 48.8)");
    assert!(snr >= 48.8, "SNR {snr:.1} dB");
    assert!(snr < 120.0, "suspiciously exact: {snr}");
}

/// The modder level's FONT metrics, stored where the table puts them, and `extract`'s
/// `font.json`: 'A' and 'i' carry the metrics chosen for them, 'B' the demo's; each names the
/// cell of the sheet where its pixels are. Expected values written by hand: glyph `c` names
/// texture entry 68 + c − 0x20 (64 page entries and 4 flat colours come first), a 14 × 16
/// rectangle at column (c − 0x20) % 16, row (c − 0x20) / 16 of the font page's 16-texel grid
/// (page 4); the sheet's cells are 14 × 16, so 'A' (0x41) is at x 14, y 4 × 16 = 64.
#[test]
fn font_metrics_are_stored_and_extracted_with_their_cells() {
    let (level, _) = modder();
    let bytes = level.to_bytes().unwrap();
    let (level, _) = Level::read(&bytes).unwrap();
    let at = level
        .payload_offset(levelgeom_wad::tags::Tag::FONT)
        .unwrap();
    let glyph = |c: usize| &bytes[at + 8 * c..at + 8 * c + 8];
    // u16 texture, y offset, advance, height, little-endian
    assert_eq!(glyph(0x41), [101, 0, 16, 0, 13, 0, 18, 0]);
    assert_eq!(glyph(0x69), [141, 0, 11, 0, 6, 0, 12, 0]);
    assert_eq!(glyph(0x42), [102, 0, 15, 0, 14, 0, 16, 0]);
    let f = level.font().unwrap();
    let a = f.glyphs[0x41];
    assert_eq!(
        (a.texture, a.y_offset, a.advance, a.height),
        (101, 16, 13, 18)
    );
    // "Ai B": 13 + 6 + 10 + 14
    assert_eq!(f.text_width(b"Ai B"), 43);

    let x = levelgeom_wad::extract::extract(&level, None).unwrap();
    let (_, json) = x.files.iter().find(|(n, _)| n == "font.json").unwrap();
    let doc: serde_json::Value = serde_json::from_slice(json).unwrap();
    assert_eq!(doc["sheet"], "font.png");
    assert_eq!(doc["cell"], serde_json::json!([14, 16]));
    let g = &doc["glyphs"];
    assert_eq!(g.as_array().unwrap().len(), 256);
    let want = |c: usize, ch: &str, m: [u64; 4], sheet: [u64; 4], rect: [u64; 4]| {
        let e = &g[c];
        assert_eq!(e["code"], c as u64);
        assert_eq!(e["char"], ch);
        let got = ["texture", "y_offset", "advance", "height"].map(|k| e[k].as_u64().unwrap());
        assert_eq!(got, m, "{ch}");
        assert_eq!(e["page"], 4, "{ch}");
        assert_eq!(e["rect"], serde_json::json!(rect), "{ch}");
        assert_eq!(e["sheet"], serde_json::json!(sheet), "{ch}");
    };
    // 'A': index 33 → column 1, row 2 of the page (u 16..29, v 32..47); sheet row 4
    want(
        0x41,
        "A",
        [101, 16, 13, 18],
        [14, 64, 14, 16],
        [16, 29, 32, 47],
    );
    // 'i': index 73 → column 9, row 4 (u 144..157, v 64..79); sheet column 9, row 6
    want(
        0x69,
        "i",
        [141, 11, 6, 12],
        [126, 96, 14, 16],
        [144, 157, 64, 79],
    );
    want(
        0x42,
        "B",
        [102, 15, 14, 16],
        [28, 64, 14, 16],
        [32, 45, 32, 47],
    );
    // the manifest's font item holds the same list
    let item = x.items.iter().find(|i| i["kind"] == "font").unwrap();
    assert_eq!(item["glyphs"], *g);
    assert_eq!(item["metrics"], "font.json");

    // the cell font.json names for 'A' holds the 'A' (drawn by hand here) at twice its size,
    // 2 texels in and 1 down
    let sheet = x.font.as_ref().unwrap();
    let [cx, cy] = [0, 1].map(|k| g[0x41]["sheet"][k].as_u64().unwrap() as u32);
    let rows = [
        "01110", "10001", "10001", "10001", "11111", "10001", "10001",
    ];
    let alpha = |x: u32, y: u32| sheet.rgba[((y * sheet.width + x) * 4 + 3) as usize];
    for (gy, row) in rows.iter().enumerate() {
        for (gx, bit) in row.bytes().enumerate() {
            let (x, y) = (cx + 2 + 2 * gx as u32, cy + 1 + 2 * gy as u32);
            assert_eq!(alpha(x, y) == 255, bit == b'1', "'A' at ({gx}, {gy})");
        }
    }
}

/// `info --json` names the flags of the texture entry the modder level appends: 0xA37E =
/// 0x2 cut-out, 0x4 padded border, 0x8 double width, 0x10 double height, 0x20 generated page,
/// 0x40 unknown, mode (0x300 >> 8) = 3, blend (0x2000 >> 12) = 2, 0x8000 unknown; a flat
/// colour entry (index 64 + 0) shows `flat_colour` only.
#[test]
fn info_names_the_texture_entry_flags() {
    let (level, facts) = modder();
    let bytes = level.to_bytes().unwrap();
    let (level, warnings) = Level::read(&bytes).unwrap();
    let v =
        serde_json::to_value(levelgeom_wad::info(&level, "m.wad", bytes.len(), &warnings)).unwrap();
    let e = &v["entries"][facts.flag_entry];
    assert_eq!(e["index"], facts.flag_entry);
    assert_eq!(e["flags"]["value"], 0xA37E);
    assert_eq!(
        e["flags"]["names"],
        serde_json::json!([
            "cutout",
            "padded_border",
            "double_width",
            "double_height",
            "generated_page"
        ])
    );
    assert_eq!(e["flags"]["mode"], 3);
    assert_eq!(e["flags"]["blend_mode"], 2);
    assert_eq!(e["flags"]["unknown"], 0x8040);
    assert_eq!(e["rect"], serde_json::json!([0, 63, 0, 63]));
    let flat = &v["entries"][64];
    assert_eq!(flat["flags"]["names"], serde_json::json!(["flat_colour"]));
    assert_eq!(flat["flags"]["unknown"], 0);
    // a plant entry (page 3, blend mode 1) has no single-bit flag
    let plant = &v["entries"][48];
    assert_eq!(plant["flags"]["names"], serde_json::json!([]));
    assert_eq!(plant["flags"]["blend_mode"], 1);
    assert_eq!(v["entries"].as_array().unwrap().len(), 68 + 95 + 1);
}
