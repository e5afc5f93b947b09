//! `fsL_LIGHT_DYNAMIC` lights as glTF punctual lights, `fsL_GLOWS` glows as named empties.
//!
//! # Lights
//! Each 108-byte record (`u32 controller` + the D3D9 `D3DLIGHT9`) becomes one node
//! `light_NNN` under a group node `lights`, placing one [`Light`] of the same name:
//!
//! | record | glTF |
//! |---|---|
//! | `Type` 1 point / 2 spot / 3 directional | `point` / `spot` / `directional` (another value: `point`, with a warning) |
//! | `Position` | node translation, mirrored (`x, y, −z`) |
//! | `Direction` | node rotation taking local −Z (where glTF lights shine) onto the mirrored, normalised direction (shortest arc); none for point lights |
//! | `Diffuse` RGB | `color` = linear of each channel over the linear of the largest one (see below) |
//! | `Range` | `range` (point and spot; none when not finite and > 0) |
//! | `Theta`, `Phi` | `innerConeAngle` = θ/2, `outerConeAngle` = φ/2 (D3D's angles are the full cone; glTF's are from the axis), outer clamped to π/2, inner to below outer |
//! | everything | light `extras`: `controller`, `d3d_type`, `diffuse`, `specular`, `ambient`, `position`, `direction`, `range`, `falloff`, `attenuation`, `theta`, `phi` as stored (X-Ray space, comma-separated, shortest round-trip decimals) |
//!
//! **Colour**: the engine uses `Diffuse` as it is, in the same non-linear (display) space as its
//! textures and vertex light: the renderers do no gamma decoding, and blender-xray's level
//! importer reads it the same way (`x ** 2.2`). It may exceed 1 (brighter than white). So the
//! colour is converted with the sRGB curve ([`levelgeom_scene::colour::srgb_to_linear`], the
//! formula continues monotonically past 1) and split into a hue with its largest channel 1
//! (`color`) and a brightness `b` = the linear value of the largest display channel
//! (negative channels count as 0; a black light has `b` = 0).
//!
//! **Intensity**: glTF's point and spot lights fall off with the inverse square of the
//! distance (candela), the engine's reach zero at `Range`. The mapping keeps the light's colour
//! at full strength at half its range: `intensity = b · (Range/2)²` candela, i.e. 1 lux per unit
//! of linear brightness at `Range/2` (a light with an unusable range gets `b` candela).
//! Directional lights (the sun; the engine takes its actual colour from the weather at run time
//! and keeps only the direction) get `intensity = b` lux. Blender's glTF importer divides by
//! 683 in its default *Standard* lighting mode, which renders these lights dim; import with
//! *Lighting Mode: Unitless* to see them at this scale.
//!
//! The engine itself (OpenXRay `Light_DB.cpp`) loads the directional record as the sun's
//! direction and every other record as a point light of `Position`, `Range` and `Diffuse`,
//! ignoring the cone and attenuation; the export keeps the record's own type and cone (what the
//! level's author set and xrLC saw), with the raw fields in extras.
//!
//! # Glows
//! Each 18-byte glow becomes an empty node `glow_NNN` under a group node `glows`, at the
//! mirrored position, with extras `radius`, `shader_id` and `shader` (the shader-table entry's
//! text, e.g. `effects\glow/glow\glow_04`).

use glam::{DMat4, DQuat, DVec3};
use levelgeom_scene::colour::srgb_to_linear;
use levelgeom_scene::{Light, LightKind, Node, Scene};

use crate::level::{Glow, Light as LightRecord};
use crate::scene::mirror;
use crate::shaders::ShaderEntry;

/// The name of the group node that holds the lights ([`add_lights`]).
pub const LIGHTS: &str = "lights";
/// The name of the group node that holds the glows ([`add_glows`]).
pub const GLOWS: &str = "glows";

pub use crate::level::{D3D_DIRECTIONAL, D3D_POINT, D3D_SPOT};

/// Floats as extras text: shortest round-trip decimals, comma-separated.
pub fn floats(v: &[f32]) -> String {
    v.iter()
        .map(|x| format!("{x:?}"))
        .collect::<Vec<_>>()
        .join(",")
}

