//! LGHT lights in export space: glTF punctual lights (`KHR_lights_punctual`) under the `level`
//! root, and the same facts for `lights.json`.
//!
//! # What the loader shows, and what we decided
//! The loader `sub_42C180` (ENG-RE's decompile of `groove.exe`; its `light_chunk.py` reads it
//! the same way) reads per light `u8 type, r, g, b`, then:
//! * type 1: three floats, the z one negated, given to the light constructor as a vector
//!   (ENG-RE: a direction, normalised at run time) → a **directional** light;
//! * type 2: three floats (z negated) and two more floats and a byte → a **point** light at
//!   that position; ENG-RE calls the two floats inner and outer radius;
//! * type 4: as type 2, but the colour is turned into `(c + k₁)·k₂` (ENG-RE: negative, a
//!   light that darkens) and made a type-2 light → exported as a point light with
//!   `extras.negative = true` (glTF has no negative light);
//! * other types: nothing more is read; no light is made (listed in `lights.json` only).
//!
//! The loader negates z into its run-time space, the space MAP objects are stored in (z
//! positive into the level), which is export space with z negated. So **the stored floats are
//! already in export space**: position `(x, y, z)`, direction `(x, y, z)`, as stored.
//! * Colour: the loader makes each channel `2·byte/255`. glTF colours are linear and at most
//!   1, so the colour is `byte/255` (taken as linear: the engine multiplies with these numbers)
//!   and the intensity 2.0 carries the doubling (the game's unit, not candela).
//! * Direction: **unconfirmed** whether the vector points where the light shines or where it
//!   comes from; we take it as the direction the light travels (glTF's local −Z). The raw floats
//!   are in the extras and in `lights.json`.
//! * Range: the outer radius when it is finite and positive (glTF `range`); the inner radius is
//!   kept in extras.
//! * A directional light's node stands above the grid's centre (its position has no effect).

use levelgeom_scene::{Light as SceneLight, LightKind, Node, Scene};
use serde::Serialize;

use crate::lght::{Lght, LightBody};

/// Height of the node of a directional light.
pub const SUN_HEIGHT: f64 = 10.0;

/// One LGHT record as the export sees it (also the entries of `lights.json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct LightView {
    /// Index in the LGHT chunk.
    pub index: usize,
    /// File offset of the record (when the chunk's offset is known).
    pub offset: Option<usize>,
    /// The type byte.
    pub r#type: u8,
    /// `directional`, `point`, `negative_point` or `unknown`.
    pub kind: &'static str,
    /// The colour bytes.
    pub rgb: [u8; 3],
    /// Linear colour, `byte/255`.
    pub color: [f32; 3],
    /// glTF intensity (2.0: the loader's doubling).
    pub intensity: f32,
    /// Position in export space (point lights).
    pub position: Option<[f64; 3]>,
    /// Direction the light travels, export space, unit length (directional lights).
    pub direction: Option<[f64; 3]>,
    /// glTF range: the outer radius, when finite and positive.
    pub range: Option<f32>,
    /// The fourth float of types 2/4 (ENG-RE: inner radius).
    pub inner_radius: Option<f32>,
    /// The byte after the floats of types 2/4.
    pub extra: Option<u8>,
    /// The floats as stored.
    pub raw: Vec<f32>,
}

fn unit(v: [f64; 3]) -> Option<[f64; 3]> {
    let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
    (l.is_finite() && l > 1e-12).then(|| v.map(|c| c / l))
}

/// The lights of a LGHT chunk in export space (`mirror_z` negates z, like the rest of the
/// export). `chunk_offset` is the file offset of the chunk header, for the record offsets.
pub fn light_views(lght: &Lght, mirror_z: bool, chunk_offset: Option<usize>) -> Vec<LightView> {
    let sz = if mirror_z { -1.0 } else { 1.0 };
    let mut at = 4usize;
    lght.lights
        .iter()
        .enumerate()
        .map(|(index, l)| {
            let offset = chunk_offset.map(|c| c + 8 + at);
            at += 4 + match l.body {
                LightBody::Three(_) => 12,
                LightBody::Five { .. } => 21,
                LightBody::Empty => 0,
            };
            let color = l.rgb.map(|b| f32::from(b) / 255.0);
            let mut v = LightView {
                index,
                offset,
                r#type: l.kind,
                kind: "unknown",
                rgb: l.rgb,
                color,
                intensity: 2.0,
                position: None,
                direction: None,
                range: None,
                inner_radius: None,
                extra: None,
                raw: Vec::new(),
            };
            match l.body {
                LightBody::Three(f) => {
                    v.raw = f.to_vec();
                    v.kind = "directional";
                    v.direction = unit([f64::from(f[0]), f64::from(f[1]), sz * f64::from(f[2])]);
                }
                LightBody::Five { values: f, extra } => {
                    v.raw = f.to_vec();
                    v.kind = if l.kind == 4 {
                        "negative_point"
                    } else {
                        "point"
                    };
                    v.position = Some([f64::from(f[0]), f64::from(f[1]), sz * f64::from(f[2])]);
                    v.inner_radius = Some(f[3]);
                    v.range = (f[4].is_finite() && f[4] > 0.0).then_some(f[4]);
                    v.extra = Some(extra);
                }
                LightBody::Empty => {}
            }
            v
        })
        .collect()
}

