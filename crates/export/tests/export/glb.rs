//! GLB output parsed back by hand.

use levelgeom_export::gltf::{to_glb, to_glb_with_warnings, to_gltf, GltfOptions};
use levelgeom_scene::*;
use serde_json::{json, Value};

use crate::support::*;

fn opts() -> GltfOptions {
    GltfOptions {
        generator: "levelgeom test".into(),
    }
}

fn export(s: &Scene) -> (Parsed, Vec<String>) {
    let out = to_glb_with_warnings(s, &opts()).unwrap();
    (parse_glb(&out.bytes), out.warnings)
}

#[test]
fn container_header_chunks_and_padding() {
    let bytes = to_glb(&scene(), &opts()).unwrap();
    let p = parse_glb(&bytes);
    // JSON padding is spaces only
    let text = std::str::from_utf8(&p.json_chunk).unwrap();
    let trimmed = text.trim_end();
    assert!(trimmed.ends_with('}'));
    assert!(text[trimmed.len()..].bytes().all(|b| b == b' '));
    assert_eq!(
        p.json["asset"],
        json!({"version": "2.0", "generator": "levelgeom test"})
    );
    assert_eq!(p.json["buffers"][0]["byteLength"], p.bin.len() as u64);
    assert!(p.json["buffers"][0].get("uri").is_none());
}