/// Hue (largest channel 1, linear) and brightness (linear) of a display-space colour.
pub fn colour_and_brightness(diffuse: [f32; 4]) -> ([f32; 3], f32) {
    let lin = |c: f32| {
        if c.is_finite() && c > 0.0 {
            srgb_to_linear(c)
        } else {
            0.0
        }
    };
    let rgb = [lin(diffuse[0]), lin(diffuse[1]), lin(diffuse[2])];
    let b = rgb[0].max(rgb[1]).max(rgb[2]);
    if b > 0.0 && b.is_finite() {
        (rgb.map(|c| c / b), b)
    } else {
        ([1.0; 3], 0.0)
    }
}

/// The rotation (glTF space) that takes local −Z onto `dir` (an X-Ray direction, mirrored and
/// normalised here); identity for a zero or non-finite direction.
pub fn rotation_towards(dir: [f32; 3]) -> DQuat {
    let d = mirror(dir);
    let d = DVec3::new(f64::from(d[0]), f64::from(d[1]), f64::from(d[2]));
    let l = d.length();
    if !(l.is_finite() && l > 1e-12) {
        return DQuat::IDENTITY;
    }
    DQuat::from_rotation_arc(DVec3::NEG_Z, d / l)
}

fn matrix(m: DMat4) -> [f32; 16] {
    m.to_cols_array().map(|x| x as f32)
}

fn translation(p: [f32; 3]) -> DVec3 {
    let p = mirror(p);
    // `+ 0.0` turns the mirror's −0.0 into 0.0
    let v = DVec3::new(f64::from(p[0]), f64::from(p[1]), f64::from(p[2])) + DVec3::ZERO;
    if v.is_finite() {
        v
    } else {
        DVec3::ZERO
    }
}

/// The glTF light of one record (see the module docs), and a warning when its type or cone
/// could not be kept.
pub fn light(index: usize, r: &LightRecord) -> (Light, Option<String>) {
    let (color, b) = colour_and_brightness(r.d3d.diffuse);
    let range = (r.d3d.range.is_finite() && r.d3d.range > 0.0).then_some(r.d3d.range);
    let point_intensity = match range {
        Some(range) => b * (range / 2.0) * (range / 2.0),
        None => b,
    };
    let mut warning = None;
    let (kind, intensity) = match r.d3d.light_type {
        D3D_DIRECTIONAL => (LightKind::Directional, b),
        D3D_SPOT => {
            // (checked before `min`, which would turn a NaN into the other operand)
            let outer = r.d3d.phi / 2.0;
            if outer.is_finite() && outer > 0.0 {
                let outer = outer.min(std::f32::consts::FRAC_PI_2);
                let inner = r.d3d.theta / 2.0;
                let inner = if inner.is_finite() {
                    inner.max(0.0)
                } else {
                    0.0
                };
                // glTF needs inner < outer
                let inner = inner.min(outer * 0.999);
                (
                    LightKind::Spot {
                        inner_cone: inner,
                        outer_cone: outer,
                    },
                    point_intensity,
                )
            } else {
                warning = Some(format!(
                    "light {index}: spot cone phi {} is not a usable angle; written as a point light",
                    r.d3d.phi
                ));
                (LightKind::Point, point_intensity)
            }
        }
        D3D_POINT => (LightKind::Point, point_intensity),
        t => {
            warning = Some(format!(
                "light {index}: D3D light type {t} is not point (1), spot (2) or directional (3); written as a point light"
            ));
            (LightKind::Point, point_intensity)
        }
    };
    let extras = vec![
        ("controller".to_string(), r.controller.to_string()),
        ("d3d_type".to_string(), r.d3d.light_type.to_string()),
        ("diffuse".to_string(), floats(&r.d3d.diffuse)),
        ("specular".to_string(), floats(&r.d3d.specular)),
        ("ambient".to_string(), floats(&r.d3d.ambient)),
        ("position".to_string(), floats(&r.d3d.position)),
        ("direction".to_string(), floats(&r.d3d.direction)),
        ("range".to_string(), floats(&[r.d3d.range])),
        ("falloff".to_string(), floats(&[r.d3d.falloff])),
        ("attenuation".to_string(), floats(&r.d3d.attenuation)),
        ("theta".to_string(), floats(&[r.d3d.theta])),
        ("phi".to_string(), floats(&[r.d3d.phi])),
    ];
    (
        Light {
            name: format!("light_{index:03}"),
            kind,
            color,
            intensity,
            range: if matches!(kind, LightKind::Directional) {
                None
            } else {
                range
            },
            extras,
        },
        warning,
    )
}

