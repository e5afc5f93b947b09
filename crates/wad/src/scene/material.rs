//! Materials: one per (texture page or flat colour, render state).
//!
//! A TEXT texture entry names a page and a rectangle; many entries share a page. The render
//! state the engine switches on at a batch boundary (face flag 0x8) is the page plus the
//! entry's blend mode (flag bits 12–14); the face's own flag 0x400 turns back-face culling off.
//! So the scene gets one material per `(page, blend mode, double-sided)`, and one per
//! `(R, G, B, blend mode, double-sided)` for flat-colour entries (entry flag bit 0, colour in
//! the `u0, u1, v0` bytes, no texture).
//!
//! | property       | value                                                                 |
//! |----------------|-----------------------------------------------------------------------|
//! | name           | `page_NN` / `flat_RRGGBB`, then `_blendB` when B ≠ 0, then `_ds`        |
//! | texture        | the page's texture `page_NN` (none for flat colours)                   |
//! | base colour    | white (pages), `byte / 255` (flat colours), alpha 1                   |
//! | alpha          | `Blend` when B ≠ 0; else `Mask(0.5)` when the page has transparent texels (ABGR1555 alpha bit clear); else `Opaque` |
//! | double-sided   | face flag 0x400                                                        |
//! | unlit          | always: the game lights by baked vertex colours only                   |
//! | extras         | `blend_mode`, and `page` or `flat_rgb` with the fourth byte `flat_extra` |
//!
//! # Alpha mode by blend mode
//!
//! | blend mode B | page without transparent texels | page with transparent texels (1-bit alpha) |
//! |---|---|---|
//! | 0 | `OPAQUE` | `MASK` (cutoff 0.5) |
//! | 1–7 | `BLEND` | `BLEND` |
//!
//! Flat-colour entries have no texels: `OPAQUE` for B = 0, else `BLEND`. The number is kept in
//! `extras.blend_mode` for re-import.
//!
//! Evidence (the public Ghidra decompilation of `groove.exe`, repository
//! `iamBVC/ENG-Reverse-Engineering`, `REVERSED/decompiled/sub_556510.c`, the TRAK tile
//! renderer): at each batch boundary it takes `B = (entry flags >> 12) & 7` and looks the
//! Direct3D state up in tables indexed by `B + 5·((flags >> 8) & 7)` (for flat colours by
//! `B`). The looked-up value (0–3) switches `D3DRENDERSTATE_ALPHABLENDENABLE` (render state
//! 0x1B) off (0) or on (1–3) with `SRCBLEND`/`DESTBLEND` (0x13/0x14) `SRCALPHA` (or
//! `ONE`)/`INVSRCALPHA`, `ONE`/`ONE` or `SRCALPHA`/`ONE`: alpha blending and two additive
//! blends; which B gives which value is in `.data` tables the decompilation does not show.
//! The 1-bit cut-outs — `D3DRENDERSTATE_ALPHATESTENABLE` (0x0F) and `COLORKEYENABLE` (0x29) —
//! are switched by bit 0x2 of the entry's flags, never by the looked-up blend value. So no
//! blend mode is an alpha test, and every non-zero one stays `BLEND` (glTF has no additive
//! mode).

use std::collections::HashMap;

use levelgeom_scene::{AlphaMode, Material};

use crate::text::ENTRY_BLEND_MASK;

/// The blend mode of a texture entry: flag bits 12–14.
pub fn blend_mode(entry_flags: u16) -> u8 {
    ((entry_flags & ENTRY_BLEND_MASK) >> 12) as u8
}

/// What makes two faces need different materials.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MaterialKey {
    /// A textured page.
    Page {
        /// Page index in TEXT.
        page: usize,
        /// Blend mode (entry flag bits 12–14).
        blend: u8,
        /// Face flag 0x400.
        double_sided: bool,
    },
    /// A flat-colour entry.
    Flat {
        /// The `u0, u1, v0` bytes (R, G, B).
        rgb: [u8; 3],
        /// The fourth byte (`v1`), unknown use, kept in extras.
        extra: u8,
        /// Blend mode.
        blend: u8,
        /// Face flag 0x400.
        double_sided: bool,
    },
    /// Collision polygons of one ground material.
    Collision {
        /// The collision material byte.
        material: u8,
    },
    /// The marker of a MAP object without a mesh (`export --objects`).
    Marker,
}

