//! `levelgeom export` on WADs: runs the real binary on a generated level, on `--demo` and on
//! the independently written fixture, then reads the files back independently (OBJ lines, the
//! GLB's JSON and accessors, PNG magic). Expected numbers come from the typed input level and
//! the seed's placement formula, or from the fixture's own hand-computed JSON.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use levelgeom_wad::generate::{generate, LevelSpec};
use levelgeom_wad::level::Level;
use serde_json::Value;

use crate::common::{gltf_validator, levelgeom as run};

// ---------------------------------------------------------------------------------------------
// Running the binary

/// Run `levelgeom export ARGS…` and insist on exit code 0.
fn export_ok(args: &[&str]) -> Output {
    let o = run(&[&["export"], args].concat());
    assert_eq!(
        o.status.code(),
        Some(0),
        "export {args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn path_str(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// Write the generated demo level to `dir/demo.wad`; returns the path and the typed level.
fn demo_wad(dir: &Path) -> (PathBuf, Level) {
    let level = generate(&LevelSpec::demo()).unwrap();
    let p = dir.join("demo.wad");
    std::fs::write(&p, level.to_bytes().unwrap()).unwrap();
    (p, level)
}

fn read_text(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn count_prefix(text: &str, prefix: &str) -> usize {
    text.lines().filter(|l| l.starts_with(prefix)).count()
}

fn near(v: &[f32], p: [f32; 3], tol: f32) -> bool {
    v.len() >= 3 && (0..3).all(|k| (v[k] - p[k]).abs() <= tol)
}

// ---------------------------------------------------------------------------------------------
// The seed's placement, by hand

/// World position of local point `p` on tile `t`, per docs/formats/argonaut-wad.md §15:
/// `X = x + vx·cos a − vz·sin a; Y = y + vy; Z = z + vx·sin a + vz·cos a`, `a = rot/4096·2π`.
fn place(level: &Level, t: usize, p: [f32; 3]) -> [f32; 3] {
    let tile = &level.map().unwrap().tiles[t];
    let p = p.map(f64::from);
    let a = f64::from(tile.rot) / 4096.0 * std::f64::consts::TAU;
    let [x, y, z] = tile.pos.map(f64::from);
    [
        (x + p[0] * a.cos() - p[2] * a.sin()) as f32,
        (y + p[1]) as f32,
        (z + p[0] * a.sin() + p[2] * a.cos()) as f32,
    ]
}

/// World position of vertex `v` of tile `t`'s model.
fn world(level: &Level, t: usize, v: usize) -> [f32; 3] {
    let map = level.map().unwrap();
    let m = &level.trak().unwrap().models[map.model_indices[t] as usize];
    place(level, t, m.vertices[v].pos)
}

/// The first tile whose model has faces.
fn first_faced_tile(level: &Level) -> usize {
    let map = level.map().unwrap();
    let trak = level.trak().unwrap();
    (0..map.tiles.len())
        .find(|&t| !trak.models[map.model_indices[t] as usize].faces.is_empty())
        .unwrap()
}

/// `min(1, byte / 128)` for the R, G, B bytes of a stored colour word (docs/formats/argonaut-wad.md §18.11).
fn colour_of(word: u32) -> [f32; 3] {
    let [r, g, b, _] = word.to_le_bytes();
    [r, g, b].map(|x| (f32::from(x) / 128.0).min(1.0))
}

// ---------------------------------------------------------------------------------------------
// Reading the outputs back: both formats become named lists of triangles with their corners

/// One triangle corner as a reader sees it, UVs in the scene's top-left convention.
#[derive(Clone, Debug)]
struct Corner {
    pos: [f32; 3],
    uv: Option<[f32; 2]>,
    rgb: Option<[f32; 3]>,
}

/// A triangle in written order, with the name of its material.
#[derive(Clone, Debug)]
struct Tri {
    corners: [Corner; 3],
    material: String,
}

/// Per OBJ object/group or glTF node name, its triangles (file order).
type Objects = Vec<(String, Vec<Tri>)>;

fn object<'a>(objects: &'a Objects, name: &str) -> &'a [Tri] {
    &objects
        .iter()
        .find(|(n, _)| n == name)
        .unwrap_or_else(|| panic!("no object {name}"))
        .1
}

/// A parsed OBJ: `v` rows (x y z [r g b]) and the triangles per `o`/`g`. `vt` rows are read
/// back as `(u, 1 − v)`: the OBJ writer flips V (OBJ's origin is bottom-left), so a correct
/// file gives the scene's top-left values here.
#[derive(Default)]
struct Obj {
    v: Vec<Vec<f32>>,
    objects: Objects,
}

fn parse_obj(text: &str) -> Obj {
    let mut o = Obj::default();
    let mut vt: Vec<[f32; 2]> = Vec::new();
    let mut material = String::new();
    for line in text.lines() {
        let mut it = line.split_whitespace();
        match it.next() {
            Some("v") => o.v.push(it.map(|x| x.parse().unwrap()).collect()),
            Some("vt") => {
                let u: Vec<f32> = it.map(|x| x.parse().unwrap()).collect();
                vt.push([u[0], 1.0 - u[1]]);
            }
            Some("usemtl") => material = it.next().unwrap().to_string(),
            Some("o") | Some("g") => o.objects.push((it.next().unwrap().to_string(), Vec::new())),
            Some("f") => {
                let c: Vec<Corner> = it
                    .map(|t| {
                        let mut p = t.split('/');
                        let v = &o.v[p.next().unwrap().parse::<usize>().unwrap() - 1];
                        let uv = p
                            .next()
                            .filter(|s| !s.is_empty())
                            .map(|s| vt[s.parse::<usize>().unwrap() - 1]);
                        Corner {
                            pos: [v[0], v[1], v[2]],
                            uv,
                            rgb: (v.len() == 6).then(|| [v[3], v[4], v[5]]),
                        }
                    })
                    .collect();
                let corners: [Corner; 3] = c.try_into().expect("triangles only");
                o.objects.last_mut().unwrap().1.push(Tri {
                    corners,
                    material: material.clone(),
                });
            }
            _ => {}
        }
    }
    o
}

use levelgeom_testkit::glb::Glb;

/// Reading the triangles of our WAD exports out of a GLB read by hand.
trait GlbObjects {
    fn objects(&self) -> Objects;
}

impl GlbObjects for Glb {
    /// Every node with a mesh as (node name, triangles). Node matrices are not applied: the
    /// WAD export bakes world positions into tile meshes (identity node matrices). `COLOR_0`
    /// is linear in the file; it is turned back into the scene's display values with the
    /// inverse of the writer's sRGB curve, so it compares with OBJ colours and byte / 128.
    fn objects(&self) -> Objects {
        let mut out = Objects::new();
        for node in self.array("nodes") {
            let Some(mi) = node["mesh"].as_u64() else {
                continue;
            };
            let mut tris = Vec::new();
            for prim in self.array("meshes")[mi as usize]["primitives"]
                .as_array()
                .unwrap()
            {
                let attr = |k: &str| {
                    prim["attributes"][k]
                        .as_u64()
                        .map(|a| self.rows(a as usize))
                };
                let pos = attr("POSITION").unwrap();
                let uv = attr("TEXCOORD_0");
                let col = attr("COLOR_0");
                let material = match prim["material"].as_u64() {
                    Some(m) => self.array("materials")[m as usize]["name"]
                        .as_str()
                        .unwrap()
                        .to_string(),
                    None => String::new(),
                };
                let (_, idx) = self.indices(prim["indices"].as_u64().unwrap() as usize);
                let idx: Vec<usize> = idx.into_iter().map(|i| i as usize).collect();
                for t in idx.chunks_exact(3) {
                    let corner = |i: usize| Corner {
                        pos: [pos[i][0], pos[i][1], pos[i][2]],
                        uv: uv.as_ref().map(|u| [u[i][0], u[i][1]]),
                        rgb: col.as_ref().map(|c| {
                            [c[i][0], c[i][1], c[i][2]].map(levelgeom_scene::colour::linear_to_srgb)
                        }),
                    };
                    tris.push(Tri {
                        corners: [corner(t[0]), corner(t[1]), corner(t[2])],
                        material: material.clone(),
                    });
                }
            }
            out.push((node["name"].as_str().unwrap().to_string(), tris));
        }
        out
    }
}

// ---------------------------------------------------------------------------------------------
// The generated demo level

#[test]
fn export_all_writes_every_file_with_the_level_in_it() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, level) = demo_wad(dir.path());
    let out = dir.path().join("out");
    let o = export_ok(&[
        path_str(&wad),
        path_str(&out),
        "--collision",
        "--objects",
        "--objects-catalogue",
    ]);
    let stdout = String::from_utf8_lossy(&o.stdout);
    assert!(stdout.contains("level.glb"), "{stdout}");

    let map = level.map().unwrap();
    let trak = level.trak().unwrap();
    let text = level.text().unwrap();
    for p in 0..text.pages.len() {
        let png = std::fs::read(out.join(format!("page_{p:02}.png"))).unwrap();
        assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    }
    for f in [
        "level.mtl",
        "collision.obj",
        "collision.mtl",
        "objects.obj",
        "swap.obj",
        "swap.mtl",
        "collision.glb",
        "objects.glb",
        "swap.glb",
    ] {
        assert!(out.join(f).is_file(), "{f} missing");
    }

    // level.obj: one triangle per face of every placed tile model; the swap alternative is
    // in swap.obj only (the game shows one state per tile).
    let text_obj = read_text(&out.join("level.obj"));
    let obj = parse_obj(&text_obj);
    let faces: usize = map
        .model_indices
        .iter()
        .map(|&m| trak.models[m as usize].faces.len())
        .sum();
    let swaps = map.swaps.as_ref().unwrap();
    assert_eq!(swaps.len(), 1);
    assert_eq!(count_prefix(&text_obj, "f "), faces);
    assert!(!obj.objects.iter().any(|(n, _)| n.ends_with("_swap")));
    assert!(text_obj.lines().any(|l| l == "mtllib level.mtl"));
    let swap_obj = read_text(&out.join("swap.obj"));
    assert_eq!(
        count_prefix(&swap_obj, "f "),
        trak.models[swaps[0].model_b as usize].faces.len()
    );
    assert!(parse_obj(&swap_obj)
        .objects
        .iter()
        .all(|(n, _)| n.ends_with("_swap")));

    // A known vertex: the first faced tile's vertex 0, placed by hand per docs/formats/argonaut-wad.md §15.
    let t = first_faced_tile(&level);
    let want = world(&level, t, 0);
    assert!(obj.v.iter().all(|v| v.len() == 6), "positions + colours");
    assert!(
        obj.v.iter().any(|v| near(v, want, 1e-4)),
        "no vertex near {want:?}"
    );

    // level.mtl: every textured material names its page file, and that file was written.
    let mtl = read_text(&out.join("level.mtl"));
    let maps: Vec<&str> = mtl
        .lines()
        .filter_map(|l| l.strip_prefix("map_Kd "))
        .collect();
    assert!(!maps.is_empty());
    for m in &maps {
        assert!(
            m.starts_with("page_") && m.ends_with(".png") && out.join(m).is_file(),
            "{m}"
        );
    }
    assert!(mtl.contains("\nnewmtl page_00\n"), "{mtl}");
    assert!(mtl.contains("\nmap_Kd page_00.png\n"), "{mtl}");

    // collision.obj: groups named matNN_grpG, one of them the water plane (material 0x1E = 30).
    let col = read_text(&out.join("collision.obj"));
    assert!(
        col.lines().any(|l| l == "g mat30_grp0"),
        "water plane group"
    );
    assert!(col.lines().any(|l| l == "g mat00_grp0"));

    // objects_catalogue.obj: the STPC models, one triangle per face.
    let objs = read_text(&out.join("objects_catalogue.obj"));
    let stpc = level.stpc().unwrap();
    let stpc_faces: usize = stpc.models.iter().map(|m| m.faces.len()).sum();
    assert_eq!(count_prefix(&objs, "f "), stpc_faces);

    // level.glb: only what the game shows — the level tree, no collision, swap or objects
    // nodes, no node without a mesh and children (collision-only tiles get none) — and one
    // image per page.
    let glb = Glb::read(&out.join("level.glb"));
    assert_eq!(glb.root_names(), ["level"]);
    for n in glb.array("nodes") {
        let name = n["name"].as_str().unwrap();
        assert!(
            !name.ends_with("_swap") && !name.starts_with("mat") && !name.starts_with("object_"),
            "{name} in level.glb"
        );
        assert!(
            n.get("mesh").is_some()
                || n["children"].as_array().is_some_and(|c| !c.is_empty())
                || n["extensions"]["KHR_lights_punctual"].is_object(),
            "empty node {name} in level.glb"
        );
    }
    assert_eq!(glb.array("images").len(), text.pages.len());
    // One tile node per MAP tile that draws something, named tile_TTTT_mMMM.
    let t0 = format!("tile_{t:04}_m{:03}", map.model_indices[t]);
    glb.node(&t0);
    let tiles = glb
        .array("nodes")
        .iter()
        .filter(|n| n["name"].as_str().is_some_and(|s| s.starts_with("tile_")))
        .count();
    let faced = map
        .model_indices
        .iter()
        .filter(|&&m| !trak.models[m as usize].faces.is_empty())
        .count();
    assert!(faced < map.tiles.len(), "the demo has collision-only tiles");
    assert_eq!(tiles, faced);
    // The other trees, each in its own file: the hidden collision tree, the swap
    // alternatives, the objects; each embeds only the textures it uses.
    let col = Glb::read(&out.join("collision.glb"));
    assert_eq!(col.root_names(), ["collision"]);
    assert_eq!(col.node("collision")["extras"]["hidden"], Value::Bool(true));
    assert!(col.array("images").is_empty(), "collision is untextured");
    assert!(col
        .array("nodes")
        .iter()
        .filter(|n| n["name"] != "collision")
        .all(|n| n["name"].as_str().is_some_and(|s| s.starts_with("mat"))));
    let swap = Glb::read(&out.join("swap.glb"));
    assert_eq!(swap.root_names(), ["swap"]);
    let alt = format!(
        "tile_{:04}_m{:03}_swap",
        map.tiles.iter().position(|t| t.anim_flag != 0).unwrap(),
        swaps[0].model_b
    );
    assert_eq!(swap.node(&alt)["extras"]["swap_state"], "alternative");
    let objects = Glb::read(&out.join("objects_catalogue.glb"));
    assert_eq!(objects.root_names(), ["objects_catalogue"]);
    assert_eq!(
        objects.array("nodes").len(),
        1 + level.stpc().unwrap().models.len()
    );
    assert!(objects.array("images").len() <= text.pages.len());
    for g in [&swap, &objects] {
        let used: std::collections::BTreeSet<u64> = g
            .array("materials")
            .iter()
            .filter_map(|m| m["pbrMetallicRoughness"]["baseColorTexture"]["index"].as_u64())
            .collect();
        assert_eq!(used.len(), g.array("textures").len(), "only used textures");
    }
    // The game is unlit with baked colours.
    assert!(glb
        .array("extensionsUsed")
        .contains(&"KHR_materials_unlit".into()));
    assert!(glb
        .array("materials")
        .iter()
        .all(|m| m["extensions"].get("KHR_materials_unlit").is_some()));
}

