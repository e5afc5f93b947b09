//! The accessors a GLB read in part from disk reads straight into the scene's vectors (tight
//! f32 VEC3 POSITION, u16/u32 indices) and those it reads the present way (a strided POSITION,
//! u8 indices, an index accessor with a byteOffset): each value against the bytes written by
//! hand, the whole scene and warnings against the eager read of the same file (which never
//! reads straight from the file), and a bad accessor refused with the eager read's message.

use levelgeom_import::{
    read_gltf_deferred, read_mesh_deferred, read_mesh_with, MeshOptions, NoFiles,
};

use crate::util::{f32s, glb, u16s, u32s};

const OPTS: MeshOptions = MeshOptions {
    limits: levelgeom_import::Limits::DEFAULT,
    decode_images: false,
};

/// A bufferView's bytes and optional byteStride.
type View = (Vec<u8>, Option<usize>);

/// A GLB of `views` (bytes and optional byteStride, 4-aligned one after the other in the BIN
/// chunk; the buffer's byteLength `buffer_len`, or the chunk's), `accessors` and `meshes`
/// (JSON objects), one node per mesh.
fn file(views: &[View], buffer_len: Option<usize>, accessors: &[&str], meshes: &[&str]) -> Vec<u8> {
    let mut bin = Vec::new();
    let mut json_views = Vec::new();
    for (bytes, stride) in views {
        let stride = stride.map_or(String::new(), |s| format!(r#","byteStride":{s}"#));
        json_views.push(format!(
            r#"{{"buffer":0,"byteOffset":{},"byteLength":{}{stride}}}"#,
            bin.len(),
            bytes.len()
        ));
        bin.extend_from_slice(bytes);
        while bin.len() % 4 != 0 {
            bin.push(0);
        }
    }
    let nodes: Vec<String> = (0..meshes.len())
        .map(|m| format!(r#"{{"mesh":{m}}}"#))
        .collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],"meshes":[{}],"nodes":[{}]}}"#,
        buffer_len.unwrap_or(bin.len()),
        json_views.join(","),
        accessors.join(","),
        meshes.join(","),
        nodes.join(",")
    );
    glb(&json, &bin)
}

/// An f32 VEC3 accessor of `count` elements on `view` from `offset`.
fn vec3(view: usize, offset: usize, count: usize) -> String {
    format!(
        r#"{{"bufferView":{view},"byteOffset":{offset},"componentType":5126,"count":{count},"type":"VEC3","min":[0,0,0],"max":[1,1,1]}}"#
    )
}

/// A SCALAR index accessor of `count` elements of `component_type` on `view` from `offset`.
fn scalar(view: usize, offset: usize, component_type: u32, count: usize) -> String {
    format!(
        r#"{{"bufferView":{view},"byteOffset":{offset},"componentType":{component_type},"count":{count},"type":"SCALAR"}}"#
    )
}

/// The file at `path` read in part (deferred, every mesh completed) and read eagerly: the
/// same scene and warnings; the scene.
fn read_both(path: &std::path::Path) -> levelgeom_scene::Scene {
    let (mut part, deferred) = read_mesh_deferred(path, &OPTS).unwrap();
    deferred
        .expect("a plain GLB is read in part")
        .complete(&mut part.scene, &[])
        .unwrap();
    let eager = read_mesh_with(path, &OPTS).unwrap();
    assert_eq!(part.scene, eager.scene);
    assert_eq!(part.warnings, eager.warnings);
    // and the same bytes read from memory (never straight from a file)
    let bytes = std::fs::read(path).unwrap();
    let (mut mem, deferred) = read_gltf_deferred(bytes, "x.glb", &NoFiles, &OPTS).unwrap();
    deferred.unwrap().complete(&mut mem.scene, &[]).unwrap();
    assert_eq!(mem.scene.meshes, part.scene.meshes);
    part.scene
}

const P0: [[f32; 3]; 3] = [[1.5, -2.25, 3.0], [0.1, 1e-30, -0.0], [7.0, 8.0, f32::MAX]];
const P1: [[f32; 3]; 3] = [[4.0, 5.0, 6.0], [-4.0, -5.0, -6.0], [0.5, 0.25, 0.125]];
const N1: [f32; 3] = [0.0, 0.0, 1.0];