/// The extras of an XRLC 4/5/8 light's tail (what its 13/14 record has no field for): `frame`
/// and `flags`, then XRLC 8's `name` (up to its NUL), or 4/5's `time`, `speed`, `key_start`,
/// `key_count`.
pub fn old_tail_extras(o: &crate::level::OldLight) -> Vec<(String, String)> {
    use crate::level::OldLightTail;
    let mut x = Vec::new();
    match &o.tail {
        OldLightTail::Build8 { frame, flags, .. } => {
            x.push(("frame".into(), frame.to_string()));
            x.push(("flags".into(), flags.to_string()));
            x.extend(o.name().map(|n| ("name".to_string(), n)));
        }
        OldLightTail::Build5 {
            frame,
            flags,
            current_time,
            speed,
            key_start,
            key_count,
        } => {
            x.push(("frame".into(), frame.to_string()));
            x.push(("flags".into(), flags.to_string()));
            x.push(("time".into(), floats(&[*current_time])));
            x.push(("speed".into(), floats(&[*speed])));
            x.push(("key_start".into(), key_start.to_string()));
            x.push(("key_count".into(), key_count.to_string()));
        }
    }
    x
}

/// Add every light as a node under a new group node `lights`; returns the group node (not yet
/// linked anywhere), or `None` when there are no lights.
pub fn add_lights(scene: &mut Scene, records: &[LightRecord]) -> Option<usize> {
    if records.is_empty() {
        return None;
    }
    let mut children = Vec::with_capacity(records.len());
    for (i, r) in records.iter().enumerate() {
        let (l, warning) = light(i, r);
        scene.warnings.extend(warning);
        let rot = if matches!(l.kind, LightKind::Point) {
            DQuat::IDENTITY
        } else {
            rotation_towards(r.d3d.direction)
        };
        let m = DMat4::from_rotation_translation(rot, translation(r.d3d.position));
        let name = l.name.clone();
        scene.lights.push(l);
        children.push(scene.add_node(Node {
            name,
            matrix: matrix(m),
            light: Some(scene.lights.len() - 1),
            ..Node::default()
        }));
    }
    Some(scene.add_node(Node {
        name: LIGHTS.into(),
        children,
        ..Node::default()
    }))
}

/// Add every glow as an empty node under a new group node `glows`; returns the group node, or
/// `None` when there are no glows.
pub fn add_glows(scene: &mut Scene, glows: &[Glow], shaders: &[ShaderEntry]) -> Option<usize> {
    if glows.is_empty() {
        return None;
    }
    let mut children = Vec::with_capacity(glows.len());
    for (i, g) in glows.iter().enumerate() {
        let mut extras = vec![
            ("radius".to_string(), floats(&[g.radius])),
            ("shader_id".to_string(), g.shader.to_string()),
        ];
        match shaders.get(usize::from(g.shader)) {
            Some(e) => extras.push(("shader".into(), e.text())),
            None => scene.warnings.push(format!(
                "glow {i}: shader {} is not in the {}-entry shader table",
                g.shader,
                shaders.len()
            )),
        }
        children.push(scene.add_node(Node {
            name: format!("glow_{i:03}"),
            matrix: matrix(DMat4::from_translation(translation(g.position))),
            extras,
            ..Node::default()
        }));
    }
    Some(scene.add_node(Node {
        name: GLOWS.into(),
        children,
        ..Node::default()
    }))
}
