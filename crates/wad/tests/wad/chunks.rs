//! Round trips of the non-geometry chunks on hand-written payloads, field by field, and
//! typed-path edits (change one field → write → exactly that change).

use levelgeom_binary::{Reader, Writer};
use levelgeom_wad::font::Font;
use levelgeom_wad::lght::{Lght, LightBody};
use levelgeom_wad::lgpc::Lgpc;
use levelgeom_wad::lnfo::Lnfo;
use levelgeom_wad::name::Name;
use levelgeom_wad::smpc::{Smpc, CVG};
use levelgeom_wad::sprt::Sprt;
use levelgeom_wad::srpc::Srpc;
use levelgeom_wad::text::{
    abgr1555_to_rgba8, EffectBody, Effects, PageData, PixelError, Text, TexturePage,
};
use levelgeom_wad::wfpc::{self, Wfpc};

/// What a chunk writer returns: nothing (infallible writers) or a `Result`.
trait Written {
    fn done(self);
}
impl Written for () {
    fn done(self) {}
}
impl Written for Result<(), levelgeom_binary::WriteError> {
    fn done(self) {
        self.unwrap()
    }
}

fn write_with<R: Written>(f: impl FnOnce(&mut Writer) -> R) -> Vec<u8> {
    let mut w = Writer::new();
    f(&mut w).done();
    w.into_inner()
}

#[test]
fn wfpc_flags() {
    let b = [0x90, 0x06, 0x41, 0x18]; // t1l1m001's 0x18410690
    let mut r = Reader::new(&b);
    let w = Wfpc::read(&mut r).expect("reads");
    assert!(r.is_empty());
    assert_eq!(w.flags, 0x1841_0690);
    assert!(w.has(wfpc::MAP_TILE_SWAPS));
    assert!(w.has(wfpc::MAP_VIEW_DISTANCE));
    assert!(w.has(wfpc::RUNTIME_WIDE_COLOURS));
    assert!(!w.has(wfpc::SPRT_TABLE));
    assert!(!w.has(wfpc::STPC_CUTSCENES));
    assert_eq!(write_with(|x| w.write(x)), b);
}

#[test]
fn lnfo_two_words() {
    #[rustfmt::skip]
    let b = [
        0x01, 0x02, 0x03, 0x04, // values[0] = 0x04030201
        0xFF, 0, 0, 0,          // values[1] = 255
    ];
    let l = Lnfo::read(&mut Reader::new(&b)).expect("reads");
    assert_eq!(l.values, [0x0403_0201, 255]);
    assert_eq!(write_with(|x| l.write(x)), b);
}

#[test]
fn font_is_256_glyphs_of_4_words() {
    let mut b = vec![0u8; 2048];
    // glyph 'A' (65) at 65 × 8 = 520: texture 7, y offset 1, advance 12, height 14
    b[520..528].copy_from_slice(&[7, 0, 1, 0, 12, 0, 14, 0]);
    // glyph 'i' (105) at 105 × 8 = 840: texture 0x0102, y offset 9, advance 5, height 0x0110
    b[840..848].copy_from_slice(&[2, 1, 9, 0, 5, 0, 0x10, 1]);
    let mut r = Reader::new(&b);
    let f = Font::read(&mut r).expect("reads");
    assert!(r.is_empty());
    assert_eq!(f.glyphs.len(), 256);
    let a = f.glyphs[65];
    assert_eq!((a.texture, a.y_offset, a.advance, a.height), (7, 1, 12, 14));
    let i = f.glyphs[105];
    assert_eq!(
        (i.texture, i.y_offset, i.advance, i.height),
        (258, 9, 5, 272)
    );
    assert_eq!(f.glyphs[66].advance, 0);
    // "Ai A": 12 + 5 + 10 (a space is always 10, sub_436510) + 12; a NUL ends the string
    assert_eq!(f.text_width(b"Ai A\0A"), 39);
    assert_eq!(write_with(|x| f.write(x)), b);
    // 2047 bytes are not a font
    assert!(Font::read(&mut Reader::new(&b[..2047])).is_err());
}

#[test]
fn sprt_table_depends_on_wfpc() {
    #[rustfmt::skip]
    let b = [
        7, 0, 0, 0, // material_base = 7
        2, 0, 0, 0, // n = 2 (only with WFPC & 0x100000)
        1, 0, 0, 0, // table[0]
        9, 0, 0, 0, // table[1]
    ];
    let mut r = Reader::new(&b);
    let s = Sprt::read(&mut r, wfpc::SPRT_TABLE).expect("reads");
    assert!(r.is_empty());
    assert_eq!(s.material_base, 7);
    assert_eq!(s.table.as_deref(), Some(&[1u32, 9][..]));
    assert_eq!(write_with(|x| s.write(x)), b);
    // without the flag only the first word belongs to SPRT
    let mut r = Reader::new(&b);
    let s = Sprt::read(&mut r, 0).expect("reads");
    assert_eq!(s.table, None);
    assert_eq!(r.remaining(), 12);
    // a huge count is refused before allocating
    let bad = [7, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0x7F];
    let e = Sprt::read(&mut Reader::new(&bad), wfpc::SPRT_TABLE).expect_err("count");
    assert_eq!(e.offset, 4);
}