/// Mesh 0: tight POSITION [`P0`], u32 indices (both read straight from the file). Mesh 1:
/// POSITION [`P1`] and NORMAL [`N1`] interleaved (stride 24: read from the fetched view), u16
/// indices from byteOffset 2 of their view (straight, past the first). Mesh 2: tight POSITION
/// [`P0`], u8 indices (fetched).
fn mixed() -> Vec<u8> {
    let mut interleaved = Vec::new();
    for p in &P1 {
        interleaved.extend(f32s(p));
        interleaved.extend(f32s(&N1));
    }
    let flat = |p: &[[f32; 3]; 3]| -> Vec<f32> { p.iter().flatten().copied().collect() };
    let views = [
        (f32s(&flat(&P0)), None),
        (u32s(&[2, 1, 0, 0, 2, 1]), None),
        (interleaved, Some(24)),
        (u16s(&[9, 1, 2, 0]), None),
        (f32s(&flat(&P0)), None),
        (vec![0, 2, 1], None),
    ];
    let accessors = [
        vec3(0, 0, 3),
        scalar(1, 0, 5125, 6),
        vec3(2, 0, 3),
        vec3(2, 12, 3),
        scalar(3, 2, 5123, 3),
        vec3(4, 0, 3),
        scalar(5, 0, 5121, 3),
    ];
    let meshes = [
        r#"{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}"#,
        r#"{"primitives":[{"attributes":{"POSITION":2,"NORMAL":3},"indices":4}]}"#,
        r#"{"primitives":[{"attributes":{"POSITION":5},"indices":6}]}"#,
    ];
    let acc: Vec<&str> = accessors.iter().map(String::as_str).collect();
    file(&views, None, &acc, &meshes)
}

#[test]
fn direct_and_fetched_accessors_read_the_values_written() {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("level.glb");
    std::fs::write(&path, mixed()).unwrap();
    let scene = read_both(&path);
    let prim = |m: usize| &scene.meshes[m].primitives[0];
    let bits = |p: &[[f32; 3]]| -> Vec<u32> { p.iter().flatten().map(|v| v.to_bits()).collect() };
    // bit for bit: -0.0, the tiny value and f32::MAX as written
    assert_eq!(bits(&prim(0).positions), bits(&P0));
    assert_eq!(prim(0).indices, vec![2, 1, 0, 0, 2, 1]);
    assert_eq!(prim(1).positions, P1.to_vec());
    assert_eq!(prim(1).normals, vec![N1; 3]);
    assert_eq!(prim(1).indices, vec![1, 2, 0]);
    assert_eq!(bits(&prim(2).positions), bits(&P0));
    assert_eq!(prim(2).indices, vec![0, 2, 1]);
}

/// What a read of `path` gives, as text: the scene and warnings, or the error. In part:
/// deferred and every mesh completed; else read whole and eagerly.
fn outcome(path: &std::path::Path, in_part: bool) -> String {
    let read = if in_part {
        read_mesh_deferred(path, &OPTS).and_then(|(mut imported, deferred)| {
            if let Some(mut d) = deferred {
                d.complete(&mut imported.scene, &[])?;
            }
            Ok(imported)
        })
    } else {
        read_mesh_with(path, &OPTS)
    };
    match read {
        Ok(i) => format!("{:?} {:?}", i.scene, i.warnings),
        Err(e) => format!("error: {e}"),
    }
}

/// Every byte of [`mixed`] overwritten in turn (with 0, 0xFF, a digit, a quote: offsets,
/// counts and strides of the JSON changed, lengths of the header and chunks, values in the
/// BIN chunk) and the file cut at every length: the read in part (straight from the file
/// where it can) gives what the eager read of the whole file gives, scene, warnings or error
/// message; and some of the files are errors, some read.
#[test]
fn corrupt_files_read_in_part_as_the_eager_read_reads_them() {
    let good = mixed();
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("c.glb");
    let (mut errors, mut read) = (0, 0);
    let mut check = |bytes: &[u8], what: &str| {
        std::fs::write(&path, bytes).unwrap();
        let eager = outcome(&path, false);
        assert_eq!(outcome(&path, true), eager, "{what}");
        if eager.starts_with("error") {
            errors += 1;
        } else {
            read += 1;
        }
    };
    for k in 0..good.len() {
        for v in [0u8, 0xFF, b'7', b'"'] {
            let mut bad = good.clone();
            bad[k] = v;
            check(&bad, &format!("byte {k} = {v:#04X}"));
        }
    }
    for len in 0..good.len() {
        check(&good[..len], &format!("cut at {len}"));
    }
    assert!(errors > 500 && read > 500, "{errors} errors, {read} read");
}

