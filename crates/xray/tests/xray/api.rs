//! The library API shared with the other engines: read/to_bytes, write errors naming their
//! field, the chunk list, `Info`, `LevelFiles`, version refusal and texture resolution.

use std::path::Path;

use levelgeom_scene::TextureSource;
use levelgeom_xray::chunk::{self, Framed, COMPRESSED};
use levelgeom_xray::geom::VertexBuffer;
use levelgeom_xray::level::LevelChunk;
use levelgeom_xray::ogf::OgfChunk;
use levelgeom_xray::shaders::ShaderEntry;
use levelgeom_xray::vertex::Vertices;
use levelgeom_xray::{
    check, chunks, generate, locate, resolve_textures, to_scene, Info, LevelFiles, SceneError,
    SceneOptions,
};
use levelgeom_xray::{Cform, Geom, Level};

fn dir() -> String {
    format!("{}/tests/data/xray-v14-micro", env!("CARGO_MANIFEST_DIR"))
}

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!("{}/{name}", dir())).unwrap()
}

fn visuals(l: &mut Level) -> &mut Vec<Framed<levelgeom_xray::ogf::Visual>> {
    l.chunks
        .iter_mut()
        .find_map(|c| match &mut c.value {
            LevelChunk::Visuals(v) => Some(v),
            _ => None,
        })
        .unwrap()
}

fn children(l: &mut Level, v: usize) -> &mut Vec<u32> {
    visuals(l)[v]
        .value
        .chunks
        .iter_mut()
        .find_map(|c| match &mut c.value {
            OgfChunk::Children(k) => Some(k),
            _ => None,
        })
        .unwrap()
}

#[test]
fn fixture_files_round_trip_through_to_bytes() {
    for f in ["level", "level.geom", "level.geomx", "level.cform"] {
        let b = read(f);
        let out = match f {
            "level" => Level::read(&b).unwrap().0.to_bytes().unwrap(),
            "level.cform" => Cform::read(&b).unwrap().0.to_bytes().unwrap(),
            _ => Geom::read(&b).unwrap().0.to_bytes().unwrap(),
        };
        assert_eq!(out, b, "{f}");
    }
}

#[test]
fn a_vertex_count_past_u32_is_a_write_error_naming_the_field() {
    let v = Vertices {
        count: u32::MAX as usize + 1,
        ..Vertices::default()
    };
    let e = VertexBuffer::encode(levelgeom_xray::decl::x_vert(), &v).unwrap_err();
    assert_eq!(e.field, "vertex count");
    assert!(
        e.to_string().contains("does not fit in its u32 field"),
        "{e}"
    );
}

#[test]
fn edited_models_that_do_not_fit_name_the_field() {
    // vertex bytes that disagree with the count
    let (_, mut g) = generate::level(generate::Options::default());
    g.vertex_buffers_mut().unwrap()[1].count += 1;
    let e = g.to_bytes().unwrap_err();
    assert_eq!(e.field, "fsL_VB/vb[1]/vertex data", "{e}");

    // a shader entry with a NUL inside, and a LOD with 7 quads
    let mut l = Level::read(&read("level")).unwrap().0;
    for c in &mut l.chunks {
        if let LevelChunk::Shaders(s) = &mut c.value {
            s[3] = ShaderEntry(b"default/a\0b".to_vec());
        }
    }
    let e = l.to_bytes().unwrap_err();
    assert_eq!(e.field, "fsL_SHADERS/shader[3]", "{e}");

    let mut l = Level::read(&read("level")).unwrap().0;
    for c in &mut visuals(&mut l)[5].value.chunks {
        if let OgfChunk::LodDef(q) = &mut c.value {
            q.pop();
        }
    }
    let e = l.to_bytes().unwrap_err();
    assert_eq!(e.field, "fsL_VISUALS/visual[5]/OGF_LODDEF2/quads", "{e}");
    assert!(e.to_string().contains("7 quads"), "{e}");

    // a NUL in a nested texture name, inside a FASTPATH-free visual
    let mut l = Level::read(&read("level")).unwrap().0;
    visuals(&mut l)[2].value.chunks.push(Framed::plain(
        2,
        OgfChunk::Texture {
            texture: b"x\0".to_vec(),
            shader: b"s".to_vec(),
        },
    ));
    let e = l.to_bytes().unwrap_err();
    assert_eq!(e.field, "fsL_VISUALS/visual[2]/OGF_TEXTURE/texture", "{e}");
}

