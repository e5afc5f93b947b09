//! Round trips through the project's own writers (`levelgeom_export`).

use levelgeom_export::{gltf, obj};
use levelgeom_import::{read_gltf, read_obj, world_triangles, MemoryFiles, NoFiles};
use levelgeom_scene::{
    AlphaMode, Material, Mesh, Node, Primitive, Scene, Texture, TextureSource, IDENTITY,
};

/// A small level: two tiles (one a swap tile) under `level`, a hidden `collision` tree, two
/// textured materials and a flat one, a 2×2 page with a transparent texel.
fn level() -> Scene {
    let mut s = Scene {
        name: "level".into(),
        ..Scene::default()
    };
    s.textures.push(Texture {
        name: "page_03".into(),
        source: TextureSource::Rgba8 {
            width: 2,
            height: 2,
            pixels: vec![255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 255, 0, 0, 0, 0],
        },
    });
    s.materials = vec![
        Material {
            name: "page_03".into(),
            texture: Some(0),
            alpha: AlphaMode::Mask(0.5),
            unlit: true,
            ..Material::default()
        },
        Material {
            name: "page_03_ds".into(),
            texture: Some(0),
            double_sided: true,
            alpha: AlphaMode::Mask(0.5),
            unlit: true,
            ..Material::default()
        },
        Material {
            name: "flat_FF8000".into(),
            base_color: [1.0, 0.5, 0.0, 1.0],
            unlit: true,
            ..Material::default()
        },
    ];
    let quad = |x: f32, mat: usize| Primitive {
        material: Some(mat),
        positions: vec![
            [x, 0.0, 0.0],
            [x + 1.0, 0.0, 0.0],
            [x + 1.0, 0.0, -1.0],
            [x, 0.0, -1.0],
        ],
        uvs: vec![vec![[0.0, 1.0], [0.5, 1.0], [0.5, 0.75], [0.0, 0.25]]],
        colors: vec![
            vec![
                [1.0, 0.5, 0.25, 1.0],
                [0.75, 0.75, 0.75, 1.0],
                [0.0, 0.125, 1.0, 1.0],
                [1.0; 4],
            ],
            vec![[0.5, 0.5, 0.5, 1.0]; 4],
        ],
        indices: vec![0, 2, 1, 0, 3, 2],
        ..Primitive::default()
    };
    let m0 = s.add_mesh(Mesh {
        name: "tile_0000_m000".into(),
        primitives: vec![quad(0.0, 0), {
            let mut p = quad(0.0, 2);
            p.uvs.clear();
            for v in &mut p.positions {
                v[1] = 0.5;
            }
            p
        }],
    });
    let m1 = s.add_mesh(Mesh {
        name: "tile_0001_m001".into(),
        primitives: vec![quad(1.0, 1)],
    });
    let m2 = s.add_mesh(Mesh {
        name: "mat03_grp1".into(),
        primitives: vec![Primitive {
            positions: vec![[0.0, 0.0, 0.0], [2.0, 0.0, 0.0], [2.0, 0.0, -1.0]],
            indices: vec![0, 2, 1],
            ..Primitive::default()
        }],
    });
    let t0 = s.add_node(Node {
        name: "tile_0000_m000".into(),
        mesh: Some(m0),
        extras: vec![("tile".into(), "0".into()), ("model".into(), "0".into())],
        ..Node::default()
    });
    let t1 = s.add_node(Node {
        name: "tile_0001_m001_swap".into(),
        mesh: Some(m1),
        extras: vec![
            ("tile".into(), "1".into()),
            ("model".into(), "1".into()),
            ("swap_state".into(), "alternative".into()),
        ],
        ..Node::default()
    });
    let lv = s.add_node(Node {
        name: "level".into(),
        children: vec![t0, t1],
        ..Node::default()
    });
    let g = s.add_node(Node {
        name: "mat03_grp1".into(),
        mesh: Some(m2),
        ..Node::default()
    });
    let col = s.add_node(Node {
        name: "collision".into(),
        children: vec![g],
        hidden: true,
        ..Node::default()
    });
    s.roots = vec![lv, col];
    s
}

