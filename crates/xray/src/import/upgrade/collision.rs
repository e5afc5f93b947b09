//! The old level's collision as a version-4 `level.cform`.
//!
//! XRLC 4–9 embed a version 2/3 cform in `level`; 10–12 have a `level.cform` (normally
//! version 4 already, kept as it is). A version 2/3 triangle (`u32 verts[3]; u32 raw[3]; u16
//! raw16; u16 sector; u32 material`) becomes a version-4 one with the packed word
//! `material (bits 0–13) | sector << 16` (no suppress flags: the old layout has none). Named as
//! lost: materials above the 14-bit range, and the fields of unknown use where they are not 0.

use crate::cform::{Cform, Tri, VERSION};

/// `c` as a version-4 cform, with what was lost and what was done.
pub(super) fn to_v4(c: &Cform) -> (Cform, Vec<String>, Vec<String>) {
    let (mut lost, mut notes) = (Vec::new(), Vec::new());
    if c.version == VERSION {
        return (c.clone(), lost, notes);
    }
    let (mut raw, mut wide) = (0usize, 0usize);
    let tris = c
        .tris
        .iter()
        .map(|t| {
            let (material, sector) = (t.material(), t.sector());
            if let Some(o) = &t.old {
                if o.raw != [0; 3] || o.raw16 != 0 {
                    raw += 1;
                }
            }
            if material > 0x3FFF {
                wide += 1;
            }
            Tri {
                verts: t.verts,
                dummy: (material & 0x3FFF) | (u32::from(sector) << 16),
                old: None,
            }
        })
        .collect();
    if raw > 0 {
        lost.push(format!(
            "collision: the fields of unknown use (three u32 and a u16 after the vertices) of \
             {raw} version-{} triangles (version 4 has no place for them)",
            c.version
        ));
    }
    if wide > 0 {
        lost.push(format!(
            "collision: {wide} triangles' game material ids above 16383 (version 4 keeps 14 bits)"
        ));
    }
    notes.push(format!(
        "collision: version {} ({} triangles) written as version 4 (material and sector packed, \
         no suppress flags)",
        c.version,
        c.tris.len()
    ));
    (
        Cform {
            version: VERSION,
            bbox_min: c.bbox_min,
            bbox_max: c.bbox_max,
            vertices: c.vertices.clone(),
            tris,
        },
        lost,
        notes,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cform::OldTri;

    #[test]
    fn material_and_sector_are_packed_and_odd_fields_named() {
        let old = |raw16, material| Tri {
            verts: [0, 1, 2],
            dummy: 0,
            old: Some(OldTri {
                raw: [0; 3],
                raw16,
                sector: 3,
                material,
            }),
        };
        let c = Cform {
            version: 2,
            bbox_min: [0.0; 3],
            bbox_max: [1.0; 3],
            vertices: vec![[0.0; 3], [1.0, 0.0, 0.0], [0.0, 0.0, 1.0]],
            tris: vec![old(0, 5), old(9, 0x4001)],
        };
        let (n, lost, _) = to_v4(&c);
        assert_eq!(n.version, 4);
        // 5 | 3 << 16 = 0x0003_0005
        assert_eq!(n.tris[0].dummy, 0x0003_0005);
        assert_eq!(n.tris[0].material(), 5);
        assert_eq!(n.tris[0].sector(), 3);
        assert_eq!(lost.len(), 2, "{lost:?}");
        assert!(lost[0].contains("1 version-2 triangles"), "{lost:?}");
        assert!(lost[1].contains("1 triangles"), "{lost:?}");
    }
}
