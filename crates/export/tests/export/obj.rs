//! OBJ/MTL output parsed back by lines.

use levelgeom_export::obj::{to_obj, ObjOptions, DEFAULT_MATERIAL};
use levelgeom_scene::*;

use crate::support::*;

/// One face corner: 1-based v, vt, vn.
type Corner = (usize, Option<usize>, Option<usize>);

#[derive(Default, Debug)]
struct Obj {
    mtllib: Vec<String>,
    v: Vec<[f32; 3]>,
    rgb: Vec<Option<[f32; 3]>>,
    vt: Vec<[f32; 2]>,
    vn: Vec<[f32; 3]>,
    /// (keyword, name, first face index)
    objects: Vec<(String, String, usize)>,
    /// (material, face index where it starts)
    usemtl: Vec<(String, usize)>,
    f: Vec<Vec<Corner>>,
}

fn nums(it: std::str::SplitWhitespace) -> Vec<f32> {
    it.map(|t| t.parse::<f32>().unwrap()).collect()
}

fn parse(text: &str) -> Obj {
    let mut o = Obj::default();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            None => {}
            Some("#") => {}
            Some("mtllib") => o.mtllib.push(it.collect::<Vec<_>>().join(" ")),
            Some("v") => {
                let n = nums(it);
                o.v.push([n[0], n[1], n[2]]);
                o.rgb.push(match n.len() {
                    3 => None,
                    6 => Some([n[3], n[4], n[5]]),
                    k => panic!("v with {k} numbers"),
                });
            }
            Some("vt") => {
                let n = nums(it);
                assert_eq!(n.len(), 2);
                o.vt.push([n[0], n[1]]);
            }
            Some("vn") => {
                let n = nums(it);
                assert_eq!(n.len(), 3);
                o.vn.push([n[0], n[1], n[2]]);
            }
            Some(kw @ ("o" | "g")) => {
                let name: Vec<&str> = it.collect();
                assert_eq!(name.len(), 1, "one name without spaces");
                o.objects
                    .push((kw.to_string(), name[0].to_string(), o.f.len()));
            }
            Some("usemtl") => {
                let name: Vec<&str> = it.collect();
                assert_eq!(name.len(), 1);
                o.usemtl.push((name[0].to_string(), o.f.len()));
            }
            Some("f") => {
                let face = it
                    .map(|c| {
                        let p: Vec<&str> = c.split('/').collect();
                        let get = |k: usize| {
                            p.get(k)
                                .filter(|s| !s.is_empty())
                                .map(|s| s.parse::<usize>().unwrap())
                        };
                        (get(0).unwrap(), get(1), get(2))
                    })
                    .collect::<Vec<Corner>>();
                assert_eq!(face.len(), 3);
                for &(v, t, n) in &face {
                    assert!(v >= 1 && v <= o.v.len(), "v index in range");
                    assert!(t.is_none_or(|t| t >= 1 && t <= o.vt.len()));
                    assert!(n.is_none_or(|n| n >= 1 && n <= o.vn.len()));
                }
                o.f.push(face);
            }
            Some(other) => panic!("unexpected OBJ keyword {other}"),
        }
    }
    o
}

fn close3(a: [f32; 3], b: [f32; 3]) -> bool {
    (0..3).all(|k| (a[k] - b[k]).abs() <= 1e-5)
}

