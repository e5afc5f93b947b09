//! Export conversion of the real fixture: every visual's geometry where its OGF_HEADER bbox
//! (world space) says, normals agreeing with the glTF winding after the mirror, instancing,
//! hierarchy, materials and attributes.

use levelgeom_scene::{transform_point, Scene};
use levelgeom_xray::ogf::model_type;
use levelgeom_xray::{to_scene, Geom, Level, SceneOptions};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/xray-v14-micro/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

fn fixture(lods: bool) -> (Level, Scene) {
    let l = Level::read(&read("level")).unwrap().0;
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let s = to_scene(
        &l,
        &g,
        &SceneOptions {
            lods,
            ..SceneOptions::default()
        },
    )
    .unwrap();
    (l, s)
}

fn visual_of(name: &str) -> usize {
    name["visual_".len().."visual_".len() + 4].parse().unwrap()
}

#[test]
fn every_visual_lands_inside_its_header_bbox() {
    let (l, s) = fixture(false);
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    let world = s.world_matrices();
    let vis = l.visuals();
    let mut placed = 0;
    for (ni, node) in s.nodes.iter().enumerate() {
        let Some(m) = node.mesh else { continue };
        let h = vis[visual_of(&node.name)].header().unwrap();
        let mut lo = [f32::MAX; 3];
        let mut hi = [f32::MIN; 3];
        for p in &s.meshes[m].primitives[0].positions {
            let w = transform_point(&world[ni], *p);
            let x = [w[0], w[1], -w[2]]; // back to X-Ray space
            for k in 0..3 {
                lo[k] = lo[k].min(x[k]);
                hi[k] = hi[k].max(x[k]);
            }
        }
        for k in 0..3 {
            assert!(
                (lo[k] - h.bbox_min[k]).abs() < 0.01,
                "{}: {lo:?} vs {:?}",
                node.name,
                h.bbox_min
            );
            assert!(
                (hi[k] - h.bbox_max[k]).abs() < 0.01,
                "{}: {hi:?} vs {:?}",
                node.name,
                h.bbox_max
            );
        }
        placed += 1;
    }
    // 4 normal visuals + 5 tree instances
    assert_eq!(placed, 9);
}

