//! Hostile mesh files and companions (issue 24): bombs refused before allocating, FIFOs and
//! devices refused without blocking, companions confined to the mesh's folder by real path,
//! CR-only line ends, errors that locate. Every case is built small, here.

use std::path::Path;
use std::sync::mpsc;
use std::time::Duration;

use levelgeom_import::{
    read_gltf, read_gltf_with, read_mesh, read_mesh_with, read_obj, world_triangles_limited,
    ImportError, Limits, MeshOptions, NoFiles,
};
use levelgeom_scene::{Mesh, Node, Primitive, Scene, TextureSource};

use crate::util::{f32s, glb};

/// Run `f` on another thread and fail (instead of hanging the test run) after 20 s.
fn within_20s<T: Send + 'static>(f: impl FnOnce() -> T + Send + 'static) -> T {
    let (tx, rx) = mpsc::channel();
    std::thread::spawn(move || {
        let _ = tx.send(f());
    });
    rx.recv_timeout(Duration::from_secs(20))
        .expect("blocked for 20 s (a FIFO was opened?)")
}

fn mkfifo(p: &Path) -> bool {
    std::process::Command::new("mkfifo")
        .arg(p)
        .status()
        .is_ok_and(|s| s.success())
}

/// One triangle: 3 positions in a BIN chunk, accessor 0.
const TRI_JSON: &str = r#""buffers":[{"byteLength":36}],"bufferViews":[{"buffer":0,"byteLength":36}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]"#;

fn tri_bin() -> Vec<u8> {
    f32s(&[0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0])
}

/// A 65535 × 65535 RGBA16 PNG header (IHDR only: 16 GiB of pixels claimed in 33 bytes).
fn png_bomb() -> Vec<u8> {
    let mut p = b"\x89PNG\r\n\x1a\n".to_vec();
    p.extend_from_slice(&13u32.to_be_bytes());
    p.extend_from_slice(b"IHDR");
    p.extend_from_slice(&65535u32.to_be_bytes());
    p.extend_from_slice(&65535u32.to_be_bytes());
    p.extend_from_slice(&[16, 6, 0, 0, 0]); // 16-bit RGBA
    p.extend_from_slice(&[0; 4]); // CRC (not checked before the size)
    p
}

fn glb_with_png_bomb() -> Vec<u8> {
    let mut bin = tri_bin();
    let png = png_bomb();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":{}}}],
"bufferViews":[{{"buffer":0,"byteLength":36}},{{"buffer":0,"byteOffset":36,"byteLength":{}}}],
"accessors":[{{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[0,0,0],"max":[1,1,0]}}],
"images":[{{"bufferView":1,"mimeType":"image/png"}}],"textures":[{{"source":0}}],
"materials":[{{"pbrMetallicRoughness":{{"baseColorTexture":{{"index":0}}}}}}],
"meshes":[{{"primitives":[{{"attributes":{{"POSITION":0}},"material":0}}]}}],"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#,
        36 + png.len(),
        png.len()
    );
    bin.extend_from_slice(&png);
    glb(&json, &bin)
}

#[test]
fn a_png_header_claiming_16_gib_is_never_decoded_by_an_import() {
    let g = glb_with_png_bomb();
    assert!(g.len() < 1000, "{}", g.len());
    // an importer does not decode images at all
    let opts = MeshOptions {
        decode_images: false,
        ..MeshOptions::default()
    };
    let im = read_gltf_with(&g, "bomb.glb", &NoFiles, &opts).unwrap();
    assert!(matches!(
        im.scene.textures[0].source,
        TextureSource::Unresolved { .. }
    ));
    assert_eq!(im.scene.meshes[0].primitives[0].indices.len(), 3);
    // a reader that decodes checks the header first: the warning names the claimed size and
    // the limit, so nothing was allocated for 65535 × 65535 × 8 bytes
    let im = read_gltf(&g, "bomb.glb", &NoFiles).unwrap();
    let w = im.warnings.join("\n");
    assert!(
        w.contains(
            "65535 × 65535 pixels, more than the limit of 67108864 (Limits::max_texture_pixels)"
        ),
        "{w}"
    );
}