#[test]
fn quad_attributes_read_back_equal_to_input() {
    let (p, warnings) = export(&scene());
    assert!(warnings.is_empty(), "{warnings:?}");
    let pos = p.attr(0, 0, "POSITION").unwrap();
    assert_eq!(p.floats(pos), flat(&QUAD_POS));
    assert_eq!(p.json["accessors"][pos]["min"], json!([0.0, 0.0, 0.0]));
    assert_eq!(p.json["accessors"][pos]["max"], json!([1.0, 1.0, 0.0]));
    // (0,0,2) normalised
    assert_eq!(
        p.floats(p.attr(0, 0, "NORMAL").unwrap()),
        flat(&[[0.0, 0.0, 1.0]; 4])
    );
    assert_eq!(
        p.floats(p.attr(0, 0, "TANGENT").unwrap()),
        flat(&[[1.0, 0.0, 0.0, 1.0]; 4])
    );
    // glTF keeps the top-left UV origin: no flip
    assert_eq!(
        p.floats(p.attr(0, 0, "TEXCOORD_0").unwrap()),
        flat(&QUAD_UV)
    );
    let col = p.attr(0, 0, "COLOR_0").unwrap();
    assert_eq!(p.json["accessors"][col]["type"], "VEC4");
    // COLOR_n is linear in glTF: the scene's display values go through the sRGB curve,
    // alpha as it is
    let linear: Vec<[f32; 4]> = QUAD_COL
        .iter()
        .map(|&c| levelgeom_scene::colour::rgba_to_linear(c))
        .collect();
    assert_eq!(p.floats(col), flat(&linear));
    assert_eq!(QUAD_COL[3], [0.5, 0.5, 0.5, 0.5]);
    assert_eq!(
        &p.floats(col)[12..],
        &[0.214_041_14, 0.214_041_14, 0.214_041_14, 0.5]
    );
    assert_eq!(p.floats(p.attr(0, 0, "_HEMI").unwrap()), HEMI.to_vec());
    assert!(p.attr(0, 0, "HEMI").is_none());
    let idx = p.json["meshes"][0]["primitives"][0]["indices"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(p.indices(idx), (5123, QUAD_IDX.to_vec()));
    // the blended quad without UVs has no TEXCOORD_0 and no NORMAL was invented
    assert!(p.attr(1, 0, "TEXCOORD_0").is_none());
}

#[test]
fn buffer_views_aligned_with_targets() {
    let (p, _) = export(&scene());
    let views = p.json["bufferViews"].as_array().unwrap();
    let images: Vec<u64> = p.json["images"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|i| i["bufferView"].as_u64())
        .collect();
    let index_views: Vec<u64> = p.json["meshes"]
        .as_array()
        .unwrap()
        .iter()
        .flat_map(|m| m["primitives"].as_array().unwrap().clone())
        .map(|pr| {
            p.json["accessors"][pr["indices"].as_u64().unwrap() as usize]["bufferView"]
                .as_u64()
                .unwrap()
        })
        .collect();
    for (i, v) in views.iter().enumerate() {
        assert_eq!(v["byteOffset"].as_u64().unwrap() % 4, 0, "view {i}");
        let i = i as u64;
        let expected = if images.contains(&i) {
            Value::Null
        } else if index_views.contains(&i) {
            json!(34963)
        } else {
            json!(34962)
        };
        assert_eq!(
            v.get("target").cloned().unwrap_or(Value::Null),
            expected,
            "view {i}"
        );
    }
}

#[test]
fn instancing_matrices_and_node_extras() {
    let (p, _) = export(&scene());
    let nodes = p.json["nodes"].as_array().unwrap();
    assert_eq!(nodes.len(), 4);
    assert_eq!(p.json["scenes"][0]["nodes"], json!([ROOT, HIDDEN]));
    assert_eq!(p.json["scene"], 0);
    assert_eq!(nodes[ROOT]["children"], json!([NODE_A, NODE_B]));
    // one glTF mesh shared by both instances
    assert_eq!(nodes[NODE_A]["mesh"], 0);
    assert_eq!(nodes[NODE_B]["mesh"], 0);
    assert_eq!(p.json["meshes"].as_array().unwrap().len(), 2);
    assert_eq!(
        p.json["meshes"][1]["primitives"].as_array().unwrap().len(),
        1,
        "empty primitive skipped"
    );
    // identity omitted; others column-major as given
    assert!(nodes[NODE_A].get("matrix").is_none());
    assert_eq!(
        nodes[ROOT]["matrix"],
        json!([1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0, 10, 0, 0, 1].map(|v: i32| v as f64))
    );
    assert_eq!(
        nodes[NODE_B]["matrix"],
        json!([2, 0, 0, 0, 0, 2, 0, 0, 0, 0, 2, 0, 0, 0, 5, 1].map(|v: i32| v as f64))
    );
    assert_eq!(
        nodes[NODE_B]["extras"],
        json!({"swap_state": "alternative"})
    );
    assert_eq!(nodes[HIDDEN]["extras"], json!({"hidden": true}));
    assert!(nodes[NODE_A].get("extras").is_none());
}

#[test]
fn materials_textures_and_sampler() {
    let (p, _) = export(&scene());
    let m0 = &p.json["materials"][0];
    assert_eq!(m0["name"], "mat textured");
    assert_eq!(m0["doubleSided"], true);
    assert_eq!(m0["alphaMode"], "MASK");
    assert_eq!(m0["alphaCutoff"], 0.5);
    assert_eq!(m0["extensions"], json!({"KHR_materials_unlit": {}}));
    assert_eq!(m0["extras"], json!({"blend_mode": "2"}));
    assert_eq!(m0["pbrMetallicRoughness"]["metallicFactor"], 0.0);
    assert_eq!(
        m0["pbrMetallicRoughness"]["baseColorTexture"],
        json!({"index": 0})
    );
    assert_eq!(p.json["extensionsUsed"], json!(["KHR_materials_unlit"]));
    let m1 = &p.json["materials"][1];
    assert_eq!(m1["alphaMode"], "BLEND");
    assert!(m1.get("alphaCutoff").is_none());
    assert!(m1.get("doubleSided").is_none());
    assert!(m1.get("extensions").is_none());
    assert_eq!(
        m1["pbrMetallicRoughness"]["baseColorFactor"],
        json!([0.5, 0.25, 1.0, 0.75])
    );
    assert_eq!(p.json["meshes"][1]["primitives"][0]["material"], 1);
    assert_eq!(
        p.json["samplers"],
        json!([{"magFilter": 9728, "minFilter": 9728, "wrapS": 10497, "wrapT": 10497}])
    );
    assert_eq!(
        p.json["textures"],
        json!([{"name": "page_00", "sampler": 0, "source": 0}])
    );
    let img = &p.json["images"][0];
    assert_eq!(img["mimeType"], "image/png");
    // the embedded PNG decodes to the input pixels
    let png = p.view(img["bufferView"].as_u64().unwrap() as usize);
    let dec = ::png::Decoder::new(std::io::Cursor::new(png.to_vec()));
    let mut r = dec.read_info().unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (2, 2));
    assert_eq!(info.color_type, ::png::ColorType::Rgba);
    assert_eq!(&buf[..info.buffer_size()], &PIXELS);
}

