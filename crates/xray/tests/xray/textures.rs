//! DDS decoding against hand-encoded files of known colours (`levelgeom_testkit::dds`), and
//! `load_textures` over the real fixture with a generated textures folder and lightmaps.

use std::path::{Path, PathBuf};

use levelgeom_binary::Limits;
use levelgeom_scene::TextureSource;
use levelgeom_testkit::dds::{self as w, PixelFormat};
use levelgeom_xray::dds::decode;
use levelgeom_xray::{load_textures, LevelFiles, SceneOptions, TextureLookup};

const RED: [u8; 4] = [255, 0, 0, 255];
const BLUE: [u8; 4] = [0, 0, 255, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];

fn px(img: &levelgeom_xray::dds::Image, x: u32, y: u32) -> [u8; 4] {
    let i = ((y * img.width + x) * 4) as usize;
    img.pixels[i..i + 4].try_into().unwrap()
}

fn dec(bytes: &[u8]) -> levelgeom_xray::dds::Image {
    decode(bytes, &Limits::DEFAULT).unwrap()
}

#[test]
fn uncompressed_mask_formats_give_their_channels() {
    // A8R8G8B8: bytes B, G, R, A
    let pixels = [
        [1, 2, 3, 4],
        [250, 128, 0, 255],
        [0, 0, 0, 0],
        [9, 99, 199, 77],
    ];
    let img = dec(&w::a8r8g8b8(2, 2, &pixels));
    assert_eq!((img.width, img.height), (2, 2));
    for (k, p) in pixels.iter().enumerate() {
        assert_eq!(px(&img, k as u32 % 2, k as u32 / 2), *p, "pixel {k}");
    }
    // X8R8G8B8: the fourth byte is not alpha
    let img = dec(&w::file(1, 1, 1, PixelFormat::X8R8G8B8, &[30, 20, 10, 0]));
    assert_eq!(px(&img, 0, 0), [10, 20, 30, 255]);
    // R8G8B8: 3 bytes a pixel, B G R
    let img = dec(&w::file(2, 1, 1, PixelFormat::R8G8B8, &[1, 2, 3, 4, 5, 6]));
    assert_eq!(
        (px(&img, 0, 0), px(&img, 1, 0)),
        ([3, 2, 1, 255], [6, 5, 4, 255])
    );
    // R5G6B5: full channels to 255, zero to 0; 16/31 → round(16·255/31) = 132, 32/63 → 130
    let words: [u16; 4] = [0xF800, 0x07E0, 0x001F, (16 << 11) | (32 << 5)];
    let data: Vec<u8> = words.iter().flat_map(|v| v.to_le_bytes()).collect();
    let img = dec(&w::file(4, 1, 1, PixelFormat::R5G6B5, &data));
    assert_eq!(px(&img, 0, 0), RED);
    assert_eq!(px(&img, 1, 0), GREEN);
    assert_eq!(px(&img, 2, 0), BLUE);
    assert_eq!(px(&img, 3, 0), [132, 130, 0, 255]);
    // L8 fills R, G and B; A8L8 is luminance then alpha
    let img = dec(&w::file(2, 1, 1, PixelFormat::L8, &[0x80, 0xFF]));
    assert_eq!(
        (px(&img, 0, 0), px(&img, 1, 0)),
        ([128, 128, 128, 255], [255; 4])
    );
    let img = dec(&w::file(1, 1, 1, PixelFormat::A8L8, &[200, 50]));
    assert_eq!(px(&img, 0, 0), [200, 200, 200, 50]);
    // A1R5G5B5 and A4R4G4B4 (4-bit channels × 17), A8 (alpha only, colour 0)
    let pf = |bits, r, g, b, a, flags| PixelFormat {
        flags,
        fourcc: [0; 4],
        bits,
        r,
        g,
        b,
        a,
    };
    let a1 = pf(16, 0x7C00, 0x03E0, 0x001F, 0x8000, w::RGB | w::ALPHAPIXELS);
    let data: Vec<u8> = [0xFC00u16, 0x001F]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let img = dec(&w::file(2, 1, 1, a1, &data));
    assert_eq!((px(&img, 0, 0), px(&img, 1, 0)), (RED, [0, 0, 255, 0]));
    let a4 = pf(16, 0x0F00, 0x00F0, 0x000F, 0xF000, w::RGB | w::ALPHAPIXELS);
    let img = dec(&w::file(1, 1, 1, a4, &0x8421u16.to_le_bytes()));
    assert_eq!(px(&img, 0, 0), [68, 34, 17, 136]);
    let a8 = pf(8, 0, 0, 0, 0xFF, w::ALPHA);
    let img = dec(&w::file(1, 1, 1, a8, &[64]));
    assert_eq!(px(&img, 0, 0), [0, 0, 0, 64]);
}

