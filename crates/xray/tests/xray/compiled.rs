//! The compiled-level rules (`check::compiled`) on the real fixture, clean, and on copies of it
//! broken at hand-found bytes, one finding each.

use std::path::Path;

use levelgeom_binary::{Limits, Problem, Severity};
use levelgeom_testkit::dds::{self as w, PixelFormat};
use levelgeom_xray::check::{compiled, CompiledOptions};
use levelgeom_xray::LevelFiles;

use crate::textures::fixture_copy;

fn run(level: &Path, textures: Option<&Path>) -> Vec<Problem> {
    let f = LevelFiles::open(level).unwrap();
    compiled(
        &f,
        &CompiledOptions {
            textures,
            limits: Limits::DEFAULT,
        },
    )
}

fn patch(file: &Path, at: usize, bytes: &[u8]) {
    let mut b = std::fs::read(file).unwrap();
    b[at..at + bytes.len()].copy_from_slice(bytes);
    std::fs::write(file, b).unwrap();
}

fn u32_at(b: &[u8], o: usize) -> u32 {
    u32::from_le_bytes(b[o..o + 4].try_into().unwrap())
}

/// The payload offset of the chunk at `path` of `file`.
fn payload(file: &Path, path: &str) -> usize {
    let b = std::fs::read(file).unwrap();
    let c = levelgeom_xray::chunks(&b).unwrap();
    c.iter().find(|c| c.path == path).unwrap().offset as usize + 8
}

#[test]
fn the_real_fixture_is_clean() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    assert_eq!(run(&level, None), Vec::new());
}

#[test]
fn a_zero_area_triangle_is_reported_with_its_visual_and_offsets() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    let lb = std::fs::read(level.join("level")).unwrap();
    // visual 0's GCONTAINER (hex dump: chunk at 0x102, payload 0x10A): ib_offset is word 4
    let g = 0x10A;
    let (ib_offset, ib_count) = (u32_at(&lb, g + 16) as usize, u32_at(&lb, g + 20) as usize);
    assert!(ib_count >= 3);
    // level.geom's fsL_IB: chunk header at 0xCE4, payload u32 n, then u32 count, then indices
    let geom = level.join("level.geom");
    let first = 0xCE4 + 8 + 4 + 4 + 2 * ib_offset;
    let gb = std::fs::read(&geom).unwrap();
    let i0 = [gb[first], gb[first + 1]];
    patch(&geom, first + 2, &i0); // triangle 0: its second corner := its first
    let p = run(&level, None);
    let z: Vec<_> = p
        .iter()
        .filter(|p| p.message.contains("zero area"))
        .collect();
    assert_eq!(z.len(), 1, "{p:?}");
    assert_eq!(z[0].path, "fsL_VISUALS/visual[0]/OGF_GCONTAINER");
    assert_eq!(z[0].offset, Some(0xFA), "visual 0's chunk in `level`");
    assert_eq!(z[0].severity, Severity::Warning);
    let i0 = u16::from_le_bytes(i0);
    assert!(
        z[0].message
            .starts_with(&format!("1 of {} triangles have zero area", ib_count / 3))
            && z[0].message.contains(&format!("indices [{i0}, {i0}, "))
            && z[0]
                .message
                .contains(&format!("at 0x{first:08X} of level.geom")),
        "{}",
        z[0].message
    );
    // level.geomx still holds the old triangle: the fast path disagrees now
    assert!(
        p.iter().any(
            |p| p.path == "fsL_VISUALS/visual[0]/OGF_FASTPATH/OGF_GCONTAINER"
                && p.message.contains("at other positions")
        ),
        "{p:?}"
    );
}

