//! Truncated and corrupted copies of the fixture files: errors name an offset and a chunk path,
//! nothing panics.

use levelgeom_binary::ReadErrorKind;
use levelgeom_xray::cform::Cform;
use levelgeom_xray::{Geom, Level};

fn read(name: &str) -> Vec<u8> {
    std::fs::read(format!(
        "{}/tests/data/xray-v14-micro/{name}",
        env!("CARGO_MANIFEST_DIR")
    ))
    .unwrap()
}

/// Offsets where a top-level chunk ends (a cut there leaves a shorter but well-formed file).
fn boundaries(b: &[u8]) -> Vec<usize> {
    let mut v = vec![0];
    let mut p = 0;
    while p + 8 <= b.len() {
        p += 8 + u32::from_le_bytes([b[p + 4], b[p + 5], b[p + 6], b[p + 7]]) as usize;
        v.push(p);
    }
    v
}

#[test]
fn every_truncation_is_an_error_with_offset_and_path() {
    for name in ["level", "level.geom", "level.geomx"] {
        let b = read(name);
        let cuts = boundaries(&b);
        for len in 0..b.len() {
            let r = if name == "level" {
                Level::read(&b[..len]).map(|_| ())
            } else {
                Geom::read(&b[..len]).map(|_| ())
            };
            if cuts.contains(&len) {
                continue; // may parse (a level without its last chunks)
            }
            let e = r.expect_err(&format!("{name} cut at {len} parsed"));
            assert!(
                e.offset <= len as u64,
                "{name} cut at {len}: offset {}",
                e.offset
            );
            let s = e.to_string();
            assert!(s.starts_with("at 0x"), "{s}");
            // only a break between top-level chunks has no chunk path
            assert!(
                !e.path.0.is_empty() || cuts.contains(&(e.offset as usize)),
                "{name} cut at {len}: no chunk path in {s}"
            );
        }
    }
    let c = read("level.cform");
    for len in 0..c.len() {
        assert!(Cform::read(&c[..len]).is_err());
    }
}

#[test]
fn a_huge_vertex_count_is_refused_at_its_offset() {
    let mut g = read("level.geom");
    // vb[0]: declaration of 6 elements at 0x18..0x48, then its u32 vertex count
    assert_eq!(&g[0x48..0x4C], &24u32.to_le_bytes());
    g[0x48..0x4C].copy_from_slice(&u32::MAX.to_le_bytes());
    let e = Geom::read(&g).unwrap_err();
    assert_eq!(e.offset, 0x48);
    assert_eq!(e.path.to_string(), "fsL_VB/vb[0]");
    assert!(matches!(
        e.kind,
        ReadErrorKind::CountTooLarge {
            count: 0xFFFF_FFFF,
            elem_size: 32,
            ..
        }
    ));
}

#[test]
fn an_oversized_nested_chunk_names_its_visual() {
    let mut l = read("level");
    // visual 0's OGF_GCONTAINER header is at 0x102 (id 21, size 24)
    assert_eq!(&l[0x102..0x10A], &[21, 0, 0, 0, 24, 0, 0, 0]);
    l[0x106..0x10A].copy_from_slice(&1000u32.to_le_bytes());
    let e = Level::read(&l).unwrap_err();
    assert_eq!(e.offset, 0x102);
    assert_eq!(e.path.to_string(), "fsL_VISUALS/visual[0]/OGF_GCONTAINER");
    assert!(e.to_string().contains("chunk 21 claims 1000 bytes"), "{e}");
}

#[test]
fn byte_flips_never_panic_and_errors_stay_inside_the_file() {
    for name in ["level", "level.geom"] {
        let b = read(name);
        for at in 0..b.len() {
            for v in [0x00u8, 0xFF, 0x80] {
                let mut c = b.clone();
                c[at] = v;
                let r = if name == "level" {
                    Level::read(&c).map(|(l, _)| l.to_bytes().unwrap())
                } else {
                    Geom::read(&c).map(|(g, _)| g.to_bytes().unwrap())
                };
                match r {
                    Ok(w) => assert_eq!(w, c, "{name}: flip at {at} parsed but did not rebuild"),
                    Err(e) => assert!(e.offset <= c.len() as u64),
                }
            }
        }
    }
}

#[test]
fn a_corrupt_compressed_chunk_is_an_error() {
    let (_, gb) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
        version: 14,
        compress: true,
    });
    let g = Geom::read(&gb).unwrap().0;
    let swis = g.chunks.iter().find(|c| c.id() == 11).unwrap();
    let stored = swis.stored.clone().unwrap();
    // find the stored bytes in the file and claim a bigger uncompressed size
    let at = gb
        .windows(stored.len())
        .position(|w| w == stored.as_slice())
        .unwrap();
    let mut c = gb.clone();
    c[at..at + 4].copy_from_slice(&100_000u32.to_le_bytes());
    let e = Geom::read(&c).unwrap_err();
    assert!(e.to_string().contains("LZHUF"), "{e}");
    assert_eq!(e.path.to_string(), "fsL_SWIS");
}

#[test]
fn flips_in_compressed_chunks_never_panic() {
    let (lb, gb) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
        version: 14,
        compress: true,
    });
    for (b, is_level) in [(lb, true), (gb, false)] {
        for at in 0..b.len() {
            let mut c = b.clone();
            c[at] ^= 0x5A;
            let r = if is_level {
                Level::read(&c).map(|(l, _)| l.to_bytes().unwrap())
            } else {
                Geom::read(&c).map(|(g, _)| g.to_bytes().unwrap())
            };
            match r {
                Ok(w) => assert_eq!(w, c, "flip at {at} parsed but did not rebuild"),
                Err(e) => assert!(e.to_string().starts_with("at 0x")),
            }
        }
    }
}