#[test]
fn formats_choose_the_files_and_mirror_negates_z() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, level) = demo_wad(dir.path());
    let gltf_only = dir.path().join("g");
    export_ok(&[path_str(&wad), path_str(&gltf_only), "--format", "gltf"]);
    let names: Vec<String> = std::fs::read_dir(&gltf_only)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n != ".levelgeom-export.json")
        .collect();
    // the demo has a swap tile: its alternative state goes into swap.glb; its lights are
    // also listed in lights.json
    let mut names = names;
    names.sort();
    assert_eq!(names, ["level.glb", "lights.json", "swap.glb"]);

    let obj_only = dir.path().join("o");
    let args = [path_str(&wad), path_str(&obj_only), "--format", "obj"];
    export_ok(&[&args[..], &["--mirror-z"]].concat());
    assert!(!obj_only.join("level.glb").exists());
    assert!(
        !obj_only.join("collision.obj").exists(),
        "only with --collision"
    );
    let obj = parse_obj(&read_text(&obj_only.join("level.obj")));
    let t = first_faced_tile(&level);
    let w = world(&level, t, 0);
    let mirrored = [w[0], w[1], -w[2]];
    assert!(obj.v.iter().any(|v| near(v, mirrored, 1e-4)));
}

/// A faced tile with two (or more) colour sets and one with a single set, in tile order.
fn colour_set_tiles(level: &Level) -> (usize, usize) {
    let map = level.map().unwrap();
    let trak = level.trak().unwrap();
    let faced = |t: &usize| !trak.models[map.model_indices[*t] as usize].faces.is_empty();
    let with = |n: &dyn Fn(usize) -> bool| {
        (0..map.tiles.len())
            .filter(faced)
            .find(|&t| n(map.colours[t].layers.len()))
    };
    (
        with(&|n| n >= 2).expect("the demo has a tile with two colour sets"),
        with(&|n| n == 1).expect("the demo has a tile with one colour set"),
    )
}