fn sub(a: [f32; 3], b: [f32; 3]) -> [f32; 3] {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

#[test]
fn normals_agree_with_ccw_winding_after_the_mirror() {
    let (_, s) = fixture(false);
    for m in &s.meshes {
        let p = &m.primitives[0];
        let (mut sum, mut n, mut min) = (0.0f32, 0.0f32, 1.0f32);
        for t in p.indices.chunks(3) {
            let [a, b, c] = [t[0], t[1], t[2]].map(|i| p.positions[i as usize]);
            let (e1, e2) = (sub(b, a), sub(c, a));
            let f = [
                e1[1] * e2[2] - e1[2] * e2[1],
                e1[2] * e2[0] - e1[0] * e2[2],
                e1[0] * e2[1] - e1[1] * e2[0],
            ];
            let l = (f[0] * f[0] + f[1] * f[1] + f[2] * f[2]).sqrt();
            if l < 1e-6 {
                continue;
            }
            for &i in t {
                let nn = p.normals[i as usize];
                let d = (f[0] * nn[0] + f[1] * nn[1] + f[2] * nn[2]) / l;
                sum += d;
                min = min.min(d);
                n += 1.0;
            }
        }
        assert!(
            sum / n > 0.75 && min > 0.4,
            "{}: mean {} min {min}",
            m.name,
            sum / n
        );
        // unit normals, unit orthogonal tangents with w = ±1
        for (nn, t) in p.normals.iter().zip(&p.tangents) {
            let ln = (nn[0] * nn[0] + nn[1] * nn[1] + nn[2] * nn[2]).sqrt();
            assert!((ln - 1.0).abs() < 1e-4);
            assert!((t[0] * nn[0] + t[1] * nn[1] + t[2] * nn[2]).abs() < 1e-4);
            assert!(t[3] == 1.0 || t[3] == -1.0);
        }
    }
}

#[test]
fn trees_are_instanced_and_the_hierarchy_is_the_node_tree() {
    let (l, s) = fixture(false);
    // 16 visuals, then `lights` with one light, `glows` with one glow, and the root `level`
    assert_eq!(s.nodes.len(), 16 + 2 + 2 + 1);
    // 4 normal visuals + 1 shared tree geometry
    assert_eq!(s.meshes.len(), 5);
    let tree_nodes: Vec<_> = s
        .nodes
        .iter()
        .filter(|n| n.name.ends_with("tree_st"))
        .collect();
    assert_eq!(tree_nodes.len(), 5);
    let m = tree_nodes[0].mesh;
    assert!(m.is_some() && tree_nodes.iter().all(|n| n.mesh == m));
    // the 5 matrices differ (one instance each), and none mirrors
    for (i, a) in tree_nodes.iter().enumerate() {
        for b in &tree_nodes[i + 1..] {
            assert_ne!(a.matrix, b.matrix);
        }
        let x = &a.matrix;
        let det = x[0] * (x[5] * x[10] - x[9] * x[6]) - x[4] * (x[1] * x[10] - x[9] * x[2])
            + x[8] * (x[1] * x[6] - x[5] * x[2]);
        assert!(det > 0.0);
    }
    // children lists become node children; the two sector roots (visuals 2 and 15) are the
    // visuals under the root `level`
    for (i, v) in l.visuals().iter().enumerate() {
        let kids: Vec<usize> = s.nodes[i]
            .children
            .iter()
            .map(|&c| visual_of(&s.nodes[c].name))
            .collect();
        let want: Vec<usize> = v.children().iter().map(|&c| c as usize).collect();
        assert_eq!(kids, want, "visual {i}");
    }
    assert_eq!(s.roots.len(), 1);
    let level = &s.nodes[s.roots[0]];
    assert_eq!(level.name, "level");
    let mut roots: Vec<usize> = level
        .children
        .iter()
        .filter(|&&r| s.nodes[r].name.starts_with("visual_"))
        .map(|&r| visual_of(&s.nodes[r].name))
        .collect();
    roots.sort();
    assert_eq!(roots, vec![2, 15]);
    let groups: Vec<&str> = level
        .children
        .iter()
        .map(|&r| s.nodes[r].name.as_str())
        .filter(|n| !n.starts_with("visual_"))
        .collect();
    assert_eq!(groups, ["lights", "glows"]);
}

#[test]
fn materials_and_attributes() {
    let (l, s) = fixture(false);
    let shaders = l.shaders().unwrap();
    for (i, v) in l.visuals().iter().enumerate() {
        let Some(m) = s.nodes[i].mesh else { continue };
        let p = &s.meshes[m].primitives[0];
        let sid = v.header().unwrap().shader_id as usize;
        let mat = &s.materials[p.material.unwrap()];
        let text = shaders[sid].text();
        // named after the diffuse texture (`tex0` after the first `/`, up to a comma), with
        // the whole entry in extras, and the lightmap export's keys unchanged
        let tex0 = text.split_once('/').unwrap().1.split(',').next().unwrap();
        assert_eq!(mat.name, tex0.replace('\\', "/"));
        let extra = |k: &str| {
            mat.extras
                .iter()
                .find(|(x, _)| x == k)
                .map(|(_, v)| v.as_str())
        };
        assert_eq!(extra("shader"), Some(text.as_str()));
        assert_eq!(extra("shader_id"), Some(sid.to_string().as_str()));
        assert_eq!(extra("texture_0"), Some(tex0));
        assert_eq!(
            extra("engine_shader"),
            Some(text.split_once('/').unwrap().0)
        );
        let scalar = |n: &str| p.scalars.iter().any(|(k, _)| k == n);
        assert!(scalar("_HEMI"));
        if text.contains("lmap#") {
            // lightmapped: TEXCOORD_1
            assert_eq!(p.uvs.len(), 2, "{text}");
        }
        if text.starts_with("def_shaders\\def_vertex") {
            // vertex-lit: baked light (as _LIGHT, not a colour: it is not albedo) + sun
            assert!(p.colors.is_empty());
            assert!(p
                .vectors
                .iter()
                .any(|(k, v)| k == "_LIGHT" && v.len() == p.positions.len()));
            assert!(scalar("_SUN"));
        }
        if v.model_type() == Some(model_type::TREE_ST) {
            assert!(scalar("_WIND"));
            assert_eq!(p.uvs.len(), 1);
        }
        assert_eq!(p.tangents.len(), p.positions.len());
    }
    // diffuse textures referenced by name, with forward slashes
    let names: Vec<&str> = s.textures.iter().map(|t| t.name.as_str()).collect();
    assert!(names.contains(&"trees/trees_elka"), "{names:?}");
    assert!(names.contains(&"crete/crete_roof1"));
}

#[test]
fn vertex_light_asked_for_is_the_vertex_colour() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xray-v14-micro");
    let files = levelgeom_xray::LevelFiles::open(&dir).unwrap();
    let light = files
        .to_scene(&levelgeom_xray::SceneOptions {
            name: String::new(),
            ..Default::default()
        })
        .unwrap();
    let lit = files
        .to_scene(&levelgeom_xray::SceneOptions {
            name: String::new(),
            vertex_light: true,
            ..Default::default()
        })
        .unwrap();
    let mut moved = 0;
    for (a, b) in light.meshes.iter().zip(&lit.meshes) {
        for (p, q) in a.primitives.iter().zip(&b.primitives) {
            let l = p
                .vectors
                .iter()
                .find(|(k, _)| k == "_LIGHT")
                .map(|(_, v)| v);
            assert_eq!(
                l,
                q.colors.first(),
                "the same values, only the attribute differs"
            );
            assert!(q.vectors.is_empty());
            moved += usize::from(l.is_some());
        }
    }
    assert!(moved > 0);
}

