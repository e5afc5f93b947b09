//! Pivots: every visual's node carries its own pivot, and the world-space triangles stay exactly
//! where the conversion put them when every pivot was at the origin.
//!
//! `tests/data/before/world_triangles.txt` was recorded with the conversion of commit 0295722
//! (every node at the origin but tree instances at their TREEDEF2 matrix), by
//! `LEVELGEOM_RECORD_WORLD=1 cargo test -p levelgeom-xray --test xray record_world_triangles --
//! --ignored` run on that commit, before any pivot code existed. One line per world triangle:
//! `case node triangle x0 y0 z0 x1 y1 z1 x2 y2 z2` (glTF space, `f32` printed to round-trip).

use std::collections::BTreeMap;
use std::fmt::Write as _;
use std::path::PathBuf;

use levelgeom_scene::{transform_point, Scene};
use levelgeom_xray::generate::{self, Options};
use levelgeom_xray::{to_scene, Geom, Level, SceneOptions};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/xray-v14-micro/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn before_path() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/before/world_triangles.txt")
}

/// The two scenes compared: the real fixture (LOD billboards included) and the generated level.
fn cases() -> Vec<(&'static str, Scene)> {
    let opts = SceneOptions {
        lods: true,
        ..SceneOptions::default()
    };
    let l = Level::read(&read("level")).unwrap().0;
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let fixture = to_scene(&l, &g, &opts).unwrap();
    let (gl, gg) = generate::level(Options::default());
    let generated = to_scene(&gl, &gg, &opts).unwrap();
    vec![("fixture", fixture), ("generated", generated)]
}

/// World triangles of every node with a mesh, by node name.
fn world_triangles(s: &Scene) -> BTreeMap<String, Vec<[[f32; 3]; 3]>> {
    let world = s.world_matrices();
    let mut out = BTreeMap::new();
    for (ni, node) in s.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        let mut tris = Vec::new();
        for p in &s.meshes[m].primitives {
            for t in p.indices.chunks_exact(3) {
                tris.push([t[0], t[1], t[2]].map(|i| {
                    transform_point(&world[ni], p.positions[i as usize])
                }));
            }
        }
        out.insert(node.name.clone(), tris);
    }
    out
}

#[test]
#[ignore = "records the baseline; run once on the commit before pivots (see the module docs)"]
fn record_world_triangles() {
    if std::env::var_os("LEVELGEOM_RECORD_WORLD").is_none() {
        return;
    }
    let mut text = String::new();
    for (case, s) in cases() {
        for (name, tris) in world_triangles(&s) {
            for (k, t) in tris.iter().enumerate() {
                let _ = write!(text, "{case} {name} {k}");
                for v in t {
                    for c in v {
                        let _ = write!(text, " {c:?}");
                    }
                }
                text.push('\n');
            }
        }
    }
    std::fs::create_dir_all(before_path().parent().unwrap()).unwrap();
    std::fs::write(before_path(), text).unwrap();
}
