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
    let mut polys = Vec::new();
    for (v, flags) in &HOM_POLYS {
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
    let mut polys = Vec::new();
    for (v, sided, occ) in &SOM_POLYS {
        verts(&mut polys, v);
        polys.extend_from_slice(&sided.to_le_bytes());
        polys.extend_from_slice(&occ.to_le_bytes());
    }
    let mut out = Vec::new();
    chunk(&mut out, 0, &0u32.to_le_bytes());
    chunk(&mut out, 1, &polys);
    out
}
