//! Corrupt inputs are errors with a message, never panics.

use levelgeom_export::gltf;
use levelgeom_import::{read_gltf, read_obj, NoFiles};

use crate::util::{data_uri, f32s, glb};

fn small_glb() -> Vec<u8> {
    let mut s = levelgeom_scene::Scene::default();
    let m = s.add_mesh(levelgeom_scene::Mesh {
        name: "m".into(),
        primitives: vec![levelgeom_scene::Primitive {
            positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 1.0, 0.0]],
            colors: vec![vec![[1.0; 4]; 3]],
            indices: vec![0, 1, 2],
            ..Default::default()
        }],
    });
    let n = s.add_node(levelgeom_scene::Node {
        name: "n".into(),
        mesh: Some(m),
        ..Default::default()
    });
    s.roots.push(n);
    gltf::to_glb(&s, &gltf::GltfOptions::default()).unwrap()
}

#[test]
fn truncated_glb_is_an_error() {
    let g = small_glb();
    assert!(read_gltf(&g, "ok.glb", &NoFiles).is_ok());
    let e = read_gltf(&g[..g.len() / 2], "cut.glb", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cut.glb: GLB header: declares"), "{e}");
    for len in 0..g.len() {
        assert!(read_gltf(&g[..len], "cut.glb", &NoFiles).is_err(), "{len}");
    }
    // a header whose length is less than the header itself
    let e = read_gltf(b"glTF\x02\0\0\0\x05\0\0\0", "h.glb", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.contains("GLB header"), "{e}");
    // a chunk longer than the file
    let mut bad = g.clone();
    bad[12..16].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = read_gltf(&bad, "c.glb", &NoFiles).unwrap_err().to_string();
    assert!(e.contains("GLB chunk 0 at 0x0000000C"), "{e}");
}

#[test]
fn flipped_bytes_never_panic() {
    let g = small_glb();
    for i in 0..g.len() {
        for v in [0u8, 0xFF, 0x7F] {
            let mut b = g.clone();
            b[i] = v;
            let _ = read_gltf(&b, "x.glb", &NoFiles);
        }
    }
}

#[test]
fn accessor_past_its_buffer_view_is_an_error() {
    let b = f32s(&[0.0; 9]);
    let doc = |count: usize, stride: &str| {
        format!(
            r#"{{"asset": {{"version": "2.0"}}, "nodes": [{{"mesh": 0}}],
 "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}}}]}}],
 "accessors": [{{"bufferView": 0, "componentType": 5126, "count": {count}, "type": "VEC3"}}],
 "bufferViews": [{{"buffer": 0, "byteLength": 36{stride}}}],
 "buffers": [{{"byteLength": 36, "uri": "{}"}}]}}"#,
            data_uri(&b)
        )
    };
    assert!(read_gltf(doc(3, "").as_bytes(), "a.gltf", &NoFiles).is_ok());
    let e = read_gltf(doc(4, "").as_bytes(), "a.gltf", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("a.gltf: accessors[0]: 4 elements"), "{e}");
    let e = read_gltf(doc(usize::MAX / 2, "").as_bytes(), "a.gltf", &NoFiles).unwrap_err();
    assert!(e.to_string().contains("accessors[0]"), "{e}");
    let e = read_gltf(
        doc(3, r#", "byteStride": 16"#).as_bytes(),
        "a.gltf",
        &NoFiles,
    )
    .unwrap_err();
    assert!(e.to_string().contains("accessors[0]"), "{e}");
    // a view past its buffer
    let json = doc(3, "").replace(r#""byteLength": 36}"#, r#""byteLength": 40}"#);
    let e = read_gltf(json.as_bytes(), "a.gltf", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.contains("bufferViews[0]"), "{e}");
    // a buffer shorter than its byteLength
    let json = doc(3, "").replace(r#""byteLength": 36, "uri""#, r#""byteLength": 48, "uri""#);
    let e = read_gltf(json.as_bytes(), "a.gltf", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.contains("buffers[0]"), "{e}");
}

#[test]
fn index_past_the_vertices_and_bad_references_are_errors() {
    let mut b = f32s(&[0.0; 9]);
    b.extend([0u8, 1, 7, 0]);
    let json = format!(
        r#"{{"asset": {{"version": "2.0"}}, "nodes": [{{"mesh": 0}}],
 "meshes": [{{"primitives": [{{"attributes": {{"POSITION": 0}}, "indices": 1}}]}}],
 "accessors": [{{"bufferView": 0, "componentType": 5126, "count": 3, "type": "VEC3"}},
   {{"bufferView": 1, "componentType": 5121, "count": 3, "type": "SCALAR"}}],
 "bufferViews": [{{"buffer": 0, "byteLength": 36}}, {{"buffer": 0, "byteOffset": 36, "byteLength": 3}}],
 "buffers": [{{"byteLength": 40, "uri": "{}"}}]}}"#,
        data_uri(&b)
    );
    let e = read_gltf(json.as_bytes(), "i.gltf", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.contains("accessors[1]") && e.contains("is 7"), "{e}");
    // a node naming a mesh that does not exist: the gltf crate's validation, with its path
    let bad = json.replace(r#""nodes": [{"mesh": 0}]"#, r#""nodes": [{"mesh": 5}]"#);
    let e = read_gltf(bad.as_bytes(), "i.gltf", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.contains("nodes[0].mesh"), "{e}");
    // GLB without a BIN chunk for a buffer without uri
    let g = glb(
        r#"{"asset": {"version": "2.0"}, "buffers": [{"byteLength": 4}]}"#,
        &[],
    );
    let e = read_gltf(&g, "g.glb", &NoFiles).unwrap_err().to_string();
    assert!(e.contains("buffers[0]"), "{e}");
    // unsupported required extension
    let r = r#"{"asset": {"version": "2.0"}, "extensionsRequired": ["KHR_draco_mesh_compression"], "extensionsUsed": ["KHR_draco_mesh_compression"]}"#;
    let e = read_gltf(r.as_bytes(), "d.gltf", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.contains("extensionsRequired"), "{e}");
}

#[test]
fn bad_json_is_an_error() {
    let e = read_gltf(b"{\"asset\": {\"version\": \"2.0\"}, ", "j.gltf", &NoFiles).unwrap_err();
    // 30 bytes of JSON: the parser stops at its last byte, 29 = 0x1D (line 1, column 30)
    assert!(
        e.to_string()
            .starts_with("j.gltf: JSON, at byte offset 0x0000001D: "),
        "{e}"
    );
    let e = read_gltf(b"[1, 2]", "j.gltf", &NoFiles).unwrap_err();
    assert!(e.to_string().contains("j.gltf"), "{e}");
    assert!(read_gltf(b"", "j.gltf", &NoFiles).is_err());
}

#[test]
fn obj_index_out_of_range_is_an_error() {
    let e = read_obj(b"v 0 0 0\nv 1 0 0\nf 1 2 3\n", "o.obj", &NoFiles).unwrap_err();
    assert_eq!(
        e.to_string(),
        "o.obj: line 3: vertex index 3 out of range (the file has 2)"
    );
    let e = read_obj(b"v 0 0 0\nvn 0 0 1\nf 1//1 1//2 1//1\n", "o.obj", &NoFiles).unwrap_err();
    assert!(e.to_string().contains("line 3: normal index 2"), "{e}");
}
