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
                tris.push(
                    [t[0], t[1], t[2]]
                        .map(|i| transform_point(&world[ni], p.positions[i as usize])),
                );
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

fn parse_before() -> BTreeMap<(String, String), Vec<[[f32; 3]; 3]>> {
    let text = std::fs::read_to_string(before_path()).unwrap();
    let mut out: BTreeMap<(String, String), Vec<[[f32; 3]; 3]>> = BTreeMap::new();
    for line in text.lines() {
        let f: Vec<&str> = line.split(' ').collect();
        assert_eq!(f.len(), 12, "{line}");
        let v: Vec<f32> = f[3..].iter().map(|x| x.parse().unwrap()).collect();
        let tri = [0, 1, 2].map(|k| [v[3 * k], v[3 * k + 1], v[3 * k + 2]]);
        let list = out.entry((f[0].into(), f[1].into())).or_default();
        assert_eq!(list.len(), f[2].parse::<usize>().unwrap(), "{line}");
        list.push(tri);
    }
    out
}

#[test]
fn world_triangles_are_where_they_were_before_pivots() {
    let before = parse_before();
    let mut compared = 0;
    let mut moved_pivots = 0;
    for (case, s) in cases() {
        let now = world_triangles(&s);
        let names: Vec<&String> = before
            .keys()
            .filter(|(c, _)| c == case)
            .map(|(_, n)| n)
            .collect();
        assert_eq!(now.keys().collect::<Vec<_>>(), names, "{case}");
        for (name, tris) in &now {
            let old = &before[&(case.to_string(), name.clone())];
            assert_eq!(tris.len(), old.len(), "{case} {name}");
            for (t, o) in tris.iter().zip(old) {
                for k in 0..3 {
                    for c in 0..3 {
                        assert!(
                            (t[k][c] - o[k][c]).abs() <= 1e-5,
                            "{case} {name}: {t:?} vs {o:?}"
                        );
                    }
                }
                compared += 1;
            }
        }
        // the pivots really moved: most nodes with a mesh are off the origin now
        moved_pivots += s
            .nodes
            .iter()
            .filter(|n| n.mesh.is_some() && n.matrix[12..15].iter().any(|&x| x != 0.0))
            .count();
    }
    assert_eq!(compared, 202);
    assert!(moved_pivots >= 15, "{moved_pivots}");
}

fn world_translation(s: &Scene, node: usize) -> [f32; 3] {
    let w = s.world_matrices()[node];
    [w[12], w[13], w[14]]
}

fn close(a: [f32; 3], b: [f32; 3], tol: f32) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= tol)
}

#[test]
fn generated_pivots_sit_at_the_centres_of_the_known_boxes() {
    let (l, g) = generate::level(Options::default());
    let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
    // centres from the generator's positions (X-Ray space), mirrored: (x, y, −z)
    //   visual 0: quad x −1..1, y 0, z −1..1        → (0, 0, 0)
    //   visual 1: grid x 3..5, y 0, z −1..1          → (4, 0, 0)
    //   visuals 2, 3: pyramid x, z −0.5..0.5, y 0..2 at TREE_OFFSETS (10,0,5), (−4,1,−6)
    //                                               → (10, 1, −5), (−4, 2, 6)
    //   visual 4: hierarchy header box (−5,0,−7)..(11,3,6) → (3, 1.5, 0.5)
    let want = [
        [0.0, 0.0, 0.0],
        [4.0, 0.0, 0.0],
        [10.0, 1.0, -5.0],
        [-4.0, 2.0, 6.0],
        [3.0, 1.5, 0.5],
    ];
    for (v, w) in want.iter().enumerate() {
        assert_eq!(world_translation(&s, v), *w, "visual {v}");
    }
    // the hierarchy's children are placed relative to it: local = world − (3, 1.5, 0.5)
    assert_eq!(s.nodes[4].children, vec![0, 1, 2, 3]);
    assert_eq!(s.nodes[1].matrix[12..15], [1.0, -1.5, -0.5]);
    // each mesh's box is centred on its node's origin
    for m in &s.meshes {
        let (lo, hi) = m.primitives[0].bounds().unwrap();
        for k in 0..3 {
            assert_eq!(lo[k], -hi[k], "{}: {lo:?} {hi:?}", m.name);
        }
    }
    // the two tree instances still share one mesh: the pyramid around (0, 1, 0), apex at +1
    assert_eq!(s.nodes[2].mesh, s.nodes[3].mesh);
    let tree = &s.meshes[s.nodes[2].mesh.unwrap()].primitives[0];
    assert_eq!(tree.positions[4], [0.0, 1.0, 0.0]);
}

#[test]
fn fixture_pivots_sit_at_the_centres_of_the_header_boxes() {
    let l = Level::read(&read("level")).unwrap().0;
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let s = to_scene(&l, &g, &SceneOptions::default()).unwrap();
    let vis = l.visuals();
    let mut checked = 0;
    for (i, v) in vis.iter().enumerate() {
        let h = v.header().unwrap();
        let c = [
            (h.bbox_min[0] + h.bbox_max[0]) / 2.0,
            (h.bbox_min[1] + h.bbox_max[1]) / 2.0,
            -(h.bbox_min[2] + h.bbox_max[2]) / 2.0,
        ];
        let at = world_translation(&s, i);
        match v.model_type() {
            // xrLC's header box is the vertices' box (to its rounding): the node is at its
            // centre; hierarchies use their header box itself
            Some(0 | 1) => {
                assert!(close(at, c, 0.01), "visual {i}: {at:?} vs {c:?}");
                checked += 1;
            }
            // trees: the model's box centre carried by the TREEDEF2 matrix (its rotation may
            // make the world box's centre differ slightly): inside the header box
            Some(7) => {
                for k in 0..3 {
                    let (a, b) = if k == 2 {
                        (-h.bbox_max[2], -h.bbox_min[2])
                    } else {
                        (h.bbox_min[k], h.bbox_max[k])
                    };
                    assert!(at[k] > a && at[k] < b, "visual {i}: {at:?}");
                }
                checked += 1;
            }
            _ => {}
        }
    }
    assert_eq!(checked, 11);
}
