//! Damaged files: truncated at every offset and with bytes flipped at every offset. Each case
//! must return an error naming an offset and a chunk path, or parse — and then rebuild to exactly
//! the damaged bytes (nothing is dropped or normalised), unless the damage made a face index
//! point past its model's vertices, which the writer refuses (naming the face). Nothing may
//! panic.

use levelgeom_binary::{Reader, WriteError};
use levelgeom_wad::container::RawWad;
use levelgeom_wad::font::Font;
use levelgeom_wad::level::{Chunk, ChunkData, Level};
use levelgeom_wad::lght::{Lght, Light, LightBody};
use levelgeom_wad::lgpc::Lgpc;
use levelgeom_wad::lnfo::Lnfo;
use levelgeom_wad::map::Map;
use levelgeom_wad::name::Name;
use levelgeom_wad::smpc::{CvgHeader, Smpc, Sound, CVG};
use levelgeom_wad::sprt::Sprt;
use levelgeom_wad::srpc::{SpeechRef, Srpc};
use levelgeom_wad::stpc::Stpc;
use levelgeom_wad::tags::Tag;
use levelgeom_wad::text::{Effects, Palette, Text, TextureEntry, TexturePage};
use levelgeom_wad::trak::Trak;
use levelgeom_wad::wfpc::{self, Wfpc};

/// A WAD with every chunk kind, built by hand (small payloads so every offset can be tried).
fn hand_wad() -> Vec<u8> {
    let px: Vec<u16> = (0..64u16).map(|i| 0x8000 | (i / 5)).collect();
    let text = Text {
        palettes: vec![Palette {
            unknown: 0,
            colours: vec![0x801F, 0x83E0],
            extra: vec![0, 0],
        }],
        pages: vec![
            TexturePage::from_pixels16(8, 8, 1, &px).expect("page"),
            TexturePage::raw16(2, 2, 1, vec![1, 2, 3, 4]),
            TexturePage::indexed(2, 1, vec![0, 1]),
        ],
        entries: vec![
            TextureEntry {
                flags: 0x0800,
                page: 0,
                extra: 0xFF,
                u0: 0,
                u1: 7,
                v0: 0,
                v1: 7,
            },
            TextureEntry {
                flags: 1,
                u0: 10,
                u1: 20,
                v0: 30,
                ..TextureEntry::default()
            },
        ],
        effects: Effects::List(Vec::new()),
    };
    let mut font = Font::default();
    font.glyphs[65].advance = 12;
    let flags = wfpc::SPRT_TABLE | wfpc::MAP_VIEW_DISTANCE;
    Level::new(vec![
        Chunk::new(Tag::INFO, ChunkData::Info(vec![1, 0, 0, 0])).unwrap(),
        Chunk::new(Tag::VERS, ChunkData::Vers(vec![1, 0, 0, 0])).unwrap(),
        Chunk::new(Tag::WFPC, ChunkData::Wfpc(Wfpc { flags })).unwrap(),
        Chunk::new(Tag::TEXT, ChunkData::Text(text)).unwrap(),
        Chunk::new(Tag::FONT, ChunkData::Font(font)).unwrap(),
        Chunk::new(
            Tag::SPRT,
            ChunkData::Sprt(Sprt {
                material_base: 1,
                table: Some(vec![4]),
            }),
        )
        .unwrap(),
        Chunk::new(
            Tag::NAME,
            ChunkData::Name(Name {
                count: 1,
                bytes: b"X\0\0\0".to_vec(),
            }),
        )
        .unwrap(),
        Chunk::new(
            Tag::SMPC,
            ChunkData::Smpc(Smpc {
                sounds: vec![Sound {
                    kind: CVG,
                    header: Some(CvgHeader {
                        sample_rate: 22050,
                        audio_bytes: 16,
                        ..CvgHeader::default()
                    }),
                    adpcm: vec![0x11; 16],
                }],
            }),
        )
        .unwrap(),
        Chunk::new(
            Tag::AMPC,
            ChunkData::Ampc(levelgeom_wad::ampc::Ampc { raw: vec![0; 4] }),
        )
        .unwrap(),
        Chunk::new(
            Tag::SRPC,
            ChunkData::Srpc(Srpc {
                refs: vec![SpeechRef {
                    id: 1,
                    rate: 0x800,
                    unknown_06: 0,
                    cvs_offset: 0,
                    cvs_size: 0x800,
                }],
            }),
        )
        .unwrap(),
        Chunk::new(Tag::TRAK, ChunkData::Trak(Trak::default())).unwrap(),
        Chunk::new(Tag::STPC, ChunkData::Stpc(Stpc::default())).unwrap(),
        Chunk::new(
            Tag::MAP,
            ChunkData::Map(Map {
                view_distance: Some(200),
                ..Map::default()
            }),
        )
        .unwrap(),
        Chunk::new(
            Tag::LGHT,
            ChunkData::Lght(Lght {
                lights: vec![Light {
                    kind: 2,
                    rgb: [1, 2, 3],
                    body: LightBody::Five {
                        values: [1.0, 2.0, 3.0, 4.0, 5.0],
                        extra: 6,
                    },
                }],
            }),
        )
        .unwrap(),
        Chunk::new(Tag::LNFO, ChunkData::Lnfo(Lnfo { values: [1, 2] })).unwrap(),
        Chunk::new(
            Tag::LGPC,
            ChunkData::Lgpc(Lgpc {
                rows_minus_one: 1,
                cols: 1,
                unused: 0,
                lengths: vec![2, 4],
                data: b"Hi\0#001\0".to_vec(),
            }),
        )
        .unwrap(),
        Chunk::new(Tag::END, ChunkData::End(Vec::new())).unwrap(),
    ])
    .to_bytes()
    .unwrap()
}