/// `--colour-set 1` writes the second colour set: a tile with two sets carries
/// `min(1, byte / 128)` of set 1's bytes at its vertex 0; a tile with one set writes its
/// first set, so every vertex line has a colour; a set no tile has is an error.
#[test]
fn colour_set_option_picks_the_second_set() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, level) = demo_wad(dir.path());
    let map = level.map().unwrap();
    let (two, one) = colour_set_tiles(&level);
    let out = dir.path().join("c");
    let o = export_ok(&[
        path_str(&wad),
        path_str(&out),
        "--format",
        "obj",
        "--colour-set",
        "1",
    ]);
    assert!(
        String::from_utf8_lossy(&o.stderr).contains("their first set is written"),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let obj = parse_obj(&read_text(&out.join("level.obj")));
    assert!(obj.v.iter().all(|v| v.len() == 6), "every vertex coloured");
    for (t, layer) in [(two, 1), (one, 0)] {
        let p = world(&level, t, 0);
        let want = colour_of(map.colours[t].layers[layer][0]);
        let tris = object(
            &obj.objects,
            &format!("tile_{t:04}_m{:03}", map.model_indices[t]),
        );
        let hit = tris.iter().flat_map(|t| t.corners.iter()).any(|c| {
            near(&c.pos, p, 1e-4)
                && c.rgb
                    .is_some_and(|rgb| (0..3).all(|k| (rgb[k] - want[k]).abs() < 1e-6))
        });
        assert!(hit, "tile {t}: no vertex at {p:?} with colour {want:?}");
    }

    // Beyond every tile's sets: exit 2 with the reason, nothing written.
    let bad = dir.path().join("bad");
    let o = run(&[
        "export",
        path_str(&wad),
        path_str(&bad),
        "--colour-set",
        "7",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("--colour-set 7") && err.contains("at most"),
        "{err}"
    );
    assert!(!bad.exists(), "the output folder is not even created");
}

/// The sRGB curve written out by hand (not the library's): display value → linear.
fn linear(c: f32) -> f32 {
    let c = f64::from(c);
    (if c <= 0.04045 {
        c / 12.92
    } else {
        ((c + 0.055) / 1.055).powf(2.4)
    }) as f32
}

/// The raw `COLOR_k` rows of the vertices of node `name` at position `p` (file values, linear).
fn glb_colours_at(glb: &Glb, name: &str, k: usize, p: [f32; 3]) -> Vec<Vec<f32>> {
    let mesh = glb.node(name)["mesh"].as_u64().unwrap() as usize;
    let prims = glb.array("meshes")[mesh]["primitives"].as_array().unwrap();
    let mut out = Vec::new();
    for pi in 0..prims.len() {
        let pos = glb.rows(glb.attr(mesh, pi, "POSITION").unwrap());
        let Some(c) = glb.attr(mesh, pi, &format!("COLOR_{k}")) else {
            continue;
        };
        let col = glb.rows(c);
        for (v, q) in pos.iter().enumerate() {
            if near(q, p, 1e-4) {
                out.push(col[v].clone());
            }
        }
    }
    out
}

/// level.glb's `COLOR_0` is linear (glTF's definition): a tile vertex whose MAP colour bytes
/// are b carries `srgb_to_linear(min(1, b / 128))`, alpha 1. `--colour-set N` picks the set in
/// COLOR_0 of the GLB as it does for OBJ, and only `--all-colour-sets` adds the others as
/// COLOR_1.. (chosen set first, then the rest in order).
#[test]
fn glb_colours_are_linear_and_follow_the_colour_set_options() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, level) = demo_wad(dir.path());
    let map = level.map().unwrap();
    let (two, one) = colour_set_tiles(&level);
    let name = |t: usize| format!("tile_{t:04}_m{:03}", map.model_indices[t]);
    // the colour of vertex 0 of tile t in set `layer`, as the file must hold it
    let want = |t: usize, layer: usize| -> Vec<f32> {
        let c = colour_of(map.colours[t].layers[layer][0]).map(linear);
        vec![c[0], c[1], c[2], 1.0]
    };
    let has = |glb: &Glb, t: usize, k: usize, w: &[f32]| {
        glb_colours_at(glb, &name(t), k, world(&level, t, 0))
            .iter()
            .any(|c| (0..4).all(|i| (c[i] - w[i]).abs() < 1e-6))
    };
    let export = |out: &str, extra: &[&str]| -> Glb {
        let out = dir.path().join(out);
        let args = [path_str(&wad), path_str(&out), "--format", "gltf"];
        export_ok(&[&args[..], extra].concat());
        Glb::read(&out.join("level.glb"))
    };

    // A known byte: 0x40 is the display value 0.5, linear 0.21404114 (not 0.5).
    assert!((linear(0.5) - 0.214_041_14).abs() < 1e-7);
    let bytes = map.colours[two].layers[0][0].to_le_bytes();
    for layer in [0, 1] {
        let d = colour_of(map.colours[two].layers[layer][0]);
        assert!(
            d.iter().any(|&c| c > 0.0 && c < 1.0),
            "a colour the curve changes: {d:?}"
        );
        assert_ne!(want(two, layer)[..3], d[..], "linear differs from display");
    }
    let plain = export("plain", &[]);
    assert!(
        has(&plain, two, 0, &want(two, 0)),
        "tile {two} set 0, bytes {bytes:?}"
    );
    assert!(has(&plain, one, 0, &want(one, 0)));
    let any_colour_1 = plain
        .array("meshes")
        .iter()
        .flat_map(|m| m["primitives"].as_array().unwrap())
        .any(|p| p["attributes"].get("COLOR_1").is_some());
    assert!(!any_colour_1, "one colour set unless --all-colour-sets");

    let set1 = export("set1", &["--colour-set", "1"]);
    assert!(has(&set1, two, 0, &want(two, 1)), "COLOR_0 is set 1");
    assert!(has(&set1, one, 0, &want(one, 0)), "fewer sets: the first");
    assert!(glb_colours_at(&set1, &name(two), 1, world(&level, two, 0)).is_empty());

    let all = export("all", &["--all-colour-sets"]);
    assert!(has(&all, two, 0, &want(two, 0)));
    assert!(has(&all, two, 1, &want(two, 1)), "COLOR_1 is set 1");
    assert!(glb_colours_at(&all, &name(one), 1, world(&level, one, 0)).is_empty());

    let both = export("both", &["--colour-set", "1", "--all-colour-sets"]);
    assert!(
        has(&both, two, 0, &want(two, 1)),
        "COLOR_0 is the chosen set"
    );
    assert!(
        has(&both, two, 1, &want(two, 0)),
        "then the others in order"
    );

    // OBJ keeps the display values (Blender reads OBJ colours as sRGB).
    let out = dir.path().join("obj");
    export_ok(&[path_str(&wad), path_str(&out), "--format", "obj"]);
    let obj = parse_obj(&read_text(&out.join("level.obj")));
    let d = colour_of(map.colours[two].layers[0][0]);
    let p = world(&level, two, 0);
    assert!(object(&obj.objects, &name(two))
        .iter()
        .flat_map(|t| t.corners.iter())
        .any(|c| near(&c.pos, p, 1e-4)
            && c.rgb
                .is_some_and(|rgb| (0..3).all(|k| (rgb[k] - d[k]).abs() < 1e-6))));
}

