//! `levelgeom import` on hostile mesh files (issue 24), through the real binary: empty and
//! CR-only meshes, scenes that reach no mesh, FIFOs, symlinked collision files, outputs that
//! are inputs (even with `--force`), grid growth, one triangle spanning the grid, and errors
//! that name the file, node and primitive. Each case is built small, here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use levelgeom_wad::generate::{generate, LevelSpec};

/// Run the binary; kill it and fail after 30 s (a FIFO read would block forever).
fn run(args: &[&Path]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_levelgeom"))
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the levelgeom binary runs");
    let start = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return child.wait_with_output().unwrap();
        }
        if start.elapsed() > Duration::from_secs(30) {
            let _ = child.kill();
            panic!("levelgeom {args:?} hung for 30 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn import(dir: &Path, mesh: &Path, out: &Path, extra: &[&str]) -> (Option<i32>, String) {
    let base = dir.join("demo.wad");
    let mut args: Vec<PathBuf> = vec!["import".into(), base, mesh.into(), out.into()];
    args.extend(extra.iter().map(PathBuf::from));
    let refs: Vec<&Path> = args.iter().map(PathBuf::as_path).collect();
    let o = run(&refs);
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// A folder with the 16 × 16 demo WAD.
fn setup() -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let level = generate(&LevelSpec::demo()).unwrap();
    std::fs::write(dir.path().join("demo.wad"), level.to_bytes().unwrap()).unwrap();
    dir
}

/// One floor quad in cell (3, 3), material page_00, as OBJ lines with `sep` line ends.
fn quad_obj(sep: &str) -> String {
    [
        "o tile",
        "v 3.2 0 -3.2",
        "v 3.8 0 -3.2",
        "v 3.8 0 -3.8",
        "v 3.2 0 -3.8",
        "usemtl page_00",
        "f 1 2 3 4",
        "",
    ]
    .join(sep)
}

#[test]
fn empty_and_cr_only_meshes() {
    let dir = setup();
    let d = dir.path();
    let out = d.join("out.wad");
    std::fs::write(d.join("empty.obj"), "").unwrap();
    let (code, err) = import(d, &d.join("empty.obj"), &out, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("no triangles"), "{err}");
    assert!(!out.exists());
    // comments only: the same
    std::fs::write(d.join("c.obj"), "# nothing\n").unwrap();
    assert_eq!(import(d, &d.join("c.obj"), &out, &[]).0, Some(2));
    // CR-only line ends are line ends: the quad is imported (2 faces)
    std::fs::write(d.join("cr.obj"), quad_obj("\r")).unwrap();
    let (code, err) = import(d, &d.join("cr.obj"), &out, &[]);
    assert_eq!(code, Some(0), "{err}");
    assert!(out.exists());
}

#[test]
fn a_gltf_whose_nodes_are_all_in_a_cycle_is_refused() {
    let dir = setup();
    let d = dir.path();
    let pos: Vec<u8> = [3.2f32, 0.0, -3.2, 3.8, 0.0, -3.2, 3.2, 0.0, -3.8]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(d.join("c.bin"), &pos).unwrap();
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"c.bin"}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[3.2,0,-3.8],"max":[3.8,0,-3.2]}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],
"nodes":[{"mesh":0,"children":[1]},{"children":[0]}]}"#;
    std::fs::write(d.join("cycle.gltf"), json).unwrap();
    let out = d.join("out.wad");
    let (code, err) = import(d, &d.join("cycle.gltf"), &out, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("no visible render triangle is reached"),
        "{err}"
    );
    assert!(!out.exists());
}

