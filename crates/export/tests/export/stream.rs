//! GLBs written from hollow primitives (`write_glb_from` with a `PrimitiveSource`): the JSON is
//! laid out from what each primitive promises and the BIN chunk filled as it is reached, and
//! the file and the warnings are those of `write_glb` of the same scene holding its data — on
//! scenes with the repairs that change the layout (a textured primitive without UVs, an empty
//! one, a line list, u32 indices) and those that are only counted (non-finite values, colours
//! out of range), small (written directly) and large (BIN made on a second thread).

use levelgeom_export::gltf::{write_glb, write_glb_from, GltfOptions};
use levelgeom_export::ExportError;
use levelgeom_scene::{
    position_bounds, Hollow, Mesh, Node, Primitive, PrimitiveSource, Scene, Topology,
};

use crate::support::{quad, scene};

/// A source holding the primitives' data (the test's stand-in for an engine's decoder).
struct Held(Vec<Primitive>);

impl PrimitiveSource for Held {
    fn fill(&self, key: usize, out: &mut Primitive) -> Result<(), String> {
        let p = self.0.get(key).ok_or("no such primitive")?;
        out.positions.clone_from(&p.positions);
        out.normals.clone_from(&p.normals);
        out.tangents.clone_from(&p.tangents);
        out.uvs.clone_from(&p.uvs);
        out.colors.clone_from(&p.colors);
        out.scalars.clone_from(&p.scalars);
        out.vectors.clone_from(&p.vectors);
        out.indices.clone_from(&p.indices);
        Ok(())
    }
}

/// Whether `p` keeps the promises of a hollow primitive (whole, valid indices; every
/// attribute one entry per vertex).
fn promisable(p: &Primitive) -> bool {
    let n = p.positions.len();
    let each = |len: usize| len == n;
    n > 0
        && p.indices.len() % p.topology.arity() == 0
        && p.indices.iter().all(|&i| (i as usize) < n)
        && (p.normals.is_empty() || each(p.normals.len()))
        && (p.tangents.is_empty() || each(p.tangents.len()))
        && p.uvs.iter().all(|s| each(s.len()))
        && p.colors.iter().all(|s| each(s.len()))
        && p.scalars.iter().all(|(_, s)| each(s.len()))
        && p.vectors.iter().all(|(_, s)| each(s.len()))
}

/// `scene` with every promisable primitive made hollow, and the source holding their data.
fn hollowed(scene: &Scene) -> (Scene, Held) {
    let mut out = scene.clone();
    let mut held = Vec::new();
    for p in out.meshes.iter_mut().flat_map(|m| &mut m.primitives) {
        if !promisable(p) {
            continue;
        }
        let data = std::mem::take(p);
        *p = Primitive {
            material: data.material,
            topology: data.topology,
            hollow: Some(Hollow {
                key: held.len(),
                vertices: data.positions.len(),
                indices: data.indices.len(),
                normals: !data.normals.is_empty(),
                tangents: !data.tangents.is_empty(),
                uvs: data.uvs.len(),
                colors: data.colors.len(),
                scalars: data.scalars.iter().map(|(n, _)| n.clone()).collect(),
                vectors: data.vectors.iter().map(|(n, _)| n.clone()).collect(),
                bounds: position_bounds(data.positions.iter().copied()),
            }),
            ..Primitive::default()
        };
        held.push(data);
    }
    (out, Held(held))
}

/// The test scene plus: a textured primitive without UVs, a line list, a primitive of
/// `big` vertices (u32 indices past 65,535; a large one puts the BIN on the second thread),
/// non-finite positions, normals and scalars, colours past 1.
fn rich(big: usize) -> Scene {
    let mut s = scene();
    let mut bare = quad(Some(0));
    bare.uvs.clear();
    bare.positions[1][0] = f32::NAN;
    bare.normals[2] = [f32::INFINITY, 0.0, 0.0];
    bare.scalars[0].1[3] = f32::NEG_INFINITY;
    bare.colors[0][0] = [2.0, -1.0, 0.5, 1.0];
    let lines = Primitive {
        topology: Topology::Lines,
        positions: vec![[0.0, 0.0, -0.0], [1.0, 2.0, 3.0], [-4.0, 0.5, 0.0]],
        indices: vec![0, 1, 1, 2],
        ..Primitive::default()
    };
    let n = big as u32;
    let wide = Primitive {
        material: Some(1),
        positions: (0..n)
            .map(|i| [i as f32, (i % 7) as f32, -((i % 3) as f32)])
            .collect(),
        normals: (0..n).map(|i| [0.0, 1.0 + (i % 2) as f32, 0.0]).collect(),
        tangents: (0..n).map(|_| [1.0, 0.0, 0.0, -1.0]).collect(),
        uvs: vec![(0..n).map(|i| [i as f32 / 7.0, 0.5]).collect()],
        vectors: vec![(
            "_LIGHT".into(),
            (0..n).map(|i| [0.1, 0.2, (i % 5) as f32, 1.0]).collect(),
        )],
        indices: (0..n.saturating_sub(2))
            .flat_map(|i| [i, i + 1, i + 2])
            .collect(),
        ..Primitive::default()
    };
    let m = s.add_mesh(Mesh {
        name: "more".into(),
        primitives: vec![bare, lines, Primitive::default(), wide],
    });
    let node = s.add_node(Node {
        name: "more".into(),
        mesh: Some(m),
        ..Node::default()
    });
    s.roots.push(node);
    s
}

