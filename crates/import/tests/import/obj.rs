//! OBJ: node names, positions, colours, flipped UVs, materials, MTL, groups, line numbers.

use levelgeom_import::{read_obj, world_triangles, ImportError, MemoryFiles, NoFiles};
use levelgeom_scene::TextureSource;

const TWO_OBJECTS: &str = "\
# two objects
mtllib t.mtl
o first
v 0 0 0 1 0 0
v 1 0 0 0 1 0
v 0 1 0 0 0 1
vt 0 0
vt 1 0.25
vt 0 1
usemtl page_03
f 1/1 2/2 3/3
o second
v 5 5 5 0.5 0.5 0.5
v 6 5 5 0.5 0.5 0.5
v 6 6 5 0.25 0.5 0.75
v 5 6 5 0.5 0.5 0.5
usemtl flat_FF0000
f 4 5 6 7
";

const MTL: &str = "\
newmtl page_03
Kd 1 1 1
d 1
illum 0
map_Kd page_03.png
map_d page_03.png

newmtl flat_FF0000
Kd 1 0 0
illum 0
";

fn mtl_files() -> MemoryFiles {
    MemoryFiles(vec![("t.mtl".into(), MTL.as_bytes().to_vec())])
}

#[test]
fn two_objects_give_named_nodes_with_colours_and_flipped_uvs() {
    let im = read_obj(TWO_OBJECTS.as_bytes(), "t.obj", &mtl_files()).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let s = &im.scene;
    assert_eq!(s.name, "t");
    assert_eq!(s.roots.len(), 1);
    let root = &s.nodes[s.roots[0]];
    assert_eq!(root.name, "t");
    let names: Vec<&str> = root
        .children
        .iter()
        .map(|&c| s.nodes[c].name.as_str())
        .collect();
    assert_eq!(names, ["first", "second"]);

    let first = &s.meshes[s.nodes[root.children[0]].mesh.unwrap()];
    assert_eq!(first.primitives.len(), 1);
    let p = &first.primitives[0];
    assert_eq!(
        p.positions,
        [[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    );
    assert_eq!(
        p.colors[0],
        [
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 1.0, 1.0]
        ]
    );
    // vt v is 1 − scene v
    assert_eq!(p.uvs[0], [[0.0, 1.0], [1.0, 0.75], [0.0, 0.0]]);
    assert_eq!(p.indices, [0, 1, 2]);
    let m = &s.materials[p.material.unwrap()];
    assert_eq!(m.name, "page_03");
    assert!(m.unlit);
    assert_eq!(m.alpha, levelgeom_scene::AlphaMode::Mask(0.5));
    let t = &s.textures[m.texture.unwrap()];
    assert_eq!(
        t.source,
        TextureSource::External {
            uri: "page_03.png".into()
        }
    );

    // the quad is a fan of two triangles; no UVs, colours as written
    let second = &s.meshes[s.nodes[root.children[1]].mesh.unwrap()];
    let q = &second.primitives[0];
    assert_eq!(q.triangle_count(), 2);
    assert!(q.uvs.is_empty());
    assert_eq!(q.colors[0][2], [0.25, 0.5, 0.75, 1.0]);
    let tris = world_triangles(s, None, false);
    assert_eq!(tris.len(), 3);
    assert_eq!(tris[1].node_name, "second");
    assert_eq!(
        tris[1].positions,
        [[5.0, 5.0, 5.0], [6.0, 5.0, 5.0], [6.0, 6.0, 5.0]]
    );
    assert_eq!(
        tris[2].positions,
        [[5.0, 5.0, 5.0], [6.0, 6.0, 5.0], [5.0, 6.0, 5.0]]
    );
    let red = &s.materials[q.material.unwrap()];
    assert_eq!(
        (red.name.as_str(), red.base_color),
        ("flat_FF0000", [1.0, 0.0, 0.0, 1.0])
    );
    assert_eq!(red.texture, None);
}

#[test]
fn missing_mtl_is_a_warning_and_names_survive() {
    let im = read_obj(TWO_OBJECTS.as_bytes(), "t.obj", &NoFiles).unwrap();
    assert!(
        im.warnings
            .iter()
            .any(|w| w.contains("t.mtl") && w.contains("line 2")),
        "{:?}",
        im.warnings
    );
    let names: Vec<&str> = im.scene.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(names, ["page_03", "flat_FF0000"]);
    assert!(im.scene.textures.is_empty());
}

#[test]
fn collision_groups_keep_their_names_and_materials_split_primitives() {
    let text = "\
g mat03_grp1
v 0 0 0
v 1 0 0
v 1 0 1
v 0 0 1
f 1 2 3
f 1 3 4
g mat07_grp0
v 0 1 0
v 1 1 0
v 1 1 1
f -3 -2 -1
usemtl a
f 5 6 7
usemtl b
f 5 7 6
usemtl a
f 7 6 5
";
    let im = read_obj(text.as_bytes(), "collision.obj", &NoFiles).unwrap();
    let s = &im.scene;
    let root = &s.nodes[s.roots[0]];
    assert_eq!(root.name, "collision");
    let names: Vec<&str> = root
        .children
        .iter()
        .map(|&c| s.nodes[c].name.as_str())
        .collect();
    assert_eq!(names, ["mat03_grp1", "mat07_grp0"]);
    let g0 = &s.meshes[s.nodes[root.children[0]].mesh.unwrap()];
    assert_eq!(g0.primitives.len(), 1);
    assert_eq!(g0.primitives[0].material, None);
    assert_eq!(g0.triangle_count(), 2);
    // shared corners stay shared
    assert_eq!(g0.primitives[0].positions.len(), 4);
    let g1 = &s.meshes[s.nodes[root.children[1]].mesh.unwrap()];
    let mats: Vec<Option<&str>> = g1
        .primitives
        .iter()
        .map(|p| p.material.map(|m| s.materials[m].name.as_str()))
        .collect();
    assert_eq!(mats, [None, Some("a"), Some("b")]);
    assert_eq!(
        g1.primitives[1].triangle_count(),
        2,
        "both `usemtl a` runs in one primitive"
    );
    assert_eq!(s.materials.len(), 2, "deduplicated by name");
    let tris = world_triangles(s, None, false);
    assert_eq!(tris.len(), 6);
    assert!(tris.iter().all(|t| t.colours.is_none() && t.uvs.is_none()));
}

#[track_caller]
fn obj_error(text: &str) -> (Option<usize>, String) {
    obj_error_bytes(text.as_bytes())
}

#[track_caller]
fn obj_error_bytes(bytes: &[u8]) -> (Option<usize>, String) {
    match read_obj(bytes, "bad.obj", &NoFiles) {
        Err(e @ ImportError::Obj { .. }) => {
            let msg = e.to_string();
            assert!(msg.starts_with("bad.obj: "), "{msg}");
            let ImportError::Obj { line, .. } = e else {
                unreachable!()
            };
            (line, msg)
        }
        other => panic!("expected an OBJ error, got {other:?}"),
    }
}

#[test]
fn bad_obj_errors_name_the_line() {
    let (line, msg) = obj_error("v 0 0 0\nv 1 0 0\nv 0 1 0\no x\nf 1 2 4\n");
    assert_eq!(line, Some(5), "{msg}");
    assert!(msg.contains("vertex index 4 out of range"), "{msg}");
    let (line, _) = obj_error("v 0 0 0\nf 0 1 1\n");
    assert_eq!(line, Some(2));
    let (line, _) = obj_error("v 0 0 0\nf -2 1 1\n");
    assert_eq!(line, Some(2));
    let (line, msg) = obj_error("v 0 0 0\nvt 0 0\nf 1/2 1/1 1/1\n");
    assert_eq!(line, Some(3), "{msg}");
    let (line, msg) = obj_error("v 0 0 zero\n");
    assert_eq!(line, Some(1), "{msg}");
    // found by tobj itself: 5 numbers after v (neither w nor rgb)
    let (line, msg) = obj_error("# c\nv 0 0 0\nv 1 2 3 4 5\nv 0 1 0\n");
    assert_eq!(line, Some(3), "{msg}");
    let (line, msg) = obj_error_bytes(b"v 0 0 0\n\xff\xfe\n");
    assert_eq!(line, Some(2), "{msg}");
}

#[test]
fn partial_colours_and_lines_are_warned_not_misassigned() {
    let text = "v 0 0 0 1 0 0\nv 1 0 0\nv 0 1 0\nl 1 2 3\nf 1 2 3\n";
    let im = read_obj(text.as_bytes(), "p.obj", &NoFiles).unwrap();
    assert_eq!(im.warnings.len(), 2, "{:?}", im.warnings);
    let p = &im.scene.meshes[0].primitives[0];
    assert!(p.colors.is_empty());
    assert_eq!(p.triangle_count(), 1, "the l element is not a triangle");
}