#[test]
fn geomx_positions_and_triangle_counts_are_held_against_geom() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    // move one vertex of level.geomx: its fsL_VB holds 37 FLOAT3 positions (12 bytes each)
    // after u32 n, then the declaration; find vertex 0 of visual 1's fast path
    let lb = std::fs::read(level.join("level")).unwrap();
    let fp = payload(
        &level.join("level"),
        "fsL_VISUALS/visual[1]/OGF_FASTPATH/OGF_GCONTAINER",
    );
    let (vb_offset, ib_offset) = (u32_at(&lb, fp + 4) as usize, u32_at(&lb, fp + 16) as usize);
    let gx = level.join("level.geomx");
    let xb = std::fs::read(&gx).unwrap();
    // the first index of visual 1's fast-path range, and where that vertex's x is
    let ibp = payload(&gx, "fsL_IB") + 4 + 4 + 2 * ib_offset;
    let v = vb_offset + usize::from(u16::from_le_bytes([xb[ibp], xb[ibp + 1]]));
    let vbp = payload(&gx, "fsL_VB");
    // fsL_VB: u32 n, then the D3DVERTEXELEMENT9 list (8 bytes each, ended by D3DDECL_END
    // 0x00FF), u32 count, data
    let mut d = vbp + 4;
    while u16::from_le_bytes([xb[d], xb[d + 1]]) != 0xFF {
        d += 8;
    }
    let data = d + 8 + 4;
    assert_eq!(u32_at(&xb, d + 8), 37, "37 vertices (info)");
    let x = f32::from_le_bytes(xb[data + 12 * v..data + 12 * v + 4].try_into().unwrap());
    patch(&gx, data + 12 * v, &(x + 0.5).to_le_bytes());
    let p = run(&level, None);
    let bad: Vec<_> = p
        .iter()
        .filter(|p| p.message.contains("at other positions"))
        .collect();
    assert!(!bad.is_empty(), "{p:?}");
    assert!(bad.iter().any(
        |p| p.path == "fsL_VISUALS/visual[1]/OGF_FASTPATH/OGF_GCONTAINER"
            && p.offset == Some(payload(&level.join("level"), "fsL_VISUALS/visual[1]") as u64 - 8)
    ));

    // a fast path with one triangle fewer (ib_count − 3 stays inside the buffer)
    let level2 = fixture_copy(&t.path().join("two"));
    let fp = payload(
        &level2.join("level"),
        "fsL_VISUALS/visual[2]/OGF_FASTPATH/OGF_GCONTAINER",
    );
    let lb = std::fs::read(level2.join("level")).unwrap();
    let n = u32_at(&lb, fp + 20);
    patch(&level2.join("level"), fp + 20, &(n - 3).to_le_bytes());
    let g2 = payload(
        &level2.join("level"),
        "fsL_VISUALS/visual[2]/OGF_GCONTAINER",
    );
    let full = u32_at(&lb, g2 + 20);
    let p = run(&level2, None);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(
        p[0].path,
        "fsL_VISUALS/visual[2]/OGF_FASTPATH/OGF_GCONTAINER"
    );
    assert_eq!(
        p[0].message,
        format!(
            "level.geomx has {} triangles for this visual, level.geom {} (static shadows are \
             drawn from level.geomx)",
            (n - 3) / 3,
            full / 3
        )
    );
}