#[test]
fn bc1_blocks_decode_to_their_palette() {
    // four-colour mode (c0 > c1): red, blue, 2/3 red + 1/3 blue, 1/3 red + 2/3 blue
    let idx: [u8; 16] = [0, 1, 2, 3, 1, 0, 3, 2, 0, 0, 0, 0, 1, 1, 1, 1];
    let four = w::bc1_block(w::rgb565(255, 0, 0), w::rgb565(0, 0, 255), idx);
    // three-colour mode (c0 ≤ c1): index 3 is transparent black
    let three = w::bc1_block(w::rgb565(0, 0, 255), w::rgb565(255, 0, 0), [3; 16]);
    let mut data = four.to_vec();
    data.extend_from_slice(&three);
    let img = dec(&w::file(8, 4, 1, PixelFormat::fourcc(b"DXT1"), &data));
    assert_eq!((img.width, img.height), (8, 4));
    let palette = [RED, BLUE, [170, 0, 85, 255], [85, 0, 170, 255]];
    for (k, &i) in idx.iter().enumerate() {
        let (x, y) = (k as u32 % 4, k as u32 / 4);
        assert_eq!(px(&img, x, y), palette[usize::from(i)], "pixel {x},{y}");
    }
    assert_eq!(px(&img, 5, 2), [0, 0, 0, 0]);
    // a DX10 header with DXGI_FORMAT_BC1_UNORM (71) holds the same bytes
    let img2 = dec(&w::dx10_file(8, 4, 71, &data));
    assert_eq!(img2, img);
    // sizes that are not multiples of 4 keep their own size (blocks cut)
    let img = dec(&w::bc1_uniform(6, 2, four));
    assert_eq!((img.width, img.height, img.pixels.len()), (6, 2, 48));
    // the second block's row 1 is indices 1, 0: blue, red
    assert_eq!((px(&img, 4, 1), px(&img, 5, 1)), (BLUE, RED));
}

#[test]
fn bc2_bc3_bc4_bc5_blocks_decode_with_their_alpha_and_channels() {
    let green = w::bc1_block(w::rgb565(0, 255, 0), 0, [0; 16]);
    // BC2: explicit 4-bit alpha, a·17
    let mut a4 = [0xF; 16];
    a4[1] = 0;
    a4[2] = 8;
    let img = dec(&w::file(
        4,
        4,
        1,
        PixelFormat::fourcc(b"DXT3"),
        &w::bc2_block(a4, green),
    ));
    assert_eq!(
        (px(&img, 0, 0), px(&img, 1, 0)),
        ([0, 255, 0, 255], [0, 255, 0, 0])
    );
    assert_eq!(px(&img, 2, 0), [0, 255, 0, 136]);
    // BC3: a0 = 255 > a1 = 0, index 0 → 255, index 1 → 0
    let mut ai = [0u8; 16];
    ai[5] = 1;
    let block = w::pair(w::alpha_block(255, 0, ai), green);
    let img = dec(&w::file(4, 4, 1, PixelFormat::fourcc(b"DXT5"), &block));
    assert_eq!(
        (px(&img, 0, 0), px(&img, 1, 1)),
        ([0, 255, 0, 255], [0, 255, 0, 0])
    );
    // BC4 (ATI1): one channel, decoded as grey
    let img = dec(&w::file(
        4,
        4,
        1,
        PixelFormat::fourcc(b"ATI1"),
        &w::alpha_block(200, 10, [0; 16]),
    ));
    assert_eq!(px(&img, 3, 3), [200, 200, 200, 255]);
    // BC5 (ATI2): red block, then green block; blue 0
    let block = w::pair(
        w::alpha_block(200, 10, [0; 16]),
        w::alpha_block(50, 10, [0; 16]),
    );
    let img = dec(&w::file(4, 4, 1, PixelFormat::fourcc(b"ATI2"), &block));
    assert_eq!(px(&img, 2, 1), [200, 50, 0, 255]);
}