#[test]
fn our_glb_round_trips() {
    let scene = level();
    let bytes = gltf::to_glb(&scene, &gltf::GltfOptions::default()).unwrap();
    let im = read_gltf(&bytes, "level.glb", &NoFiles).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let got = &im.scene;
    assert_eq!(got.name, "level");
    assert_eq!(got.roots, scene.roots);
    assert_eq!(got.nodes.len(), scene.nodes.len());
    for (a, b) in got.nodes.iter().zip(&scene.nodes) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.children, b.children);
        assert_eq!(a.hidden, b.hidden, "{}", a.name);
        assert_eq!(a.extras, b.extras, "{}", a.name);
        assert_eq!(a.matrix, IDENTITY);
        assert_eq!(a.mesh, b.mesh);
    }
    assert_eq!(got.meshes.len(), scene.meshes.len());
    for (a, b) in got.meshes.iter().zip(&scene.meshes) {
        assert_eq!(a.name, b.name);
        assert_eq!(a.primitives.len(), b.primitives.len());
        for (p, q) in a.primitives.iter().zip(&b.primitives) {
            assert_eq!(p.material, q.material);
            assert_eq!(p.positions, q.positions);
            assert_eq!(p.uvs, q.uvs);
            // the file holds linear COLOR_n; the reader returns it as it is, and the inverse
            // of the writer's sRGB conversion gives the scene's display values back exactly
            let display: Vec<Vec<[f32; 4]>> = p
                .colors
                .iter()
                .map(|set| {
                    set.iter()
                        .map(|&c| levelgeom_scene::colour::rgba_to_srgb(c))
                        .collect()
                })
                .collect();
            assert_eq!(display, q.colors);
            assert_eq!(p.indices, q.indices);
        }
    }
    assert_eq!(got.materials, scene.materials);
    assert_eq!(
        got.textures, scene.textures,
        "embedded PNG decoded back to the same pixels"
    );
    let display = |mut tris: Vec<levelgeom_import::Triangle>| {
        for t in &mut tris {
            if let Some(c) = &mut t.colours {
                *c = c.map(levelgeom_scene::colour::rgba_to_srgb);
            }
        }
        tris
    };
    assert_eq!(
        display(world_triangles(got, None, false)),
        world_triangles(&scene, None, false)
    );
    assert_eq!(
        display(world_triangles(got, None, true)),
        world_triangles(&scene, None, true)
    );
}

#[test]
fn our_obj_round_trips() {
    let scene = level();
    let out = obj::to_obj(&scene, &obj::ObjOptions::default());
    let files = MemoryFiles(vec![("level.mtl".into(), out.mtl.clone().into_bytes())]);
    let im = read_obj(out.obj.as_bytes(), "level.obj", &files).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let got = &im.scene;
    let root = &got.nodes[got.roots[0]];
    assert_eq!(root.name, "level");
    let names: Vec<&str> = root
        .children
        .iter()
        .map(|&c| got.nodes[c].name.as_str())
        .collect();
    assert_eq!(
        names,
        ["tile_0000_m000", "tile_0001_m001_swap"],
        "hidden collision not written"
    );
    let mats: Vec<&str> = got.materials.iter().map(|m| m.name.as_str()).collect();
    assert_eq!(mats, ["page_03", "flat_FF8000", "page_03_ds"]);
    assert!(got.materials.iter().all(|m| m.unlit));
    assert_eq!(got.materials[1].base_color, [1.0, 0.5, 0.0, 1.0]);
    assert_eq!(
        got.textures[got.materials[0].texture.unwrap()].source,
        TextureSource::External {
            uri: "page_03.png".into()
        }
    );

    let want = world_triangles(&scene, None, false);
    let have = world_triangles(got, None, false);
    assert_eq!(have.len(), want.len());
    for (h, w) in have.iter().zip(&want) {
        assert_eq!(h.node_name, w.node_name);
        assert_eq!(h.positions, w.positions);
        let name = |s: &Scene, m: Option<usize>| m.map(|m| s.materials[m].name.clone());
        assert_eq!(name(got, h.material), name(&scene, w.material));
        // OBJ colours are RGB: alpha comes back as 1, which the scene's colours have
        assert_eq!(h.colours, w.colours);
        assert_eq!(
            h.uvs, w.uvs,
            "V flipped by the writer and back by the reader"
        );
    }

    // the collision tree written on its own, as collision.obj, with groups
    let col = obj::to_obj(
        &scene,
        &obj::ObjOptions {
            roots: Some(vec![4]),
            groups: true,
            mtl_file: "collision.mtl".into(),
            ..obj::ObjOptions::default()
        },
    );
    let im = read_obj(col.obj.as_bytes(), "collision.obj", &NoFiles).unwrap();
    let s = &im.scene;
    let names: Vec<&str> = s.nodes.iter().map(|n| n.name.as_str()).collect();
    assert_eq!(names, ["collision", "mat03_grp1"]);
    assert_eq!(
        s.meshes[0].primitives[0].material, None,
        "levelgeom_default reads as none"
    );
    let t = world_triangles(s, None, false);
    assert_eq!(
        t[0].positions,
        [[0.0, 0.0, 0.0], [2.0, 0.0, -1.0], [2.0, 0.0, 0.0]]
    );
}