/// The scene's materials, created on first use in a deterministic order.
#[derive(Debug, Default)]
pub struct Materials {
    index: HashMap<MaterialKey, usize>,
    /// The key asked for last and its material: a model's faces mostly come in runs of one
    /// material, which are then answered without hashing the key.
    last: Option<(MaterialKey, usize)>,
    /// The materials in creation order (become [`levelgeom_scene::Scene::materials`]).
    pub list: Vec<Material>,
}

impl Materials {
    /// The index of the material for `key`; `texture` is the scene texture of a page key and
    /// `transparent` whether that page has transparent texels.
    pub fn get(&mut self, key: MaterialKey, texture: Option<usize>, transparent: bool) -> usize {
        if let Some((last, i)) = self.last {
            if last == key {
                return i;
            }
        }
        let i = match self.index.get(&key) {
            Some(&i) => i,
            None => {
                self.list.push(make(key, texture, transparent));
                let i = self.list.len() - 1;
                self.index.insert(key, i);
                i
            }
        };
        self.last = Some((key, i));
        i
    }
}

impl MaterialKey {
    /// The material's name, as the table of the module docs says: `page_NN` / `flat_RRGGBB`
    /// then `_blendB` when B ≠ 0, then `_ds`; `collision_matNN`; `object_marker`.
    /// [`MaterialKey::parse`] reads it back.
    pub fn name(&self) -> String {
        let suffix = |blend: u8, double_sided: bool| {
            let mut s = String::new();
            if blend != 0 {
                s.push_str(&format!("_blend{blend}"));
            }
            if double_sided {
                s.push_str("_ds");
            }
            s
        };
        match *self {
            MaterialKey::Page {
                page,
                blend,
                double_sided,
            } => format!("page_{page:02}{}", suffix(blend, double_sided)),
            MaterialKey::Flat {
                rgb,
                blend,
                double_sided,
                ..
            } => format!(
                "flat_{:02x}{:02x}{:02x}{}",
                rgb[0],
                rgb[1],
                rgb[2],
                suffix(blend, double_sided)
            ),
            MaterialKey::Collision { material } => format!("collision_mat{material:02}"),
            MaterialKey::Marker => "object_marker".into(),
        }
    }

    /// The key a material name says ([`MaterialKey::name`] read back), `None` for a name the
    /// exporter does not write. Lenient where an editor is: a Blender copy suffix (`.001`) is
    /// ignored, and `_blendK` and `_ds` may come in either order. A flat colour's fourth byte
    /// is not in the name: `extra` is 0.
    pub fn parse(name: &str) -> Option<MaterialKey> {
        let name = strip_blender_suffix(name);
        if name == "object_marker" {
            return Some(MaterialKey::Marker);
        }
        if let Some(digits) = name.strip_prefix("collision_mat") {
            return decimal(digits).map(|material| MaterialKey::Collision { material });
        }
        let (page, rest) = if let Some(r) = name.strip_prefix("page_") {
            (true, r)
        } else {
            (false, name.strip_prefix("flat_")?)
        };
        let mut parts = rest.split('_');
        let head = parts.next()?;
        let mut blend = 0u8;
        let mut double_sided = false;
        for p in parts {
            if p == "ds" {
                double_sided = true;
            } else {
                blend = p.strip_prefix("blend")?.parse().ok().filter(|&k| k < 8)?;
            }
        }
        if page {
            Some(MaterialKey::Page {
                page: decimal(head)?,
                blend,
                double_sided,
            })
        } else {
            if head.len() != 6 || !head.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            let byte = |i: usize| u8::from_str_radix(&head[i..i + 2], 16).ok();
            Some(MaterialKey::Flat {
                rgb: [byte(0)?, byte(2)?, byte(4)?],
                extra: 0,
                blend,
                double_sided,
            })
        }
    }
}

