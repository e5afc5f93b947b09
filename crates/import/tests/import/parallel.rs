//! A glTF file of many meshes, read on a pool of several threads (the meshes are read in
//! parallel from 2^15 vertices on) and on a pool of one: the same scene, the warnings in mesh
//! order, and the first error in mesh order, each against the message written here by hand;
//! a triangle limit passed after a bad mesh gives the bad mesh's error, as a loop over the
//! meshes stops there.

use levelgeom_import::{
    read_gltf_with, read_mesh_deferred, ImportError, Imported, Limits, MeshOptions, NoFiles,
};

use crate::util::{f32s, glb, u16s};

/// Vertices (and indices) of each mesh's primitive: 256 triangles.
const V: usize = 768;
/// Meshes of the file: 49,152 vertices, past the parallel read's threshold.
const MESHES: usize = 64;

/// What a mesh of [`file`] has besides its triangles.
#[derive(Clone, Copy, PartialEq)]
enum Odd {
    /// A second primitive of mode POINTS (a warning).
    Points,
    /// A `JOINTS_0` attribute (a warning).
    Joints,
    /// Its index 5 is past the vertices (an error).
    BadIndex,
    /// A NORMAL of fewer elements than its POSITION (an error).
    ShortNormal,
}

/// A GLB of [`MESHES`] meshes `m{i}`, each one primitive of [`V`] vertices `[i, k, 0.5]` and
/// u16 indices `V−1 … 0` (accessors `2i`, `2i+1`), with the `odd` parts; one node per mesh.
fn file(odd: &[(usize, Odd)]) -> Vec<u8> {
    let mut bin = Vec::new();
    let mut views = Vec::new();
    let mut accessors = Vec::new();
    let mut meshes = Vec::new();
    let mut extra = Vec::new();
    for m in 0..MESHES {
        let what = |o: Odd| odd.contains(&(m, o));
        let pos: Vec<f32> = (0..V).flat_map(|k| [m as f32, k as f32, 0.5]).collect();
        let mut idx: Vec<u16> = (0..V as u16).rev().collect();
        if what(Odd::BadIndex) {
            idx[5] = V as u16 + 5;
        }
        for bytes in [f32s(&pos), u16s(&idx)] {
            views.push(format!(
                r#"{{"buffer":0,"byteOffset":{},"byteLength":{}}}"#,
                bin.len(),
                bytes.len()
            ));
            bin.extend(bytes);
        }
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":5126,"count":{V},"type":"VEC3","min":[0,0,0],"max":[1,1,1]}}"#,
            2 * m
        ));
        accessors.push(format!(
            r#"{{"bufferView":{},"componentType":5123,"count":{V},"type":"SCALAR"}}"#,
            2 * m + 1
        ));
        let mut attributes = format!(r#""POSITION":{}"#, 2 * m);
        if what(Odd::Joints) {
            attributes += &format!(r#","JOINTS_0":{}"#, 2 * m + 1);
        }
        if what(Odd::ShortNormal) {
            attributes += &format!(r#","NORMAL":{}"#, 2 * MESHES + extra.len());
            extra.push(format!(
                r#"{{"bufferView":{},"componentType":5126,"count":{},"type":"VEC3"}}"#,
                2 * m,
                V - 3
            ));
        }
        let mut prims = vec![format!(
            r#"{{"attributes":{{{attributes}}},"indices":{}}}"#,
            2 * m + 1
        )];
        if what(Odd::Points) {
            prims.push(format!(
                r#"{{"attributes":{{"POSITION":{}}},"mode":0}}"#,
                2 * m
            ));
        }
        meshes.push(format!(
            r#"{{"name":"m{m}","primitives":[{}]}}"#,
            prims.join(",")
        ));
    }
    accessors.extend(extra);
    let nodes: Vec<String> = (0..MESHES).map(|m| format!(r#"{{"mesh":{m}}}"#)).collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],"bufferViews":[{}],"accessors":[{}],"meshes":[{}],"nodes":[{}]}}"#,
        bin.len(),
        views.join(","),
        accessors.join(","),
        meshes.join(","),
        nodes.join(",")
    );
    glb(&json, &bin)
}

/// Options with at most `max_triangles` triangles.
fn opts(max_triangles: usize) -> MeshOptions {
    MeshOptions {
        limits: Limits {
            max_triangles,
            ..Limits::DEFAULT
        },
        decode_images: false,
    }
}

/// `f` on a pool of `threads` threads.
fn on_pool<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}

/// `bytes` read from memory and from a file read in part (deferred), on a pool of 4 threads
/// and on a pool of 1: the same outcome each way (scene and warnings, or error message); the
/// outcome.
fn read(bytes: &[u8], opts: &MeshOptions) -> Result<Imported, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("x.glb");
    std::fs::write(&path, bytes).unwrap();
    let mem = || read_gltf_with(bytes, "x.glb", &NoFiles, opts).map_err(|e| e.to_string());
    let part = || {
        read_mesh_deferred(&path, opts)
            .map(|(imported, _)| imported)
            .map_err(|e: ImportError| e.to_string())
    };
    let many = on_pool(4, mem);
    let one = on_pool(1, mem);
    assert_eq!(outcome(&many), outcome(&one));
    let many_part = on_pool(4, part);
    let one_part = on_pool(1, part);
    assert_eq!(outcome(&many_part), outcome(&one_part));
    // the read in part names the file by its path; its meshes and warnings are the same
    match (&many, &many_part) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.scene.meshes, b.scene.meshes);
            let file = format!("{}: ", path.display());
            let ws: Vec<String> = b
                .warnings
                .iter()
                .map(|w| w.replace(&file, "x.glb: "))
                .collect();
            assert_eq!(a.warnings, ws);
        }
        (Err(a), Err(b)) => assert_eq!(*a, b.replace(&path.display().to_string(), "x.glb")),
        (a, b) => panic!("{:?} vs {:?}", a.is_ok(), b.is_ok()),
    }
    many
}