#[test]
fn a_sparse_count_bomb_shared_by_primitives_is_refused_before_allocating() {
    // 8 primitives sharing one accessor of 22,369,621 zero vertices (no bufferView, one
    // sparse entry): 736 bytes that asked for 1.7 GB
    let prims: Vec<String> = (0..8)
        .map(|_| r#"{"attributes":{"POSITION":0}}"#.to_string())
        .collect();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},"buffers":[{{"byteLength":16}}],
"bufferViews":[{{"buffer":0,"byteLength":4}},{{"buffer":0,"byteOffset":4,"byteLength":12}}],
"accessors":[{{"componentType":5126,"count":22369621,"type":"VEC3","min":[0,0,0],"max":[1,1,1],
"sparse":{{"count":1,"indices":{{"bufferView":0,"componentType":5125}},"values":{{"bufferView":1}}}}}}],
"meshes":[{{"primitives":[{}]}}],"nodes":[{{"mesh":0}}],"scenes":[{{"nodes":[0]}}]}}"#,
        prims.join(",")
    );
    let g = glb(&json, &[0u8; 16]);
    let e = read_gltf(&g, "sparse.glb", &NoFiles).unwrap_err();
    assert!(matches!(e, ImportError::Limit { .. }), "{e}");
    let e = e.to_string();
    // 22,369,621 / 3 = 7,456,540 triangles > 2^22 = 4,194,304, named with where it was read
    assert_eq!(
        e,
        "sparse.glb: meshes[0].primitives[0].attributes.POSITION (accessors[0] count 22369621): \
         triangles of the file's primitives 7456540 is more than the limit of 4194304 (Limits::max_triangles)"
    );
    // a smaller limit: the vertex budget is met by the second primitive
    let opts = MeshOptions {
        limits: Limits {
            max_triangles: 10_000_000,
            ..Limits::DEFAULT
        },
        ..MeshOptions::default()
    };
    let e = read_gltf_with(&g, "sparse.glb", &NoFiles, &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("meshes[0].primitives[1]"), "{e}");
    assert!(e.contains("Limits::max_triangles"), "{e}");
}

#[test]
fn instancing_one_mesh_from_100000_nodes_is_refused_before_flattening() {
    let tri = Primitive {
        positions: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]],
        indices: (0..64).flat_map(|_| [0u32, 1, 2]).collect(),
        ..Primitive::default()
    };
    let mut s = Scene::default();
    let m = s.add_mesh(Mesh {
        name: "m".into(),
        primitives: vec![tri],
    });
    let root = s.add_node(Node {
        name: "root".into(),
        ..Node::default()
    });
    s.roots.push(root);
    for i in 0..100_000 {
        let n = s.add_node(Node {
            name: format!("n{i}"),
            mesh: Some(m),
            ..Node::default()
        });
        s.nodes[root].children.push(n);
    }
    // 64 triangles per node: the limit 2^22 = 4,194,304 is passed at the 65,537th node
    // (65,537 × 64 = 4,194,368), index 65,537 (node 0 is the root)
    let e = world_triangles_limited(&s, None, false, Limits::DEFAULT.max_instanced_triangles)
        .unwrap_err();
    assert_eq!(e.node, 65_537);
    assert_eq!(e.count, 4_194_368);
    assert!(
        e.to_string().contains("Limits::max_instanced_triangles"),
        "{e}"
    );
    // under the limit the same call flattens
    let ok = world_triangles_limited(&s, None, false, 6_400_000).unwrap();
    assert_eq!(ok.len(), 6_400_000);
}

#[test]
fn a_sparse_3_gib_obj_is_refused_from_its_size() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("big.obj");
    let f = std::fs::File::create(&p).unwrap();
    f.set_len(3 << 30).unwrap();
    drop(f);
    let e = read_mesh(&p).unwrap_err().to_string();
    assert!(
        e.ends_with("is 3221225472 bytes, more than the 1073741824 bytes this input may have"),
        "{e}"
    );
}