#[test]
fn custom_scalar_and_vector_attributes_round_trip_through_our_glb() {
    let mut scene = level();
    let p = &mut scene.meshes[0].primitives[0];
    let n = p.positions.len();
    let hemi: Vec<f32> = (0..n).map(|i| i as f32 * 0.25).collect();
    let light: Vec<[f32; 4]> = (0..n).map(|i| [0.5, i as f32 * 0.125, 1.0, 0.75]).collect();
    p.scalars.push(("_HEMI".into(), hemi.clone()));
    p.vectors.push(("_LIGHT".into(), light.clone()));
    let bytes = gltf::to_glb(&scene, &gltf::GltfOptions::default()).unwrap();
    let im = read_gltf(&bytes, "level.glb", &NoFiles).unwrap();
    assert!(im.warnings.is_empty(), "{:?}", im.warnings);
    let q = &im.scene.meshes[0].primitives[0];
    assert_eq!(q.scalars, vec![("_HEMI".to_string(), hemi)]);
    assert_eq!(q.vectors, vec![("_LIGHT".to_string(), light)]);
}

/// Our own line primitives (WAD routes) are skipped by both readers, never read as triangles:
/// the glTF reader warns about the LINES mode, the OBJ reader ignores `l` lines.
#[test]
fn line_primitives_are_skipped() {
    let mut scene = level();
    let route = scene.add_mesh(Mesh {
        name: "route_000".into(),
        primitives: vec![Primitive {
            topology: levelgeom_scene::Topology::Lines,
            positions: vec![[0.0, 1.0, 0.0], [2.0, 1.0, 0.0], [2.0, 1.0, -2.0]],
            indices: vec![0, 1, 1, 2],
            ..Primitive::default()
        }],
    });
    let node = scene.add_node(Node {
        name: "route_000".into(),
        mesh: Some(route),
        ..Node::default()
    });
    scene.roots.push(node);
    let triangles = scene.mesh_triangle_count();
    let bytes = gltf::to_glb(&scene, &gltf::GltfOptions::default()).unwrap();
    let im = read_gltf(&bytes, "objects.glb", &NoFiles).unwrap();
    assert!(
        im.warnings
            .iter()
            .any(|w| w.contains("skipped (only TRIANGLES")),
        "{:?}",
        im.warnings
    );
    assert_eq!(im.scene.mesh_triangle_count(), triangles);
    let obj_triangles = |s: &Scene| {
        let out = obj::to_obj(s, &obj::ObjOptions::default());
        let im = read_obj(out.obj.as_bytes(), "objects.obj", &NoFiles).unwrap();
        (out.obj.contains("\nl "), im.scene.mesh_triangle_count())
    };
    let (lines, with_route) = obj_triangles(&scene);
    assert!(lines);
    assert_eq!(with_route, obj_triangles(&level()).1);
}