#[test]
fn demo_exports() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("demo");
    export_ok(&["--demo", path_str(&out)]);
    let obj = read_text(&out.join("level.obj"));
    assert!(count_prefix(&obj, "f ") > 0);
    assert!(out.join("level.glb").is_file());
    assert!(out.join("page_00.png").is_file());
}

#[test]
fn damaged_wad_fails_with_the_offset() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = demo_wad(dir.path());
    let mut bytes = std::fs::read(&wad).unwrap();
    bytes.truncate(bytes.len() / 2);
    std::fs::write(&wad, &bytes).unwrap();
    let out = dir.path().join("x");
    let o = run(&["export", path_str(&wad), path_str(&out)]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("at 0x"), "{err}");
    assert!(!out.join("level.glb").exists());
}

// ---------------------------------------------------------------------------------------------
// The independent fixture (tools/fixtures/make_indep_wad.py, written from the specs alone):
// its JSON holds, per tile and face, the world positions, UVs and colours computed in Python,
// and per collision polygon the corners the engine's planes meet in.

fn fixture_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../wad/tests/data/independent")
}

/// Export the fixture with `--format FORMAT --collision`; returns its expectations, the
/// temporary folder (keep it alive) and the output folder.
fn export_fixture(format: &str) -> (Value, tempfile::TempDir, PathBuf) {
    let expect =
        serde_json::from_slice(&std::fs::read(fixture_dir().join("indep.expect.json")).unwrap())
            .unwrap();
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("indep");
    let wad = fixture_dir().join("indep.wad");
    let args = [path_str(&wad), path_str(&out), "--format", format];
    export_ok(&[&args[..], &["--collision"]].concat());
    (expect, dir, out)
}