#[test]
fn only_the_top_mip_level_is_decoded() {
    // 8×8 DXT1 with 4 mips: top level red (4 blocks), the smaller levels blue
    let red = w::bc1_block(w::rgb565(255, 0, 0), 0, [0; 16]);
    let blue = w::bc1_block(w::rgb565(0, 0, 255), 0, [0; 16]);
    let mut data: Vec<u8> = std::iter::repeat_n(red, 4).flatten().collect();
    data.extend(std::iter::repeat_n(blue, 3).flatten());
    let img = dec(&w::file(8, 8, 4, PixelFormat::fourcc(b"DXT1"), &data));
    assert_eq!((img.width, img.height), (8, 8));
    assert!(img.pixels.chunks_exact(4).all(|p| p == RED));
}

#[test]
fn broken_files_are_refused_with_a_reason_before_allocating() {
    let e = |b: &[u8]| decode(b, &Limits::DEFAULT).unwrap_err().to_string();
    // truncated: 256×256 DXT1 needs 64·64·8 = 32768 bytes
    let t = e(&w::file(
        256,
        256,
        1,
        PixelFormat::fourcc(b"DXT1"),
        &[0; 100],
    ));
    assert!(
        t.contains("truncated") && t.contains("needs 32768 bytes") && t.contains("has 100"),
        "{t}"
    );
    // an absurd size with no data: refused by the size check, no 16 GiB buffer
    let t = e(&w::file(65535, 65535, 1, PixelFormat::A8R8G8B8, &[0; 16]));
    assert!(t.contains("truncated"), "{t}");
    let t = e(&w::file(4, 4, 1, PixelFormat::fourcc(b"ABCD"), &[0; 64]));
    assert!(
        t.starts_with("at 0x00000054") && t.contains("\"ABCD\""),
        "{t}"
    );
    let t = e(&w::header(4, 4, 1, PixelFormat::A8R8G8B8)[..100]);
    assert!(t.contains("cut off"), "{t}");
    assert!(e(b"PNG not a dds at all, but long enough").contains("no \"DDS \" magic"));
    let t = e(&w::file(0, 4, 1, PixelFormat::A8R8G8B8, &[]));
    assert!(t.contains("no pixels"), "{t}");
    // the decoded size obeys the limits: 32×32 → 4096 bytes
    let f = w::file(32, 32, 1, PixelFormat::fourcc(b"DXT1"), &[0; 512]);
    let small = Limits {
        max_decoded: 4000,
        ..Limits::DEFAULT
    };
    let t = decode(&f, &small).unwrap_err().to_string();
    assert!(t.contains("above the limit of 4000"), "{t}");
    assert!(decode(
        &f,
        &Limits {
            max_decoded: 4096,
            ..Limits::DEFAULT
        }
    )
    .is_ok());
}

/// A copy of the real fixture in a temporary folder (so files can be put beside `level`).
pub fn fixture_copy(dir: &Path) -> PathBuf {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xray-v14-micro");
    let level = dir.join("level_dir");
    std::fs::create_dir_all(&level).unwrap();
    for f in ["level", "level.geom", "level.geomx", "level.cform"] {
        std::fs::copy(src.join(f), level.join(f)).unwrap();
    }
    level
}

fn put(path: &Path, bytes: &[u8]) {
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, bytes).unwrap();
}