#[test]
fn shaders_naming_missing_textures_are_reported_at_their_entry() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    let tex = t.path().join("textures");
    let dds = w::a8r8g8b8(1, 1, &[[0, 0, 0, 255]]);
    // every texture of the fixture's shaders but crete\crete_roof1 and lmap#1_2; lmap#1_1 and
    // level_lods in the level folder (where the game has them), one name in upper case
    for name in [
        "glow/glow_04",
        "ston/ston_beton04",
        "terrain/terrain_dom",
        "terrain/terrain_dom_lm",
        "ston/ston_beton_ch_09",
        "trees/trees_elka",
    ] {
        let p = tex.join(format!("{name}.dds"));
        std::fs::create_dir_all(p.parent().unwrap()).unwrap();
        std::fs::write(p, &dds).unwrap();
    }
    std::fs::write(level.join("lmap#1_1.dds"), &dds).unwrap();
    std::fs::write(level.join("level_lods.dds"), &dds).unwrap();
    let p = run(&level, Some(&tex));
    assert_eq!(p.len(), 2, "{p:?}");
    let lb = std::fs::read(level.join("level")).unwrap();
    let find = |s: &[u8]| lb.windows(s.len()).position(|w| w == s).unwrap() as u64;
    assert_eq!(p[0].path, "fsL_SHADERS/shader[4]");
    assert_eq!(p[0].offset, Some(find(b"default/crete")));
    assert!(
        p[0].message
            .contains("crete\\crete_roof1, lmap#1_2 not found as .dds")
            && p[0].message.ends_with("used by visual 2"),
        "{}",
        p[0].message
    );
    assert_eq!(p[1].path, "fsL_SHADERS/shader[5]");
    assert_eq!(p[1].offset, Some(find(b"default/ston")));
    assert!(
        p[1].message.contains(": lmap#1_2 not found"),
        "{}",
        p[1].message
    );
    // found once lmap#1_2 is in the textures folder and crete_roof1 in the level folder
    std::fs::write(tex.join("lmap#1_2.dds"), &dds).unwrap();
    std::fs::create_dir_all(level.join("crete")).unwrap();
    std::fs::write(level.join("crete/crete_roof1.dds"), &dds).unwrap();
    assert_eq!(run(&level, Some(&tex)), Vec::new());
}

#[test]
fn lod_textures_of_different_sizes_are_reported() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    let blk = w::bc1_block(0, 0, [0; 16]);
    std::fs::write(level.join("level_lods.dds"), w::bc1_uniform(8, 4, blk)).unwrap();
    std::fs::write(level.join("level_lods_nm.dds"), w::bc1_uniform(8, 4, blk)).unwrap();
    assert_eq!(run(&level, None), Vec::new(), "same size: fine");
    std::fs::write(
        level.join("level_lods_nm.dds"),
        w::file(4, 4, 1, PixelFormat::A8R8G8B8, &[0; 64]),
    )
    .unwrap();
    let p = run(&level, None);
    assert_eq!(p.len(), 1, "{p:?}");
    assert!(p[0].path.ends_with("level_lods_nm.dds"));
    assert_eq!(p[0].offset, Some(12));
    assert!(
        p[0].message.starts_with("4×4 but level_lods.dds is 8×4"),
        "{}",
        p[0].message
    );
    std::fs::write(level.join("level_lods.dds"), b"DDS ").unwrap();
    let p = run(&level, None);
    assert!(
        p.len() == 1
            && p[0]
                .message
                .starts_with("LOD texture unreadable: at 0x00000004: the header is cut off"),
        "{p:?}"
    );
}

#[test]
fn a_visual_no_sector_reaches_is_reported() {
    let t = tempfile::tempdir().unwrap();
    let level = fixture_copy(t.path());
    // hex dump: sector[0]'s fsP_Root payload at 0x1C1B is visual 2, sector[1]'s is 15 (whose
    // hierarchy holds every visual but 2); point sector 0 at 15 too: visual 2 is left out
    let lb = std::fs::read(level.join("level")).unwrap();
    assert_eq!((u32_at(&lb, 0x1C1B), u32_at(&lb, 0x1C39)), (2, 15));
    patch(&level.join("level"), 0x1C1B, &15u32.to_le_bytes());
    let p = run(&level, None);
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].path, "fsL_VISUALS/visual[2]");
    assert_eq!(
        p[0].offset,
        Some(payload(&level.join("level"), "fsL_VISUALS/visual[2]") as u64 - 8)
    );
    assert!(
        p[0].message.starts_with("normal visual in no sector"),
        "{}",
        p[0].message
    );
}

#[test]
fn the_generated_level_is_clean_too() {
    let t = tempfile::tempdir().unwrap();
    let (l, g) =
        levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options::default());
    std::fs::write(t.path().join("level"), l).unwrap();
    std::fs::write(t.path().join("level.geom"), g).unwrap();
    assert_eq!(run(t.path(), None), Vec::new());
}