#[test]
fn generated_levels_round_trip_compressed_and_plain() {
    for compress in [false, true] {
        for version in [13, 14] {
            let (lb, gb) = generate::level_bytes(generate::Options { version, compress });
            assert_eq!(Level::read(&lb).unwrap().0.to_bytes().unwrap(), lb);
            assert_eq!(Geom::read(&gb).unwrap().0.to_bytes().unwrap(), gb);
        }
    }
}

#[test]
fn chunk_list_names_every_chunk_like_locate() {
    for f in ["level", "level.geom", "level.geomx"] {
        let b = read(f);
        let list = chunks(&b).unwrap();
        // top-level chunks tile the file
        let mut pos = 0u64;
        for e in list.iter().filter(|e| e.depth == 0) {
            assert_eq!(e.offset, pos, "{f} {e:?}");
            pos = e.offset + 8 + e.size;
        }
        assert_eq!(pos, b.len() as u64, "{f}");
        for e in &list {
            assert!(e.offset + 8 + e.size <= b.len() as u64);
            assert_eq!(
                locate(&b, e.offset as usize + 4).unwrap(),
                format!("{}/(chunk header)", e.path),
                "{f}"
            );
        }
    }
    let l = chunks(&read("level")).unwrap();
    let fp = l
        .iter()
        .find(|e| e.path == "fsL_VISUALS/visual[0]/OGF_FASTPATH/OGF_GCONTAINER")
        .unwrap();
    assert_eq!((fp.depth, fp.size, fp.compressed), (3, 24, false));
    assert!(l.iter().any(|e| e.path == "fsL_SECTORS/sector[1]/fsP_Root"));

    let c = read("level.cform");
    let regions: Vec<_> = chunks(&c)
        .unwrap()
        .into_iter()
        .map(|e| (e.path, e.offset, e.size))
        .collect();
    assert_eq!(
        regions,
        vec![
            ("hdrCFORM".into(), 0, 36),
            ("vertices".into(), 36, 33 * 12),
            ("faces".into(), 36 + 33 * 12, 44 * 16)
        ]
    );
}

#[test]
fn compressed_chunks_list_their_decoded_size() {
    let (lb, _) = generate::level_bytes(generate::Options {
        version: 14,
        compress: true,
    });
    let list = chunks(&lb).unwrap();
    let sh = list.iter().find(|e| e.path == "fsL_SHADERS").unwrap();
    assert!(sh.compressed);
    let (l, _) = Level::read(&lb).unwrap();
    let mut w = levelgeom_binary::Writer::new();
    levelgeom_xray::shaders::write(l.shaders().unwrap(), &mut w).unwrap();
    assert_eq!(sh.decoded_size, Some(w.len() as u64));
}

#[test]
fn a_chunk_declaring_4_gib_decoded_fails_cleanly() {
    let mut w = levelgeom_binary::Writer::new();
    w.u32(1);
    w.u32(4);
    w.u32(14);
    let mut payload = u32::MAX.to_le_bytes().to_vec();
    payload.extend_from_slice(&[0u8; 64]);
    w.u32(9 | COMPRESSED);
    w.u32(payload.len() as u32);
    w.bytes(&payload);
    let file = w.into_inner();
    let e = chunk::read_raw(&mut levelgeom_binary::Reader::new(&file)).unwrap_err();
    assert_eq!(e.offset, 12 + 8);
    assert!(e.to_string().contains("LZHUF"), "{e}");
    // a stream long enough to make the size plausible is refused when it runs out, without
    // reserving the declared 4 GiB up front
    let mut big = u32::MAX.to_le_bytes().to_vec();
    big.resize(4 + (9 << 20), 0);
    assert!(levelgeom_xray::lzhuf::decompress(&big).is_err());
}

