//! Write the generator's level of every XRLC version into `DIR/vN/` (`level`, `level.geom`
//! for 13/14, `level.cform` beside the levels from 10 on, where the collision left `level`),
//! for independent readers such as blender-xray (`tools/blender/xray_check.py`); and the era
//! variants of [`generate::OldVisuals`]: `DIR/v12-ogf4/` (XRLC 12 with the OGF 4 visuals of
//! builds 1935–2218) and `DIR/v5-strips/` (XRLC 5 with a progressive-strips and a detail patch
//! visual, which no peer reads); and the dated record layouts of [`generate::Era`]: `v8-late`
//! (index buffers in XRLC 8), `v8-0930` (XRLC 8 of xrLC 2002-09-30: light controllers in 7,
//! 108-byte lights in 8), `v11-early`, `v11-tmp`, `v11-tmpsun` (24/28-byte LOD vertices,
//! 96/112-byte tree records) and `v12-earlyglows` (24-byte glows).
//!
//! `cargo run -p levelgeom-xray --example xray_generate -- DIR`

use levelgeom_xray::generate::{self, Era, OldVisuals, Options};
use levelgeom_xray::level::LevelChunk;
use levelgeom_xray::ogf::OgfChunk;

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let dir = std::env::args_os()
        .nth(1)
        .ok_or("usage: xray_generate DIR")?;
    let dir = std::path::PathBuf::from(dir);
    for version in levelgeom_xray::level::VERSIONS {
        let d = dir.join(format!("v{version}"));
        std::fs::create_dir_all(&d)?;
        let (mut level, geom) = generate::level(Options {
            version,
            compress: false,
        });
        // blender-xray reads SWI windows with a heuristic that takes the first non-zero
        // reserved word as the window count (a known deviation); the 13/14 generator's
        // progressive visual has non-zero reserved words on purpose, so zero them here
        for c in &mut level.chunks {
            if let LevelChunk::Visuals(vs) = &mut c.value {
                for v in vs {
                    for c in &mut v.value.chunks {
                        if let OgfChunk::SwiData(s) = &mut c.value {
                            s.reserved = [0; 4];
                        }
                    }
                }
            }
        }
        // blender-xray needs the portal, light and glow chunks xrLC always writes (ids 4, 6,
        // 7 in 13/14); the 13/14 generator leaves them out
        if version >= 13 {
            use levelgeom_xray::chunk::Framed;
            for (id, c) in [
                (4, LevelChunk::Portals(Vec::new())),
                (6, LevelChunk::Lights(Vec::new())),
                (7, LevelChunk::Glows(Vec::new())),
            ] {
                level.chunks.insert(1, Framed::plain(id, c));
            }
        }
        let l = level.to_bytes()?;
        let g = if geom.chunks.is_empty() {
            Vec::new()
        } else {
            geom.to_bytes()?
        };
        levelgeom_binary::write_atomic(&d.join("level"), &l, &[])?;
        if !g.is_empty() {
            levelgeom_binary::write_atomic(&d.join("level.geom"), &g, &[])?;
        }
        if version >= 10 {
            let c = generate::old_cform(levelgeom_xray::cform::VERSION).to_bytes()?;
            levelgeom_binary::write_atomic(&d.join("level.cform"), &c, &[])?;
        }
        println!("{}", d.display());
    }
    for (name, version, layout) in [
        ("v12-ogf4", 12, OldVisuals::Ogf4),
        ("v5-strips", 5, OldVisuals::StripsAndPatches),
    ] {
        let d = dir.join(name);
        std::fs::create_dir_all(&d)?;
        let l = generate::old_level_with(
            Options {
                version,
                compress: false,
            },
            layout,
        );
        levelgeom_binary::write_atomic(&d.join("level"), &l.to_bytes()?, &[])?;
        if version >= 10 {
            let c = generate::old_cform(levelgeom_xray::cform::VERSION).to_bytes()?;
            levelgeom_binary::write_atomic(&d.join("level.cform"), &c, &[])?;
        }
        println!("{}", d.display());
    }
    // the record layouts of particular xrLC dates (`generate::old_level_era`)
    for (name, era) in [
        ("v8-late", Era::Xrlc8Late),
        ("v8-0930", Era::Xrlc8LightControl),
        ("v11-early", Era::Xrlc11Early),
        ("v11-tmp", Era::Xrlc11Tmp),
        ("v11-tmpsun", Era::Xrlc11TmpSun),
        ("v12-earlyglows", Era::Xrlc12EarlyGlows),
    ] {
        let d = dir.join(name);
        std::fs::create_dir_all(&d)?;
        let l = generate::old_level_era(era);
        levelgeom_binary::write_atomic(&d.join("level"), &l.to_bytes()?, &[])?;
        if matches!(
            era,
            Era::Xrlc11Early | Era::Xrlc11Tmp | Era::Xrlc11TmpSun | Era::Xrlc12EarlyGlows
        ) {
            let c = generate::old_cform(levelgeom_xray::cform::VERSION).to_bytes()?;
            levelgeom_binary::write_atomic(&d.join("level.cform"), &c, &[])?;
        }
        println!("{}", d.display());
    }
    Ok(())
}