#[cfg(unix)]
#[test]
fn fifos_and_devices_are_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().to_path_buf();
    // FIFO as the mesh
    if !mkfifo(&d.join("mesh.obj")) {
        return;
    }
    let p = d.join("mesh.obj");
    let e = within_20s(move || read_mesh(&p).unwrap_err().to_string());
    assert!(e.contains("not a regular file"), "{e}");
    // FIFO as mtllib: a warning, no hang
    assert!(mkfifo(&d.join("m.mtl")));
    std::fs::write(
        d.join("a.obj"),
        "mtllib m.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .unwrap();
    let p = d.join("a.obj");
    let im = within_20s(move || read_mesh(&p).unwrap());
    let w = im.warnings.join("\n");
    assert!(w.contains("not a regular file"), "{w}");
    // FIFO as a glTF buffer uri: an error naming the buffer, no hang
    assert!(mkfifo(&d.join("t.bin")));
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},{}}}"#,
        TRI_JSON.replace(
            r#"[{"byteLength":36}]"#,
            r#"[{"byteLength":36,"uri":"t.bin"}]"#
        )
    );
    std::fs::write(d.join("t.gltf"), json).unwrap();
    let p = d.join("t.gltf");
    let e = within_20s(move || read_mesh(&p).unwrap_err().to_string());
    assert!(
        e.contains("buffers[0].uri") && e.contains("not a regular file"),
        "{e}"
    );
    // /dev/zero as the mesh, and (through a symlink) as an MTL: never read
    if Path::new("/dev/zero").exists() {
        let e = within_20s(|| read_mesh(Path::new("/dev/zero")).unwrap_err().to_string());
        assert!(e.contains("not a regular file"), "{e}");
        std::os::unix::fs::symlink("/dev/zero", d.join("z.mtl")).unwrap();
        std::fs::write(
            d.join("z.obj"),
            "mtllib z.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
        )
        .unwrap();
        let p = d.join("z.obj");
        let im = within_20s(move || read_mesh(&p).unwrap());
        let w = im.warnings.join("\n");
        assert!(w.contains("z.mtl") && w.contains("not read"), "{w}");
    }
}

#[cfg(unix)]
#[test]
fn companions_through_symlinks_out_of_the_folder_are_refused_and_never_echoed() {
    let root = tempfile::tempdir().unwrap();
    let mesh = root.path().join("mesh");
    let other = root.path().join("other");
    std::fs::create_dir_all(&mesh).unwrap();
    std::fs::create_dir_all(&other).unwrap();
    std::fs::write(other.join("x.mtl"), "newmtl red\nKd 1 0 0\n").unwrap();
    std::fs::write(other.join("passwd"), "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    std::os::unix::fs::symlink(&other, mesh.join("linkdir")).unwrap();
    std::os::unix::fs::symlink(other.join("passwd"), mesh.join("b.mtl")).unwrap();
    let obj =
        "mtllib linkdir/x.mtl\nmtllib b.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nusemtl red\nf 1 2 3\n";
    std::fs::write(mesh.join("m.obj"), obj).unwrap();
    let im = read_mesh(&mesh.join("m.obj")).unwrap();
    let w = im.warnings.join("\n");
    assert_eq!(
        w.matches("outside the mesh file's folder").count(),
        2,
        "{w}"
    );
    assert!(!w.contains("root:x"), "{w}");
    // the red material was not read through the symlinked folder
    assert_eq!(im.scene.materials[0].base_color, [1.0, 1.0, 1.0, 1.0]);
    // a .gltf buffer through a symlinked folder: an error, naming the buffer
    std::fs::write(other.join("t.bin"), tri_bin()).unwrap();
    let json = format!(
        r#"{{"asset":{{"version":"2.0"}},{}}}"#,
        TRI_JSON.replace(
            r#"[{"byteLength":36}]"#,
            r#"[{"byteLength":36,"uri":"linkdir/t.bin"}]"#
        )
    );
    std::fs::write(mesh.join("t.gltf"), json).unwrap();
    let e = read_mesh(&mesh.join("t.gltf")).unwrap_err().to_string();
    assert!(
        e.contains("buffers[0].uri") && e.contains("outside the mesh file's folder"),
        "{e}"
    );
    // an MTL in the folder that is not an MTL: its lines are not echoed either
    std::fs::write(mesh.join("c.mtl"), "root:x:0:0:root:/root:/bin/bash\n").unwrap();
    std::fs::write(
        mesh.join("c.obj"),
        "mtllib c.mtl\nv 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n",
    )
    .unwrap();
    let im = read_mesh(&mesh.join("c.obj")).unwrap();
    let w = im.warnings.join("\n");
    assert!(w.contains("not a material library"), "{w}");
    assert!(!w.contains("root"), "{w}");
    // the files read are listed by real path (for the output check)
    assert_eq!(
        im.inputs,
        vec![
            std::fs::canonicalize(mesh.join("c.obj")).unwrap(),
            std::fs::canonicalize(mesh.join("c.mtl")).unwrap()
        ]
    );
}

#[test]
fn cr_only_line_ends_are_line_ends() {
    let text = "v 0 0 0\rv 1 0 0\rv 0 0 -1\rf 1 2 3\r";
    let im = read_obj(text.as_bytes(), "cr.obj", &NoFiles).unwrap();
    let p = &im.scene.meshes[0].primitives[0];
    assert_eq!(
        p.positions,
        vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [0.0, 0.0, -1.0]]
    );
    assert_eq!(p.indices, vec![0, 1, 2]);
    // and an error in a CR-only file names the right line (the 4th)
    let e = read_obj(b"v 0 0 0\rv 1 0 0\rv 0 0 -1\rf 1 2 x\r", "cr.obj", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cr.obj: line 4: "), "{e}");
}

#[test]
fn an_out_of_range_face_names_its_own_line() {
    // line 4 names vertex 9 (the file has 4: out of range); line 6 names vertex 20 (also out
    // of range, and larger): the first bad face is reported, not the largest index
    let text = "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 9\nv 1 1 0\nf 1 2 20\n";
    let e = read_obj(text.as_bytes(), "fwd.obj", &NoFiles)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "fwd.obj: line 4: vertex index 9 out of range (the file has 4)"
    );
    // a forward reference that the file does define later is still read
    let text = "v 0 0 0\nv 1 0 0\nf 1 2 3\nv 0 1 0\n";
    assert!(read_obj(text.as_bytes(), "fwd.obj", &NoFiles).is_ok());
}