/// A number written in decimal digits only (no sign, no spaces).
fn decimal<T: std::str::FromStr>(s: &str) -> Option<T> {
    if s.is_empty() || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

/// `name` without a trailing Blender duplicate suffix `.001` (a dot and digits).
fn strip_blender_suffix(name: &str) -> &str {
    if let Some(i) = name.rfind('.') {
        let tail = &name[i + 1..];
        if !tail.is_empty() && tail.bytes().all(|b| b.is_ascii_digit()) {
            return &name[..i];
        }
    }
    name
}

/// The alpha mode of a material (see *Alpha mode by blend mode* in the module docs): blend
/// modes 1–7 blend in the game's renderer (`sub_556510` in the decompiled `groove.exe` turns
/// `D3DRENDERSTATE_ALPHABLENDENABLE` on for them; its alpha test follows entry flag 0x2, not
/// the mode), mode 0 is opaque, with the page's transparent texels cut out (`MASK`).
fn alpha(blend: u8, transparent: bool) -> AlphaMode {
    if blend != 0 {
        AlphaMode::Blend
    } else if transparent {
        AlphaMode::Mask(0.5)
    } else {
        AlphaMode::Opaque
    }
}

/// Build the material of a key (see the table in the module docs).
pub fn make(key: MaterialKey, texture: Option<usize>, transparent: bool) -> Material {
    let name = key.name();
    match key {
        MaterialKey::Page {
            page,
            blend,
            double_sided,
        } => Material {
            name,
            texture,
            double_sided,
            alpha: alpha(blend, transparent),
            unlit: true,
            extras: vec![
                ("page".into(), page.to_string()),
                ("blend_mode".into(), blend.to_string()),
            ],
            ..Material::default()
        },
        MaterialKey::Flat {
            rgb,
            extra,
            blend,
            double_sided,
        } => Material {
            name,
            base_color: [
                f32::from(rgb[0]) / 255.0,
                f32::from(rgb[1]) / 255.0,
                f32::from(rgb[2]) / 255.0,
                1.0,
            ],
            double_sided,
            alpha: alpha(blend, false),
            unlit: true,
            extras: vec![
                (
                    "flat_rgb".into(),
                    format!("{:02x}{:02x}{:02x}", rgb[0], rgb[1], rgb[2]),
                ),
                ("flat_extra".into(), extra.to_string()),
                ("blend_mode".into(), blend.to_string()),
            ],
            ..Material::default()
        },
        MaterialKey::Collision { material } => Material {
            name,
            base_color: collision_colour(material),
            double_sided: true,
            unlit: true,
            extras: vec![("collision_material".into(), material.to_string())],
            ..Material::default()
        },
        MaterialKey::Marker => Material {
            name,
            base_color: [1.0, 0.0, 1.0, 1.0],
            unlit: true,
            ..Material::default()
        },
    }
}

/// A distinct, fixed colour per collision material (0 grey, water 0x1E blue, others hashed).
pub fn collision_colour(material: u8) -> [f32; 4] {
    match material {
        0 => [0.6, 0.6, 0.6, 1.0],
        0x1E => [0.2, 0.4, 1.0, 1.0],
        m => {
            let h = u32::from(m).wrapping_mul(2_654_435_761);
            let c = |s: u32| 0.3 + f32::from(((h >> s) & 0xFF) as u8) / 255.0 * 0.7;
            [c(8), c(16), c(24), 1.0]
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn blend_bits_and_names() {
        assert_eq!(blend_mode(0x3000), 3);
        assert_eq!(blend_mode(0x8FFF), 0);
        let mut m = Materials::default();
        let a = m.get(
            MaterialKey::Page {
                page: 3,
                blend: 0,
                double_sided: true,
            },
            Some(3),
            true,
        );
        let b = m.get(
            MaterialKey::Page {
                page: 3,
                blend: 2,
                double_sided: false,
            },
            Some(3),
            true,
        );
        assert_eq!(
            m.get(
                MaterialKey::Page {
                    page: 3,
                    blend: 0,
                    double_sided: true
                },
                None,
                false
            ),
            a
        );
        assert_eq!(m.list[a].name, "page_03_ds");
        assert_eq!(m.list[a].alpha, AlphaMode::Mask(0.5));
        assert_eq!(m.list[b].name, "page_03_blend2");
        assert_eq!(m.list[b].alpha, AlphaMode::Blend);
        assert!(!m.list[b].double_sided);
    }

    /// The table of the module docs: mode 0 is OPAQUE, or MASK on a page with transparent
    /// texels; modes 1–7 are BLEND (no mode is an alpha test in the game's renderer); flat
    /// colours have no texels.
    #[test]
    fn alpha_mode_by_blend_mode_and_page() {
        for blend in 0..8u8 {
            for transparent in [false, true] {
                let page = make(
                    MaterialKey::Page {
                        page: 1,
                        blend,
                        double_sided: false,
                    },
                    Some(1),
                    transparent,
                );
                let flat = make(
                    MaterialKey::Flat {
                        rgb: [1, 2, 3],
                        extra: 0,
                        blend,
                        double_sided: false,
                    },
                    None,
                    transparent,
                );
                let (want_page, want_flat) = match (blend, transparent) {
                    (0, false) => (AlphaMode::Opaque, AlphaMode::Opaque),
                    (0, true) => (AlphaMode::Mask(0.5), AlphaMode::Opaque),
                    _ => (AlphaMode::Blend, AlphaMode::Blend),
                };
                assert_eq!(
                    page.alpha, want_page,
                    "mode {blend} transparent {transparent}"
                );
                assert_eq!(flat.alpha, want_flat, "flat, mode {blend}");
                assert!(page
                    .extras
                    .contains(&("blend_mode".into(), blend.to_string())));
            }
        }
    }

    /// Names written by hand as the module docs' table says, read back (with an editor's
    /// liberties), and names that are not ours.
    #[test]
    fn names_parse() {
        let page = |page, blend, double_sided| MaterialKey::Page {
            page,
            blend,
            double_sided,
        };
        assert_eq!(
            MaterialKey::parse("page_03_blend2_ds.001"),
            Some(page(3, 2, true))
        );
        assert_eq!(
            MaterialKey::parse("page_12_ds_blend1"),
            Some(page(12, 1, true))
        );
        assert_eq!(MaterialKey::parse("page_123"), Some(page(123, 0, false)));
        assert_eq!(
            MaterialKey::parse("flat_a0ff10"),
            Some(MaterialKey::Flat {
                rgb: [0xa0, 0xff, 0x10],
                extra: 0,
                blend: 0,
                double_sided: false
            })
        );
        assert_eq!(
            MaterialKey::parse("collision_mat30"),
            Some(MaterialKey::Collision { material: 30 })
        );
        assert_eq!(
            MaterialKey::parse("object_marker.002"),
            Some(MaterialKey::Marker)
        );
        for other in [
            "page_x",
            "page_",
            "flat_12345",
            "flat_12345g",
            "Material",
            "page_01_shiny",
            "page_01_blend8",
            "collision_mat256",
        ] {
            assert_eq!(MaterialKey::parse(other), None, "{other}");
        }
    }

    /// Every name the exporter writes reads back as the key it was made from (a flat
    /// colour's fourth byte, which the name does not carry, aside).
    #[test]
    fn names_round_trip() {
        let mut keys = vec![MaterialKey::Marker];
        keys.extend((0..=255).map(|material| MaterialKey::Collision { material }));
        for blend in 0..8 {
            for double_sided in [false, true] {
                for page in [0, 7, 10, 99, 100, 4096] {
                    keys.push(MaterialKey::Page {
                        page,
                        blend,
                        double_sided,
                    });
                }
                for rgb in [[0, 0, 0], [0xff, 0x0a, 0xa0], [1, 2, 3]] {
                    keys.push(MaterialKey::Flat {
                        rgb,
                        extra: 0,
                        blend,
                        double_sided,
                    });
                }
            }
        }
        for key in keys {
            assert_eq!(MaterialKey::parse(&key.name()), Some(key), "{}", key.name());
        }
        let flat = MaterialKey::Flat {
            rgb: [9, 8, 7],
            extra: 5,
            blend: 3,
            double_sided: true,
        };
        assert_eq!(flat.name(), "flat_090807_blend3_ds");
        assert_eq!(
            MaterialKey::parse(&flat.name()),
            Some(MaterialKey::Flat {
                rgb: [9, 8, 7],
                extra: 0,
                blend: 3,
                double_sided: true,
            })
        );
    }
}