/// A read's scene and warnings, or its error, to compare.
fn outcome(r: &Result<Imported, String>) -> Result<(levelgeom_scene::Scene, Vec<String>), String> {
    r.as_ref()
        .map(|i| (i.scene.clone(), i.warnings.clone()))
        .map_err(Clone::clone)
}

fn points(m: usize) -> String {
    format!("x.glb: meshes[{m}].primitives[1]: mode Points skipped (only TRIANGLES is read)")
}

fn joints(m: usize) -> String {
    format!("x.glb: meshes[{m}].primitives[0].attributes.JOINTS_0: skinning attribute ignored")
}

fn bad_index(m: usize) -> String {
    format!(
        "x.glb: accessors[{}]: index 5 is {}, past the {V} vertices of meshes[{m}].primitives[0]",
        2 * m + 1,
        V + 5
    )
}

#[test]
fn many_meshes_read_in_parallel_give_their_warnings_in_mesh_order() {
    let odd = [
        (63, Odd::Joints),
        (3, Odd::Points),
        (20, Odd::Joints),
        (41, Odd::Points),
        (41, Odd::Joints),
        (0, Odd::Points),
    ];
    let got = read(&file(&odd), &opts(1 << 22)).unwrap();
    assert_eq!(
        got.warnings,
        [
            points(0),
            points(3),
            joints(20),
            joints(41),
            points(41),
            joints(63)
        ]
    );
    let meshes = &got.scene.meshes;
    assert_eq!(meshes.len(), MESHES);
    for (m, mesh) in meshes.iter().enumerate() {
        assert_eq!(mesh.name, format!("m{m}"));
        assert_eq!(mesh.primitives.len(), 1);
        let p = &mesh.primitives[0];
        assert_eq!(p.positions[7], [m as f32, 7.0, 0.5]);
        assert_eq!(p.indices[..3], [V as u32 - 1, V as u32 - 2, V as u32 - 3]);
    }
}

#[test]
fn many_meshes_read_in_parallel_give_the_first_error_in_mesh_order() {
    let odd = [
        (3, Odd::Points),
        (50, Odd::BadIndex),
        (61, Odd::ShortNormal),
        (30, Odd::BadIndex),
        (31, Odd::ShortNormal),
    ];
    assert_eq!(
        read(&file(&odd), &opts(1 << 22)).unwrap_err(),
        bad_index(30)
    );
    let odd = [
        (62, Odd::BadIndex),
        (63, Odd::ShortNormal),
        (7, Odd::Joints),
    ];
    assert_eq!(
        read(&file(&odd), &opts(1 << 22)).unwrap_err(),
        bad_index(62)
    );
    let odd = [(63, Odd::ShortNormal), (9, Odd::Joints)];
    assert_eq!(
        read(&file(&odd), &opts(1 << 22)).unwrap_err(),
        format!(
            "x.glb: meshes[63].primitives[0].attributes.NORMAL: accessor {} has {} elements, POSITION has {V}",
            2 * MESHES,
            V - 3
        )
    );
}

#[test]
fn a_triangle_limit_passed_after_a_bad_mesh_gives_the_bad_mesh_error() {
    // 256 triangles a mesh: 50 meshes hold 12,800, mesh 50 takes the count to 13,056
    let limit = opts(12_800);
    let over = format!(
        "x.glb: meshes[50].primitives[0].indices (accessors[101] count {V}): triangles of the \
         file's primitives 13056 is more than the limit of 12800 (Limits::max_triangles)"
    );
    assert_eq!(read(&file(&[]), &limit).unwrap_err(), over);
    // a mesh after it failing changes nothing; a mesh before it failing is the error
    let odd = [(51, Odd::BadIndex), (5, Odd::Joints)];
    assert_eq!(read(&file(&odd), &limit).unwrap_err(), over);
    let odd = [
        (44, Odd::BadIndex),
        (49, Odd::ShortNormal),
        (5, Odd::Joints),
    ];
    assert_eq!(read(&file(&odd), &limit).unwrap_err(), bad_index(44));
    // the mesh passing the limit counts before it reads: its own bad index comes after
    let odd = [(50, Odd::BadIndex)];
    assert_eq!(read(&file(&odd), &limit).unwrap_err(), over);
    // one triangle more: mesh 50 is read, mesh 51 passes the limit after mesh 50's error
    let odd = [(50, Odd::BadIndex)];
    assert_eq!(read(&file(&odd), &opts(13_056)).unwrap_err(), bad_index(50));
    // and with no error the whole file is read at the limit exactly
    let got = read(&file(&[(12, Odd::Points)]), &opts(MESHES * V / 3)).unwrap();
    assert_eq!(got.warnings, [points(12)]);
    assert_eq!(got.scene.meshes.len(), MESHES);
}
