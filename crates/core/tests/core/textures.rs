//! Exporting the real X-Ray fixture with `--textures` (and `--lightmaps`) from generated DDS
//! files of known colours: every textured material's image is in the GLB as a PNG of the right
//! size and colour (read back with the hand-written GLB reader and the `png` crate), the PNGs
//! beside the OBJ, lightmaps named in the material extras, the Khronos validator passes.

use std::path::{Path, PathBuf};
use std::process::Command;

use levelgeom_core::{EngineOptions, ExportOptions, Formats, XrayOptions};
use levelgeom_testkit::dds::{self as w, PixelFormat};
use levelgeom_testkit::glb::Glb;

/// What each texture of the fixture is generated as: (name, folder: level or textures, file
/// bytes, width, height, top-left pixel).
struct Made {
    name: &'static str,
    in_level: bool,
    bytes: Vec<u8>,
    size: (u32, u32),
    first: [u8; 4],
}

fn made() -> Vec<Made> {
    let solid = |wd: u32, h: u32, c: [u8; 4]| w::a8r8g8b8(wd, h, &vec![c; (wd * h) as usize]);
    let red = w::bc1_block(w::rgb565(255, 0, 0), 0, [0; 16]);
    let blue = w::bc1_block(w::rgb565(0, 0, 255), 0, [0; 16]);
    let half = w::pair(w::alpha_block(255, 0, [1; 16]), blue);
    vec![
        Made {
            name: "ston/ston_beton04",
            in_level: false,
            bytes: w::bc1_uniform(8, 8, red),
            size: (8, 8),
            first: [255, 0, 0, 255],
        },
        Made {
            name: "terrain/terrain_dom",
            in_level: false,
            bytes: solid(4, 4, [0, 255, 0, 255]),
            size: (4, 4),
            first: [0, 255, 0, 255],
        },
        Made {
            name: "terrain/terrain_dom_lm",
            in_level: false,
            bytes: w::file(4, 2, 1, PixelFormat::L8, &[90; 8]),
            size: (4, 2),
            first: [90, 90, 90, 255],
        },
        Made {
            name: "crete/crete_roof1",
            in_level: false,
            // DXT5: blue, alpha index 1 everywhere = a1 = 0
            bytes: w::file(
                8,
                4,
                1,
                PixelFormat::fourcc(b"DXT5"),
                &[half, half].concat(),
            ),
            size: (8, 4),
            first: [0, 0, 255, 0],
        },
        Made {
            name: "ston/ston_beton_ch_09",
            in_level: false,
            bytes: w::file(2, 2, 1, PixelFormat::X8R8G8B8, &[10, 20, 30, 0].repeat(4)),
            size: (2, 2),
            first: [30, 20, 10, 255],
        },
        Made {
            name: "trees/trees_elka",
            in_level: false,
            bytes: w::file(4, 4, 1, PixelFormat::fourcc(b"DXT1"), &blue),
            size: (4, 4),
            first: [0, 0, 255, 255],
        },
        Made {
            name: "lmap#1_1",
            in_level: true,
            bytes: w::file(
                16,
                8,
                1,
                PixelFormat::R5G6B5,
                &0xF800u16.to_le_bytes().repeat(128),
            ),
            size: (16, 8),
            first: [255, 0, 0, 255],
        },
        Made {
            name: "lmap#1_2",
            in_level: true,
            bytes: solid(8, 8, [1, 2, 3, 4]),
            size: (8, 8),
            first: [1, 2, 3, 4],
        },
        Made {
            name: "level_lods",
            in_level: true,
            bytes: solid(8, 16, [200, 100, 50, 255]),
            size: (8, 16),
            first: [200, 100, 50, 255],
        },
    ]
}

/// A copy of the fixture with the generated textures: (level folder, textures folder).
fn setup(root: &Path) -> (PathBuf, PathBuf) {
    let level = root.join("levels/l01");
    let tex = root.join("gamedata/textures");
    std::fs::create_dir_all(&level).unwrap();
    for f in ["level", "level.geom", "level.geomx", "level.cform"] {
        std::fs::copy(crate::fixture().join(f), level.join(f)).unwrap();
    }
    for m in made() {
        let p = if m.in_level { &level } else { &tex }.join(format!("{}.dds", m.name));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, &m.bytes).unwrap();
    }
    (level, tex)
}

