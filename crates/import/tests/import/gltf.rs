//! glTF/GLB: transforms, mirroring, colours, index types, buffers, extras.

use levelgeom_import::{read_gltf, read_mesh, world_triangles, MemoryFiles, NoFiles};
use levelgeom_scene::TextureSource;

use crate::util::{close3, data_uri, f32s, glb, u16s, u32s};

/// One triangle (1,0,0), (0,1,0), (0,0,1) with +z normals and u16 indices: 78 bytes.
fn tri_buffer() -> Vec<u8> {
    let mut b = f32s(&[1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0]);
    b.extend(f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]));
    b.extend(u16s(&[0, 1, 2]));
    b
}

/// The transform document; `buffer` is the `buffers[0]` object's extra members.
fn transform_doc(buffer: &str) -> String {
    format!(
        r#"{{
 "asset": {{"version": "2.0"}},
 "scene": 0,
 "scenes": [{{"name": "chain", "nodes": [0, 2]}}],
 "nodes": [
  {{"name": "parent", "translation": [1, 2, 3], "rotation": [0, 0.70710678, 0, 0.70710678],
    "scale": [2, 2, 2], "children": [1]}},
  {{"name": "child", "translation": [0, 0, 1], "mesh": 0,
    "extras": {{"tile": 12, "model": "34", "swap_state": "alternative", "weight": 0.5}}}},
  {{"name": "mirror", "scale": [-1, 1, 1], "mesh": 0, "extras": {{"hidden": true}}}}
 ],
 "meshes": [{{"name": "tri", "primitives": [{{"attributes": {{"POSITION": 0, "NORMAL": 1}}, "indices": 2}}]}}],
 "accessors": [
  {{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3", "min": [0, 0, 0], "max": [1, 1, 1]}},
  {{"bufferView": 1, "componentType": 5126, "count": 3, "type": "VEC3"}},
  {{"bufferView": 2, "componentType": 5123, "count": 3, "type": "SCALAR"}}
 ],
 "bufferViews": [
  {{"buffer": 0, "byteOffset": 0, "byteLength": 36}},
  {{"buffer": 0, "byteOffset": 36, "byteLength": 36}},
  {{"buffer": 0, "byteOffset": 72, "byteLength": 6}}
 ],
 "buffers": [{{"byteLength": 78{buffer}}}]
}}"#
    )
}