/// A rebuild of damaged bytes gives exactly those bytes.
fn assert_rebuilt(rebuilt: Result<Vec<u8>, WriteError>, bytes: &[u8], what: &str) {
    match rebuilt {
        Ok(out) => assert!(out == bytes, "{what}: parsed but did not rebuild exactly"),
        Err(e) => panic!("{what}: parsed but does not write back: {e}"),
    }
}

/// The WADs to damage: the hand-built one and, once it produces bytes, the generator's demo.
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let mut v = vec![("hand", hand_wad())];
    let demo = levelgeom_wad::generate::demo_level().unwrap();
    if !demo.is_empty() {
        v.push(("demo", demo));
    }
    v
}

/// Parse `bytes`: an error must name an offset and a path; a success must rebuild exactly.
fn check_case(what: &str, bytes: &[u8]) {
    match Level::read(bytes) {
        Err(e) => {
            let s = e.to_string();
            assert!(s.starts_with("at 0x") && s.contains(" in "), "{what}: {s}");
            assert!(
                e.offset as usize <= bytes.len(),
                "{what}: offset past EOF: {s}"
            );
        }
        Ok((level, warnings)) => {
            for w in &warnings {
                assert!(w.to_string().starts_with("at 0x"), "{what}: {w}");
            }
            assert_rebuilt(level.to_bytes(), bytes, what);
        }
    }
}

#[test]
fn the_samples_themselves_round_trip() {
    for (name, bytes) in samples() {
        let (level, warnings) = Level::read(&bytes).expect(name);
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        assert_eq!(level.to_bytes().unwrap(), bytes, "{name}");
    }
}

/// The offsets to damage: every byte of a small file; for a large one the first 24 bytes of
/// every chunk (headers and counts) plus ~400 evenly spread offsets.
fn offsets(bytes: &[u8]) -> Vec<usize> {
    if bytes.len() <= 8192 {
        return (0..bytes.len()).collect();
    }
    let (raw, _) = RawWad::parse(bytes).expect("raw");
    let mut v: Vec<usize> = (0..bytes.len()).step_by(bytes.len() / 400).collect();
    for c in &raw.chunks {
        v.extend((c.offset..c.offset + 24).filter(|&i| i < bytes.len()));
    }
    v.sort_unstable();
    v.dedup();
    v
}

#[test]
fn truncation_at_every_offset() {
    for (name, bytes) in samples() {
        let (raw, _) = RawWad::parse(&bytes).expect("raw");
        for cut in offsets(&bytes) {
            let b = &bytes[..cut];
            check_case(&format!("{name} cut at {cut}"), b);
            // a cut exactly before a chunk leaves a complete file without END
            if raw.chunks.iter().any(|c| c.offset == cut) {
                let (_, warnings) = Level::read(b).expect("a prefix of whole chunks");
                assert!(
                    warnings.iter().any(|w| w.message.contains("no END chunk")),
                    "{name} cut at {cut}: {warnings:?}"
                );
            }
        }
    }
}