#[test]
fn info_of_the_fixture_level_matches_the_cli_keys() {
    let b = read("level");
    let info = Info::read("level", &b).unwrap();
    let v = serde_json::to_value(&info).unwrap();
    assert_eq!(v["format"], "xray-level");
    assert_eq!(v["file"], "level");
    assert_eq!(v["size"], b.len());
    assert_eq!(v["version"], 14);
    assert_eq!(v["quality"], 1);
    assert_eq!(v["visuals"].as_array().unwrap().len(), 16);
    assert_eq!(
        v["visuals"][14]["children"],
        serde_json::json!([0, 3, 5, 13])
    );
    assert_eq!(
        v["visuals"][0]["gcontainer"],
        serde_json::json!([2, 0, 20, 0, 66, 30])
    );
    assert!(v["visuals"][0].get("children").is_none());
    assert_eq!(
        v["sectors"][1],
        serde_json::json!({"root": 15, "portals": [0]})
    );
    assert_eq!(v["chunks"][0]["path"], "fsL_HEADER");
    assert_eq!(v["chunks"][0]["offset"], 0);
    assert!(v.get("warnings").is_none());
    let text = info.to_string();
    assert!(text.starts_with("level: xray-level\n  XRLC version 14, quality 1\n"));
    assert!(text.contains("    15: hierarchy shader 0 children [1,14,9,11,7]\n"));
    assert!(text.contains("  portals 1, lights 1, glows 1, sectors 2\n"));
    assert!(text.contains("  0x00000000           4  -"), "{text}");

    let g = Info::read("level.geom", &read("level.geom")).unwrap();
    let gv = serde_json::to_value(&g).unwrap();
    assert_eq!(gv["format"], "xray-geom");
    assert_eq!(gv["vertex_buffers"][0]["layout"][0]["type_name"], "FLOAT3");
    assert_eq!(gv["index_buffers"][0]["indices"], 168);
    assert!(g.to_string().contains("  index buffer 0: 168 indices\n"));

    let c = Info::read("level.cform", &read("level.cform")).unwrap();
    assert_eq!(
        c.to_string()
            .lines()
            .filter(|l| !l.starts_with("  0x") && !l.contains("offset"))
            .collect::<Vec<_>>(),
        vec![
            "level.cform: xray-cform",
            "  version 4",
            "  33 vertices, 44 faces"
        ]
    );
}

#[test]
fn level_files_open_a_folder_with_its_siblings() {
    let f = LevelFiles::open(Path::new(&dir())).unwrap();
    assert!(f.geom.is_some() && f.geomx.is_some() && f.cform.is_some());
    let r = f.check();
    assert!(r.problems.is_empty(), "{:?}", r.problems);
    assert_eq!(r.notes.len(), 3, "{:?}", r.notes);
    assert!(r.notes[0].starts_with("with ") && r.notes[0].ends_with("level.geom"));
    assert!(r.notes[2].starts_with("with ") && r.notes[2].ends_with("level.cform"));
    let s = f.to_scene(&SceneOptions::default()).unwrap();
    assert!(!s.meshes.is_empty());

    // a folder without level.geom: the note, and export refuses naming the file
    let t = tempfile::tempdir().unwrap();
    std::fs::write(t.path().join("level"), read("level")).unwrap();
    let f = LevelFiles::open(t.path()).unwrap();
    assert_eq!(
        f.check().notes,
        vec!["note: no level.geom beside it; geometry ranges not checked"]
    );
    let e = f.to_scene(&SceneOptions::default()).unwrap_err();
    assert!(e.to_string().starts_with("no level.geom beside"), "{e}");

    // a damaged sibling: the error names that file and where in it
    std::fs::write(t.path().join("level.geom"), &read("level.geom")[..500]).unwrap();
    let e = LevelFiles::open(&t.path().join("level")).unwrap_err();
    let msg = e.to_string();
    assert!(msg.contains("level.geom: at 0x"), "{msg}");
    // a level.geom given for the level
    let e = LevelFiles::open(&Path::new(&dir()).join("level.geom")).unwrap_err();
    assert!(e.to_string().contains("is a level.geom"), "{e}");
}

#[test]
fn versions_without_public_levels_are_refused_by_to_scene() {
    // XRLC 6 and 7 existed (2002) but no level of theirs is known: their layout is not read
    let (mut l, g) = generate::level(generate::Options::default());
    for v in [6u16, 7, 3, 15] {
        for c in &mut l.chunks {
            if let LevelChunk::Header(h) = &mut c.value {
                h.version = v;
            }
        }
        let e = to_scene(&l, &g, &SceneOptions::default()).unwrap_err();
        assert_eq!(e, SceneError::Version(v));
        assert_eq!(
            e.to_string(),
            format!("XRLC version {v}; export reads versions 4, 5 and 8–14")
        );
    }
}

#[test]
fn visual_hierarchy_cycles_are_reported() {
    let mut l = Level::read(&read("level")).unwrap().0;
    children(&mut l, 15).push(15);
    let p = check::level(&l, None, None);
    assert!(
        p.iter()
            .any(|x| x.path == "fsL_VISUALS/visual[15]/OGF_CHILDREN_L"
                && x.message.starts_with("visual 15 lists itself as a child")),
        "{p:?}"
    );
    let mut l = Level::read(&read("level")).unwrap().0;
    children(&mut l, 14).push(15);
    let p = check::level(&l, None, None);
    assert!(
        p.iter()
            .any(|x| x.message.starts_with("visuals 14 and 15 form a cycle")),
        "{p:?}"
    );
    assert_eq!(p.len(), 1, "{p:?}");
}