fn options(tex: &Path, formats: Formats) -> ExportOptions {
    ExportOptions {
        formats,
        engine: EngineOptions {
            xray: Some(XrayOptions {
                lods: true,
                textures: Some(tex.to_path_buf()),
                lightmaps: true,
                ..XrayOptions::default()
            }),
            ..EngineOptions::default()
        },
        ..ExportOptions::default()
    }
}

fn decode_png(bytes: &[u8]) -> (u32, u32, [u8; 4]) {
    let mut d = png::Decoder::new(std::io::Cursor::new(bytes));
    d.set_transformations(png::Transformations::EXPAND);
    let mut r = d.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba, "RGBA PNGs");
    (info.width, info.height, buf[0..4].try_into().unwrap())
}

fn validate(glb: &Path) {
    let script = crate::workspace(".ci/validate-gltf.sh");
    let tool = crate::workspace("tools/gltf-validator/node_modules");
    if !(tool.is_dir() && Command::new("node").arg("--version").output().is_ok()) {
        levelgeom_testkit::tool_missing(
            "the glTF validator (node + tools/gltf-validator/node_modules)",
        );
        return;
    }
    let o = Command::new("bash").arg(&script).arg(glb).output().unwrap();
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success() && s.contains(": 0 errors"), "{s}");
}

#[test]
fn fixture_export_embeds_every_decoded_texture_and_writes_lightmap_pngs() {
    let t = tempfile::tempdir().unwrap();
    let (level, tex) = setup(t.path());
    let out = t.path().join("out");
    let lf = levelgeom_core::open(&level).unwrap();
    let r = lf.export(&out, &options(&tex, Formats::default())).unwrap();
    assert!(
        !r.warnings
            .iter()
            .any(|w| w.contains("not found") || w.contains("decoded")),
        "{:?}",
        r.warnings
    );
    let glb = Glb::read(&out.join("level.glb"));
    let images = glb.array("images");
    let by_name = |n: &str| {
        images
            .iter()
            .position(|i| i["name"] == n)
            .unwrap_or_else(|| panic!("no image {n}: {images:?}"))
    };
    // every generated texture is embedded with its size and colour (the glow's is not made)
    for m in made() {
        let i = by_name(m.name);
        assert_eq!(images[i]["mimeType"], "image/png", "{}", m.name);
        let png = glb.view(images[i]["bufferView"].as_u64().unwrap() as usize);
        let (wd, h, first) = decode_png(png);
        assert_eq!(((wd, h), first), (m.size, m.first), "{}", m.name);
        // and beside the OBJ, as NAME.png with `/` and `#` made `_`
        let file = out.join(format!("{}.png", m.name.replace(['/', '#'], "_")));
        assert_eq!(
            decode_png(&std::fs::read(&file).unwrap()).0,
            m.size.0,
            "{}",
            file.display()
        );
    }
    // every material with a base texture samples its image; lightmaps are named in extras
    let textures = glb.array("textures");
    let mut textured = 0;
    let mut with_lmap = 0;
    for m in glb.array("materials") {
        let Some(t) = m["pbrMetallicRoughness"]["baseColorTexture"]["index"].as_u64() else {
            continue;
        };
        textured += 1;
        let img = &images[textures[t as usize]["source"].as_u64().unwrap() as usize];
        assert_eq!(
            m["extras"]["texture_0"]
                .as_str()
                .unwrap()
                .replace('\\', "/"),
            img["name"].as_str().unwrap()
        );
        if m["extras"]["texture_1"] == "lmap#1_1" {
            with_lmap += 1;
            assert_eq!(m["extras"]["texture_1_file"], "lmap_1_1.png");
            assert_eq!(m["extras"]["texture_2_file"], "lmap_1_2.png");
        }
    }
    // shaders 2–7 of the fixture (the glow's shader 1 has no visual)
    assert_eq!((textured, with_lmap), (6, 2));
    let mtl = std::fs::read_to_string(out.join("level.mtl")).unwrap();
    assert!(mtl.contains("map_Kd ston_ston_beton04.png"), "{mtl}");
    validate(&out.join("level.glb"));
    if let Ok(keep) = std::env::var("LEVELGEOM_KEEP_EXPORTS") {
        let k = Path::new(&keep).join("xray-textures");
        std::fs::create_dir_all(&k).unwrap();
        for e in std::fs::read_dir(&out).unwrap() {
            let e = e.unwrap();
            std::fs::copy(e.path(), k.join(e.file_name())).unwrap();
        }
    }
}