#[test]
fn truncated_chunk_reports_its_tag() {
    let bytes = hand_wad();
    let (raw, _) = RawWad::parse(&bytes).expect("raw");
    let text = raw
        .chunks
        .iter()
        .find(|c| c.tag == Tag::TEXT)
        .expect("TEXT");
    // cut in the middle of TEXT: the container error names TEXT and its size field
    let cut = text.payload_offset() + 10;
    let e = Level::read(&bytes[..cut]).expect_err("truncated");
    assert_eq!(e.offset as usize, text.offset + 4);
    assert!(e.to_string().contains(" in TEXT: declared size"), "{e}");
}

#[test]
fn flipped_bytes_at_every_offset() {
    for (name, bytes) in samples() {
        let masks: &[u8] = if bytes.len() <= 8192 {
            &[0xFF, 0x01, 0x80]
        } else {
            &[0xFF, 0x01]
        };
        for at in offsets(&bytes) {
            for &mask in masks {
                let mut b = bytes.clone();
                b[at] ^= mask;
                check_case(&format!("{name} byte {at} ^ {mask:#04X}"), &b);
            }
        }
    }
}

#[test]
fn corrupt_counts_inside_chunks_name_the_part() {
    let bytes = hand_wad();
    let (raw, _) = RawWad::parse(&bytes).expect("raw");
    let lgpc = raw
        .chunks
        .iter()
        .find(|c| c.tag == Tag::LGPC)
        .expect("LGPC");
    let mut b = bytes.clone();
    // LGPC cols (payload +4) = 0xFFFF: the lengths table cannot fit
    let at = lgpc.payload_offset() + 4;
    b[at..at + 4].copy_from_slice(&0xFFFFu32.to_le_bytes());
    let e = Level::read(&b).expect_err("count");
    assert_eq!(e.offset as usize, lgpc.payload_offset() + 12);
    assert!(
        e.to_string().contains(" in LGPC: count 131070 × 4 bytes"),
        "{e}"
    );
    // the same bytes read directly still give the absolute offset relative to a payload slice
    let e = Lgpc::read(&mut Reader::new(&b[lgpc.payload_offset()..])).expect_err("count");
    assert_eq!(e.offset, 12);
}

/// The independently written `indep.wad` (tools/fixtures/make_indep_wad.py).
fn indep() -> Vec<u8> {
    let p = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/data/independent/indep.wad"
    );
    std::fs::read(p).expect("tests/data/independent/indep.wad")
}

/// Like [`check_case`] (parsing once), and a level that parses must also survive `check`
/// (the CLI runs it on whatever parses) without panicking, when `rules`. Returns true when
/// refused.
fn check_and_rules(what: &str, bytes: &[u8], rules: bool) -> bool {
    match Level::read(bytes) {
        Err(e) => {
            let s = e.to_string();
            assert!(s.starts_with("at 0x") && s.contains(" in "), "{what}: {s}");
            assert!(e.offset as usize <= bytes.len(), "{what}: {s}");
            true
        }
        Ok((level, _)) => {
            assert_rebuilt(level.to_bytes(), bytes, what);
            if rules {
                let _ = levelgeom_wad::check::check(&level);
            }
            false
        }
    }
}

#[test]
fn independent_wad_damaged_at_every_offset() {
    // A file not made by this crate's writer, small enough (28,775 bytes) to damage everywhere:
    // its TRAK, STPC and MAP carry real content (the hand-built WAD's are empty).
    let bytes = indep();
    // `check` decodes every RLE page, so it runs on every damaged copy except those damaged
    // inside the texels of TEXT (past its first 64 bytes), which only the decoder reads.
    let (raw, _) = RawWad::parse(&bytes).expect("raw");
    let text = raw
        .chunks
        .iter()
        .find(|c| c.tag == Tag::TEXT)
        .expect("TEXT");
    let texels = text.payload_offset() + 64..text.payload_offset() + text.payload.len();
    for cut in 0..bytes.len() {
        check_and_rules(&format!("indep cut at {cut}"), &bytes[..cut], false);
    }
    let mut refused = 0usize;
    for at in 0..bytes.len() {
        for mask in [0xFFu8, 0x01] {
            let mut b = bytes.clone();
            b[at] ^= mask;
            let what = format!("indep byte {at} ^ {mask:#04X}");
            if check_and_rules(&what, &b, !texels.contains(&at)) {
                refused += 1;
            }
        }
    }
    // Flipping a byte of a chunk tag or size field is always refused (tag no longer known
    // and not printable, or the walk lands on no tag): at least 17 chunks × 8 header bytes.
    assert!(
        refused >= 17 * 8,
        "only {refused} damaged copies were refused"
    );
}