fn solid(w_: u32, h: u32, c: [u8; 4]) -> Vec<u8> {
    w::a8r8g8b8(w_, h, &vec![c; (w_ * h) as usize])
}

#[test]
fn fixture_textures_come_from_both_folders_decoded_and_lightmaps_are_named_in_extras() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    let tex = t.path().join("textures");
    let out = t.path().join("out");
    // base textures of the fixture's shaders (see `info`): BC1 red, A8R8G8B8 green, L8 grey
    let red = w::bc1_block(w::rgb565(255, 0, 0), 0, [0; 16]);
    put(
        &tex.join("ston/ston_beton04.dds"),
        &w::bc1_uniform(8, 4, red),
    );
    put(&tex.join("terrain/terrain_dom.dds"), &solid(2, 2, GREEN));
    put(
        &tex.join("terrain/terrain_dom_lm.dds"),
        &solid(4, 2, [7, 8, 9, 10]),
    );
    put(
        &tex.join("trees/trees_elka.dds"),
        &w::file(1, 1, 1, PixelFormat::L8, &[77]),
    );
    put(&tex.join("crete/crete_roof1.dds"), b"DDS broken");
    // lightmaps: lmap#1_1 in both folders (the level folder's wins), lmap#1_2 only in textures
    put(&level.join("lmap#1_1.dds"), &solid(16, 8, BLUE));
    put(&tex.join("lmap#1_1.dds"), &solid(1, 1, RED));
    put(&tex.join("lmap#1_2.dds"), &solid(2, 1, [1, 2, 3, 4]));
    // ston/ston_beton_ch_09 is missing everywhere

    let files = LevelFiles::open(&level).unwrap();
    let mut s = files.to_scene(&SceneOptions::default()).unwrap();
    let w = load_textures(
        &mut s,
        &TextureLookup {
            textures_dir: &tex,
            level_dir: Some(&level),
            outdir: &out,
            lightmaps: true,
            limits: Limits::DEFAULT,
        },
    );
    let tex_named = |n: &str| {
        s.textures.iter().find(|t| t.name == n).unwrap_or_else(|| {
            panic!(
                "{n}: {:?}",
                s.textures.iter().map(|t| &t.name).collect::<Vec<_>>()
            )
        })
    };
    let rgba = |n: &str| match &tex_named(n).source {
        TextureSource::Rgba8 {
            width,
            height,
            pixels,
        } => (*width, *height, pixels[0..4].to_vec()),
        other => panic!("{n}: {other:?}"),
    };
    assert_eq!(rgba("ston/ston_beton04"), (8, 4, RED.to_vec()));
    assert_eq!(rgba("terrain/terrain_dom"), (2, 2, GREEN.to_vec()));
    assert_eq!(rgba("trees/trees_elka"), (1, 1, vec![77, 77, 77, 255]));
    assert_eq!(
        rgba("lmap#1_1"),
        (16, 8, BLUE.to_vec()),
        "the level folder first"
    );
    assert_eq!(rgba("lmap#1_2"), (2, 1, vec![1, 2, 3, 4]));
    assert_eq!(rgba("terrain/terrain_dom_lm"), (4, 2, vec![7, 8, 9, 10]));
    // the broken DDS is linked as it is, with a warning naming it and why
    assert!(matches!(
        &tex_named("crete/crete_roof1").source,
        TextureSource::External { uri } if uri.ends_with("textures/crete/crete_roof1.dds")
    ));
    let has = |s: &str| w.iter().any(|x| x.contains(s));
    assert!(
        has("crete_roof1.dds cannot be decoded (at 0x0000000A: the header is cut off"),
        "{w:?}"
    );
    // one warning for the missing one; its material still names it
    assert!(
        has("texture ston/ston_beton_ch_09 not found in the level folder or the --textures folder"),
        "{w:?}"
    );
    assert_eq!(
        w.iter().filter(|x| x.contains("not found")).count(),
        1,
        "{w:?}"
    );
    let ch09 = s
        .materials
        .iter()
        .find(|m| {
            m.texture
                .is_some_and(|t| s.textures[t].name == "ston/ston_beton_ch_09")
        })
        .expect("the material keeps its texture");
    assert!(matches!(
        s.textures[ch09.texture.unwrap()].source,
        TextureSource::Unresolved { .. }
    ));
    // lightmaps are named in the extras of both materials that use them
    let extra = |m: &levelgeom_scene::Material, k: &str| {
        m.extras
            .iter()
            .find(|(a, _)| a == k)
            .map(|(_, v)| v.clone())
    };
    for m in s
        .materials
        .iter()
        .filter(|m| extra(m, "texture_1").as_deref() == Some("lmap#1_1"))
    {
        assert_eq!(
            extra(m, "texture_1_file").as_deref(),
            Some("lmap_1_1.png"),
            "{}",
            m.name
        );
        assert_eq!(
            extra(m, "texture_2_file").as_deref(),
            Some("lmap_1_2.png"),
            "{}",
            m.name
        );
    }
    assert_eq!(
        s.materials
            .iter()
            .filter(|m| extra(m, "texture_1_file").is_some())
            .count(),
        3,
        "two lmap materials and the terrain"
    );
    let terrain = s
        .materials
        .iter()
        .find(|m| extra(m, "texture_1").as_deref() == Some("terrain\\terrain_dom_lm"))
        .unwrap();
    assert_eq!(
        extra(terrain, "texture_1_file").as_deref(),
        Some("terrain_terrain_dom_lm.png")
    );
    // a lightmap is one texture however many materials name it; no material samples it
    assert_eq!(
        s.textures.iter().filter(|t| t.name == "lmap#1_1").count(),
        1
    );
    let li = s
        .textures
        .iter()
        .position(|t| t.name == "lmap#1_1")
        .unwrap();
    assert!(s.materials.iter().all(|m| m.texture != Some(li)));

    // without --lightmaps the further textures are not loaded
    let mut s2 = files.to_scene(&SceneOptions::default()).unwrap();
    let w2 = load_textures(
        &mut s2,
        &TextureLookup {
            textures_dir: &tex,
            level_dir: Some(&level),
            outdir: &out,
            lightmaps: false,
            limits: Limits::DEFAULT,
        },
    );
    assert!(
        s2.textures.iter().all(|t| !t.name.starts_with("lmap")),
        "{w2:?}"
    );
    assert!(s2
        .materials
        .iter()
        .all(|m| extra(m, "texture_1_file").is_none()));
}