fn f32s(v: &Value) -> Vec<f32> {
    v.as_array()
        .unwrap()
        .iter()
        .map(|x| x.as_f64().unwrap() as f32)
        .collect()
}

fn rows(v: &Value) -> Vec<Vec<f32>> {
    v.as_array().unwrap().iter().map(f32s).collect()
}

/// Check every expected face of the fixture against `level` (its triangles must appear with
/// the same corners in the same cyclic order: winding kept) and every collision polygon's
/// corners against `collision`. Returns each face's JSON with the material of its triangle.
fn check_fixture<'a>(
    expect: &'a Value,
    level: &Objects,
    collision: &Objects,
) -> Vec<(&'a Value, String)> {
    let mut matched = Vec::new();
    for tile in expect["tiles"].as_array().unwrap() {
        let name = format!(
            "tile_{:04}_m{:03}",
            tile["index"].as_u64().unwrap(),
            tile["model"].as_u64().unwrap()
        );
        let faces = tile["faces"].as_array().unwrap();
        if !faces.is_empty() {
            let tris = object(level, &name);
            for f in faces {
                let (pos, uvs, cols) = (
                    rows(&f["positions_world"]),
                    rows(&f["uvs"]),
                    rows(&f["colors"]),
                );
                let corner_ok = |c: &Corner, k: usize| {
                    near(&c.pos, [pos[k][0], pos[k][1], pos[k][2]], 1e-4)
                        && c.uv.is_some_and(|uv| {
                            (uv[0] - uvs[k][0]).abs() < 1e-6 && (uv[1] - uvs[k][1]).abs() < 1e-6
                        })
                        && c.rgb
                            .is_some_and(|rgb| (0..3).all(|i| (rgb[i] - cols[k][i]).abs() < 1e-5))
                };
                let tri = tris
                    .iter()
                    .find(|t| {
                        (0..3)
                            .any(|shift| (0..3).all(|k| corner_ok(&t.corners[(k + shift) % 3], k)))
                    })
                    .unwrap_or_else(|| {
                        panic!(
                            "{name} face {}: no triangle with {pos:?} {uvs:?} {cols:?}",
                            f["index"]
                        )
                    });
                matched.push((f, tri.material.clone()));
            }
        }
        for c in tile["collision"].as_array().unwrap() {
            let group = format!(
                "mat{:02}_grp{}",
                c["material"].as_u64().unwrap(),
                c["group"].as_u64().unwrap()
            );
            let corners: Vec<&Corner> = object(collision, &group)
                .iter()
                .flat_map(|t| t.corners.iter())
                .collect();
            for (key, tol) in [("corners_world_engine", 1e-4), ("corners_world", 0.03)] {
                for p in rows(&c[key]) {
                    assert!(
                        corners
                            .iter()
                            .any(|v| near(&v.pos, [p[0], p[1], p[2]], tol)),
                        "{name} {group}: no {key} corner near {p:?}"
                    );
                }
            }
        }
    }
    assert_eq!(
        matched.len() as u64,
        expect["counts"]["placed_triangles"].as_u64().unwrap()
    );
    matched
}

