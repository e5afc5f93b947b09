//! Damaged files: truncated at every offset and with bytes flipped at every offset. Each case
//! must return an error naming an offset and a chunk path, or parse — and then rebuild to exactly
//! the damaged bytes (nothing is dropped or normalised). Nothing may panic.

use levelgeom_binary::Reader;
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
    font.glyphs[65].width = 12;
    let flags = wfpc::SPRT_TABLE | wfpc::MAP_VIEW_DISTANCE;
    Level::new(vec![
        Chunk::new(Tag::INFO, ChunkData::Info(vec![1, 0, 0, 0])),
        Chunk::new(Tag::VERS, ChunkData::Vers(vec![1, 0, 0, 0])),
        Chunk::new(Tag::WFPC, ChunkData::Wfpc(Wfpc { flags })),
        Chunk::new(Tag::TEXT, ChunkData::Text(text)),
        Chunk::new(Tag::FONT, ChunkData::Font(font)),
        Chunk::new(
            Tag::SPRT,
            ChunkData::Sprt(Sprt {
                material_base: 1,
                table: Some(vec![4]),
            }),
        ),
        Chunk::new(
            Tag::NAME,
            ChunkData::Name(Name {
                count: 1,
                bytes: b"X\0\0\0".to_vec(),
            }),
        ),
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
        ),
        Chunk::new(
            Tag::AMPC,
            ChunkData::Ampc(levelgeom_wad::ampc::Ampc { raw: vec![0; 4] }),
        ),
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
        ),
        Chunk::new(Tag::TRAK, ChunkData::Trak(Trak::default())),
        Chunk::new(Tag::STPC, ChunkData::Stpc(Stpc::default())),
        Chunk::new(
            Tag::MAP,
            ChunkData::Map(Map {
                view_distance: Some(200),
                ..Map::default()
            }),
        ),
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
        ),
        Chunk::new(Tag::LNFO, ChunkData::Lnfo(Lnfo { values: [1, 2] })),
        Chunk::new(
            Tag::LGPC,
            ChunkData::Lgpc(Lgpc {
                rows_minus_one: 1,
                cols: 1,
                unused: 0,
                lengths: vec![2, 4],
                data: b"Hi\0#001\0".to_vec(),
            }),
        ),
        Chunk::new(Tag::END, ChunkData::End(Vec::new())),
    ])
    .to_bytes()
}

/// The WADs to damage: the hand-built one and, once it produces bytes, the generator's demo.
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let mut v = vec![("hand", hand_wad())];
    let demo = levelgeom_wad::generate::demo_level();
    if !demo.is_empty() {
        v.push(("demo", demo));
    }
    v
}

/// Parse `bytes`: an error must name an offset and a path; a success must rebuild exactly.
fn check_case(what: &str, bytes: &[u8]) {
    match Level::from_bytes(bytes) {
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
            assert!(
                level.to_bytes() == bytes,
                "{what}: parsed but did not rebuild exactly"
            );
        }
    }
}

#[test]
fn the_samples_themselves_round_trip() {
    for (name, bytes) in samples() {
        let (level, warnings) = Level::from_bytes(&bytes).expect(name);
        assert!(warnings.is_empty(), "{name}: {warnings:?}");
        assert_eq!(level.to_bytes(), bytes, "{name}");
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
                let (_, warnings) = Level::from_bytes(b).expect("a prefix of whole chunks");
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
    let e = Level::from_bytes(&bytes[..cut]).expect_err("truncated");
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
    let e = Level::from_bytes(&b).expect_err("count");
    assert_eq!(e.offset as usize, lgpc.payload_offset() + 12);
    assert!(
        e.to_string().contains(" in LGPC: count 131070 × 4 bytes"),
        "{e}"
    );
    // the same bytes read directly still give the absolute offset relative to a payload slice
    let e = Lgpc::read(&mut Reader::new(&b[lgpc.payload_offset()..])).expect_err("count");
    assert_eq!(e.offset, 12);
}