#[test]
fn glb_json_errors_give_a_file_offset() {
    // the JSON chunk starts at file offset 20 (12-byte header, 8-byte chunk header); the
    // stray `]` is its byte 26 (column 27): file offset 46 = 0x2E
    let g = glb(r#"{"asset":{"version":"2.0"}]}"#, &[]);
    let e = read_gltf(&g, "j.glb", &NoFiles).unwrap_err().to_string();
    assert!(
        e.starts_with("j.glb: JSON chunk, at file offset 0x0000002E: "),
        "{e}"
    );
    assert!(e.contains("line 1 column 27"), "{e}");
}

#[test]
fn an_obj_face_count_bomb_is_refused_at_its_line() {
    // one face of 10 corners = 8 triangles; a limit of 5 is passed on line 2
    let text = "v 0 0 0\nf 1 1 1 1 1 1 1 1 1 1\n";
    let opts = MeshOptions {
        limits: Limits {
            max_triangles: 5,
            ..Limits::DEFAULT
        },
        ..MeshOptions::default()
    };
    let e = levelgeom_import::read_obj_with(text.as_bytes(), "f.obj", &NoFiles, &opts)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "f.obj: line 2: triangles of the faces 8 is more than the limit of 5 (Limits::max_triangles)"
    );
    let _ = read_mesh_with; // (the disk reader takes the same options)
}

#[test]
fn obj_triangles_know_their_face_line() {
    // lines: 1–4 vertices, 5 usemtl m1, 6 quad (2 triangles), 7 usemtl m2, 8 triangle,
    // 9 usemtl m1, 10 triangle (appended to m1's primitive: its triangle 2), 11 o b, 12 face
    let text = "v 0 0 0\nv 1 0 0\nv 1 0 -1\nv 0 0 -1\nusemtl m1\nf 1 2 3 4\nusemtl m2\nf 1 2 3\n\
                usemtl m1\nf 2 3 4\no b\nf 4 3 2\n";
    let im = read_obj(text.as_bytes(), "l.obj", &NoFiles).unwrap();
    let l = im.obj_lines.as_ref().unwrap();
    // mesh 0 is the faces before any `o` (unnamed_object), primitive 0 = m1, 1 = m2
    assert_eq!(im.scene.meshes[0].primitives[0].indices.len(), 9);
    assert_eq!(l.line(0, 0, 0), Some(6));
    assert_eq!(l.line(0, 0, 1), Some(6));
    assert_eq!(l.line(0, 1, 0), Some(8));
    assert_eq!(l.line(0, 0, 2), Some(10));
    assert_eq!(l.line(1, 0, 0), Some(12));
    assert_eq!(l.line(0, 0, 3), None);
}

#[test]
fn tobj_errors_quote_the_statement_they_failed_on() {
    // `vt` values are left to tobj, whose error names no token: the statement is quoted
    let text = "v 0 0 0\nv 1 0 0\nvt 0.5 zz\nv 0 1 0\nf 1 2 3\n";
    let e = read_obj(text.as_bytes(), "t.obj", &NoFiles)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("t.obj: line 3: "), "{e}");
    assert!(e.ends_with("(in \"vt 0.5 zz\")"), "{e}");
}
