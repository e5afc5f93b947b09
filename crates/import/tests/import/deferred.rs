//! The deferred GLB read (`read_mesh_deferred` / `read_gltf_deferred`): positions and indices
//! first, the other attributes for the meshes completed, each value against the bytes written
//! by hand; a file of another layout read whole; bad attributes refused when the file is read,
//! as the eager reader refuses them.

use levelgeom_import::{
    read_gltf_deferred, read_mesh_deferred, read_mesh_with, MeshOptions, NoFiles,
};

use crate::util::{f32s, glb, u16s};

const OPTS: MeshOptions = MeshOptions {
    limits: levelgeom_import::Limits::DEFAULT,
    decode_images: false,
};

/// Two meshes of one triangle each (POSITION, NORMAL, TEXCOORD_0, COLOR_0 as normalized u8,
/// u16 indices), one node each; `normal_offset` is the byteOffset of mesh 1's NORMAL.
fn two_meshes(normal_offset: usize) -> Vec<u8> {
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut push = |bin: &mut Vec<u8>, bytes: Vec<u8>| {
        views.push(format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
            bin.len(),
            bytes.len()
        ));
        bin.extend(bytes);
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
    };
    for m in 0..2u8 {
        let z = f32::from(m);
        push(&mut bin, f32s(&[0.0, 0.0, z, 1.0, 0.0, z, 0.0, 1.0, z]));
        push(
            &mut bin,
            f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0]),
        );
        push(&mut bin, f32s(&[0.0, 0.0, 1.0, 0.0, 0.0, 0.5]));
        push(
            &mut bin,
            vec![255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 51, 255],
        );
        push(&mut bin, u16s(&[0, 1, 2]));
    }
    let mut accessors = Vec::new();
    let mut meshes = Vec::new();
    for m in 0..2usize {
        let v = 5 * m;
        let off = if m == 1 { normal_offset } else { 0 };
        accessors.push(format!(
            r#"{{"bufferView":{v},"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,1]}}"#
        ));
        accessors.push(format!(
            r#"{{"bufferView":{},"byteOffset":{off},"componentType":5126,"count":3,"type":"VEC3"}}"#,
            v + 1
        ));
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":5126,"count":3,"type":"VEC2"}}"#,
            v + 2
        ));
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":5121,"normalized":true,"count":3,"type":"VEC4"}}"#,
            v + 3
        ));
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":5123,"count":3,"type":"SCALAR"}}"#,
            v + 4
        ));
        meshes.push(format!(
            r#"{{"primitives":[{{"attributes":{{"POSITION":{v},"NORMAL":{},"TEXCOORD_0":{},"COLOR_0":{}}},"indices":{}}}]}}"#,
            v + 1,
            v + 2,
            v + 3,
            v + 4
        ));
    }
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],"meshes":[{}],"nodes":[{{"mesh":0}},{{"mesh":1}}],"scenes":[{{"nodes":[0,1]}}]}}"#,
        bin.len(),
        views.join(","),
        accessors.join(","),
        meshes.join(",")
    );
    glb(&json, &bin)
}