fn glb(
    scene: &Scene,
    source: Option<&dyn PrimitiveSource>,
) -> Result<(Vec<u8>, Vec<String>), ExportError> {
    let mut bytes = Vec::new();
    let warnings = write_glb_from(scene, source, &GltfOptions::default(), &[], &mut bytes)?;
    Ok((bytes, warnings))
}

#[test]
fn hollow_primitives_write_the_bytes_and_warnings_of_the_full_scene() {
    for big in [70_000, 300_000] {
        let full = rich(big);
        let (hollow, held) = hollowed(&full);
        assert_eq!(
            held.0.len(),
            5,
            "quad, blended quad, bare quad, lines, wide"
        );
        let (want, want_warnings) = glb(&full, None).unwrap();
        let (got, got_warnings) = glb(&hollow, Some(&held)).unwrap();
        assert_eq!(got.len(), want.len());
        assert!(got == want, "{big} vertices: bytes differ");
        assert_eq!(got_warnings, want_warnings);
        // the repairs that were only counted are reported once, with the counts of the data
        assert!(
            want_warnings
                .iter()
                .any(|w| w.starts_with("replaced 3 non-finite")),
            "{want_warnings:?}"
        );
        assert!(want_warnings
            .iter()
            .any(|w| w.starts_with("clamped 2 value")));
        assert!(want_warnings
            .iter()
            .any(|w| w.contains("wrote zero TEXCOORD_0")));
    }
}

#[test]
fn a_hollow_scene_without_its_source_or_needing_its_vertices_up_front_is_refused() {
    let full = rich(10);
    let (mut hollow, held) = hollowed(&full);
    let mut out = Vec::new();
    let e = write_glb(&hollow, &GltfOptions::default(), &[], &mut out).unwrap_err();
    assert!(matches!(e, ExportError::NeedsData { .. }), "{e}");
    assert!(out.is_empty());
    // a shear is no translation·rotation·scale: the writer bakes it into the mesh's vertices
    let mut shear = levelgeom_scene::IDENTITY;
    shear[4] = 0.5;
    hollow.nodes[1].matrix = shear;
    let e = glb(&hollow, Some(&held)).unwrap_err();
    assert!(matches!(e, ExportError::NeedsData { .. }), "{e}");
}

#[test]
fn a_source_that_breaks_its_promises_is_an_error() {
    struct Short(Held);
    impl PrimitiveSource for Short {
        fn fill(&self, key: usize, out: &mut Primitive) -> Result<(), String> {
            self.0.fill(key, out)?;
            if key == 4 {
                out.positions.pop();
                out.normals.pop();
            }
            Ok(())
        }
    }
    struct Failing;
    impl PrimitiveSource for Failing {
        fn fill(&self, _: usize, _: &mut Primitive) -> Result<(), String> {
            Err("the file went away".into())
        }
    }
    for big in [10, 300_000] {
        let (hollow, held) = hollowed(&rich(big));
        let e = glb(&hollow, Some(&Short(held))).unwrap_err();
        assert!(matches!(e, ExportError::Source { .. }), "{e}");
        // located: the primitive the source knows as 4
        assert!(e.to_string().contains("(source key 4)"), "{e}");
        let e = glb(&hollow, Some(&Failing)).unwrap_err();
        assert!(
            matches!(&e, ExportError::Source { message, .. } if message.contains("went away")),
            "{e}"
        );
    }
}