#[test]
fn name_keeps_its_padding() {
    #[rustfmt::skip]
    let b = [
        1, 0, 0, 0,                       // count = 1
        b'T', b'1', b'L', b'1', 0, 0, 0, // "T1L1" + NUL padding
    ];
    let n = Name::read(&mut Reader::new(&b)).expect("reads");
    assert_eq!(n.count, 1);
    assert_eq!(n.text(), "T1L1");
    assert_eq!(n.bytes.len(), 7);
    assert_eq!(write_with(|x| n.write(x)), b);
}

#[test]
fn smpc_cvg_entry() {
    #[rustfmt::skip]
    let b = [
        1, 0, 0, 0,                 // n = 1
        b'c', b'v', b'g', b' ',     // type (not reversed)
        24, 0, 0, 0,                // data_size = 20 + 4
        0x22, 0x56, 0, 0,           // sample_rate = 22050
        1, 0,                       // +4
        2, 0,                       // +6
        1, 0, 0, 0,                 // channels = 1
        3, 0,                       // +12
        4, 0,                       // +14
        4, 0, 0, 0,                 // audio_bytes = 4
        0xAA, 0xBB, 0xCC, 0xDD,     // ADPCM
    ];
    let mut r = Reader::new(&b);
    let s = Smpc::read(&mut r).expect("reads");
    assert!(r.is_empty());
    assert_eq!(s.sounds.len(), 1);
    let snd = &s.sounds[0];
    assert_eq!(snd.kind, CVG);
    let h = snd.header.expect("header");
    assert_eq!(h.sample_rate, 22050);
    assert_eq!(
        (h.unknown_04, h.unknown_06, h.unknown_0c, h.unknown_0e),
        (1, 2, 3, 4)
    );
    assert_eq!(h.channels, 1);
    assert_eq!(h.audio_bytes, 4);
    assert_eq!(snd.adpcm, [0xAA, 0xBB, 0xCC, 0xDD]);
    assert_eq!(write_with(|x| s.write(x)), b);
    // data_size past the chunk: error at the size field (offset 8)
    let mut bad = b.to_vec();
    bad[8] = 200;
    let e = Smpc::read(&mut Reader::new(&bad)).expect_err("too large");
    assert_eq!(e.offset, 8);
    assert!(e.to_string().contains("sounds[0]"), "{e}");
}

#[test]
fn srpc_records() {
    #[rustfmt::skip]
    let b = [
        1, 0, 0, 0,             // n = 1
        0x2A, 0, 0, 0,          // id = 42
        0x00, 0x08,             // rate = 0x800 → 22050 Hz
        0, 0,                   // +6
        0x00, 0x10, 0, 0,       // cvs_offset = 0x1000
        0x34, 0x12, 0, 0,       // cvs_size = 0x1234
    ];
    let s = Srpc::read(&mut Reader::new(&b)).expect("reads");
    let r = s.refs[0];
    assert_eq!(
        (r.id, r.rate, r.cvs_offset, r.cvs_size),
        (42, 0x800, 0x1000, 0x1234)
    );
    assert_eq!(r.sample_rate_hz(), 22050.0);
    assert_eq!(write_with(|x| s.write(x)), b);
}