/// Every byte of the demo's MAP and STPC payloads and of its first TRAK headers flipped, read by the chunk
/// readers directly (fast): an error names the chunk's part, a success writes back the same
/// bytes, and `check` on the result does not panic.
#[test]
fn demo_geometry_payloads_flipped_at_every_byte() {
    use levelgeom_wad::check::{check_parts, Parts};
    let bytes = levelgeom_wad::generate::demo_level().unwrap();
    let (raw, _) = RawWad::parse(&bytes).expect("raw");
    let (level, _) = Level::read(&bytes).expect("demo");
    let flags = level.wfpc();
    let counts = level.trak().expect("TRAK").vertex_counts();
    let payload = |t: Tag| {
        &raw.chunks
            .iter()
            .find(|c| c.tag == t)
            .expect("chunk")
            .payload
    };
    let write = |f: &dyn Fn(&mut levelgeom_binary::Writer) -> Result<(), WriteError>| {
        let mut w = levelgeom_binary::Writer::new();
        f(&mut w).map(|()| w.into_inner())
    };
    // MAP's rules need the TRAK vertex counts only: a copy without faces and collision keeps
    // `check` on each damaged MAP fast.
    let mut light_trak = level.trak().expect("TRAK").clone();
    for m in &mut light_trak.models {
        m.faces.clear();
        m.collision.clear();
    }
    let map = payload(Tag::MAP);
    for at in 0..map.len() {
        let mut b = map.clone();
        b[at] ^= 0xFF;
        let mut r = Reader::new(&b);
        r.push("MAP", None);
        match Map::read(&mut r, flags, &counts).and_then(|m| r.finish().map(|_| m)) {
            Ok(m) => {
                assert_rebuilt(write(&|w| m.write(w)), &b, &format!("MAP byte {at}"));
                let _ = check_parts(&Parts {
                    wfpc: Some(flags),
                    trak: Some(&light_trak),
                    map: Some(&m),
                    ..Parts::default()
                });
            }
            Err(e) => assert!(e.to_string().contains(" in MAP"), "MAP byte {at}: {e}"),
        }
    }
    let stpc = payload(Tag::STPC);
    for at in 0..stpc.len() {
        let mut b = stpc.clone();
        b[at] ^= 0xFF;
        let mut r = Reader::new(&b);
        r.push("STPC", None);
        match Stpc::read(&mut r, flags) {
            Ok(s) => {
                assert_rebuilt(write(&|w| s.write(w)), &b, &format!("STPC byte {at}"));
                let _ = check_parts(&Parts {
                    stpc: Some(&s),
                    ..Parts::default()
                });
            }
            Err(e) => assert!(e.to_string().contains(" in STPC"), "STPC byte {at}: {e}"),
        }
    }
    let trak = payload(Tag::TRAK);
    let n = u32::from_le_bytes([trak[0], trak[1], trak[2], trak[3]]) as usize;
    // the count and the first 8 model headers
    for at in 0..(4 + n.min(8) * 0x84).min(trak.len()) {
        let mut b = trak.clone();
        b[at] ^= 0xFF;
        let mut r = Reader::new(&b);
        r.push("TRAK", None);
        match Trak::read(&mut r).and_then(|t| r.finish().map(|_| t)) {
            Ok(t) => {
                assert_rebuilt(write(&|w| t.write(w)), &b, &format!("TRAK byte {at}"));
                let _ = check_parts(&Parts {
                    trak: Some(&t),
                    ..Parts::default()
                });
            }
            Err(e) => assert!(e.to_string().contains(" in TRAK"), "TRAK byte {at}: {e}"),
        }
    }
}