#[test]
fn output_is_deterministic() {
    let a = to_glb(&scene(), &opts()).unwrap();
    let b = to_glb(&scene().clone(), &opts()).unwrap();
    assert_eq!(a, b);
}

#[test]
fn large_primitive_uses_u32_indices() {
    let n = 65536usize;
    let prim = Primitive {
        positions: (0..n).map(|i| [i as f32, 0.0, 0.0]).collect(),
        indices: vec![0, 1, 65535],
        ..Primitive::default()
    };
    let small = Primitive {
        positions: (0..65535).map(|i| [i as f32, 0.0, 0.0]).collect(),
        indices: vec![0, 1, 65534],
        ..Primitive::default()
    };
    let mut s = Scene::default();
    s.add_mesh(Mesh {
        name: "big".into(),
        primitives: vec![prim, small],
    });
    let (p, _) = export(&s);
    let a = p.json["meshes"][0]["primitives"][0]["indices"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(p.indices(a), (5125, vec![0, 1, 65535]));
    let b = p.json["meshes"][0]["primitives"][1]["indices"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(p.indices(b), (5123, vec![0, 1, 65534]));
    let pos = p.attr(0, 0, "POSITION").unwrap();
    assert_eq!(p.json["accessors"][pos]["max"], json!([65535.0, 0.0, 0.0]));
}

#[test]
fn non_finite_values_are_replaced_and_reported() {
    let mut s = scene();
    s.meshes[0].primitives[0].positions[2] = [f32::NAN, 1.0, f32::INFINITY];
    s.materials[1].base_color = [f32::NAN, 2.0, -1.0, 0.5];
    s.nodes[NODE_B].matrix[0] = f32::NAN;
    let (p, warnings) = export(&s);
    let text = String::from_utf8(p.json_chunk.clone()).unwrap();
    assert!(!text.contains("null") && !text.contains("NaN") && !text.contains("inf"));
    let pos = p.floats(p.attr(0, 0, "POSITION").unwrap());
    assert_eq!(&pos[6..9], &[0.0, 1.0, 0.0]);
    assert_eq!(
        p.json["materials"][1]["pbrMetallicRoughness"]["baseColorFactor"],
        json!([0.0, 1.0, 0.0, 0.5])
    );
    assert!(p.json["nodes"][NODE_B].get("matrix").is_none());
    let all = warnings.join("\n");
    assert!(all.contains("3 non-finite"), "{all}");
    assert!(all.contains("clamped 2"), "{all}");
    assert!(all.contains("non-finite matrix"), "{all}");
}

#[test]
fn broken_primitives_are_repaired() {
    let mut s = Scene::default();
    let mut bad = quad(None);
    bad.indices = vec![0, 1, 2, 0, 2, 99, 3]; // one bad triangle, one trailing index
    bad.normals.pop(); // wrong length: dropped
    bad.uvs[0].pop(); // wrong length: zeros
    s.add_mesh(Mesh {
        name: "m".into(),
        primitives: vec![bad],
    });
    s.add_mesh(Mesh {
        name: "nothing".into(),
        primitives: vec![Primitive {
            positions: vec![[0.0; 3]; 2],
            indices: vec![0, 1, 5],
            ..Primitive::default()
        }],
    });
    let n = s.add_node(Node {
        mesh: Some(1),
        ..Node::default()
    });
    s.roots.push(n);
    let (p, warnings) = export(&s);
    let idx = p.json["meshes"][0]["primitives"][0]["indices"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(p.indices(idx).1, vec![0, 1, 2]);
    assert!(p.attr(0, 0, "NORMAL").is_none());
    assert_eq!(p.floats(p.attr(0, 0, "TEXCOORD_0").unwrap()), vec![0.0; 8]);
    // mesh 1 had nothing drawable: not exported, the node loses its mesh
    assert_eq!(p.json["meshes"].as_array().unwrap().len(), 1);
    assert!(p.json["nodes"][0].get("mesh").is_none());
    assert_eq!(warnings.len(), 7, "{warnings:#?}");
}

#[test]
fn node_graph_is_repaired_into_a_forest() {
    let mut s = Scene::default();
    // 0 → 1, 2 → 1 (second parent), 1 → 0 (cycle), 3 ↔ 4 (unreachable cycle), root 1 again
    for kids in [vec![1], vec![0, 7], vec![1], vec![4], vec![3]] {
        s.add_node(Node {
            children: kids,
            ..Node::default()
        });
    }
    s.roots = vec![0, 2, 1];
    let (p, warnings) = export(&s);
    let kids: Vec<Value> = (0..5)
        .map(|i| p.json["nodes"][i]["children"].clone())
        .collect();
    assert_eq!(
        kids,
        vec![
            json!([1]),
            Value::Null,
            Value::Null,
            json!([4]),
            Value::Null
        ]
    );
    assert_eq!(p.json["scenes"][0]["nodes"], json!([0, 2]));
    assert_eq!(warnings.len(), 5, "{warnings:#?}");
}

#[test]
fn external_textures_and_textured_primitive_without_uvs() {
    let mut s = Scene::default();
    s.textures.push(Texture {
        name: "wall".into(),
        source: TextureSource::External {
            uri: "textures/wall.dds".into(),
        },
    });
    s.materials.push(Material {
        texture: Some(0),
        ..Material::default()
    });
    let mut q = quad(Some(0));
    q.uvs.clear();
    s.add_mesh(Mesh {
        name: "q".into(),
        primitives: vec![q],
    });
    let (p, warnings) = export(&s);
    assert_eq!(
        p.json["images"],
        json!([{"name": "wall", "uri": "textures/wall.dds"}])
    );
    assert_eq!(p.floats(p.attr(0, 0, "TEXCOORD_0").unwrap()), vec![0.0; 8]);
    assert_eq!(warnings.len(), 1, "{warnings:?}");
    assert!(p.json.get("extensionsUsed").is_none());
}

#[test]
fn gltf_with_separate_buffer_and_png_files() {
    let f = to_gltf(&scene(), &opts(), "level.bin").unwrap();
    let j: Value = serde_json::from_str(&f.json).unwrap();
    assert_eq!(
        j["buffers"],
        json!([{"byteLength": f.bin.len(), "uri": "level.bin"}])
    );
    assert_eq!(
        j["images"],
        json!([{"name": "page_00", "uri": "page_00.png"}])
    );
    assert_eq!(f.bin.len() % 4, 0);
    // same geometry bytes as the GLB minus the embedded PNG
    let glb = parse_glb(&to_glb(&scene(), &opts()).unwrap());
    let pos_glb = glb.floats(glb.attr(0, 0, "POSITION").unwrap());
    assert_eq!(pos_glb, flat(&QUAD_POS));
    assert!(f.bin.len() < glb.bin.len());
}

#[test]
fn empty_scene_is_a_valid_minimal_document() {
    let bytes = to_glb(&Scene::default(), &opts()).unwrap();
    let p = parse_glb(&bytes);
    assert!(p.bin.is_empty());
    assert_eq!(
        p.json,
        json!({"asset": {"version": "2.0", "generator": "levelgeom test"}, "scene": 0, "scenes": [{}]})
    );
}

/// A scene that needs every repair at once plus fractional values, mirroring and u32 indices;
/// the validator test checks that the repaired output is valid.
pub fn awkward_scene() -> Scene {
    let mut s = scene();
    s.meshes[0].primitives[0].positions[2] = [f32::NAN, 0.1, 1.0e-7];
    s.meshes[0].primitives[0].normals[1] = [0.0, 0.0, 0.0];
    s.meshes[0].primitives[0].tangents[1] = [0.3, 0.4, 0.0, -0.5];
    s.meshes[0].primitives[0].colors[0][1] = [2.0, -0.5, 1.5, 3.0];
    s.meshes[0].primitives[0].uvs.push(vec![[-3.0, 7.5]; 4]);
    s.meshes[0].primitives[0].indices.extend([1, 2, 9, 3]);
    s.materials[1].base_color = [1.5, f32::INFINITY, -0.1, 0.3];
    let n = 70000usize;
    s.add_mesh(Mesh {
        name: "strip".into(),
        primitives: vec![Primitive {
            positions: (0..n)
                .map(|i| [i as f32 * 0.1, (i % 7) as f32 / 3.0, -0.3])
                .collect(),
            indices: (0..(n as u32 - 2))
                .flat_map(|i| [i, i + 1, i + 2])
                .collect(),
            ..Primitive::default()
        }],
    });
    let mirror = s.add_node(Node {
        name: "mirror".into(),
        mesh: Some(2),
        matrix: scale(-1.0, 1.0, 1.0),
        children: vec![NODE_A, 42],
        ..Node::default()
    });
    s.roots.push(mirror);
    // matrices glTF cannot hold: shear (with a child), zero scale, projective bottom row
    let mut shear = scale(-1.0, 1.0, 1.0);
    shear[4] = 0.5;
    let mut projective = IDENTITY;
    projective[3] = 0.5;
    let child = s.add_node(Node {
        name: "under shear".into(),
        mesh: Some(0),
        matrix: translate(0.0, 3.0, 0.0),
        ..Node::default()
    });
    for (name, matrix, children) in [
        ("shear", shear, vec![child]),
        ("zero", scale(0.0, 1.0, 1.0), vec![]),
        ("projective", projective, vec![]),
    ] {
        let k = s.add_node(Node {
            name: name.into(),
            mesh: Some(0),
            matrix,
            children,
            ..Node::default()
        });
        s.roots.push(k);
    }
    s
}

#[test]
fn non_trs_matrices_are_baked() {
    let mut s = Scene::default();
    s.add_mesh(Mesh {
        name: "tri".into(),
        primitives: vec![Primitive {
            positions: QUAD_POS[..3].to_vec(),
            normals: vec![[0.0, 0.0, 1.0]; 3],
            indices: vec![0, 1, 2],
            ..Primitive::default()
        }],
    });
    // shear x += 0.5·y, then mirror x: (x, y, z) → (−x − 0.5y, y, z)
    let mut shear = scale(-1.0, 1.0, 1.0);
    shear[4] = -0.5;
    let child = s.add_node(Node {
        name: "child".into(),
        mesh: Some(0),
        matrix: translate(0.0, 2.0, 0.0),
        ..Node::default()
    });
    let parent = s.add_node(Node {
        name: "sheared".into(),
        mesh: Some(0),
        matrix: shear,
        children: vec![child],
        ..Node::default()
    });
    let plain = s.add_node(Node {
        name: "plain".into(),
        mesh: Some(0),
        matrix: translate(1.0, 0.0, 0.0),
        ..Node::default()
    });
    s.roots = vec![parent, plain];
    let (p, warnings) = export(&s);
    let nodes = &p.json["nodes"];
    assert_eq!(nodes[plain]["mesh"], 0);
    assert!(nodes[parent].get("matrix").is_none());
    assert_eq!(nodes[parent]["mesh"], 1, "baked copy");
    assert_eq!(p.json["meshes"].as_array().unwrap().len(), 3);
    let pos = p.floats(p.attr(1, 0, "POSITION").unwrap());
    assert_eq!(pos, vec![0.0, 0.0, 0.0, -1.0, 0.0, 0.0, -1.5, 1.0, 0.0]);
    // mirrored: winding reversed; normal (0,0,1) unchanged by this shear
    let idx = p.json["meshes"][1]["primitives"][0]["indices"]
        .as_u64()
        .unwrap() as usize;
    assert_eq!(p.indices(idx).1, vec![0, 2, 1]);
    assert_eq!(
        p.floats(p.attr(1, 0, "NORMAL").unwrap()),
        [0.0, 0.0, 1.0].repeat(3)
    );
    // child: shear · translate(0,2,0) is still a shear, so it is baked too: (x,y) → (−x−0.5(y+2), y+2)
    assert!(nodes[child].get("matrix").is_none());
    assert_eq!(nodes[child]["mesh"], 2);
    let pos = p.floats(p.attr(2, 0, "POSITION").unwrap());
    assert_eq!(pos, vec![-1.0, 2.0, 0.0, -2.0, 2.0, 0.0, -2.5, 3.0, 0.0]);
    assert_eq!(warnings.len(), 2, "{warnings:?}");
}

#[test]
fn normals_and_tangents_are_made_unit() {
    let mut s = Scene::default();
    let mut q = quad(None);
    q.normals = vec![
        [0.0, 0.0, 0.0],
        [3.0, 4.0, 0.0],
        [0.0, -0.5, 0.0],
        [0.0, 0.0, 1.0],
    ];
    q.tangents = vec![
        [0.0, 0.0, 0.0, 1.0],
        [0.0, 3.0, 4.0, -0.5],
        [2.0, 0.0, 0.0, 0.0],
        [1.0, 0.0, 0.0, -1.0],
    ];
    s.add_mesh(Mesh {
        name: "q".into(),
        primitives: vec![q],
    });
    let (p, _) = export(&s);
    assert_eq!(
        p.floats(p.attr(0, 0, "NORMAL").unwrap()),
        vec![0.0, 0.0, 1.0, 0.6, 0.8, 0.0, 0.0, -1.0, 0.0, 0.0, 0.0, 1.0]
    );
    assert_eq!(
        p.floats(p.attr(0, 0, "TANGENT").unwrap()),
        vec![1.0, 0.0, 0.0, 1.0, 0.0, 0.6, 0.8, -1.0, 1.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, -1.0]
    );
}

#[test]
fn colours_are_clamped_to_unit_range() {
    let mut s = Scene::default();
    let mut q = quad(None);
    q.colors[0][1] = [2.0, -0.5, 0.25, 3.0];
    s.add_mesh(Mesh {
        name: "q".into(),
        primitives: vec![q],
    });
    let (p, warnings) = export(&s);
    let c = p.floats(p.attr(0, 0, "COLOR_0").unwrap());
    // clamped first (to display values 1, 0, 0.25), then made linear
    let b = levelgeom_scene::colour::srgb_to_linear(0.25);
    assert_eq!(&c[4..8], &[1.0, 0.0, b, 1.0]);
    assert_eq!(
        warnings,
        vec!["clamped 3 value(s) into the range the format allows"]
    );
}

#[test]
fn texture_with_bad_pixels_is_left_out() {
    let mut s = scene();
    s.textures.insert(
        0,
        Texture {
            name: "broken".into(),
            source: TextureSource::Rgba8 {
                width: 4,
                height: 4,
                pixels: vec![0; 10],
            },
        },
    );
    s.materials[0].texture = Some(1); // page_00, now second
    s.materials[1].texture = Some(0); // the broken one
    let (p, warnings) = export(&s);
    assert_eq!(p.json["images"].as_array().unwrap().len(), 1);
    assert_eq!(p.json["textures"][0]["name"], "page_00");
    assert_eq!(
        p.json["materials"][0]["pbrMetallicRoughness"]["baseColorTexture"],
        json!({"index": 0})
    );
    assert!(p.json["materials"][1]["pbrMetallicRoughness"]
        .get("baseColorTexture")
        .is_none());
    assert_eq!(warnings.len(), 2, "{warnings:?}");
    assert!(warnings[0].contains("\"broken\""), "{warnings:?}");
}

#[test]
fn vector_attributes_are_custom_vec4_floats_written_as_they_are() {
    let mut s = Scene::default();
    let mut q = quad(None);
    q.colors.clear();
    let light = [
        [0.25, 0.5, 0.75, 1.0],
        [0.0, 0.0, 0.0, 1.0],
        [1.0, 1.0, 1.0, 1.0],
        [0.1, 0.2, 0.3, 1.0],
    ];
    q.vectors.push(("LIGHT".into(), light.to_vec()));
    let m = s.add_mesh(Mesh {
        name: "q".into(),
        primitives: vec![q],
    });
    let n = s.add_node(Node {
        name: "q".into(),
        mesh: Some(m),
        ..Node::default()
    });
    s.roots.push(n);
    let (p, _) = export(&s);
    let a = p.attr(0, 0, "_LIGHT").expect("a _LIGHT attribute");
    assert_eq!(p.json["accessors"][a]["type"], "VEC4");
    // no sRGB conversion: the values are not colours
    assert_eq!(
        p.floats(a),
        light.iter().flatten().copied().collect::<Vec<f32>>()
    );
    assert!(p.attr(0, 0, "COLOR_0").is_none());
}

#[test]
fn lights_are_khr_lights_punctual_on_their_nodes() {
    let (p, warnings) = export(&scene_with_lights());
    assert_eq!(
        p.json["extensionsUsed"],
        json!(["KHR_materials_unlit", "KHR_lights_punctual"])
    );
    let lights = p.json["extensions"]["KHR_lights_punctual"]["lights"]
        .as_array()
        .unwrap();
    // the invalid third light is left out with a warning, the others keep their order
    assert_eq!(lights.len(), 2);
    assert_eq!(lights[0]["type"], "point");
    assert_eq!(lights[0]["color"], json!([1.0, 0.5, 0.25]));
    assert_eq!(lights[0]["intensity"], json!(3.0));
    assert_eq!(lights[0]["range"], json!(12.0));
    assert_eq!(lights[0]["extras"]["record"], "0");
    assert_eq!(lights[1]["type"], "spot");
    assert_eq!(lights[1]["spot"]["innerConeAngle"], json!(0.25));
    assert_eq!(lights[1]["spot"]["outerConeAngle"], json!(0.5));
    assert!(lights[1].get("range").is_none());
    let nodes = p.json["nodes"].as_array().unwrap();
    let light_of = |name: &str| {
        nodes.iter().find(|n| n["name"] == name).unwrap()["extensions"]["KHR_lights_punctual"]
            ["light"]
            .clone()
    };
    assert_eq!(light_of("a"), json!(0));
    assert_eq!(light_of("torch"), json!(1));
    assert_eq!(light_of("root"), Value::Null);
    // the torch is a child of b, so it is placed by b's transform
    let b = nodes.iter().position(|n| n["name"] == "b").unwrap();
    let torch = nodes.iter().position(|n| n["name"] == "torch").unwrap();
    assert!(nodes[b]["children"]
        .as_array()
        .unwrap()
        .contains(&json!(torch)));
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("\"bad\"") && w.contains("cone")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("\"root\"")),
        "{warnings:?}"
    );
}

#[test]
fn a_scene_without_lights_names_no_light_extension() {
    let (p, _) = export(&scene());
    assert_eq!(p.json["extensionsUsed"], json!(["KHR_materials_unlit"]));
    assert!(p.json.get("extensions").is_none());
}

/// A stream that fails is reported as a failed write to the output, not as a file error with
/// an empty path (the caller that opened the stream knows the file).
#[test]
fn a_failing_stream_is_a_write_error_without_a_path() {
    struct Broken;
    impl std::io::Write for Broken {
        fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
            Err(std::io::Error::other("disk full"))
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let e = levelgeom_export::gltf::write_glb(&scene(), &opts(), &[], &mut Broken).unwrap_err();
    assert!(
        matches!(&e, levelgeom_export::ExportError::Write(s) if s.to_string() == "disk full"),
        "{e:?}"
    );
    assert_eq!(e.to_string(), "writing the output: disk full");
}

/// A line primitive: glTF mode 1 (LINES), its segments as given; a segment naming a vertex
/// past the end is dropped, as is a trailing odd index; triangles keep no `mode` (default 4).
#[test]
fn line_primitives_are_mode_1_and_repaired_by_segments() {
    let lines = Primitive {
        topology: Topology::Lines,
        positions: vec![[0.0, 0.0, 0.0], [1.0, 0.0, 0.0], [1.0, 2.0, 0.0]],
        // segments 0–1, 1–9 (bad), 1–2, then a stray index
        indices: vec![0, 1, 1, 9, 1, 2, 0],
        ..Primitive::default()
    };
    let mut s = Scene::default();
    let m = s.add_mesh(Mesh {
        name: "route".into(),
        primitives: vec![lines, quad(None)],
    });
    let n = s.add_node(Node {
        mesh: Some(m),
        ..Node::default()
    });
    s.roots.push(n);
    let (p, warnings) = export(&s);
    let prims = &p.json["meshes"][0]["primitives"];
    assert_eq!(prims[0]["mode"], 1);
    assert!(prims[1].get("mode").is_none(), "triangles: default mode");
    let a = prims[0]["indices"].as_u64().unwrap() as usize;
    assert_eq!(p.indices(a).1, vec![0, 1, 1, 2]);
    assert!(prims[0]["attributes"].get("NORMAL").is_none());
    assert!(
        warnings.iter().any(|w| w.contains("not a multiple of 2")),
        "{warnings:?}"
    );
    assert!(
        warnings.iter().any(|w| w.contains("dropped 1 line(s)")),
        "{warnings:?}"
    );
}