/// The rotation (column-major 3×3 as the first three matrix columns) whose local −Z is `d`.
fn facing(d: [f64; 3]) -> [[f64; 3]; 3] {
    let back = d.map(|c| -c);
    let hint = if d[1].abs() > 0.99 {
        [0.0, 0.0, -1.0]
    } else {
        [0.0, 1.0, 0.0]
    };
    let cross = |a: [f64; 3], b: [f64; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let right = unit(cross(hint, back)).unwrap_or([1.0, 0.0, 0.0]);
    let up = cross(back, right);
    [right, up, back]
}

/// Add a light node per light under `parent` (directional lights above `(cx, cz)`, the grid's
/// centre in export space).
pub fn add_lights(scene: &mut Scene, parent: usize, lights: &[LightView], centre: [f64; 2]) {
    for v in lights {
        let (kind, matrix) = match (v.kind, v.position, v.direction) {
            ("directional", _, Some(d)) => {
                let [r, u, b] = facing(d);
                let m = [
                    r[0], r[1], r[2], 0.0, u[0], u[1], u[2], 0.0, b[0], b[1], b[2], 0.0, centre[0],
                    SUN_HEIGHT, centre[1], 1.0,
                ];
                (LightKind::Directional, m.map(|x| x as f32))
            }
            (_, Some(p), _) => {
                let mut m = levelgeom_scene::IDENTITY;
                m[12] = p[0] as f32;
                m[13] = p[1] as f32;
                m[14] = p[2] as f32;
                (LightKind::Point, m)
            }
            _ => continue,
        };
        let name = format!("light_{:03}", v.index);
        let mut extras = vec![
            ("lght_index".into(), v.index.to_string()),
            ("lght_type".into(), v.r#type.to_string()),
            (
                "rgb".into(),
                format!("{},{},{}", v.rgb[0], v.rgb[1], v.rgb[2]),
            ),
            (
                "raw".into(),
                v.raw
                    .iter()
                    .map(|f| f.to_string())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
        ];
        if let Some(r) = v.inner_radius {
            extras.push(("inner_radius".into(), r.to_string()));
        }
        if let Some(e) = v.extra {
            extras.push(("extra_byte".into(), e.to_string()));
        }
        if v.kind == "negative_point" {
            extras.push(("negative".into(), "true".into()));
        }
        scene.lights.push(SceneLight {
            name: name.clone(),
            kind,
            color: v.color,
            intensity: v.intensity,
            range: v.range,
            extras: extras.clone(),
        });
        let light = scene.lights.len() - 1;
        let node = scene.add_node(Node {
            name,
            matrix,
            extras,
            light: Some(light),
            ..Node::default()
        });
        scene.nodes[parent].children.push(node);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lght::Light;

    #[test]
    fn facing_maps_minus_z_to_the_direction() {
        for d in [[0.0, -1.0, 0.0], [0.6, 0.0, 0.8], [0.0, 1.0, 0.0]] {
            let [r, u, b] = facing(d);
            // −Z of the node = −b
            for k in 0..3 {
                assert!((-b[k] - d[k]).abs() < 1e-12);
            }
            let dot = |a: [f64; 3], c: [f64; 3]| a[0] * c[0] + a[1] * c[1] + a[2] * c[2];
            assert!(dot(r, u).abs() < 1e-12 && dot(r, b).abs() < 1e-12);
            assert!((dot(r, r) - 1.0).abs() < 1e-12 && (dot(u, u) - 1.0).abs() < 1e-12);
        }
    }

    #[test]
    fn offsets_kinds_and_space() {
        let lght = Lght {
            lights: vec![
                Light {
                    kind: 1,
                    rgb: [255, 0, 51],
                    body: LightBody::Three([0.0, -2.0, 0.0]),
                },
                Light {
                    kind: 3,
                    rgb: [1, 2, 3],
                    body: LightBody::Empty,
                },
                Light {
                    kind: 4,
                    rgb: [0, 0, 0],
                    body: LightBody::Five {
                        values: [1.0, 2.0, -3.0, 0.5, 6.0],
                        extra: 9,
                    },
                },
            ],
        };
        let v = light_views(&lght, false, Some(100));
        assert_eq!(
            v.iter().map(|l| l.offset.unwrap()).collect::<Vec<_>>(),
            [112, 128, 132]
        );
        assert_eq!(v[0].direction, Some([0.0, -1.0, 0.0]));
        assert_eq!(v[0].color, [1.0, 0.0, 0.2]);
        assert_eq!(v[1].kind, "unknown");
        assert_eq!(v[2].kind, "negative_point");
        assert_eq!(v[2].position, Some([1.0, 2.0, -3.0]));
        assert_eq!(v[2].range, Some(6.0));
        let m = light_views(&lght, true, None);
        assert_eq!(m[2].position, Some([1.0, 2.0, 3.0]));
    }
}
