//! Exports keep their bytes: every export file of the demo level (with `--collision
//! --objects`, and plain), the independent WAD (`--collision --objects`) and the X-Ray fixture
//! has the SHA-256 and size pinned in `tests/data/before/exports.sha256` (`sha256 size relpath`
//! per line, read and re-recorded by `levelgeom_testkit::pins`: `LEVELGEOM_RECORD_PINS=1`). The hashes pin the current conventions — linear glTF colours (`COLOR_n` through
//! the sRGB curve), one GLB and one OBJ per root (`level`, `collision`, `swap`, `objects`),
//! `level.glb` holding only the level tree — and were last regenerated on purpose for issue 15
//! (WAD: `level.glb` gained the LGHT lights (`KHR_lights_punctual`) and `lights.json` is new,
//! `objects.*` are now the MAP objects in place and the old side-by-side layout is
//! `objects_catalogue.*`, same bytes as the old `objects.*` but for the root/file name) and
//! issue 13 (the X-Ray fixture's three files: each visual's node at its own centre, `level`
//! root with `lights` and `glows`, materials named after their texture, new node and material
//! extras), and for issue 12 (the PNG pages deflated at zlib level 1: every `page_NN.png` and
//! the GLBs that embed them changed bytes; `tests/data/before/pages.sha256` pins the SHA-256 of
//! the decoded RGBA pixels of every page file and every GLB-embedded image, taken from the
//! level-6 exports before the change with an independent decoder (Python's `zlib` + the PNG
//! unfilter), and [`pages_decode_to_the_pixels_pinned_before`] checks them); a change of the
//! output must be deliberate and regenerate them. Issue 26 item 18 regenerated the demo's
//! (`demo/` and `demo_plain/`): the demo gained a font page (`page_04.png`, embedded in
//! `level.glb` as image 4; its pixels' SHA-256 in `pages.sha256` computed by the same
//! independent Python decoder, and equal to this test's), which moves every chunk after TEXT
//! by 15,556 bytes (`lights.json` names the LGHT offset); no other export file changed. Issue 29 regenerated the `objects.*` files of the demo and the independent WAD (`export --objects` gained the `routes` group from MAP section 4) and added their `routes.json`; then the demo's section 3/4 bytes, which were filler (0, 1, …, 89 and 34 × 0, 34 × 1), became one strat record naming object 0's script and a two-node route across the island that object 1 starts on, which changed the demo's `objects.*` and `routes.json` again; no level, collision or page file changed. Then `routes.json` gained each node's `rotation`, `next` and `prev` (the words `replace --routes` takes back since): the demo's and the independent WAD's `routes.json` changed, nothing else. `info --json` keeps every key and value it had when the CLI still held the engine glue
//! (new keys may be added; the X-Ray chunk list changed on purpose).

use std::path::Path;

use levelgeom_core::{EngineOptions, ExportOptions, WadOptions};
use levelgeom_testkit::pins::{sha256_hex as hex, Pins};
use serde_json::Value;

use crate::{fixture, indep_wad};

fn pins(file: &str) -> Pins {
    Pins::load(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data/before")
            .join(file),
    )
}

fn wad_all() -> ExportOptions {
    ExportOptions {
        engine: EngineOptions {
            wad: Some(WadOptions {
                collision: true,
                objects: true,
                objects_catalogue: true,
                mirror_z: false,
                zones: false,
            }),
            ..EngineOptions::default()
        },
        ..ExportOptions::default()
    }
}

/// The WAD exports pinned: the demo with `--collision --objects` and plain, the independent WAD.
fn wad_runs() -> Vec<(&'static str, levelgeom_core::LevelFile, ExportOptions)> {
    vec![
        ("demo", levelgeom_core::demo(), wad_all()),
        (
            "demo_plain",
            levelgeom_core::demo(),
            ExportOptions::default(),
        ),
        (
            "indep",
            levelgeom_core::open(&indep_wad()).unwrap(),
            wad_all(),
        ),
    ]
}

#[test]
fn exports_are_byte_identical_to_the_pinned_hashes() {
    let mut pins = pins("exports.sha256");
    let tmp = tempfile::tempdir().unwrap();
    let mut runs = wad_runs();
    runs.push((
        "xray",
        levelgeom_core::open(&fixture()).unwrap(),
        ExportOptions::default(),
    ));
    for (name, level, opts) in runs {
        let dir = tmp.path().join(name);
        let report = level.export(&dir, &opts).unwrap();
        for (path, _) in &report.files {
            let file = path.file_name().unwrap().to_string_lossy();
            let bytes = std::fs::read(dir.join(&*file)).unwrap();
            pins.check(&format!("{name}/{file}"), &bytes);
        }
    }
    assert!(pins.finish() > 0, "no export file compared");
}

