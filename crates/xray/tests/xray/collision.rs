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
