//! One interface over both engines: the same calls open, check, rebuild and export a WAD and
//! an X-Ray level; options of the other engine and unknown files are clear errors.

use levelgeom_core::{EngineOptions, Error, ExportOptions, Format, WadOptions, XrayOptions};

use crate::{fixture, indep_wad};

#[test]
fn the_same_calls_export_a_wad_and_an_xray_level() {
    let tmp = tempfile::tempdir().unwrap();
    for (name, path, format) in [
        ("wad", indep_wad(), Format::Wad),
        ("xray", fixture(), Format::XrayLevel),
    ] {
        let level = levelgeom_core::open(&path).unwrap();
        assert_eq!(level.format(), format);
        assert!(
            level.check().problems.is_empty(),
            "{name}: {:?}",
            level.check()
        );
        assert_eq!(
            level.rebuild().unwrap(),
            level.bytes(),
            "{name} rebuilds byte for byte"
        );
        let scene = level.to_scene(&EngineOptions::default()).unwrap();
        let report = level
            .export(&tmp.path().join(name), &ExportOptions::default())
            .unwrap();
        // the report counts what the scene holds
        assert_eq!(report.distinct_triangles, scene.mesh_triangle_count());
        assert_eq!(report.materials, scene.materials.len());
        let glb = std::fs::read(tmp.path().join(name).join("level.glb")).unwrap();
        assert_eq!(&glb[..4], b"glTF");
        assert!(tmp.path().join(name).join("level.obj").is_file());
    }
    // the X-Ray level was paired with the level.geom beside it, and names it as an input
    let x = levelgeom_core::open(&fixture()).unwrap();
    let companions = x.companions();
    assert!(
        companions.iter().any(|p| p.ends_with("level.geom")),
        "{companions:?}"
    );
}

#[test]
fn the_fixture_scene_has_the_geometry_of_its_visuals() {
    // The micro level (blender-xray's test data) has 56 triangles in 5 distinct meshes: the
    // count the Blender add-on imports too.
    let level = levelgeom_core::open(&fixture()).unwrap();
    let scene = level.to_scene(&EngineOptions::default()).unwrap();
    assert_eq!(scene.meshes.len(), 5);
    assert_eq!(scene.mesh_triangle_count(), 56);
}

#[test]
fn options_of_the_other_engine_are_errors() {
    let wad = levelgeom_core::open(&indep_wad()).unwrap();
    let xray_opts = EngineOptions {
        xray: Some(XrayOptions {
            lods: true,
            ..XrayOptions::default()
        }),
        ..EngineOptions::default()
    };
    let e = wad.to_scene(&xray_opts).unwrap_err();
    assert!(matches!(e, Error::OptionDoesNotApply { .. }), "{e}");
    assert!(e.to_string().contains("--lods"), "{e}");

    let x = levelgeom_core::open(&fixture()).unwrap();
    let wad_opts = EngineOptions {
        wad: Some(WadOptions {
            objects: true,
            ..WadOptions::default()
        }),
        ..EngineOptions::default()
    };
    let e = x.to_scene(&wad_opts).unwrap_err();
    assert!(e.to_string().contains("--objects"), "{e}");
    // collision is common to both engines: the X-Ray level converts its level.cform
    let with = x
        .to_scene(&EngineOptions {
            collision: true,
            ..EngineOptions::default()
        })
        .unwrap();
    let c = with
        .roots
        .iter()
        .copied()
        .find(|&r| with.nodes[r].name == "collision")
        .expect("a collision root");
    let tris: usize = with.nodes[c]
        .children
        .iter()
        .filter_map(|&n| with.nodes[n].mesh)
        .map(|m| with.meshes[m].triangle_count())
        .sum();
    assert_eq!(tris, 44, "the fixture's level.cform has 44 triangles");
}

#[test]
fn unknown_bytes_name_what_was_looked_for_and_what_is_there() {
    let e = levelgeom_core::open_bytes("x.bin", b"hello world, not a level".to_vec()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.starts_with(
            "x.bin: not a recognised level file (24 bytes, first bytes 68 65 6C 6C 6F 20 77 6F)"
        ),
        "{text}"
    );
    assert!(text.contains("CPFW") && text.contains("X-Ray"), "{text}");
    assert_eq!(e.offset(), Some(0));
    let e = levelgeom_core::open_bytes("empty", Vec::new()).unwrap_err();
    assert!(e.to_string().contains("0 bytes, first bytes none"), "{e}");
}