#[test]
fn quad_in_world_space_with_flipped_v_and_materials() {
    let out = to_obj(&scene(), &ObjOptions::default());
    let o = parse(&out.obj);
    assert_eq!(o.mtllib, vec!["level.mtl"]);
    // hidden root "collision" left out; a and b (both mesh 0) written: 8 vertices
    assert_eq!(
        o.objects,
        vec![("o".into(), "a".into(), 0), ("o".into(), "b".into(), 2)]
    );
    assert_eq!(o.v.len(), 8);
    // node a: root translation x+10 only (exact, no rounding)
    for k in 0..4 {
        let p = QUAD_POS[k];
        assert_eq!(o.v[k], [p[0] + 10.0, p[1], p[2]]);
        assert_eq!(
            o.rgb[k],
            Some([QUAD_COL[k][0], QUAD_COL[k][1], QUAD_COL[k][2]])
        );
        assert_eq!(o.vt[k], [QUAD_UV[k][0], 1.0 - QUAD_UV[k][1]]);
        assert_eq!(o.vn[k], [0.0, 0.0, 1.0]);
    }
    // node b: x+10 · z+5 · scale 2
    for (k, p) in QUAD_POS.iter().enumerate() {
        assert_eq!(o.v[4 + k], [2.0 * p[0] + 10.0, 2.0 * p[1], 5.0]);
    }
    // faces: 1-based, second instance offset by 4, v/vt/vn the same numbers
    let tri = |a: usize, b: usize, c: usize| {
        vec![
            (a, Some(a), Some(a)),
            (b, Some(b), Some(b)),
            (c, Some(c), Some(c)),
        ]
    };
    assert_eq!(
        o.f,
        vec![tri(1, 2, 3), tri(1, 3, 4), tri(5, 6, 7), tri(5, 7, 8)]
    );
    assert_eq!(
        o.usemtl,
        vec![("mat_textured".into(), 0), ("mat_textured".into(), 2)]
    );
    assert_eq!(out.textures, vec![0]);
    assert!(out.warnings.is_empty(), "{:?}", out.warnings);
    let mtl: Vec<&str> = out
        .mtl
        .lines()
        .filter(|l| !l.is_empty() && !l.starts_with('#'))
        .collect();
    assert_eq!(
        mtl,
        vec![
            "newmtl mat_textured",
            "Kd 1 1 1",
            "Ks 0 0 0",
            "d 1",
            "illum 0",
            "map_Kd page_00.png",
            "map_d page_00.png",
        ]
    );
}

#[test]
fn chosen_roots_groups_no_uvs_and_default_material() {
    let mut s = scene();
    s.meshes[1].primitives[1].normals.clear();
    s.meshes[1].primitives.push(Primitive {
        material: None,
        ..quad(None)
    });
    let opts = ObjOptions {
        roots: Some(vec![HIDDEN]),
        mtl_file: "x.mtl".into(),
        colour_set: 1, // absent: plain `v x y z`
        groups: true,
    };
    let out = to_obj(&s, &opts);
    let o = parse(&out.obj);
    assert_eq!(o.mtllib, vec!["x.mtl"]);
    assert_eq!(o.objects, vec![("g".into(), "collision".into(), 0)]);
    assert!(o.rgb.iter().all(Option::is_none));
    // first primitive (blended, no uvs, no normals): `f v`; second: v/vt/vn continuing
    assert_eq!(
        o.f[0],
        vec![(1, None, None), (2, None, None), (3, None, None)]
    );
    assert_eq!(
        o.f[2],
        vec![
            (5, Some(1), Some(1)),
            (6, Some(2), Some(2)),
            (7, Some(3), Some(3))
        ]
    );
    assert_eq!(
        o.usemtl,
        vec![("glass".into(), 0), (DEFAULT_MATERIAL.into(), 2)]
    );
    assert!(out.textures.is_empty());
    assert!(out.mtl.contains(&format!("newmtl {DEFAULT_MATERIAL}\n")));
    assert!(out
        .mtl
        .contains("newmtl glass\nKd 0.5 0.25 1\nKs 0 0 0\nd 0.75\nillum 1\n"));
    assert!(
        !out.mtl.contains("mat_textured"),
        "unused material not written"
    );
}

#[test]
fn mirrored_node_reverses_winding_and_normals_use_inverse_transpose() {
    let mut s = Scene::default();
    let r = std::f32::consts::FRAC_1_SQRT_2;
    s.add_mesh(Mesh {
        name: "m".into(),
        primitives: vec![Primitive {
            positions: QUAD_POS[..3].to_vec(),
            normals: vec![[r, r, 0.0]; 3],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        }],
    });
    let a = s.add_node(Node {
        name: "stretched".into(),
        mesh: Some(0),
        matrix: scale(2.0, 1.0, 1.0),
        ..Node::default()
    });
    let b = s.add_node(Node {
        name: "mirrored".into(),
        mesh: Some(0),
        matrix: scale(-1.0, 1.0, 1.0),
        ..Node::default()
    });
    s.roots = vec![a, b];
    let o = parse(&to_obj(&s, &ObjOptions::default()).obj);
    // inverse transpose of diag(2,1,1) is diag(0.5,1,1): (0.5,1,0)/|..| = (1,2,0)/√5
    let k = 1.0 / 5f32.sqrt();
    assert!(close3(o.vn[0], [k, 2.0 * k, 0.0]), "{:?}", o.vn[0]);
    // mirror in x: positions negated in x, normal (−r, r, 0), winding reversed
    assert_eq!(o.v[3], [0.0, 0.0, 0.0]);
    assert_eq!(o.v[4], [-1.0, 0.0, 0.0]);
    assert!(close3(o.vn[3], [-r, r, 0.0]), "{:?}", o.vn[3]);
    assert_eq!(
        o.f[0],
        vec![(1, None, Some(1)), (2, None, Some(2)), (3, None, Some(3))]
    );
    assert_eq!(
        o.f[1],
        vec![(4, None, Some(4)), (6, None, Some(6)), (5, None, Some(5))]
    );
}