/// The images of a GLB: (index, PNG bytes) from its JSON's `images[].bufferView`.
fn glb_images(glb: &[u8]) -> Vec<(usize, Vec<u8>)> {
    let u32_at = |o: usize| u32::from_le_bytes(glb[o..o + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json: Value = serde_json::from_slice(&glb[20..20 + json_len]).unwrap();
    let bin = 20 + json_len + 8;
    let views = json["bufferViews"].as_array().cloned().unwrap_or_default();
    let images = json["images"].as_array().cloned().unwrap_or_default();
    images
        .iter()
        .enumerate()
        .map(|(i, im)| {
            let view = &views[im["bufferView"].as_u64().unwrap() as usize];
            let off = bin + view["byteOffset"].as_u64().unwrap_or(0) as usize;
            let len = view["byteLength"].as_u64().unwrap() as usize;
            (i, glb[off..off + len].to_vec())
        })
        .collect()
}

/// `(SHA-256 of the RGBA8 pixels, "WxH")` of a PNG.
fn png_pixels(png: &[u8]) -> (String, String) {
    let mut reader = png::Decoder::new(std::io::Cursor::new(png))
        .read_info()
        .unwrap();
    let mut px = vec![0; reader.output_buffer_size().unwrap()];
    let info = reader.next_frame(&mut px).unwrap();
    assert_eq!(
        (info.color_type, info.bit_depth),
        (png::ColorType::Rgba, png::BitDepth::Eight)
    );
    px.truncate(info.buffer_size());
    (hex(&px), format!("{}x{}", info.width, info.height))
}

#[test]
fn pages_decode_to_the_pixels_pinned_before() {
    let mut pins = pins("pages.sha256");
    let tmp = tempfile::tempdir().unwrap();
    for (name, level, opts) in wad_runs() {
        let dir = tmp.path().join(name);
        let report = level.export(&dir, &opts).unwrap();
        for (path, _) in &report.files {
            let file = path.file_name().unwrap().to_string_lossy().into_owned();
            let bytes = std::fs::read(dir.join(&file)).unwrap();
            if file.ends_with(".png") {
                let (h, size) = png_pixels(&bytes);
                pins.check_hash(&format!("{name}/{file}"), h, size);
            } else if file.ends_with(".glb") {
                for (i, png) in glb_images(&bytes) {
                    let (h, size) = png_pixels(&png);
                    pins.check_hash(&format!("{name}/{file}#image{i}"), h, size);
                }
            }
        }
    }
    assert!(pins.finish() > 0, "no page compared");
}

/// Every key of `old` is in `new` with the same value (objects compared recursively).
fn contains(new: &Value, old: &Value, at: &str) {
    match (new, old) {
        (Value::Object(n), Value::Object(o)) => {
            for (k, v) in o {
                let nv = n.get(k).unwrap_or_else(|| panic!("{at}/{k} is gone"));
                contains(nv, v, &format!("{at}/{k}"));
            }
        }
        (Value::Array(n), Value::Array(o)) => {
            assert_eq!(n.len(), o.len(), "length of {at}");
            for (i, (a, b)) in n.iter().zip(o).enumerate() {
                contains(a, b, &format!("{at}[{i}]"));
            }
        }
        _ => assert_eq!(new, old, "{at}"),
    }
}

#[test]
fn info_json_keeps_every_key_and_value() {
    let data = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/before");
    let demo = levelgeom_core::open_bytes("demo.wad", levelgeom_core::demo_bytes(false).unwrap());
    let cases = [
        ("info_demo.wad.json", demo.unwrap()),
        (
            "info_indep.wad.json",
            levelgeom_core::open(&indep_wad()).unwrap(),
        ),
        (
            "info_level.json",
            levelgeom_core::open(&fixture().join("level")).unwrap(),
        ),
        (
            "info_level.geom.json",
            levelgeom_core::open(&fixture().join("level.geom")).unwrap(),
        ),
        (
            "info_level.geomx.json",
            levelgeom_core::open(&fixture().join("level.geomx")).unwrap(),
        ),
        (
            "info_level.cform.json",
            levelgeom_core::open(&fixture().join("level.cform")).unwrap(),
        ),
    ];
    for (file, level) in cases {
        let mut old: Value =
            serde_json::from_str(&std::fs::read_to_string(data.join(file)).unwrap()).unwrap();
        let new: Value = serde_json::from_str(&level.info().unwrap().to_json()).unwrap();
        let o = old.as_object_mut().unwrap();
        o.remove("file"); // the path the baseline was made from
        if o.get("format").and_then(Value::as_str) != Some("argonaut-wad") {
            o.remove("chunks"); // replaced by the full chunk list on purpose
            assert!(
                new["chunks"].as_array().is_some_and(|c| !c.is_empty()) || file.contains("cform"),
                "{file}"
            );
        }
        contains(&new, &old, file);
    }
}