#[test]
fn node_transforms_compose_into_world_positions() {
    let json = transform_doc(&format!(r#", "uri": "{}""#, data_uri(&tri_buffer())));
    let im = read_gltf(json.as_bytes(), "chain.gltf", &NoFiles).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let s = &im.scene;
    assert_eq!(s.name, "chain");
    assert_eq!(s.roots, [0, 2]);
    assert_eq!(s.nodes[0].children, [1]);
    assert_eq!(
        s.nodes[1].extras,
        [
            ("tile".to_string(), "12".to_string()),
            ("model".into(), "34".into()),
            ("swap_state".into(), "alternative".into()),
            ("weight".into(), "0.5".into()),
        ]
    );
    assert!(s.nodes[2].hidden && s.nodes[2].extras.is_empty());
    // the parent's matrix is T·R·S, column-major: column 0 = R·S·x = (0, 0, −2)
    let m = s.nodes[0].matrix;
    close3(
        &[[m[0], m[1], m[2]], [m[12], m[13], m[14]]],
        &[[0.0, 0.0, -2.0], [1.0, 2.0, 3.0]],
        1e-6,
    );

    // child: +z 1; parent: scale 2, 90° about +y ((x, y, z) → (z, y, −x)), +(1, 2, 3)
    let tris = world_triangles(s, None, false);
    assert_eq!(tris.len(), 1, "the hidden mirror node is left out");
    let t = &tris[0];
    assert_eq!((t.node, t.node_name.as_str()), (1, "child"));
    close3(
        &t.positions,
        &[[3.0, 2.0, 1.0], [3.0, 4.0, 3.0], [5.0, 2.0, 3.0]],
        1e-5,
    );
    close3(&t.normals.unwrap(), &[[1.0, 0.0, 0.0]; 3], 1e-6);

    // hidden included, or started from explicitly
    let all = world_triangles(s, None, true);
    assert_eq!(all.len(), 2);
    let mirror = world_triangles(s, Some(2), true);
    assert_eq!(mirror.len(), 1);
    assert!(world_triangles(s, Some(2), false).is_empty());
}

#[test]
fn mirrored_node_reverses_the_winding() {
    let json = transform_doc(&format!(r#", "uri": "{}""#, data_uri(&tri_buffer())));
    let im = read_gltf(json.as_bytes(), "chain.gltf", &NoFiles).unwrap();
    let t = &world_triangles(&im.scene, Some(2), true)[0];
    // x negated; corners 1 and 2 swapped so the front stays counter-clockwise
    assert_eq!(
        t.positions,
        [[-1.0, 0.0, 0.0], [0.0, 0.0, 1.0], [0.0, 1.0, 0.0]]
    );
    assert_eq!(t.normals.unwrap(), [[0.0, 0.0, 1.0]; 3]);
    // the face normal from the corners keeps pointing where the mirrored normal points
    let [a, b, c] = t.positions;
    let (u, v) = (
        [b[0] - a[0], b[1] - a[1], b[2] - a[2]],
        [c[0] - a[0], c[1] - a[1], c[2] - a[2]],
    );
    let n = [
        u[1] * v[2] - u[2] * v[1],
        u[2] * v[0] - u[0] * v[2],
        u[0] * v[1] - u[1] * v[0],
    ];
    // original face normal (1,1,1) mirrored in x is (−1,1,1)
    assert!(n[0] < 0.0 && n[1] > 0.0 && n[2] > 0.0, "{n:?}");
}

#[test]
fn glb_and_external_bin_give_the_same_scene() {
    let reference = read_gltf(
        transform_doc(&format!(r#", "uri": "{}""#, data_uri(&tri_buffer()))).as_bytes(),
        "chain.gltf",
        &NoFiles,
    )
    .unwrap();
    let g = glb(&transform_doc(""), &tri_buffer());
    let from_glb = read_gltf(&g, "chain.glb", &NoFiles).unwrap();
    assert_eq!(from_glb.scene, reference.scene);
    let files = MemoryFiles(vec![("sub/chain data.bin".into(), tri_buffer())]);
    let ext = read_gltf(
        transform_doc(r#", "uri": "sub/chain%20data.bin""#).as_bytes(),
        "chain.gltf",
        &files,
    )
    .unwrap();
    assert_eq!(ext.scene, reference.scene);
    for bad in ["../chain.bin", "/tmp/chain.bin", "sub/../../chain.bin"] {
        let e = read_gltf(
            transform_doc(&format!(r#", "uri": "{bad}""#)).as_bytes(),
            "chain.gltf",
            &files,
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("buffers[0].uri"), "{e}");
    }
}

#[test]
fn read_mesh_finds_bin_and_glb_on_disk() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("chain.bin"), tri_buffer()).unwrap();
    std::fs::write(
        dir.path().join("chain.gltf"),
        transform_doc(r#", "uri": "chain.bin""#),
    )
    .unwrap();
    std::fs::write(
        dir.path().join("chain.glb"),
        glb(&transform_doc(""), &tri_buffer()),
    )
    .unwrap();
    // a GLB is recognised by its magic whatever its name
    std::fs::write(
        dir.path().join("chain.dat"),
        glb(&transform_doc(""), &tri_buffer()),
    )
    .unwrap();
    let a = read_mesh(&dir.path().join("chain.gltf")).unwrap();
    let b = read_mesh(&dir.path().join("chain.glb")).unwrap();
    let c = read_mesh(&dir.path().join("chain.dat")).unwrap();
    assert_eq!(a.scene, b.scene);
    assert_eq!(b.scene, c.scene);
    let e = read_mesh(&dir.path().join("missing.glb"))
        .unwrap_err()
        .to_string();
    assert!(e.contains("missing.glb"), "{e}");
}

#[test]
fn colours_index_types_and_modes() {
    // vertices: 3 positions shared by every primitive
    let mut b = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]); // 0..36
    b.extend([255u8, 128, 0, 255, 0, 0, 0, 0, 51, 102, 204, 255]); // 36..48 u8 VEC4
    b.extend(u16s(&[65535, 0, 32768, 0, 0, 0, 1, 2, 3])); // 48..66 u16 VEC3
    b.extend([0u8, 0]); // pad to 68
    b.extend(u32s(&[2, 1, 0])); // 68..80
    b.extend([0u8, 1, 2, 0]); // 80..84 u8 indices (3 used)
    let json = format!(
        r#"{{
 "asset": {{"version": "2.0"}},
 "nodes": [{{"mesh": 0}}],
 "meshes": [{{"primitives": [
   {{"attributes": {{"POSITION": 0, "COLOR_0": 1}}, "indices": 3, "material": 0}},
   {{"attributes": {{"POSITION": 0, "COLOR_0": 2}}, "indices": 4}},
   {{"attributes": {{"POSITION": 0}}, "mode": 1}},
   {{"attributes": {{"POSITION": 0}}}}
 ]}}],
 "materials": [{{"name": "page_03_blend2", "doubleSided": true, "alphaMode": "BLEND",
   "pbrMetallicRoughness": {{"baseColorFactor": [1, 0.5, 0.25, 0.75], "baseColorTexture": {{"index": 0}}}},
   "extensions": {{"KHR_materials_unlit": {{}}}}, "extras": {{"blend_mode": "2"}}}}],
 "textures": [{{"source": 0}}],
 "images": [{{"name": "page_03", "uri": "my%20pages/page_03.png"}}],
 "extensionsUsed": ["KHR_materials_unlit"],
 "accessors": [
  {{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}},
  {{"bufferView": 1, "componentType": 5121, "normalized": true, "count": 3, "type": "VEC4"}},
  {{"bufferView": 2, "componentType": 5123, "normalized": true, "count": 3, "type": "VEC3"}},
  {{"bufferView": 3, "componentType": 5125, "count": 3, "type": "SCALAR"}},
  {{"bufferView": 4, "componentType": 5121, "count": 3, "type": "SCALAR"}}
 ],
 "bufferViews": [
  {{"buffer": 0, "byteOffset": 0, "byteLength": 36}},
  {{"buffer": 0, "byteOffset": 36, "byteLength": 12}},
  {{"buffer": 0, "byteOffset": 48, "byteLength": 18}},
  {{"buffer": 0, "byteOffset": 68, "byteLength": 12}},
  {{"buffer": 0, "byteOffset": 80, "byteLength": 4}}
 ],
 "buffers": [{{"byteLength": {}, "uri": "{}"}}]
}}"#,
        b.len(),
        data_uri(&b)
    );
    let im = read_gltf(json.as_bytes(), "c.gltf", &NoFiles).unwrap();
    assert_eq!(im.warnings.len(), 2, "{:?}", im.warnings);
    assert!(im.warnings[0].starts_with("c.gltf: accessors[0]: POSITION accessor without min/max"));
    assert!(im.warnings[1].contains("primitives[2]") && im.warnings[1].contains("Lines"));
    let s = &im.scene;
    assert_eq!(s.roots, [0], "no scenes: the parentless nodes");
    assert_eq!(s.nodes[0].name, "node_0");
    let prims = &s.meshes[0].primitives;
    assert_eq!(prims.len(), 3);
    let d = |c: u8| f32::from(c) / 255.0;
    assert_eq!(
        prims[0].colors[0],
        [
            [1.0, d(128), 0.0, 1.0],
            [0.0, 0.0, 0.0, 0.0],
            [d(51), d(102), d(204), 1.0]
        ]
    );
    assert_eq!(prims[0].indices, [2, 1, 0], "u32 indices");
    let e = |c: u16| f32::from(c) / 65535.0;
    assert_eq!(
        prims[1].colors[0],
        [
            [1.0, 0.0, e(32768), 1.0],
            [0.0, 0.0, 0.0, 1.0],
            [e(1), e(2), e(3), 1.0]
        ]
    );
    assert_eq!(prims[1].indices, [0, 1, 2], "u8 indices");
    assert_eq!(prims[2].indices, [0, 1, 2], "no indices: sequential");
    let m = &s.materials[0];
    assert_eq!(m.name, "page_03_blend2");
    assert_eq!(m.base_color, [1.0, 0.5, 0.25, 0.75]);
    assert!(m.double_sided && m.unlit);
    assert_eq!(m.alpha, levelgeom_scene::AlphaMode::Blend);
    assert_eq!(m.extras, [("blend_mode".to_string(), "2".to_string())]);
    assert_eq!(s.textures[0].name, "page_03");
    assert_eq!(
        s.textures[0].source,
        TextureSource::External {
            uri: "my pages/page_03.png".into()
        }
    );
}
