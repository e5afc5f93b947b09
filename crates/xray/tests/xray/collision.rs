//! `level.cform` as scene geometry, checked against the fixture's bytes parsed by hand here
//! (the layout blender-xray's `imp/cform.py` reads: header, `f32 xyz` vertices, triangles of
//! `u32 v[3]`, `u16 material | flags`, `u16 sector`).

use std::path::Path;

use levelgeom_xray::{LevelFiles, SceneOptions};

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xray-v14-micro")
}

fn u32_at(b: &[u8], at: usize) -> u32 {
    u32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

fn f32_at(b: &[u8], at: usize) -> f32 {
    f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
}

#[test]
fn the_fixture_cform_becomes_its_44_triangles_in_the_level_space() {
    let bytes = std::fs::read(fixture().join("level.cform")).unwrap();
    let (vc, fc) = (u32_at(&bytes, 4) as usize, u32_at(&bytes, 8) as usize);
    assert_eq!((vc, fc), (33, 44));
    let vert = |i: usize| {
        let at = 36 + 12 * i;
        [
            f32_at(&bytes, at),
            f32_at(&bytes, at + 4),
            f32_at(&bytes, at + 8),
        ]
    };
    // expected: every file triangle, mirrored (x, y, −z) and reversed, grouped by (material, sector)
    let mut expected: Vec<(String, [[f32; 3]; 3])> = Vec::new();
    for t in 0..fc {
        let at = 36 + 12 * vc + 16 * t;
        let v = [
            u32_at(&bytes, at),
            u32_at(&bytes, at + 4),
            u32_at(&bytes, at + 8),
        ];
        let packed = u32_at(&bytes, at + 12);
        let name = format!("mat{}_sec{}", packed & 0x3FFF, packed >> 16);
        let m = |i: u32| {
            let p = vert(i as usize);
            [p[0], p[1], -p[2]]
        };
        expected.push((name, [m(v[0]), m(v[2]), m(v[1])]));
    }
    expected.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.partial_cmp(&b.1).unwrap()));

    let files = LevelFiles::open(&fixture()).unwrap();
    assert!(files.cform.is_some());
    let scene = files
        .to_scene(&SceneOptions {
            name: String::new(),
            collision: true,
            ..SceneOptions::default()
        })
        .unwrap();
    let root = *scene.roots.last().unwrap();
    assert_eq!(scene.nodes[root].name, "collision");
    assert!(scene.nodes[root].hidden);
    let mut got: Vec<(String, [[f32; 3]; 3])> = Vec::new();
    for &c in &scene.nodes[root].children {
        let node = &scene.nodes[c];
        let p = &scene.meshes[node.mesh.unwrap()].primitives[0];
        for t in p.indices.chunks_exact(3) {
            got.push((
                node.name.clone(),
                [0, 1, 2].map(|k| p.positions[t[k] as usize]),
            ));
        }
        let material = node.extras.iter().find(|(k, _)| k == "material").unwrap();
        assert!(node.name.starts_with(&format!("mat{}_", material.1)));
    }
    got.sort_by(|a, b| a.0.cmp(&b.0).then(a.1.partial_cmp(&b.1).unwrap()));
    assert_eq!(got.len(), 44);
    assert_eq!(got, expected);
    // without the option, no collision tree
    let plain = files
        .to_scene(&SceneOptions {
            name: String::new(),
            ..SceneOptions::default()
        })
        .unwrap();
    assert!(plain
        .roots
        .iter()
        .all(|&r| plain.nodes[r].name != "collision"));
}

#[test]
fn check_finds_cform_vertices_outside_its_box() {
    let bytes = std::fs::read(fixture().join("level.cform")).unwrap();
    let (mut c, _) = levelgeom_xray::Cform::read(&bytes).unwrap();
    assert!(levelgeom_xray::check::cform(&c).is_empty());
    c.vertices[5][1] = c.bbox_max[1] + 10.0;
    let problems = levelgeom_xray::check::cform(&c);
    assert_eq!(problems.len(), 1, "{problems:?}");
    assert_eq!(problems[0].path, "vertices[5]");
    assert!(problems[0]
        .message
        .contains("outside the header's bounding box"));
}