#[test]
fn floats_round_trip_and_nan_is_replaced() {
    let vals = [0.1f32, -1.0e-7, 123456.79, 3.4e38, 1.0 / 3.0];
    let mut s = Scene::default();
    s.add_mesh(Mesh {
        name: "m".into(),
        primitives: vec![Primitive {
            positions: vec![
                [vals[0], vals[1], vals[2]],
                [vals[3], vals[4], 0.0],
                [f32::NAN, 1.0, 2.0],
            ],
            indices: vec![0, 1, 2, 2, 1, 7],
            ..Primitive::default()
        }],
    });
    let n = s.add_node(Node {
        name: "has space#1".into(),
        mesh: Some(0),
        ..Node::default()
    });
    s.roots.push(n);
    let out = to_obj(&s, &ObjOptions::default());
    let o = parse(&out.obj);
    assert_eq!(o.v[0], [vals[0], vals[1], vals[2]]);
    assert_eq!(o.v[1], [vals[3], vals[4], 0.0]);
    assert_eq!(o.v[2], [0.0, 1.0, 2.0]);
    let v_lines: Vec<&str> = out.obj.lines().filter(|l| l.starts_with("v ")).collect();
    assert_eq!(v_lines.len(), 3);
    assert!(
        v_lines.iter().all(|l| !l.contains('e')),
        "no exponent notation: {v_lines:?}"
    );
    assert_eq!(o.f.len(), 1, "triangle with index 7 dropped");
    assert_eq!(o.objects[0].1, "has_space_1");
    assert_eq!(out.warnings.len(), 2, "{:?}", out.warnings);
}

#[test]
fn hidden_child_skipped_unless_its_subtree_is_chosen() {
    let mut s = scene();
    s.nodes[NODE_B].hidden = true;
    let o = parse(&to_obj(&s, &ObjOptions::default()).obj);
    assert_eq!(o.objects.len(), 1);
    assert_eq!(o.objects[0].1, "a");
    let chosen = ObjOptions {
        roots: Some(vec![ROOT]),
        ..ObjOptions::default()
    };
    let o = parse(&to_obj(&s, &chosen).obj);
    assert_eq!(o.objects.len(), 2);
}

#[test]
fn instanced_mesh_is_checked_once() {
    let mut s = scene();
    s.meshes[0].primitives[0].indices.extend([0, 1, 50]);
    let out = to_obj(&s, &ObjOptions::default());
    assert_eq!(out.warnings.len(), 1, "{:?}", out.warnings);
    assert_eq!(
        parse(&out.obj).f.len(),
        4,
        "both instances keep their 2 good triangles"
    );
}

/// A line primitive becomes `l` lines of 1-based vertex numbers continuing the file's count,
/// after the vertices of the primitives before it.
#[test]
fn line_primitives_are_l_lines() {
    let mut s = Scene::default();
    let m = s.add_mesh(Mesh {
        name: "route".into(),
        primitives: vec![
            quad(None),
            Primitive {
                topology: Topology::Lines,
                positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 2.0, 0.0]],
                indices: vec![0, 1, 1, 2],
                ..Primitive::default()
            },
        ],
    });
    let n = s.add_node(Node {
        mesh: Some(m),
        ..Node::default()
    });
    s.roots.push(n);
    let out = to_obj(&s, &ObjOptions::default());
    let text = out.obj;
    let l: Vec<&str> = text.lines().filter(|x| x.starts_with("l ")).collect();
    // the quad has 4 vertices: the line vertices are 5, 6, 7
    assert_eq!(l, vec!["l 5 6", "l 6 7"]);
    assert!(text.contains("v 1 2 0\n"));
}