/// u16 indices spanning several of the small buffer's reads (8,192 bytes: 4,096 indices)
/// widened in order, as the eager read gives them.
#[test]
fn many_u16_indices_are_widened_in_order() {
    let n: u16 = 9_001;
    let idx: Vec<u16> = (0..3 * u32::from(n))
        .map(|k| ((k * 7) % u32::from(n)) as u16)
        .collect();
    let pos: Vec<f32> = (0..3 * u32::from(n)).map(|k| k as f32).collect();
    let views = [(f32s(&pos), None), (u16s(&idx), None)];
    let accessors = [vec3(0, 0, usize::from(n)), scalar(1, 0, 5123, idx.len())];
    let acc: Vec<&str> = accessors.iter().map(String::as_str).collect();
    let meshes = [r#"{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}"#];
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("level.glb");
    std::fs::write(&path, file(&views, None, &acc, &meshes)).unwrap();
    let scene = read_both(&path);
    let p = &scene.meshes[0].primitives[0];
    let want: Vec<u32> = idx.iter().map(|&i| u32::from(i)).collect();
    assert_eq!(p.indices, want);
    assert_eq!(p.positions[9_000], [27_000.0, 27_001.0, 27_002.0]);
}

/// A bad POSITION or index accessor (past its view, its view past the buffer, the buffer past
/// the BIN chunk, an index past the vertices) is refused by the read in part with the eager
/// read's message, the place named.
#[test]
fn bad_direct_accessors_are_refused_as_the_eager_read_refuses_them() {
    let pos = f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let meshes = [r#"{"primitives":[{"attributes":{"POSITION":0},"indices":1}]}"#];
    let cases = [
        // 4 positions in a 36-byte view
        (
            vec![vec3(0, 0, 4), scalar(1, 0, 5125, 3)],
            vec![(pos.clone(), None), (u32s(&[0, 1, 2]), None)],
            None,
            "accessors[0]: 4 elements of 12 bytes (stride 12) from byteOffset 0 run past bufferView 0 (36 bytes)",
        ),
        // 4 u16 indices from byteOffset 2 of an 8-byte view
        (
            vec![vec3(0, 0, 3), scalar(1, 2, 5123, 4)],
            vec![(pos.clone(), None), (u16s(&[0, 1, 2, 0]), None)],
            None,
            "accessors[1]: 4 indices of 2 bytes from byteOffset 2 run past bufferView 1 (8 bytes)",
        ),
        // an index past the 3 vertices
        (
            vec![vec3(0, 0, 3), scalar(1, 0, 5125, 3)],
            vec![(pos.clone(), None), (u32s(&[0, 7, 2]), None)],
            None,
            "accessors[1]: index 1 is 7, past the 3 vertices of meshes[0].primitives[0]",
        ),
        // the buffer declares more bytes than the BIN chunk holds
        (
            vec![vec3(0, 0, 3), scalar(1, 0, 5125, 3)],
            vec![(pos.clone(), None), (u32s(&[0, 1, 2]), None)],
            Some(4096),
            "buffers[0]: byteLength is 4096 but the data has 48 bytes",
        ),
        // the indices' view runs past the buffer (byteLength cut to 40: into the indices)
        (
            vec![vec3(0, 0, 3), scalar(1, 0, 5125, 3)],
            vec![(pos, None), (u32s(&[0, 1, 2]), None)],
            Some(40),
            "bufferViews[1]: bytes 36..36+12 are past the end of buffer 0 (40 bytes)",
        ),
    ];
    let dir = tempfile::tempdir().unwrap();
    for (k, (accessors, views, buffer_len, want)) in cases.into_iter().enumerate() {
        let acc: Vec<&str> = accessors.iter().map(String::as_str).collect();
        let path = dir.path().join(format!("bad{k}.glb"));
        std::fs::write(&path, file(&views, buffer_len, &acc, &meshes)).unwrap();
        let eager = read_mesh_with(&path, &OPTS).unwrap_err().to_string();
        let part = read_mesh_deferred(&path, &OPTS).unwrap_err().to_string();
        assert_eq!(part, eager, "case {k}");
        assert!(eager.ends_with(want), "case {k}: {eager}");
    }
}