#[test]
fn lods_are_optional_meshes() {
    let (_, without) = fixture(false);
    let (_, with) = fixture(true);
    assert_eq!(with.meshes.len(), without.meshes.len() + 5);
    for m in with.meshes.iter().filter(|m| m.name.starts_with("lod_")) {
        // 8 quads → 32 vertices, 16 triangles
        assert_eq!(m.primitives[0].positions.len(), 32);
        assert_eq!(m.primitives[0].triangle_count(), 16);
        let mat = &with.materials[m.primitives[0].material.unwrap()];
        assert_eq!(mat.name, "level_lods");
        let shader = mat.extras.iter().find(|(k, _)| k == "shader").unwrap();
        assert_eq!(shader.1, "details\\lod/level_lods");
        assert!(mat.double_sided);
    }
}

#[test]
fn geometry_only_decodes_positions_normals_and_triangles_alone() {
    let l = Level::read(&read("level")).unwrap().0;
    let g = Geom::read(&read("level.geom")).unwrap().0;
    let opts = |geometry_only| SceneOptions {
        lods: true,
        geometry_only,
        ..SceneOptions::default()
    };
    let full = to_scene(&l, &g, &opts(false)).unwrap();
    let lean = to_scene(&l, &g, &opts(true)).unwrap();
    // the same nodes, matrices and meshes; the range meshes without their other attributes
    assert_eq!(lean.nodes, full.nodes);
    assert_eq!(lean.meshes.len(), full.meshes.len());
    let mut ranges = 0;
    for (a, b) in lean.meshes.iter().zip(&full.meshes) {
        for (p, q) in a.primitives.iter().zip(&b.primitives) {
            assert_eq!(p.positions, q.positions);
            assert_eq!(p.indices, q.indices);
            if b.name.starts_with("lod_") {
                // billboards are made from the LOD chunk, not decoded: whole either way
                assert_eq!(p, q);
                continue;
            }
            ranges += 1;
            assert_eq!(p.normals, q.normals, "{}", b.name);
            assert!(!q.uvs.is_empty() && !q.normals.is_empty(), "{}", b.name);
            assert!(
                p.uvs.is_empty()
                    && p.colors.is_empty()
                    && p.tangents.is_empty()
                    && p.scalars.is_empty()
                    && p.vectors.is_empty(),
                "{}: {} uv sets, {} colour sets, {} tangents, {:?}, {:?}",
                b.name,
                p.uvs.len(),
                p.colors.len(),
                p.tangents.len(),
                p.scalars.iter().map(|s| &s.0).collect::<Vec<_>>(),
                p.vectors.iter().map(|s| &s.0).collect::<Vec<_>>()
            );
        }
    }
    assert!(ranges > 0);
}
