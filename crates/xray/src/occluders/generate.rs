//! Small `level.hom` / `level.som` files for tests, written byte by byte the way the
//! LevelEditor's `SceneBuilder::BuildHOMModel` / `BuildSOMModel` write them
//! (`Editors/LevelEditor/Edit/BuilderOGF.cpp`, xray-engine-repo 2005-10-04): chunk 0 holding
//! `u32 0`, then chunk 1 with, per face, three `w_fvector3` vertices, `w_u32(b2Sided)` and (SOM)
//! `w_float(fSndOcclusionFactor)`. They do not go through [`super::Occluders::to_bytes`], so a
//! round trip compares our reader and writer against the editor's layout.

/// The polygons of [`hom_bytes`]: (three vertices, flags). Two walls of a 4 × 3 m box at
/// x = 10…14, z = 20, and a floor quad's two triangles (two-sided).
pub const HOM_POLYS: [([[f32; 3]; 3], u32); 4] = [
    ([[10.0, 0.0, 20.0], [14.0, 0.0, 20.0], [14.0, 3.0, 20.0]], 0),
    ([[10.0, 0.0, 20.0], [14.0, 3.0, 20.0], [10.0, 3.0, 20.0]], 0),
    ([[0.0, 1.5, 0.0], [2.0, 1.5, 0.0], [2.0, 1.5, 2.0]], 1),
    ([[0.0, 1.5, 0.0], [2.0, 1.5, 2.0], [0.0, 1.5, 2.0]], 1),
];

/// The polygons of [`som_bytes`]: (three vertices, b2sided, occlusion factor).
pub const SOM_POLYS: [([[f32; 3]; 3], u32, f32); 3] = [
    (
        [[-5.0, 0.0, -5.0], [5.0, 0.0, -5.0], [5.0, 4.0, -5.0]],
        0,
        0.25,
    ),
    (
        [[-5.0, 0.0, -5.0], [5.0, 4.0, -5.0], [-5.0, 4.0, -5.0]],
        0,
        0.25,
    ),
    ([[1.0, 2.0, 3.0], [4.0, 2.0, 3.0], [1.0, 6.0, 3.0]], 1, 0.75),
];

/// Occluders for the XRLC 13/14 level of [`crate::generate::level`] (X-Ray space), each placed
/// against one of its visuals so that an import's ownership rule
/// (`crate::import::occluders`) has one answer for it:
///
/// | # | where | owner |
/// |---|---|---|
/// | 0 | on the quad (visual 0, y = 0, x and z in −1…1) | visual 0 (on its triangles) |
/// | 1 | on the progressive grid (visual 1, y = 0, x 3…5, z −1…1) | visual 1 (on its triangles) |
/// | 2 | inside the first tree (visual 2, pyramid at 10, 0, 5, box 9.5…10.5, 0…2, 4.5…5.5), off its faces | visual 2 (its box) |
/// | 3 | a wall at x 20…24, z = 20, far from every visual | none |
/// | 4 | inside the second tree (visual 3 at −4, 1, −6) | visual 3 (its box) |
pub const LEVEL_HOM_POLYS: [([[f32; 3]; 3], u32); 5] = [
    ([[-1.0, 0.0, -1.0], [-1.0, 0.0, 1.0], [1.0, 0.0, 1.0]], 1),
    ([[3.0, 0.0, -1.0], [3.0, 0.0, 1.0], [5.0, 0.0, 1.0]], 0),
    ([[9.8, 0.5, 5.0], [10.0, 1.5, 5.0], [10.2, 0.5, 5.0]], 0),
    ([[20.0, 0.0, 20.0], [24.0, 0.0, 20.0], [24.0, 3.0, 20.0]], 0),
    ([[-4.2, 1.5, -6.0], [-4.0, 2.5, -6.0], [-3.8, 1.5, -6.0]], 1),
];

/// Sound occluders for the same level, placed as [`LEVEL_HOM_POLYS`]: 0 on the quad
/// (visual 0), 1 inside the first tree (visual 2), 2 on the grid (visual 1), 3 far from every
/// visual (a wall at x −20…−16, z = −20).
pub const LEVEL_SOM_POLYS: [([[f32; 3]; 3], u32, f32); 4] = [
    (
        [[-1.0, 0.0, -1.0], [1.0, 0.0, 1.0], [1.0, 0.0, -1.0]],
        0,
        0.5,
    ),
    (
        [[9.7, 0.2, 4.8], [10.0, 1.0, 5.2], [10.3, 0.2, 4.8]],
        1,
        0.25,
    ),
    (
        [[3.0, 0.0, -1.0], [5.0, 0.0, 1.0], [5.0, 0.0, -1.0]],
        0,
        0.75,
    ),
    (
        [
            [-20.0, 0.0, -20.0],
            [-16.0, 0.0, -20.0],
            [-16.0, 4.0, -20.0],
        ],
        0,
        1.0,
    ),
];

fn chunk(out: &mut Vec<u8>, id: u32, body: &[u8]) {
    out.extend_from_slice(&id.to_le_bytes());
    out.extend_from_slice(&(body.len() as u32).to_le_bytes());
    out.extend_from_slice(body);
}

fn verts(out: &mut Vec<u8>, v: &[[f32; 3]; 3]) {
    for c in v.iter().flatten() {
        out.extend_from_slice(&c.to_le_bytes());
    }
}

/// A `level.hom` with [`HOM_POLYS`].
pub fn hom_bytes() -> Vec<u8> {
    hom_bytes_of(&HOM_POLYS)
}

/// A `level.hom` with `polys` (three vertices, flags).
pub fn hom_bytes_of(polys_in: &[([[f32; 3]; 3], u32)]) -> Vec<u8> {
    let mut polys = Vec::new();
    for (v, flags) in polys_in {
        verts(&mut polys, v);
        polys.extend_from_slice(&flags.to_le_bytes());
    }
    let mut out = Vec::new();
    chunk(&mut out, 0, &0u32.to_le_bytes());
    chunk(&mut out, 1, &polys);
    out
}

/// A `level.som` with [`SOM_POLYS`].
pub fn som_bytes() -> Vec<u8> {
    som_bytes_of(&SOM_POLYS)
}

/// A `level.som` with `polys` (three vertices, b2sided, occlusion factor).
pub fn som_bytes_of(polys_in: &[([[f32; 3]; 3], u32, f32)]) -> Vec<u8> {
    let mut polys = Vec::new();
    for (v, sided, occ) in polys_in {
        verts(&mut polys, v);
        polys.extend_from_slice(&sided.to_le_bytes());
        polys.extend_from_slice(&occ.to_le_bytes());
    }
    let mut out = Vec::new();
    chunk(&mut out, 0, &0u32.to_le_bytes());
    chunk(&mut out, 1, &polys);
    out
}