#[test]
fn gltf_only_export_still_writes_the_lightmap_pngs() {
    let t = tempfile::tempdir().unwrap();
    let (level, tex) = setup(t.path());
    let out = t.path().join("out");
    let lf = levelgeom_core::open(&level).unwrap();
    let r = lf
        .export(
            &out,
            &options(
                &tex,
                Formats {
                    gltf: true,
                    obj: false,
                },
            ),
        )
        .unwrap();
    let names: Vec<String> = r
        .files
        .iter()
        .map(|(p, _)| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    for f in ["lmap_1_1.png", "lmap_1_2.png", "terrain_terrain_dom_lm.png"] {
        assert!(names.iter().any(|n| n == f), "{f}: {names:?}");
    }
    // base textures are in the GLB only
    assert!(
        !names.iter().any(|n| n == "ston_ston_beton04.png"),
        "{names:?}"
    );
    assert!(out.join("level.glb").is_file());
}

#[test]
fn lightmaps_without_textures_is_an_error_and_check_textures_is_x_ray_only() {
    let t = tempfile::tempdir().unwrap();
    let lf = levelgeom_core::open(&crate::fixture()).unwrap();
    let opts = ExportOptions {
        engine: EngineOptions {
            xray: Some(XrayOptions {
                lightmaps: true,
                ..XrayOptions::default()
            }),
            ..EngineOptions::default()
        },
        ..ExportOptions::default()
    };
    let e = lf
        .export(&t.path().join("out"), &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("--lightmaps needs --textures"), "{e}");
    assert!(!t.path().join("out").exists(), "nothing written");
    let wad = levelgeom_core::open(&crate::indep_wad()).unwrap();
    let e = wad
        .check_with(&levelgeom_core::CheckOptions {
            textures: Some(t.path().to_path_buf()),
        })
        .unwrap_err();
    assert!(e.to_string().contains("--textures"), "{e}");
    // with every texture present the fixture checks clean
    let (level, tex) = setup(t.path());
    std::fs::create_dir_all(tex.join("glow")).unwrap();
    std::fs::write(tex.join("glow/glow_04.dds"), w::a8r8g8b8(1, 1, &[[0; 4]])).unwrap();
    let r = levelgeom_core::open(&level)
        .unwrap()
        .check_with(&levelgeom_core::CheckOptions {
            textures: Some(tex.clone()),
        })
        .unwrap();
    assert_eq!(r.problems, Vec::new());
    std::fs::remove_file(tex.join("glow/glow_04.dds")).unwrap();
    let r = levelgeom_core::open(&level)
        .unwrap()
        .check_with(&levelgeom_core::CheckOptions {
            textures: Some(tex),
        })
        .unwrap();
    assert_eq!(r.problems.len(), 1);
    assert!(
        r.problems[0].message.ends_with("used by 1 glow"),
        "{:?}",
        r.problems
    );
}

#[test]
fn the_xray_png_names_follow_the_exporters_rule() {
    // levelgeom-xray cannot depend on the exporter; its copy of the file-name rule must agree
    for name in [
        "lmap#1_1",
        "ston/ston_beton04",
        "a b\\c",
        "",
        "..",
        "ü.x-y_z",
    ] {
        let t = levelgeom_scene::Texture {
            name: name.into(),
            source: levelgeom_scene::TextureSource::Unresolved { uri: String::new() },
        };
        assert_eq!(
            levelgeom_xray::textures::png_file_name(name),
            levelgeom_export::texture_file_name(&t),
            "{name:?}"
        );
    }
}