/// The page a face's texture entry names, from the fixture's TEXT table.
fn entry_page(expect: &Value, face: &Value) -> u64 {
    expect["text"]["textures"][face["tex"].as_u64().unwrap() as usize]["page"]
        .as_u64()
        .unwrap()
}

#[test]
fn independent_fixture_obj_matches_its_hand_computed_expectations() {
    let (expect, _dir, out) = export_fixture("obj");
    let obj = parse_obj(&read_text(&out.join("level.obj")));
    let col = parse_obj(&read_text(&out.join("collision.obj")));
    let matched = check_fixture(&expect, &obj.objects, &col.objects);
    // Each face's material maps its entry's page file (MTL `map_Kd page_NN.png`).
    let mtl = read_text(&out.join("level.mtl"));
    for (f, material) in matched {
        let block = mtl
            .split("newmtl ")
            .find(|b| b.lines().next() == Some(material.as_str()))
            .unwrap_or_else(|| panic!("no newmtl {material}"));
        let file = format!("page_{:02}.png", entry_page(&expect, f));
        assert!(block.contains(&format!("\nmap_Kd {file}\n")), "{block}");
        assert!(out.join(&file).is_file(), "{file}");
    }
}

/// The same expectations through the GLB: glTF keeps V as stored (top-left origin), COLOR_0
/// holds the colours, 0x400 faces and only they are double-sided, materials sample their
/// entry's page, pages with transparent texels are MASK; the collision tree is in
/// collision.glb (hidden) and the swap tile's alternative in swap.glb, at the tile's placement.
#[test]
fn independent_fixture_glb_matches_its_hand_computed_expectations() {
    let (expect, _dir, out) = export_fixture("gltf");
    let glb = Glb::read(&out.join("level.glb"));
    let objects = glb.objects();
    let col = Glb::read(&out.join("collision.glb"));
    for (f, material) in check_fixture(&expect, &objects, &col.objects()) {
        let m = glb
            .array("materials")
            .iter()
            .find(|m| m["name"] == material.as_str())
            .unwrap();
        let double = m["doubleSided"].as_bool().unwrap_or(false);
        assert_eq!(double, f["double_sided"].as_bool().unwrap(), "{material}");
        assert_eq!(double, f["flags"].as_u64().unwrap() & 0x400 != 0);
        let tex = m["pbrMetallicRoughness"]["baseColorTexture"]["index"]
            .as_u64()
            .unwrap() as usize;
        let image = glb.array("textures")[tex]["source"].as_u64().unwrap() as usize;
        let page = entry_page(&expect, f);
        assert_eq!(
            glb.array("images")[image]["name"],
            format!("page_{page:02}").as_str()
        );
        // The fixture's texels: page 0 (10, 200) and page 2 (0, 0) are word 0, transparent.
        if page == 0 || page == 2 {
            assert_eq!(m["alphaMode"], "MASK", "{material}");
        }
    }
    assert_eq!(glb.root_names(), ["level"]);
    assert_eq!(col.root_names(), ["collision"]);
    assert_eq!(col.node("collision")["extras"]["hidden"], Value::Bool(true));

    // The swap tile: tile 3 (model 1) switches to model 3; both states are their own nodes.
    let swap = &expect["map"]["swaps"][0];
    let t = swap["tile"].as_u64().unwrap() as usize;
    let (a, b) = (
        swap["model_a"].as_u64().unwrap(),
        swap["model_b"].as_u64().unwrap(),
    );
    let primary = glb.node(&format!("tile_{t:04}_m{a:03}"));
    assert_eq!(primary["extras"]["swap_state"], "primary");
    let alt_name = format!("tile_{t:04}_m{b:03}_swap");
    assert!(!glb
        .array("nodes")
        .iter()
        .any(|n| n["name"] == alt_name.as_str()));
    let swap = Glb::read(&out.join("swap.glb"));
    assert_eq!(swap.root_names(), ["swap"]);
    assert_eq!(swap.node(&alt_name)["extras"]["swap_state"], "alternative");
    let swap_objects = swap.objects();
    let wad = std::fs::read(fixture_dir().join("indep.wad")).unwrap();
    let (level, _) = Level::read(&wad).unwrap();
    let local = rows(&expect["trak"][b as usize]["vertices_local"]);
    let corners: Vec<Corner> = object(&swap_objects, &alt_name)
        .iter()
        .flat_map(|t| t.corners.clone())
        .collect();
    for v in local {
        let want = place(&level, t, [v[0], v[1], v[2]]);
        assert!(
            corners.iter().any(|c| near(&c.pos, want, 1e-4)),
            "{alt_name}: no vertex at {want:?}"
        );
    }
}