#[test]
fn many_missing_textures_are_one_warning_with_the_first_few_and_a_count() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    let tex = t.path().join("textures");
    std::fs::create_dir_all(&tex).unwrap();
    let files = LevelFiles::open(&level).unwrap();
    let mut s = files
        .to_scene(&SceneOptions {
            lods: true,
            ..SceneOptions::default()
        })
        .unwrap();
    let w = load_textures(
        &mut s,
        &TextureLookup {
            textures_dir: &tex,
            level_dir: Some(&level),
            outdir: t.path(),
            lightmaps: true,
            limits: Limits::DEFAULT,
        },
    );
    // 6 base textures (level_lods included) and 3 further ones: 9, five shown
    assert_eq!(w.len(), 1, "{w:?}");
    assert!(
        w[0].starts_with("9 textures not found in the level folder or the --textures folder: ")
            && w[0].ends_with(" and 4 more"),
        "{w:?}"
    );
    assert!(
        s.textures.iter().all(|t| !t.name.starts_with("lmap")),
        "missing lightmaps are not added"
    );
    // a textures folder that does not exist is said once, besides the list
    let mut s = files.to_scene(&SceneOptions::default()).unwrap();
    let w = load_textures(
        &mut s,
        &TextureLookup {
            textures_dir: &t.path().join("nowhere"),
            level_dir: Some(&level),
            outdir: t.path(),
            lightmaps: false,
            limits: Limits::DEFAULT,
        },
    );
    assert_eq!(w.len(), 2, "{w:?}");
    assert!(
        w[0].starts_with("the --textures folder ") && w[0].contains("nowhere cannot be opened"),
        "{w:?}"
    );
}