#[test]
fn lght_types() {
    #[rustfmt::skip]
    let b = [
        3, 0, 0, 0,                 // n = 3
        1, 10, 20, 30,              // type 1, rgb
        0, 0, 0x80, 0x3F,           //   1.0
        0, 0, 0, 0x40,              //   2.0
        0, 0, 0x40, 0x40,           //   3.0
        2, 1, 2, 3,                 // type 2, rgb
        0, 0, 0x80, 0xBF,           //   -1.0
        0, 0, 0, 0,                 //   0.0
        0, 0, 0, 0x3F,              //   0.5
        0x01, 0x00, 0xC0, 0x7F,     //   a NaN with payload 1 (bits kept)
        0, 0, 0x20, 0x41,           //   10.0
        0x77,                       //   extra byte
        5, 9, 9, 9,                 // type 5: nothing more
    ];
    let mut r = Reader::new(&b);
    let l = Lght::read(&mut r).expect("reads");
    assert!(r.is_empty());
    assert_eq!(l.lights.len(), 3);
    assert_eq!(l.lights[0].rgb, [10, 20, 30]);
    assert_eq!(l.lights[0].body, LightBody::Three([1.0, 2.0, 3.0]));
    match l.lights[1].body {
        LightBody::Five { values, extra } => {
            assert_eq!(values[0], -1.0);
            assert_eq!(values[3].to_bits(), 0x7FC0_0001);
            assert_eq!(extra, 0x77);
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(l.lights[2].kind, 5);
    assert_eq!(l.lights[2].body, LightBody::Empty);
    assert_eq!(write_with(|x| l.write(x)), b);
}

#[test]
fn lgpc_empty_and_two_strings() {
    // the empty table of real files: rows−1 = 1, cols = 0, unused = 0
    let empty = [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0];
    let l = Lgpc::read(&mut Reader::new(&empty)).expect("reads");
    assert_eq!((l.rows(), l.cols, l.lengths.len()), (2, 0, 0));
    assert_eq!(write_with(|x| l.write(x)), empty);
    #[rustfmt::skip]
    let b = [
        1, 0, 0, 0,     // rows − 1 = 1 → 2 rows (a language + the voice id row)
        2, 0, 0, 0,     // cols = 2 strings
        0, 0, 0, 0,     // unused
        2, 0, 0, 0,     // len[string 0, row 0]
        4, 0, 0, 0,     // len[string 0, row 1]
        3, 0, 0, 0,     // len[string 1, row 0]
        4, 0, 0, 0,     // len[string 1, row 1]
        b'H', b'i', 0,
        b'#', b'0', b'0', b'1', 0,
        b'Y', b'o', b'!', 0,
        b'#', b'0', b'0', b'2', 0, // 17 data bytes: odd chunk size, no padding
    ];
    let l = Lgpc::read(&mut Reader::new(&b)).expect("reads");
    assert_eq!(l.lengths, [2, 4, 3, 4]);
    let s: Vec<&[u8]> = l.strings();
    assert_eq!(s, [&b"Hi"[..], b"#001", b"Yo!", b"#002"]);
    assert_eq!(write_with(|x| l.write(x)), b);
    // a lengths table larger than the chunk
    let bad = [0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0xFF, 0, 0, 0, 0];
    let e = Lgpc::read(&mut Reader::new(&bad)).expect_err("count");
    assert_eq!(e.offset, 12);
}

/// A TEXT payload with a palette, all three page storage forms, two entries and two effects.
#[rustfmt::skip]
fn text_bytes() -> Vec<u8> {
    vec![
        1, 0, 0, 0,             // palette_count = 1
        9, 0, 0, 0,             //   unknown = 9
        2, 0, 0, 0,             //   n = 2
        0x1F, 0x80,             //   colour 0 = 0x801F (opaque red)
        0x00, 0xFC,             //   colour 1 = 0xFC00 (opaque blue)
        5, 6,                   //   extra bytes
        3, 0, 0, 0,             // page_count = 3
        0x81, 0, 0, 0,          // page 0: flags 0x81 (RLE, format 1)
        2, 0, 0, 0,             //   width 2
        2, 0, 0, 0,             //   height 2
        10, 0, 0, 0,            //   comp_bytes = 10
        0xFE, 0xFF, 0x1F, 0x80, //   run of 2 × 0x801F (red)
        0x02, 0x00, 0xE0, 0x83, //   literal of 2: 0x83E0 (green),
        0x1F, 0x80,             //     0x801F (red)
        0x01, 0, 0, 0,          // page 1: flags 0x01 (raw 16-bit)
        2, 0, 0, 0,             //   width 2
        1, 0, 0, 0,             //   height 1
        0x00, 0x00, 0xFF, 0xFF, //   pixels 0x0000, 0xFFFF
        0, 0, 0, 0,             // page 2: flags 0 (8-bit)
        2, 0, 0, 0,             //   width 2
        1, 0, 0, 0,             //   height 1
        1, 0,                   //   indices 1, 0
        2, 0, 0, 0,             // entry_count = 2
        0x00, 0x30, 0, 0xFF, 0, 63, 64, 127,   // flags 0x3000 (blend 3), page 0, extra 0xFF, u0 0 u1 63 v0 64 v1 127
        0x01, 0x00, 1, 0xFF, 200, 100, 50, 7,  // flat colour R 200 G 100 B 50, fourth byte 7
        2, 0, 0, 0,             // effect_count = 2
        1, 0, 1, 10, 20, 30,    // sprite 1, type 1: 3 bytes
        0, 0, 8, 4, 2, 5,       // sprite 0, type 8: bytes 4, 2, 5 → 2 × u16
        0x11, 0x11, 0x22, 0x22,
    ]
}

#[test]
fn text_round_trip_and_fields() {
    let b = text_bytes();
    let mut r = Reader::new(&b);
    let t = Text::read(&mut r).expect("reads");
    assert!(r.is_empty());
    assert_eq!(t.palettes.len(), 1);
    assert_eq!(t.palettes[0].colours, [0x801F, 0xFC00]);
    assert_eq!(t.palettes[0].extra, [5, 6]);
    assert_eq!(t.pages.len(), 3);
    assert!(matches!(&t.pages[0].data, PageData::Rle(s) if s.len() == 10));
    assert!(matches!(&t.pages[1].data, PageData::Raw16(p) if p == &[0, 0xFFFF]));
    assert!(matches!(&t.pages[2].data, PageData::Indexed(p) if p == &[1, 0]));
    assert!(t.pages.iter().all(|p| p.is_consistent()));
    // RLE page: 2 × red, green, red
    assert_eq!(
        t.pages[0].pixels16().expect("decodes"),
        [0x801F, 0x801F, 0x83E0, 0x801F]
    );
    let e = t.entries[0];
    assert_eq!((e.flags, e.page, e.extra), (0x3000, 0, 0xFF));
    assert_eq!((e.u0, e.u1, e.v0, e.v1), (0, 63, 64, 127));
    assert_eq!(e.blend_mode(), 3);
    // the rectangle rule lives in scene::uv (divides by the page size, as the loader does)
    let r = levelgeom_wad::scene::uv::UvRect::new(e.u0, e.u1, e.v0, e.v1, 256, 256);
    assert_eq!([r.u0, r.u1, r.v0, r.v1], [0.0, 0.25, 0.25, 0.5]);
    assert!(!e.is_flat_colour());
    assert!(t.entries[1].is_flat_colour());
    match &t.effects {
        Effects::List(list) => {
            assert_eq!(list.len(), 2);
            assert_eq!(list[0].sprite, 1);
            assert_eq!(list[0].body, EffectBody::Bytes3([10, 20, 30]));
            assert_eq!(
                list[1].body,
                EffectBody::Table3 {
                    head: [4, 2, 5],
                    values: vec![0x1111, 0x2222]
                }
            );
        }
        other => panic!("unexpected {other:?}"),
    }
    assert_eq!(write_with(|x| t.write(x)), b);
}

#[test]
fn text_typed_edit_changes_exactly_one_byte() {
    let b = text_bytes();
    let mut t = Text::read(&mut Reader::new(&b)).expect("reads");
    t.entries[1].u1 = 101;
    let out = write_with(|x| t.write(x));
    let diff: Vec<usize> = (0..b.len()).filter(|&i| b[i] != out[i]).collect();
    // entries start at 4+4+4+4+2 +4 + (12+4+10) + (12+4) + (12+2) + 4 = 82; entry 1 at 90,
    // u1 at +5 = 95
    assert_eq!(diff, [95]);
    assert_eq!(out[95], 101);
}

#[test]
fn text_effects_that_do_not_parse_are_kept_raw() {
    let mut b = text_bytes();
    // cut the last effect's table short: the list no longer parses to the end
    b.truncate(b.len() - 1);
    let t = Text::read(&mut Reader::new(&b)).expect("reads");
    assert!(matches!(&t.effects, Effects::Raw(r) if r.len() == 4 + 6 + 6 + 3));
    assert_eq!(write_with(|x| t.write(x)), b);
    // nothing after the entries
    let cut = b.len() - (4 + 6 + 6 + 3);
    let t = Text::read(&mut Reader::new(&b[..cut])).expect("reads");
    assert_eq!(t.effects, Effects::Absent);
    assert_eq!(write_with(|x| t.write(x)), &b[..cut]);
}

#[test]
fn text_bad_counts_are_errors_with_paths() {
    let mut b = text_bytes();
    // page 1 (header at 48) width 2 → 0x10000: its pixels (at 60) run past the chunk
    b[52] = 0;
    b[54] = 1;
    let e = Text::read(&mut Reader::new(&b)).expect_err("too large");
    assert!(e.to_string().contains("pages[1]"), "{e}");
    assert_eq!(e.offset, 60);
}

#[test]
fn text_effect_types_7_10_11_and_unknown() {
    #[rustfmt::skip]
    let b = [
        0, 0, 0, 0,                                 // no palettes
        0, 0, 0, 0,                                 // no pages
        0, 0, 0, 0,                                 // no entries
        4, 0, 0, 0,                                 // 4 effects
        3, 0, 7, 0x64, 0, 0xC8, 0, 3, 4,            // sprite 3, type 7: u16 100, u16 200, 3, 4
        4, 0, 10, 1, 2, 3, 2, 0xAA, 0, 0xBB, 0,     // sprite 4, type 10: head, byte 3 = 2 values
        5, 0, 0,                                    // sprite 5, type 0: nothing more
        6, 0, 11, 9, 9, 9, 0,                       // sprite 6, type 11 with no values
    ];
    let mut r = Reader::new(&b);
    let t = Text::read(&mut r).expect("reads");
    assert!(r.is_empty());
    let Effects::List(list) = &t.effects else {
        panic!("not a list: {:?}", t.effects)
    };
    assert_eq!(
        list.iter().map(|e| (e.sprite, e.kind)).collect::<Vec<_>>(),
        [(3, 7), (4, 10), (5, 0), (6, 11)]
    );
    assert_eq!(
        list[0].body,
        EffectBody::Words {
            a: 100,
            b: 200,
            c: 3,
            d: 4
        }
    );
    assert_eq!(
        list[1].body,
        EffectBody::Table4 {
            head: [1, 2, 3, 2],
            values: vec![0xAA, 0xBB]
        }
    );
    assert_eq!(list[2].body, EffectBody::Empty);
    assert_eq!(
        list[3].body,
        EffectBody::Table4 {
            head: [9, 9, 9, 0],
            values: vec![]
        }
    );
    assert_eq!(write_with(|x| t.write(x)), b);
}

#[test]
fn ampc_is_kept_raw() {
    let b = [2, 0, 0, 0, 0xAB, 0xCD, 0xEF];
    let a = levelgeom_wad::ampc::Ampc::read(&mut Reader::new(&b)).expect("reads");
    assert_eq!(a.count(), Some(2));
    assert_eq!(write_with(|x| a.write(x)), b);
    let short = levelgeom_wad::ampc::Ampc { raw: vec![1, 2] };
    assert_eq!(short.count(), None);
}

#[test]
fn abgr1555_conversion() {
    // R = bits 0–4, G = 5–9, B = 10–14, bit 15 = alpha; 5→8 bits as (v<<3)|(v>>2)
    assert_eq!(abgr1555_to_rgba8(0x801F), [255, 0, 0, 255]);
    assert_eq!(abgr1555_to_rgba8(0x83E0), [0, 255, 0, 255]);
    assert_eq!(abgr1555_to_rgba8(0xFC00), [0, 0, 255, 255]);
    assert_eq!(abgr1555_to_rgba8(0x0000), [0, 0, 0, 0]);
    // 16 → (16<<3)|(16>>2) = 132; 1 → 8; bit 15 clear → alpha 0
    assert_eq!(abgr1555_to_rgba8(0x0410 | (1 << 5)), [132, 8, 8, 0]);
}

#[test]
fn pages_to_rgba8() {
    let t = Text::read(&mut Reader::new(&text_bytes())).expect("reads");
    let rgba = t.pages[2]
        .to_rgba8(&t.palettes)
        .expect("8-bit through palette 0");
    // indices 1, 0 → blue, red
    assert_eq!(rgba, [0, 0, 255, 255, 255, 0, 0, 255]);
    assert_eq!(t.pages[2].pixels16(), Err(PixelError::NeedsPalette));
    assert_eq!(t.pages[2].to_rgba8(&[]), Err(PixelError::NeedsPalette));
    let rgba = t.pages[1].to_rgba8(&[]).expect("raw16");
    assert_eq!(rgba, [0, 0, 0, 0, 255, 255, 255, 255]);
}

#[test]
fn pages_to_rgba8_per_storage_form_and_bad_sizes() {
    // hand-computed: 0x801F red, 0x83E0 green, 0x7C00 blue without the alpha bit
    let words = [0x801F, 0x83E0, 0x7C00];
    let want = [255, 0, 0, 255, 0, 255, 0, 255, 0, 0, 255, 0];
    let raw = |data: Vec<u16>| TexturePage {
        flags: 1,
        width: 3,
        height: 1,
        data: PageData::Raw16(data),
    };
    assert_eq!(raw(words.to_vec()).to_rgba8(&[]), Ok(want.to_vec()));
    let rle = TexturePage::from_pixels16(3, 1, 1, &words).expect("builds");
    assert_eq!(rle.to_rgba8(&[]), Ok(want.to_vec()));
    assert!(matches!(
        raw(words[..2].to_vec()).to_rgba8(&[]),
        Err(PixelError::SizeMismatch {
            expected: 3,
            actual: 2
        })
    ));
    // an index past the palette is transparent black; a short index list is a size error
    let palette = levelgeom_wad::text::Palette {
        colours: vec![0x801F],
        ..Default::default()
    };
    let indexed = |ix: Vec<u8>| TexturePage {
        flags: 0,
        width: 2,
        height: 1,
        data: PageData::Indexed(ix),
    };
    assert_eq!(
        indexed(vec![0, 7]).to_rgba8_with(Some(&palette)),
        Ok(vec![255, 0, 0, 255, 0, 0, 0, 0])
    );
    assert!(matches!(
        indexed(vec![0]).to_rgba8_with(Some(&palette)),
        Err(PixelError::SizeMismatch {
            expected: 2,
            actual: 1
        })
    ));
}

#[test]
fn page_from_pixels_encodes_rle() {
    let px: Vec<u16> = vec![0x8001, 0x8001, 0x8001, 0x8001, 0x8002, 0x8003];
    let p = TexturePage::from_pixels16(3, 2, 1, &px).expect("builds");
    assert_eq!(p.flags, 0x81);
    // run of 4, then literal of 2
    #[rustfmt::skip]
    let want = [0xFC, 0xFF, 0x01, 0x80, 0x02, 0x00, 0x02, 0x80, 0x03, 0x80];
    assert!(matches!(&p.data, PageData::Rle(s) if s == &want));
    assert_eq!(p.pixels16().expect("decodes"), px);
    assert!(matches!(
        TexturePage::from_pixels16(4, 2, 1, &px),
        Err(PixelError::SizeMismatch {
            expected: 8,
            actual: 6
        })
    ));
    assert!(matches!(
        TexturePage::from_pixels16(1 << 16, 1 << 16, 1, &px),
        Err(PixelError::TooLarge { .. })
    ));
}

// ---------------------------------------------------------------------------------------------
// The typed level over a hand-built WAD with every chunk kind.

mod level {
    use super::text_bytes;
    use levelgeom_binary::Reader;
    use levelgeom_wad::ampc::Ampc;
    use levelgeom_wad::container::RawWad;
    use levelgeom_wad::font::Font;
    use levelgeom_wad::level::{Chunk, ChunkData, Level};
    use levelgeom_wad::lght::Lght;
    use levelgeom_wad::lgpc::Lgpc;
    use levelgeom_wad::lnfo::Lnfo;
    use levelgeom_wad::map::Map;
    use levelgeom_wad::name::Name;
    use levelgeom_wad::smpc::Smpc;
    use levelgeom_wad::sprt::Sprt;
    use levelgeom_wad::srpc::Srpc;
    use levelgeom_wad::stpc::Stpc;
    use levelgeom_wad::tags::Tag;
    use levelgeom_wad::text::{Text, TextureEntry};
    use levelgeom_wad::trak::Trak;
    use levelgeom_wad::wfpc::{self, Wfpc};

    const FLAGS: u32 = wfpc::SPRT_TABLE | wfpc::MAP_VIEW_DISTANCE;

    fn sample_level() -> Level {
        let text = Text::read(&mut Reader::new(&text_bytes())).expect("text");
        let map = Map {
            view_distance: Some(200),
            final_u16: 0xBEEF,
            ..Map::default()
        };
        Level::new(vec![
            Chunk::new(Tag::INFO, ChunkData::Info(vec![1, 0, 0, 0])).unwrap(),
            Chunk::new(Tag::VERS, ChunkData::Vers(vec![1, 0, 0, 0])).unwrap(),
            Chunk::new(Tag::WFPC, ChunkData::Wfpc(Wfpc { flags: FLAGS })).unwrap(),
            Chunk::new(Tag::TEXT, ChunkData::Text(text)).unwrap(),
            Chunk::new(Tag::FONT, ChunkData::Font(Font::default())).unwrap(),
            Chunk::new(
                Tag::SPRT,
                ChunkData::Sprt(Sprt {
                    material_base: 2,
                    table: Some(vec![5, 6]),
                }),
            )
            .unwrap(),
            Chunk::new(
                Tag::NAME,
                ChunkData::Name(Name {
                    count: 1,
                    bytes: b"DEMO\0\0\0".to_vec(),
                }),
            )
            .unwrap(),
            Chunk::new(Tag::SMPC, ChunkData::Smpc(Smpc::default())).unwrap(),
            Chunk::new(Tag::AMPC, ChunkData::Ampc(Ampc { raw: vec![0; 4] })).unwrap(),
            Chunk::new(Tag::SRPC, ChunkData::Srpc(Srpc::default())).unwrap(),
            Chunk::new(Tag::TRAK, ChunkData::Trak(Trak::default())).unwrap(),
            Chunk::new(Tag::STPC, ChunkData::Stpc(Stpc::default())).unwrap(),
            Chunk::new(Tag::MAP, ChunkData::Map(map)).unwrap(),
            Chunk::new(Tag::LGHT, ChunkData::Lght(Lght::default())).unwrap(),
            Chunk::new(Tag::LNFO, ChunkData::Lnfo(Lnfo { values: [3, 4] })).unwrap(),
            Chunk::new(
                Tag::LGPC,
                ChunkData::Lgpc(Lgpc {
                    rows_minus_one: 1,
                    ..Lgpc::default()
                }),
            )
            .unwrap(),
            Chunk::new(Tag::END, ChunkData::End(Vec::new())).unwrap(),
        ])
    }

    #[test]
    fn every_chunk_kind_round_trips() {
        let level = sample_level();
        let bytes = level.to_bytes().unwrap();
        // header = file length − 4
        assert_eq!(
            u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) as usize,
            bytes.len() - 4
        );
        assert_eq!(&bytes[4..16], b"OFNI\x04\0\0\0\x01\0\0\0");
        let (back, warnings) = Level::read(&bytes).expect("parses");
        assert!(warnings.is_empty(), "{warnings:?}");
        assert_eq!(back, level);
        assert_eq!(back.to_bytes().unwrap(), bytes);
        assert_eq!(back.wfpc(), FLAGS);
        assert_eq!(back.text().map(|t| t.pages.len()), Some(3));
        assert_eq!(back.map().and_then(|m| m.view_distance), Some(200));
        assert_eq!(back.sprt().and_then(|s| s.table.clone()), Some(vec![5, 6]));
        let tags: Vec<String> = back.chunks.iter().map(|c| c.tag.name()).collect();
        assert_eq!(
            tags.join(","),
            "INFO,VERS,WFPC,TEXT,FONT,SPRT,NAME,SMPC,AMPC,SRPC,TRAK,STPC,MAP ,LGHT,LNFO,LGPC,END "
        );
    }

    #[test]
    fn editing_one_field_changes_exactly_its_bytes() {
        let bytes = sample_level().to_bytes().unwrap();
        let (raw, _) = RawWad::parse(&bytes).expect("raw");
        let lnfo = raw
            .chunks
            .iter()
            .find(|c| c.tag == Tag::LNFO)
            .expect("LNFO");
        let (mut level, _) = Level::read(&bytes).expect("parses");
        for c in &mut level.chunks {
            if let ChunkData::Lnfo(l) = &mut c.data {
                l.values[1] = 0x0A0B_0C0D;
            }
        }
        let out = level.to_bytes().unwrap();
        assert_eq!(out.len(), bytes.len());
        let diff: Vec<usize> = (0..out.len()).filter(|&i| out[i] != bytes[i]).collect();
        let at = lnfo.payload_offset() + 4;
        assert_eq!(diff, (at..at + 4).collect::<Vec<_>>());
        assert_eq!(&out[at..at + 4], &[0x0D, 0x0C, 0x0B, 0x0A]);
        // re-parsing gives the edited level back
        let (back, _) = Level::read(&out).expect("re-parses");
        assert_eq!(back, level);
    }

    #[test]
    fn growing_a_chunk_updates_its_size_and_the_header_bias() {
        let mut bytes = sample_level().to_bytes().unwrap();
        // give the file a bias of 0x800 (the PSX convention) to see that it is kept
        let h = u32::from_le_bytes([bytes[0], bytes[1], bytes[2], bytes[3]]) + 0x800;
        bytes[..4].copy_from_slice(&h.to_le_bytes());
        let (raw, _) = RawWad::parse(&bytes).expect("raw");
        let text = raw
            .chunks
            .iter()
            .find(|c| c.tag == Tag::TEXT)
            .expect("TEXT");
        let (mut level, _) = Level::read(&bytes).expect("parses");
        level
            .text_mut()
            .expect("text")
            .entries
            .push(TextureEntry::default());
        // the effects list follows the entries, so the edit also moves it: still one TEXT
        let out = level.to_bytes().unwrap();
        assert_eq!(out.len(), bytes.len() + 8);
        let new_h = u32::from_le_bytes([out[0], out[1], out[2], out[3]]);
        assert_eq!(new_h as usize, out.len() - 4 + 0x800);
        let size_at = text.offset + 4;
        let size = u32::from_le_bytes([
            out[size_at],
            out[size_at + 1],
            out[size_at + 2],
            out[size_at + 3],
        ]);
        assert_eq!(size, text.declared_size + 8);
        let (back, _) = Level::read(&out).expect("re-parses");
        assert_eq!(back.text().map(|t| t.entries.len()), Some(3));
        // everything after TEXT is unchanged, shifted by 8
        let after = text.payload_offset() + text.payload.len();
        assert_eq!(&out[after + 8..], &bytes[after..]);
    }

    #[test]
    fn map_declared_4_too_large_warns_and_rebuilds_byte_for_byte() {
        let mut bytes = sample_level().to_bytes().unwrap();
        let (raw, _) = RawWad::parse(&bytes).expect("raw");
        let map = raw.chunks.iter().find(|c| c.tag == Tag::MAP).expect("MAP");
        let size_at = map.offset + 4;
        let declared = map.declared_size + 4;
        bytes[size_at..size_at + 4].copy_from_slice(&declared.to_le_bytes());
        let (level, warnings) = Level::read(&bytes).expect("parses");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert_eq!(warnings[0].offset as usize, size_at);
        assert_eq!(level.to_bytes().unwrap(), bytes);
        let c = level.chunk(Tag::MAP).expect("MAP");
        assert_eq!(c.declared_size, declared);
        assert_eq!(c.original_len, map.payload.len());
        // an edit elsewhere keeps MAP's declared size
        let mut level = level;
        level.font_mut().expect("font").glyphs[0].advance = 9;
        let out = level.to_bytes().unwrap();
        assert_eq!(&out[size_at..size_at + 4], &declared.to_le_bytes());
    }

    #[test]
    fn map_before_trak_is_an_error_at_map() {
        let mut level = sample_level();
        let trak = level
            .chunks
            .iter()
            .position(|c| c.tag == Tag::TRAK)
            .expect("TRAK");
        let t = level.chunks.remove(trak);
        level.chunks.push(t);
        let bytes = Level::new(level.chunks).to_bytes().unwrap();
        let (raw, _) = RawWad::parse(&bytes).expect("raw");
        let map = raw.chunks.iter().find(|c| c.tag == Tag::MAP).expect("MAP");
        let e = Level::read(&bytes).expect_err("order");
        assert_eq!(e.offset as usize, map.payload_offset());
        assert!(
            e.to_string()
                .contains(" in MAP: MAP needs a TRAK chunk before it"),
            "{e}"
        );
    }

    #[test]
    fn a_payload_longer_than_its_model_is_an_error() {
        let mut level = sample_level();
        // WFPC with 8 bytes: the game reads 4 and would take the rest for the next tag
        level.chunks[2] = Chunk::new(
            Tag::WFPC,
            ChunkData::Unknown(vec![0x10, 0, 0x10, 0, 9, 9, 9, 9]),
        )
        .unwrap();
        let bytes = Level::new(level.chunks).to_bytes().unwrap();
        let e = Level::read(&bytes).expect_err("trailing");
        // INFO 12 + VERS 12 + header 4 → WFPC at 28, payload 36, 4 bytes read → 40
        assert_eq!(e.offset, 40);
        assert!(e.to_string().contains("in WFPC: 4 unread bytes"), "{e}");
    }

    #[test]
    fn unusual_info_is_a_warning_not_an_error() {
        let mut level = sample_level();
        level.chunks[0] = Chunk::new(Tag::INFO, ChunkData::Info(vec![2, 0, 0, 0, 0])).unwrap();
        let bytes = Level::new(level.chunks).to_bytes().unwrap();
        let (back, warnings) = Level::read(&bytes).expect("parses");
        assert_eq!(warnings.len(), 1);
        // INFO payload at 4 + 8
        assert_eq!(warnings[0].offset, 12);
        assert!(warnings[0].to_string().contains("in INFO: 5 bytes where"));
        assert_eq!(back.to_bytes().unwrap(), bytes);
    }

    #[test]
    fn stpc_parts_kept_verbatim_are_reported_as_warnings() {
        fn with_stpc(flags: u32, stpc: Stpc) -> Vec<u8> {
            let mut level = sample_level();
            for c in &mut level.chunks {
                match &mut c.data {
                    ChunkData::Wfpc(w) => w.flags = flags,
                    ChunkData::Stpc(s) => *s = stpc.clone(),
                    _ => {}
                }
            }
            Level::new(level.chunks).to_bytes().unwrap()
        }
        // One animation announced, but only 8 bytes follow (a record header alone is 32).
        let bytes = with_stpc(
            FLAGS,
            Stpc {
                animation_count: 1,
                rest: vec![7; 8],
                ..Stpc::default()
            },
        );
        let (level, warnings) = Level::read(&bytes).expect("parses");
        let stpc_at = levelgeom_wad::container::RawWad::parse(&bytes)
            .expect("raw")
            .0
            .chunks
            .iter()
            .find(|c| c.tag == Tag::STPC)
            .expect("STPC")
            .payload_offset();
        let w: Vec<String> = warnings.iter().map(|w| w.to_string()).collect();
        assert_eq!(
            w,
            [format!("at 0x{stpc_at:08X} in STPC: only 0 of the 1 animation records fit the known layout; the rest of the chunk (8 bytes) is kept verbatim")]
        );
        assert_eq!(level.to_bytes().unwrap(), bytes);
        // WFPC 0x100 announces the cutscene tail; a count of 0xFFFFFFFF cannot be one.
        let bytes = with_stpc(
            FLAGS | 0x100,
            Stpc {
                rest: vec![0xFF; 4],
                ..Stpc::default()
            },
        );
        let (level, warnings) = Level::read(&bytes).expect("parses");
        assert_eq!(warnings.len(), 1, "{warnings:?}");
        assert!(
            warnings[0].to_string().ends_with("in STPC: WFPC has 0x100 but the cutscene tail does not fit the known layout; the rest of the chunk (4 bytes) is kept verbatim"),
            "{}",
            warnings[0]
        );
        assert_eq!(level.stpc().map(|s| s.rest.len()), Some(4));
        assert_eq!(level.to_bytes().unwrap(), bytes);
    }

    #[test]
    fn unknown_chunks_are_kept_raw() {
        let mut level = sample_level();
        let end = level.chunks.len() - 1;
        level.chunks.insert(
            end,
            Chunk::new(Tag::RIMG, ChunkData::Unknown(vec![1, 2, 3])).unwrap(),
        );
        let bytes = Level::new(level.chunks).to_bytes().unwrap();
        let (back, _) = Level::read(&bytes).expect("parses");
        assert_eq!(
            back.chunk(Tag::RIMG).map(|c| &c.data),
            Some(&ChunkData::Unknown(vec![1, 2, 3]))
        );
        assert_eq!(back.to_bytes().unwrap(), bytes);
    }
}

// ---------------------------------------------------------------------------------------------
// The independently written test file (tools/fixtures/make_indep_wad.py, written from the
// specs without reading this code): its texels were computed by that script.

mod independent {
    use levelgeom_wad::level::Level;
    use levelgeom_wad::text::{abgr1555_to_rgba8, PageData};

    fn indep() -> Vec<u8> {
        let p = concat!(
            env!("CARGO_MANIFEST_DIR"),
            "/tests/data/independent/indep.wad"
        );
        std::fs::read(p).expect("tests/data/independent/indep.wad")
    }

    #[test]
    fn lgpc_table_of_the_independent_file() {
        // indep.expect.json "lgpc": per string its English, Italian and voice-id rows
        let (level, _) = Level::read(&indep()).expect("parses");
        let lgpc = level.lgpc().expect("LGPC");
        assert_eq!((lgpc.rows(), lgpc.cols), (3, 2));
        let want: Vec<Vec<&[u8]>> = vec![
            vec![b"Hello Kuzco", b"Ciao Kuzco", b"#101"],
            vec![b"Pull the lever", b"Tira la leva", b"#102"],
        ];
        assert_eq!(lgpc.table(), Some(want));
        // the script stores each length with its NUL: 12, 11, 5, 15, 13, 5
        assert_eq!(lgpc.lengths, [12, 11, 5, 15, 13, 5]);
        let mut short = lgpc.clone();
        short.cols = 3;
        assert_eq!(short.table(), None);
    }

    #[test]
    fn texels_of_all_three_page_kinds() {
        let (level, warnings) = Level::read(&indep()).expect("parses");
        assert!(warnings.is_empty(), "{warnings:?}");
        let text = level.text().expect("TEXT");
        assert_eq!(text.pages.len(), 3);
        assert!(matches!(&text.pages[0].data, PageData::Rle(s) if s.len() == 19282));
        // (page, x, y, ABGR1555 word, RGBA8) from indep.expect.json
        #[rustfmt::skip]
        let texels: [(usize, u32, u32, u16, [u8; 4]); 19] = [
            (0, 0, 0, 32799, [255, 0, 0, 255]),
            (0, 10, 0, 37898, [82, 0, 41, 255]),
            (0, 11, 16, 38411, [90, 132, 41, 255]),
            (0, 12, 16, 32799, [255, 0, 0, 255]),
            (0, 70, 10, 33760, [0, 255, 0, 255]),
            (0, 200, 100, 65535, [255, 255, 255, 255]),
            (0, 5, 130, 40005, [41, 16, 57, 255]),
            (0, 31, 150, 42719, [255, 181, 74, 255]),
            (0, 255, 159, 33791, [255, 255, 0, 255]),
            (0, 10, 200, 0, [0, 0, 0, 0]),
            (0, 255, 255, 60707, [24, 74, 222, 255]),
            (1, 0, 0, 32768, [0, 0, 0, 255]),
            (1, 31, 0, 64543, [255, 0, 255, 255]),
            (1, 7, 19, 60007, [57, 156, 214, 255]),
            (1, 31, 31, 64511, [255, 255, 247, 255]),
            (2, 0, 0, 0, [0, 0, 0, 0]),
            (2, 1, 0, 38818, [16, 239, 41, 255]),
            (2, 3, 5, 33978, [214, 41, 8, 255]),
            (2, 31, 31, 33978, [214, 41, 8, 255]),
        ];
        let rgba: Vec<Vec<u8>> = text
            .pages
            .iter()
            .map(|p| p.to_rgba8(&text.palettes).expect("decodes"))
            .collect();
        for (page, x, y, word, want) in texels {
            let p = &text.pages[page];
            let i = (y * p.width + x) as usize;
            if page < 2 {
                assert_eq!(
                    p.pixels16().expect("16-bit")[i],
                    word,
                    "page {page} ({x},{y})"
                );
            }
            assert_eq!(abgr1555_to_rgba8(word), want);
            assert_eq!(
                &rgba[page][i * 4..i * 4 + 4],
                &want,
                "page {page} ({x},{y})"
            );
        }
        let d = text.pages[0].decode_rle().expect("rle").expect("decodes");
        assert!(!d.overrun);
    }
}