#[test]
fn collision_without_a_cform_is_a_clear_error() {
    let d = tempfile::tempdir().unwrap();
    for f in ["level", "level.geom"] {
        std::fs::copy(fixture().join(f), d.path().join(f)).unwrap();
    }
    let files = LevelFiles::open(d.path()).unwrap();
    let e = files
        .to_scene(&SceneOptions {
            collision: true,
            ..SceneOptions::default()
        })
        .unwrap_err();
    assert!(e.to_string().contains("no level.cform beside"), "{e}");
}

/// A version-3 cform written by hand (blender-xray's `6I2HI` triangles): 4 vertices, 2
/// triangles with distinct raw words, sectors 0 and 1, materials 7 and 70000.
fn v3_cform() -> Vec<u8> {
    let mut b = Vec::new();
    for w in [3u32, 4, 2] {
        b.extend_from_slice(&w.to_le_bytes());
    }
    for f in [0.0f32, 0.0, 0.0, 1.0, 2.0, 3.0] {
        b.extend_from_slice(&f.to_le_bytes());
    }
    for v in [
        [0.0f32, 0.0, 0.0],
        [1.0, 0.0, 0.0],
        [1.0, 2.0, 3.0],
        [0.0, 2.0, 3.0],
    ] {
        for f in v {
            b.extend_from_slice(&f.to_le_bytes());
        }
    }
    for (verts, raw, raw16, sector, material) in [
        ([0u32, 1, 2], [11u32, 12, 13], 0xBEEFu16, 0u16, 7u32),
        ([0, 2, 3], [21, 22, 23], 0x1234, 1, 70000),
    ] {
        for v in verts.iter().chain(&raw) {
            b.extend_from_slice(&v.to_le_bytes());
        }
        b.extend_from_slice(&raw16.to_le_bytes());
        b.extend_from_slice(&sector.to_le_bytes());
        b.extend_from_slice(&material.to_le_bytes());
    }
    b
}

#[test]
fn version_3_cforms_read_rebuild_and_convert() {
    let b = v3_cform();
    assert_eq!(b.len(), 36 + 4 * 12 + 2 * 32);
    assert!(levelgeom_xray::cform::sniff(&b));
    assert_eq!(levelgeom_xray::kind(&b), Some(levelgeom_xray::Kind::Cform));
    let (c, _) = levelgeom_xray::Cform::read(&b).unwrap();
    assert_eq!(c.version, 3);
    assert_eq!(c.to_bytes().unwrap(), b, "byte for byte");
    assert_eq!(c.tris[1].material(), 70000);
    assert_eq!(c.tris[1].sector(), 1);
    assert!(!c.tris[0].suppress_shadows());
    assert!(levelgeom_xray::check::cform(&c).is_empty());
    // faces[1] starts at 36 + 48 + 32
    assert_eq!(
        levelgeom_xray::locate(&b, 36 + 48 + 32 + 5).as_deref(),
        Some("faces[1]")
    );
    let mut scene = levelgeom_scene::Scene::default();
    assert!(levelgeom_xray::collision::add_collision(&mut scene, &c).is_empty());
    let root = scene.roots[0];
    let names: Vec<&str> = scene.nodes[root]
        .children
        .iter()
        .map(|&n| scene.nodes[n].name.as_str())
        .collect();
    assert_eq!(names, ["mat7_sec0", "mat70000_sec1"]);
    // a version-4 triangle in a version-3 file is a write error naming the face
    let mut bad = c.clone();
    bad.tris[0].old = None;
    let e = bad.to_bytes().unwrap_err();
    assert_eq!(e.field, "faces[0]");
}