#[cfg(unix)]
#[test]
fn a_fifo_as_mesh_or_collision_is_refused_without_hanging() {
    let dir = setup();
    let d = dir.path();
    let fifo = d.join("pipe.obj");
    if !Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .is_ok_and(|s| s.success())
    {
        return;
    }
    let out = d.join("out.wad");
    let (code, err) = import(d, &fifo, &out, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    std::fs::write(d.join("m.obj"), quad_obj("\n")).unwrap();
    let (code, err) = import(
        d,
        &d.join("m.obj"),
        &out,
        &["--collision", fifo.to_str().unwrap()],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("pipe.obj") && err.contains("not a regular file"),
        "{err}"
    );
}

#[cfg(unix)]
#[test]
fn no_output_may_be_an_input_even_with_force() {
    let dir = setup();
    let d = dir.path();
    // the MTL the mesh names
    std::fs::write(d.join("m.mtl"), "newmtl page_00\nKd 1 1 1\n").unwrap();
    std::fs::write(d.join("m.obj"), format!("mtllib m.mtl\n{}", quad_obj("\n"))).unwrap();
    let mtl = d.join("m.mtl");
    let (code, err) = import(d, &d.join("m.obj"), &mtl, &["--force"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("refusing to overwrite the input"), "{err}");
    assert_eq!(
        std::fs::read_to_string(&mtl).unwrap(),
        "newmtl page_00\nKd 1 1 1\n"
    );
    // a hard link to the mesh (another name, the same inode)
    std::fs::hard_link(d.join("m.obj"), d.join("alias.wad")).unwrap();
    let (code, err) = import(d, &d.join("m.obj"), &d.join("alias.wad"), &["--force"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(std::fs::read_to_string(d.join("m.obj"))
        .unwrap()
        .starts_with("mtllib"));
    // the .bin of a .gltf
    let pos: Vec<u8> = [3.2f32, 0.0, -3.2, 3.8, 0.0, -3.2, 3.2, 0.0, -3.8]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    std::fs::write(d.join("t.bin"), &pos).unwrap();
    let json = r#"{"asset":{"version":"2.0"},"buffers":[{"byteLength":36,"uri":"t.bin"}],
"bufferViews":[{"buffer":0,"byteLength":36}],
"accessors":[{"bufferView":0,"componentType":5126,"count":3,"type":"VEC3","min":[3.2,0,-3.8],"max":[3.8,0,-3.2]}],
"meshes":[{"primitives":[{"attributes":{"POSITION":0}}]}],"nodes":[{"mesh":0}],"scenes":[{"nodes":[0]}]}"#;
    std::fs::write(d.join("t.gltf"), json).unwrap();
    let (code, err) = import(d, &d.join("t.gltf"), &d.join("t.bin"), &["--force"]);
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(std::fs::read(d.join("t.bin")).unwrap(), pos);
    // the collision.obj found beside level.obj
    std::fs::write(d.join("level.obj"), quad_obj("\n")).unwrap();
    let coll = "o mat00_grp0\nv 3.2 0 -3.2\nv 3.8 0 -3.2\nv 3.2 0 -3.8\nf 1 2 3\n";
    std::fs::write(d.join("collision.obj"), coll).unwrap();
    let (code, err) = import(
        d,
        &d.join("level.obj"),
        &d.join("collision.obj"),
        &["--force"],
    );
    assert_eq!(code, Some(2), "{err}");
    assert_eq!(
        std::fs::read_to_string(d.join("collision.obj")).unwrap(),
        coll
    );
    // and a fresh output works
    let (code, err) = import(d, &d.join("level.obj"), &d.join("new.wad"), &[]);
    assert_eq!(code, Some(0), "{err}");
}

#[cfg(unix)]
#[test]
fn a_collision_file_beside_the_mesh_that_links_out_is_refused() {
    let dir = setup();
    let d = dir.path();
    let mesh_dir = d.join("edit");
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&mesh_dir).unwrap();
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::write(mesh_dir.join("level.obj"), quad_obj("\n")).unwrap();
    std::fs::write(
        elsewhere.join("c.obj"),
        "o mat00_grp0\nv 3.2 0 -3.2\nv 3.8 0 -3.2\nv 3.2 0 -3.8\nf 1 2 3\n",
    )
    .unwrap();
    std::os::unix::fs::symlink(elsewhere.join("c.obj"), mesh_dir.join("collision.obj")).unwrap();
    let (code, err) = import(d, &mesh_dir.join("level.obj"), &d.join("out.wad"), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("outside the mesh file's folder"), "{err}");
}

/// The swap file an edit import reads beside `level.*` obeys the same rule as the collision
/// file: a `swap.obj` that links out of the mesh's folder is refused, not read.
#[cfg(unix)]
#[test]
fn a_swap_file_beside_the_mesh_that_links_out_is_refused() {
    let dir = setup();
    let d = dir.path();
    let ex = d.join("ex");
    let o = run(&[
        Path::new("export"),
        &d.join("demo.wad"),
        &ex,
        Path::new("--format"),
        Path::new("obj"),
        Path::new("--collision"),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(ex.join("swap.obj").is_file(), "the demo has a swap tile");
    let elsewhere = d.join("elsewhere");
    std::fs::create_dir_all(&elsewhere).unwrap();
    std::fs::rename(ex.join("swap.obj"), elsewhere.join("swap.obj")).unwrap();
    std::os::unix::fs::symlink(elsewhere.join("swap.obj"), ex.join("swap.obj")).unwrap();
    let (code, err) = import(d, &ex.join("level.obj"), &d.join("out.wad"), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("swap.obj") && err.contains("outside the mesh file's folder"),
        "{err}"
    );
    assert!(!d.join("out.wad").exists());
}

#[test]
fn grid_growth_and_grid_spanning_triangles() {
    let dir = setup();
    let d = dir.path();
    let out = d.join("out.wad");
    // one triangle at x ≈ 4095 (71 bytes) would make a 4096 × 16 grid
    let far = "v 4095.1 0 -0.2\nv 4095.4 0 -0.2\nv 4095.1 0 -0.6\nf 1 2 3\n";
    std::fs::write(d.join("far.obj"), far).unwrap();
    let (code, err) = import(d, &d.join("far.obj"), &out, &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("grows the grid from 16×16 to 4096×16 cells (256.0× the cells"),
        "{err}"
    );
    assert!(err.contains("--allow-grow"), "{err}");
    let (code, err) = import(d, &d.join("far.obj"), &out, &["--allow-grow"]);
    assert_eq!(code, Some(0), "{err}");
    // one 65-byte triangle spanning the grid: its derived collision is refused before tiling
    let span = "v 0.5 0 -0.5\nv 4095.5 0 -0.5\nv 0.5 0 -4095.5\nf 1 2 3\n";
    std::fs::write(d.join("span.obj"), span).unwrap();
    let (code, err) = import(d, &d.join("span.obj"), &out, &["--allow-grow"]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("Limits::max_cells_per_triangle"), "{err}");
    // the same as a --collision mesh with 1e6 coordinates: the error names the collision
    // file and the object the triangle came from
    std::fs::write(d.join("m.obj"), quad_obj("\n")).unwrap();
    let coll = "o mat00_grp0\nv -1e6 0 1e6\nv 1e6 0 1e6\nv -1e6 0 -1e6\nf 1 2 3\n";
    std::fs::write(d.join("coll.obj"), coll).unwrap();
    let c = d.join("coll.obj");
    let (code, err) = import(
        d,
        &d.join("m.obj"),
        &out,
        &["--collision", c.to_str().unwrap()],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("coll.obj"), "{err}");
    assert!(err.contains("16793604 grid cells"), "{err}"); // 4098 × 4098
    assert!(
        err.contains("nodes[1] \"mat00_grp0\", meshes[0].primitives[0], triangle 0, line 5)"),
        "{err}"
    );
}

#[test]
fn mesh_errors_name_the_node_and_primitive() {
    let dir = setup();
    let d = dir.path();
    // a triangle at negative x (outside any grid) in the second object
    let text = format!(
        "{}o bad\nv -3 0 -1\nv -2 0 -1\nv -3 0 -2\nf 5 6 7\n",
        quad_obj("\n")
    );
    std::fs::write(d.join("m.obj"), text).unwrap();
    let (code, err) = import(d, &d.join("m.obj"), &d.join("out.wad"), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("m.obj"), "{err}");
    // node 0 is the root `m`, node 1 `tile`, node 2 `bad` (mesh 1, primitive 0, its triangle
    // 0), made by the `f` on line 12 (7 lines of the quad, `o bad`, 3 vertices, the face)
    assert!(
        err.contains("(at nodes[2] \"bad\", meshes[1].primitives[0], triangle 0, line 12)"),
        "{err}"
    );
    // the second triangle of a quad face (fan 1-2-3, 1-3-4; centroid x of the second
    // (3.2 + 3.8 − 9) / 3 = −0.67, outside) is triangle 1 of its primitive, still line 7
    let text = "o a\nv 3.2 0 -3.2\nv 3.8 0 -3.2\nv 3.8 0 -3.8\nv -9 0 -3.8\nusemtl page_00\n\
                f 1 2 3 4\nv 3.5 0 -3.5\nf 1 2 5\n";
    std::fs::write(d.join("q.obj"), text).unwrap();
    let (code, err) = import(d, &d.join("q.obj"), &d.join("out.wad"), &[]);
    assert_eq!(code, Some(2), "{err}");
    assert!(err.contains("triangle 1, line 7)"), "{err}");
}