/// `assimp info` (a strict reader: out-of-range OBJ indices, broken GLB) loads every OBJ and
/// GLB, and counts as many faces in each GLB as its OBJ has `f` lines (one file per root). Skipped with a note when assimp is not installed.
#[test]
fn assimp_loads_the_exports_with_every_face() {
    let assimp_ok = Command::new("assimp")
        .arg("version")
        .output()
        .is_ok_and(|o| o.status.success());
    if !assimp_ok {
        levelgeom_testkit::tool_missing("assimp (apt-get install assimp-utils)");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = demo_wad(dir.path());
    let out = dir.path().join("out");
    // objects_catalogue: one mesh per node (objects.glb shares one marker mesh between nodes,
    // which assimp counts once)
    export_ok(&[
        path_str(&wad),
        path_str(&out),
        "--collision",
        "--objects-catalogue",
    ]);
    let faces = |f: &str| -> usize {
        let o = Command::new("assimp")
            .arg("info")
            .arg(out.join(f))
            .output()
            .unwrap();
        let text = String::from_utf8_lossy(&o.stdout);
        assert!(o.status.success(), "assimp cannot load {f}: {text}");
        text.lines()
            .find_map(|l| l.strip_prefix("Faces:"))
            .unwrap_or_else(|| panic!("no face count for {f}: {text}"))
            .trim()
            .parse()
            .unwrap()
    };
    let mut total = 0;
    for stem in ["level", "collision", "swap", "objects_catalogue"] {
        let f = format!("{stem}.obj");
        let lines = count_prefix(&read_text(&out.join(&f)), "f ");
        assert!(lines > 0, "{f}");
        assert_eq!(faces(&f), lines, "{f}");
        assert_eq!(faces(&format!("{stem}.glb")), lines, "{stem}.glb");
        total += lines;
    }
    assert!(total > 0);
}

/// Two exports of the same level give the same bytes, and the GLB passes the Khronos
/// validator with no errors and no warnings (when node and tools/gltf-validator are installed;
/// otherwise that part is skipped with a note).
#[test]
fn exports_are_deterministic_and_valid_gltf() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = demo_wad(dir.path());
    let (a, b) = (dir.path().join("a"), dir.path().join("b"));
    for out in [&a, &b] {
        export_ok(&[path_str(&wad), path_str(out), "--collision", "--objects"]);
    }
    for f in [
        "level.glb",
        "collision.glb",
        "swap.glb",
        "objects.glb",
        "level.obj",
        "level.mtl",
        "collision.obj",
        "objects.obj",
        "page_00.png",
    ] {
        assert_eq!(
            std::fs::read(a.join(f)).unwrap(),
            std::fs::read(b.join(f)).unwrap(),
            "{f} differs between runs"
        );
    }
    let files = ["level.glb", "collision.glb", "swap.glb", "objects.glb"];
    let Some(reports) = gltf_validator(&files.map(|f| a.join(f))) else {
        return;
    };
    for (f, v) in files.iter().zip(reports) {
        assert!(v.passed, "{f}: {}{}", v.report, v.stderr);
        assert!(
            v.report.contains("0 errors, 0 warnings"),
            "{f}: {}",
            v.report
        );
    }
}