#[test]
fn a_damaged_level_names_the_offset_and_chunk() {
    // cut the independent WAD inside its TRAK chunk: the error names an offset inside the file
    let bytes = std::fs::read(indep_wad()).unwrap();
    let level = levelgeom_core::open_bytes("cut.wad", bytes.clone()).unwrap();
    let trak = level
        .info()
        .unwrap()
        .to_json()
        .parse::<serde_json::Value>()
        .unwrap()["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tag"] == "TRAK")
        .map(|c| c["offset"].as_u64().unwrap())
        .unwrap();
    let cut = &bytes[..trak as usize + 40];
    let e = levelgeom_core::open_bytes("cut.wad", cut.to_vec()).unwrap_err();
    let text = e.to_string();
    assert!(text.starts_with("cut.wad: at 0x"), "{text}");
    let at = e.offset().unwrap();
    assert!(at >= trak && at <= cut.len() as u64, "{text}");
}

#[test]
fn a_level_geom_alone_cannot_be_exported_and_says_why() {
    let g = levelgeom_core::open(&fixture().join("level.geom")).unwrap();
    assert_eq!(g.format(), Format::XrayGeom);
    let e = g.to_scene(&EngineOptions::default()).unwrap_err();
    assert!(e.to_string().contains("needs the `level` file"), "{e}");
    let e = levelgeom_core::open(&crate::workspace("crates")).unwrap_err();
    assert!(
        e.to_string().contains("folder without a `level` file"),
        "{e}"
    );
}

#[test]
fn a_wad_without_map_names_where_it_was_looked_for() {
    // drop MAP from the demo: the export error points at END, where the chunk list ends
    let demo = levelgeom_core::demo();
    let mut level = demo.wad().unwrap().clone();
    level.chunks.retain(|c| c.tag != levelgeom_wad::Tag::MAP);
    let bytes = level.to_bytes().unwrap();
    let end = bytes.len() - 8; // END is the last chunk, with an empty payload
    assert_eq!(&bytes[end..end + 4], b" DNE");
    let l = levelgeom_core::open_bytes("nomap.wad", bytes).unwrap();
    let e = l.to_scene(&EngineOptions::default()).unwrap_err();
    assert_eq!(e.offset(), Some(end as u64), "{e}");
    assert!(
        e.to_string().contains("in END: the level has no MAP chunk"),
        "{e}"
    );
}

#[test]
fn limits_reach_the_decoders_of_compressed_chunks() {
    // the independent v14_lzhuf level.geom keeps its vertex buffer chunk LZHUF-compressed
    let geom = crate::workspace("crates/xray/tests/data/independent/v14_lzhuf/level.geom");
    assert!(levelgeom_core::open(&geom).is_ok());
    let tight = levelgeom_core::Limits {
        max_decoded: 64,
        ..levelgeom_core::Limits::DEFAULT
    };
    let e = levelgeom_core::open_with(&geom, tight).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("LZHUF") && text.contains("more than the limit of 64 bytes"),
        "{text}"
    );
    assert!(e.offset().is_some(), "{text}");
}

/// One rule for the colour-set options: an X-Ray level has none, so a single export refuses
/// `--colour-set N` (N > 0) and `--all-colour-sets`, naming the option as written (the set
/// first when both are given); a WAD takes both, and no option is no refusal.
#[test]
fn colour_set_options_are_refused_for_an_xray_level_only() {
    let x = levelgeom_core::open(&fixture()).unwrap();
    let opts = |colour_set, all_colour_sets| ExportOptions {
        colour_set,
        all_colour_sets,
        ..ExportOptions::default()
    };
    for (set, all, option) in [
        (1, false, "--colour-set 1"),
        (0, true, "--all-colour-sets"),
        (2, true, "--colour-set 2"),
    ] {
        let e = x.refuse_colour_sets(&opts(set, all)).unwrap_err();
        assert!(
            matches!(&e, Error::NoColourSets { option: o, .. } if o == option),
            "{e:?}"
        );
        assert_eq!(
            e.to_string(),
            format!(
                "{option}: {} is an X-Ray level, which has no vertex-colour sets; its baked \
                 vertex light is written as the attribute _LIGHT, or as COLOR_0 with \
                 --vertex-light",
                x.display_name()
            )
        );
    }
    assert!(x.refuse_colour_sets(&opts(0, false)).is_ok());
    let w = levelgeom_core::open(&indep_wad()).unwrap();
    assert!(w.refuse_colour_sets(&opts(1, true)).is_ok());
}