#[test]
fn a_deferred_glb_read_gives_positions_first_and_the_rest_for_the_meshes_completed() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("level.glb");
    std::fs::write(&path, two_meshes(0)).unwrap();
    let (mut lean, deferred) = read_mesh_deferred(&path, &OPTS).unwrap();
    let mut deferred = deferred.expect("a plain GLB is read deferred");
    for (m, mesh) in lean.scene.meshes.iter().enumerate() {
        let p = &mesh.primitives[0];
        let z = m as f32;
        assert_eq!(
            p.positions,
            vec![[0.0, 0.0, z], [1.0, 0.0, z], [0.0, 1.0, z]]
        );
        assert_eq!(p.indices, vec![0, 1, 2]);
        assert!(p.normals.is_empty() && p.uvs.is_empty() && p.colors.is_empty());
    }
    deferred.complete(&mut lean.scene, &[true, false]).unwrap();
    let p = &lean.scene.meshes[0].primitives[0];
    assert_eq!(p.normals, vec![[0.0, 0.0, 1.0]; 3]);
    assert_eq!(p.uvs, vec![vec![[0.0, 0.0], [1.0, 0.0], [0.0, 0.5]]]);
    // normalized u8: c / 255 (51 / 255 = 0.2)
    assert_eq!(
        p.colors,
        vec![vec![
            [1.0, 0.0, 0.0, 1.0],
            [0.0, 1.0, 0.0, 1.0],
            [0.0, 0.0, 0.2, 1.0]
        ]]
    );
    let q = &lean.scene.meshes[1].primitives[0];
    assert!(q.normals.is_empty() && q.uvs.is_empty() && q.colors.is_empty());
    // completed, mesh 0 is what the eager read gives; both completed, the whole scene is
    let eager = read_mesh_with(&path, &OPTS).unwrap();
    assert_eq!(lean.scene.meshes[0], eager.scene.meshes[0]);
    deferred.complete(&mut lean.scene, &[false, true]).unwrap();
    assert_eq!(lean.scene, eager.scene);
    assert_eq!(lean.warnings, eager.warnings);
    assert_eq!(lean.inputs, eager.inputs);
}

#[test]
fn a_deferred_read_refuses_an_unread_attribute_past_its_view_as_the_eager_read_does() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("level.glb");
    // mesh 1's NORMAL starts 4 bytes into its 36-byte view: its last element runs past it
    std::fs::write(&path, two_meshes(4)).unwrap();
    let eager = read_mesh_with(&path, &OPTS).unwrap_err().to_string();
    let deferred = read_mesh_deferred(&path, &OPTS).unwrap_err().to_string();
    assert!(
        eager.contains("accessors[6]") && eager.contains("run past bufferView 6 (36 bytes)"),
        "{eager}"
    );
    assert_eq!(deferred, eager);
}

#[test]
fn a_glb_of_another_layout_is_read_whole_and_json_gltf_is_not_deferred() {
    // JSON glTF (its buffer a data URI): nothing deferred, every attribute read
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"data:application/octet-stream;base64,AAAAAAAAAAAAAAAAAACAPwAAAAAAAAAAAAAAAAAAgD8AAAAA"}],"bufferViews":[{"buffer":0,"byteLength":36}],"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],"meshes":[{"primitives":[{"attributes":{"POSITION":0,"NORMAL":0}}]}],"nodes":[{"mesh":0}]}"#;
    let (imported, deferred) =
        read_gltf_deferred(json.as_bytes().to_vec(), "a.gltf", &NoFiles, &OPTS).unwrap();
    assert!(deferred.is_none());
    assert_eq!(imported.scene.meshes[0].primitives[0].normals.len(), 3);
    // GLB bytes in memory: deferred
    let bytes = two_meshes(0);
    let (imported, deferred) =
        read_gltf_deferred(bytes.clone(), "level.glb", &NoFiles, &OPTS).unwrap();
    assert!(deferred.is_some(), "the GLB bytes in memory defer");
    assert!(imported.scene.meshes[0].primitives[0].normals.is_empty());
    // a GLB with a chunk after BIN is read whole from disk (and its chunk warned about)
    let mut odd = bytes;
    odd.extend_from_slice(&4u32.to_le_bytes());
    odd.extend_from_slice(b"XTRA");
    odd.extend_from_slice(&[0; 4]);
    let total = odd.len() as u32;
    odd[8..12].copy_from_slice(&total.to_le_bytes());
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("odd.glb");
    std::fs::write(&path, &odd).unwrap();
    let (whole, deferred) = read_mesh_deferred(&path, &OPTS).unwrap();
    let eager = read_mesh_with(&path, &OPTS).unwrap();
    let mut whole = whole;
    if let Some(mut d) = deferred {
        d.complete(&mut whole.scene, &[]).unwrap();
    }
    assert_eq!(whole.scene, eager.scene);
    assert!(
        // "XTRA" as bytes
        eager
            .warnings
            .iter()
            .any(|w| w.contains("chunk type [88, 84, 82, 65] ignored")),
        "{:?}",
        eager.warnings
    );
    assert_eq!(whole.warnings, eager.warnings);
}