#[test]
fn to_scene_leaves_game_textures_unresolved() {
    let l = Level::read(&read("level")).unwrap().0;
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
    assert!(!s.textures.is_empty());
    for t in &s.textures {
        assert_eq!(
            t.source,
            TextureSource::Unresolved {
                uri: format!("{}.dds", t.name)
            }
        );
    }
}

fn texture_scene(names: &[&str]) -> levelgeom_scene::Scene {
    levelgeom_scene::Scene {
        textures: names
            .iter()
            .map(|n| levelgeom_scene::Texture {
                name: (*n).into(),
                source: TextureSource::Unresolved {
                    uri: format!("{n}.dds"),
                },
            })
            .collect(),
        ..Default::default()
    }
}

#[test]
fn resolve_textures_links_found_files_and_refuses_names_that_leave_the_folder() {
    let t = tempfile::tempdir().unwrap();
    let tex = t.path().join("textures");
    let out = t.path().join("out");
    std::fs::create_dir_all(tex.join("ston")).unwrap();
    std::fs::create_dir_all(tex.join("trees")).unwrap();
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(tex.join("ston/beton 04.png"), b"png").unwrap();
    std::fs::write(tex.join("trees/elka.dds"), b"dds").unwrap();
    std::fs::write(t.path().join("secret.png"), b"secret").unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink(t.path().join("secret.png"), tex.join("ston/link.png")).unwrap();

    let mut s = texture_scene(&[
        "ston/beton 04",
        "trees/elka",
        "terrain/missing",
        "../secret",
        "..\\..\\secret",
        "/etc/passwd",
        "C:/windows/win",
        "ston/link",
    ]);
    let w = resolve_textures(&mut s, &tex, &out);
    let src = |i: usize| s.textures[i].source.clone();
    assert_eq!(
        src(0),
        TextureSource::External {
            uri: "../textures/ston/beton 04.png".into()
        }
    );
    assert_eq!(
        src(1),
        TextureSource::External {
            uri: "../textures/trees/elka.dds".into()
        }
    );
    for i in 2..8 {
        assert!(
            matches!(src(i), TextureSource::Unresolved { .. }),
            "{i}: {:?}",
            src(i)
        );
    }
    let has = |words: &str| w.iter().any(|x| x.contains(words));
    assert!(
        has("texture terrain/missing not found in the --textures folder"),
        "{w:?}"
    );
    assert!(has("texture ../secret is not looked up"), "{w:?}");
    assert!(has("texture ..\\..\\secret is not looked up"), "{w:?}");
    assert!(has("texture /etc/passwd is not looked up"), "{w:?}");
    assert!(has("texture C:/windows/win is not looked up"), "{w:?}");
    #[cfg(unix)]
    assert!(
        has("texture ston/link resolves outside the --textures folder"),
        "{w:?}"
    );
    assert!(
        has("1 texture found only as DDS/TGA (trees/elka), which glTF viewers cannot read"),
        "{w:?}"
    );
    // the two found files are not real images: each gets a warning naming it, and stays linked
    assert!(
        has("elka.dds cannot be decoded (at 0x00000000: not a DDS file"),
        "{w:?}"
    );
    assert!(has("beton 04.png cannot be decoded"), "{w:?}");
    assert_eq!(w.len(), 9, "{w:?}");
}

#[test]
fn info_of_an_unknown_chunk_file_lists_nested_chunks() {
    let mut inner = levelgeom_binary::Writer::new();
    inner.u32(5);
    inner.u32(2);
    inner.bytes(&[7, 7]);
    let mut w = levelgeom_binary::Writer::new();
    w.u32(1);
    w.u32(4);
    w.u32(0);
    w.u32(40);
    w.u32(inner.len() as u32);
    w.bytes(inner.as_slice());
    let b = w.into_inner();
    let i = Info::read("x", &b).unwrap();
    let v = serde_json::to_value(&i).unwrap();
    assert_eq!(v["format"], "xray-chunks");
    let paths: Vec<_> = i
        .chunks
        .iter()
        .map(|c| (c.path.as_str(), c.offset, c.depth))
        .collect();
    assert_eq!(
        paths,
        vec![
            ("chunk[1]", 0, 0),
            ("chunk[40]", 12, 0),
            ("chunk[40]/chunk[5]", 20, 1)
        ]
    );
}