#[test]
fn file_name_clashes_are_linked_and_further_textures_may_be_base_textures() {
    use levelgeom_scene::{Material, Scene, Texture};
    let t = tempfile::tempdir().unwrap();
    let tex = t.path().join("textures");
    put(&tex.join("a/b.dds"), &solid(1, 1, RED));
    put(&tex.join("a_b.dds"), &solid(1, 1, BLUE));
    put(&tex.join("lm.dds"), &solid(2, 2, GREEN));
    let unresolved = |n: &str| Texture {
        name: n.into(),
        source: TextureSource::Unresolved {
            uri: format!("{n}.dds"),
        },
    };
    let mut s = Scene {
        textures: vec![unresolved("a/b"), unresolved("a_b"), unresolved("lm")],
        materials: vec![
            Material {
                name: "m0".into(),
                texture: Some(0),
                extras: vec![
                    ("texture_0".into(), "a\\b".into()),
                    ("texture_1".into(), "lm".into()),
                ],
                ..Material::default()
            },
            Material {
                name: "m1".into(),
                texture: Some(2),
                ..Material::default()
            },
            Material {
                name: "m2".into(),
                texture: Some(1),
                ..Material::default()
            },
        ],
        ..Scene::default()
    };
    let w = load_textures(
        &mut s,
        &TextureLookup {
            textures_dir: &tex,
            level_dir: None,
            outdir: t.path(),
            lightmaps: true,
            limits: Limits::DEFAULT,
        },
    );
    // both would be a_b.png: the first is decoded, the second linked, with a warning
    assert!(matches!(s.textures[0].source, TextureSource::Rgba8 { .. }));
    assert_eq!(
        s.textures[1].source,
        TextureSource::External {
            uri: "textures/a_b.dds".into()
        }
    );
    assert!(
        w.iter()
            .any(|x| x.contains("texture a_b would be written as a_b.png like texture 0")),
        "{w:?}"
    );
    // `lm` is m1's base texture and m0's further one: one texture, named in m0's extras, and
    // what an export writes beside it whatever the format
    assert_eq!(s.textures.len(), 3);
    assert!(s.materials[0]
        .extras
        .contains(&("texture_1_file".into(), "lm.png".into())));
    assert_eq!(levelgeom_xray::further_textures(&s), vec![2]);
}

#[test]
fn damaged_dds_files_never_panic() {
    // every cut and a spread of byte changes of a few files: decode answers Ok or Err
    let blk = w::bc1_block(w::rgb565(255, 0, 0), 0, [1; 16]);
    let samples = [
        w::bc1_uniform(8, 8, blk),
        w::file(4, 4, 1, PixelFormat::fourcc(b"DXT5"), &[7; 16]),
        w::a8r8g8b8(3, 2, &[[1, 2, 3, 4]; 6]),
        w::file(5, 3, 1, PixelFormat::R8G8B8, &[9; 45]),
        w::dx10_file(4, 4, 98, &[0x55; 16]),
        w::file(4, 4, 1, PixelFormat::fourcc(b"ATI2"), &[3; 16]),
    ];
    let limits = Limits {
        max_decoded: 1 << 20,
        ..Limits::DEFAULT
    };
    let mut answered = 0;
    for f in &samples {
        for cut in 0..f.len() {
            let _ = decode(&f[..cut], &limits);
            answered += 1;
        }
        for at in 0..f.len().min(160) {
            for v in [0u8, 1, 3, 0x7F, 0x80, 0xFF] {
                let mut g = f.clone();
                g[at] = v;
                if let Ok(img) = decode(&g, &limits) {
                    assert_eq!(
                        img.pixels.len() as u64,
                        u64::from(img.width) * u64::from(img.height) * 4
                    );
                }
                answered += 1;
            }
        }
    }
    assert!(answered > 4000);
}
