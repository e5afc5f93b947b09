//! `extract` and `replace` on the generated modder level (`generate::modder_level`: two SMPC
//! sounds, the second a 440 Hz sine; an LGPC table of two strings in two languages plus voice
//! ids; a NAME; a FONT). Expected values come from the generator's inputs and from the WAD's
//! own bytes at the offsets the manifest names, never from the extracted files alone.

use std::path::{Path, PathBuf};

use levelgeom_wad::generate::{self, MODDER_STRINGS};
use levelgeom_wad::level::{ChunkData, Level};
use serde_json::Value;

use crate::common::{gltf_validator, json, levelgeom, ok, s, wav_bytes, write_wad};

fn modder_wad(dir: &Path) -> (PathBuf, Vec<u8>) {
    let (level, _) = generate::modder_level().unwrap();
    write_wad(dir, "modder.wad", level.to_bytes().unwrap())
}

/// The samples and rate of a PCM WAV, read by walking its RIFF chunks.
fn wav(path: &Path) -> (Vec<i16>, u32) {
    let b = std::fs::read(path).unwrap();
    assert_eq!(&b[0..4], b"RIFF");
    assert_eq!(&b[8..12], b"WAVE");
    let (mut at, mut rate, mut data) = (12usize, 0u32, Vec::new());
    while at + 8 <= b.len() {
        let id = &b[at..at + 4];
        let n = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as usize;
        let body = &b[at + 8..at + 8 + n];
        if id == b"fmt " {
            assert_eq!(u16::from_le_bytes([body[0], body[1]]), 1, "PCM");
            assert_eq!(u16::from_le_bytes([body[2], body[3]]), 1, "mono");
            rate = u32::from_le_bytes(body[4..8].try_into().unwrap());
            assert_eq!(u16::from_le_bytes([body[14], body[15]]), 16, "16-bit");
        } else if id == b"data" {
            data = body
                .chunks_exact(2)
                .map(|c| i16::from_le_bytes([c[0], c[1]]))
                .collect();
        }
        at += 8 + n + (n & 1);
    }
    (data, rate)
}

/// A mono 16-bit PCM WAV written by hand.
fn write_wav(path: &Path, samples: &[i16], rate: u32) {
    let data: Vec<u8> = samples.iter().flat_map(|v| v.to_le_bytes()).collect();
    std::fs::write(path, wav_bytes(1, 1, 16, rate, &data)).unwrap();
}

fn item<'a>(manifest: &'a Value, kind: &str, index: u64) -> &'a Value {
    manifest["items"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|i| i["kind"] == kind)
        .find(|i| i["index"].as_u64().unwrap_or(0) == index)
        .unwrap_or_else(|| panic!("no {kind} {index} in the manifest"))
}

fn snr_db(got: &[i16], want: &[i16]) -> f64 {
    let (mut sig, mut noise) = (0f64, 0f64);
    for (g, w) in got.iter().zip(want) {
        sig += f64::from(*w).powi(2);
        noise += (f64::from(*g) - f64::from(*w)).powi(2);
    }
    10.0 * (sig / noise).log10()
}

#[test]
fn extract_writes_sounds_strings_name_and_font_where_the_manifest_says() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, bytes) = modder_wad(dir.path());
    let out = dir.path().join("x");
    ok(&["extract", s(&wad), s(&out)]);
    let m = json(&out.join("manifest.json"));

    // the sine: where the manifest says, the WAD holds "cvg " and then this sound's ADPCM
    let (level, _) = Level::read(&bytes).unwrap();
    let smpc = level
        .chunks
        .iter()
        .find_map(|c| match &c.data {
            ChunkData::Smpc(s) => Some(s),
            _ => None,
        })
        .unwrap();
    for (i, snd) in smpc.sounds.iter().enumerate() {
        let it = item(&m, "sound", i as u64);
        let off = it["offset"].as_u64().unwrap() as usize;
        assert_eq!(&bytes[off..off + 4], b"cvg ");
        let a = it["adpcm_offset"].as_u64().unwrap() as usize;
        assert_eq!(&bytes[a..a + snd.adpcm.len()], &snd.adpcm[..]);
        assert_eq!(it["file"], format!("smpc_{i:03}.wav"));
    }
    let (got, rate) = wav(&out.join("smpc_001.wav"));
    assert_eq!(rate, 22050);
    let want = generate::modder_sine();
    assert_eq!(got.len(), want.len());
    // the bound of crates/wad/tests/wad/modder.rs (48.8 dB for this sine)
    assert!(snr_db(&got, &want) >= 48.8);

    // strings: the generator's texts, each at its offset in the WAD followed by a NUL
    let st = json(&out.join("strings.json"));
    assert_eq!(
        (st["rows"].as_u64(), st["columns"].as_u64()),
        (Some(3), Some(2))
    );
    let list = st["strings"].as_array().unwrap();
    assert_eq!(list.len(), 6);
    for e in list {
        let (c, r) = (
            e["column"].as_u64().unwrap() as usize,
            e["row"].as_u64().unwrap() as usize,
        );
        let text = MODDER_STRINGS[c][r];
        assert_eq!(e["text"], text);
        assert_eq!(e["voice_id"], r == 2);
        let off = e["offset"].as_u64().unwrap() as usize;
        assert_eq!(
            &bytes[off..off + text.len() + 1],
            format!("{text}\0").as_bytes()
        );
    }
    let csv = std::fs::read_to_string(out.join("strings.csv")).unwrap();
    assert_eq!(
        csv,
        "column,row_0,row_1,row_2\r\n0,Pull the lever!,Zieh den Hebel!,#101\r\n1,Wrong lever!,Falscher Hebel!,#102\r\n"
    );
    // the level name and the font sheet
    let name = m["items"]
        .as_array()
        .unwrap()
        .iter()
        .find(|i| i["kind"] == "name")
        .unwrap();
    assert_eq!(name["text"], "Synthetic Island");
    let off = name["offset"].as_u64().unwrap() as usize;
    assert_eq!(&bytes[off..off + 16], b"Synthetic Island");
    let png = std::fs::read(out.join("font.png")).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    // the demo's glyphs name 14×16 entries of its font page: a 16×16 sheet of 14×16 cells,
    // 224×256 (IHDR size)
    assert_eq!(&png[16..24], &[0, 0, 0, 224, 0, 0, 1, 0]);
    // glyph 0x41 'A' (row 4, column 1 of the sheet: cell at x 14, y 64) is a 5×7 'A' drawn at
    // twice its size, 2 texels in and 1 down; the pattern written here by hand, not taken from
    // the generator's table
    let a = [
        "01110", "10001", "10001", "10001", "11111", "10001", "10001",
    ];
    let mut dec = png::Decoder::new(std::io::Cursor::new(&png))
        .read_info()
        .unwrap();
    let mut px = vec![0u8; dec.output_buffer_size().unwrap()];
    dec.next_frame(&mut px).unwrap();
    let alpha = |x: usize, y: usize| px[(y * 224 + x) * 4 + 3];
    // font.json names that cell for 'A', with the metrics chosen for it by hand
    // (generate::MODDER_GLYPHS: y offset 16, advance 13, height 18; texture entry 68 + 0x21)
    let fj = json(&out.join("font.json"));
    let ga = &fj["glyphs"][0x41];
    assert_eq!(ga["char"], "A");
    assert_eq!(ga["sheet"], serde_json::json!([14, 64, 14, 16]));
    let got = ["texture", "y_offset", "advance", "height"].map(|k| ga[k].as_u64().unwrap());
    assert_eq!(got, [101, 16, 13, 18]);
    let (cx, cy) = (
        ga["sheet"][0].as_u64().unwrap() as usize,
        ga["sheet"][1].as_u64().unwrap() as usize,
    );
    for (gy, row) in a.iter().enumerate() {
        for (gx, bit) in row.bytes().enumerate() {
            for (dx, dy) in [(0, 0), (1, 1)] {
                let (x, y) = (cx + 2 + 2 * gx + dx, cy + 1 + 2 * gy + dy);
                assert_eq!(alpha(x, y) == 255, bit == b'1', "'A' at ({gx}, {gy})");
            }
        }
    }
    // and the space (0x20, cell 0 of row 2) is empty
    assert!((0..14).all(|x| (32..48).all(|y| alpha(x, y) == 0)));

    // a folder holding someone else's files is refused; with --force it is written
    let foreign = dir.path().join("foreign");
    std::fs::create_dir(&foreign).unwrap();
    std::fs::write(foreign.join("mine.txt"), b"x").unwrap();
    let o = levelgeom(&["extract", s(&wad), s(&foreign)]);
    assert_eq!(o.status.code(), Some(2));
    assert!(!foreign.join("manifest.json").exists());
    ok(&["extract", s(&wad), s(&foreign), "--force"]);
    assert!(foreign.join("manifest.json").is_file() && foreign.join("mine.txt").is_file());
}

#[test]
fn replace_with_the_extracted_files_gives_the_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, bytes) = modder_wad(dir.path());
    let out = dir.path().join("x");
    ok(&["extract", s(&wad), s(&out)]);
    let back = dir.path().join("back.wad");
    ok(&[
        "replace",
        s(&wad),
        s(&back),
        "--strings",
        s(&out.join("strings.json")),
        "--sound",
        &format!("0={}", s(&out.join("smpc_000.wav"))),
        "--sound",
        &format!("smpc_001={}", s(&out.join("smpc_001.wav"))),
    ]);
    assert_eq!(std::fs::read(&back).unwrap(), bytes);
    // the output exists now: not replaced without --force, and never the input
    let o = levelgeom(&[
        "replace",
        s(&wad),
        s(&back),
        "--strings",
        s(&out.join("strings.json")),
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = levelgeom(&[
        "replace",
        s(&wad),
        s(&wad),
        "--strings",
        s(&out.join("strings.json")),
        "--force",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert_eq!(std::fs::read(&wad).unwrap(), bytes);
}

#[test]
fn other_wav_layouts_are_converted_to_the_mono_16_bit_samples() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, bytes) = modder_wad(dir.path());
    let x = dir.path().join("x");
    ok(&["extract", s(&wad), s(&x)]);
    let (samples, rate) = wav(&x.join("smpc_000.wav"));
    // the same samples as stereo 16-bit (both channels), 24-bit (s · 256) and float
    // (s / 32768, exact in f32), each mixed/scaled back to exactly the extracted samples: the
    // sound is the one already there, so the WAD comes back byte for byte
    let stereo: Vec<u8> = samples
        .iter()
        .flat_map(|v| [v.to_le_bytes(), v.to_le_bytes()].concat())
        .collect();
    let b24: Vec<u8> = samples
        .iter()
        .flat_map(|&v| (i32::from(v) * 256).to_le_bytes()[..3].to_vec())
        .collect();
    let float: Vec<u8> = samples
        .iter()
        .flat_map(|&v| (f32::from(v) / 32768.0).to_le_bytes())
        .collect();
    for (name, tag, ch, bits, data) in [
        ("stereo", 1u16, 2u16, 16u16, stereo),
        ("b24", 1, 1, 24, b24),
        ("float", 3, 1, 32, float),
    ] {
        let p = dir.path().join(format!("{name}.wav"));
        std::fs::write(&p, wav_bytes(tag, ch, bits, rate, &data)).unwrap();
        let back = dir.path().join(format!("{name}.wad"));
        let o = ok(&[
            "replace",
            s(&wad),
            s(&back),
            "--sound",
            &format!("0={}", s(&p)),
        ]);
        let text = String::from_utf8_lossy(&o.stdout).to_string();
        assert!(
            text.contains("converted to mono 16-bit PCM") && text.contains("1 sound(s) unchanged"),
            "{name}: {text}"
        );
        assert_eq!(std::fs::read(&back).unwrap(), bytes, "{name}");
    }
    // stereo (1000, −201) → mean 399.5 → 400 (ties away from zero); 8-bit unsigned 0xC0 → 64
    // → 16384: a sound of new samples, re-encoded (decoded back within ADPCM's error)
    let p = dir.path().join("mix.wav");
    let frames = 2800usize;
    let data: Vec<u8> = (0..frames)
        .flat_map(|_| [1000i16.to_le_bytes(), (-201i16).to_le_bytes()].concat())
        .collect();
    std::fs::write(&p, wav_bytes(1, 2, 16, 22050, &data)).unwrap();
    let p8 = dir.path().join("u8.wav");
    std::fs::write(&p8, wav_bytes(1, 1, 8, 11025, &vec![0xC0u8; frames])).unwrap();
    let back = dir.path().join("mix.wad");
    ok(&[
        "replace",
        s(&wad),
        s(&back),
        "--sound",
        &format!("0={}", s(&p)),
        "--sound",
        &format!("1={}", s(&p8)),
    ]);
    let y = dir.path().join("y");
    ok(&["extract", s(&back), s(&y)]);
    for (k, want, r) in [(0, 400i16, 22050u32), (1, 16384, 11025)] {
        let (got, got_rate) = wav(&y.join(format!("smpc_00{k}.wav")));
        assert_eq!(got_rate, r, "sound {k}");
        assert_eq!(got.len(), frames, "sound {k}");
        // steady state after the first block (ADPCM starts from 0)
        let worst = got[56..]
            .iter()
            .map(|&v| (i32::from(v) - i32::from(want)).abs())
            .max()
            .unwrap();
        assert!(worst <= 16, "sound {k}: off by {worst}");
    }
}

#[test]
fn one_edited_string_and_one_edited_sound_are_exactly_what_changes() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, bytes) = modder_wad(dir.path());
    let a = dir.path().join("a");
    ok(&["extract", s(&wad), s(&a)]);
    // one string longer (so LGPC grows and re-lays), with a non-ASCII ISO-8859-1 letter
    let mut st = json(&a.join("strings.json"));
    let new_text = "Falscher Hebel, Kuzco! Übel.";
    for e in st["strings"].as_array_mut().unwrap() {
        if e["column"] == 1 && e["row"] == 1 {
            e["text"] = Value::from(new_text);
        }
    }
    let edited = dir.path().join("edited.json");
    std::fs::write(&edited, serde_json::to_string(&st).unwrap()).unwrap();
    // sound 0 becomes a 1 kHz square-ish tone of 3 blocks + 5 samples (padded to 4 blocks)
    let tone: Vec<i16> = (0..89)
        .map(|k| if (k / 11) % 2 == 0 { 6000 } else { -6000 })
        .collect();
    let tone_wav = dir.path().join("tone.wav");
    write_wav(&tone_wav, &tone, 11025);
    let new = dir.path().join("new.wad");
    ok(&[
        "replace",
        s(&wad),
        s(&new),
        "--strings",
        s(&edited),
        "--sound",
        &format!("0={}", s(&tone_wav)),
    ]);
    let nb = std::fs::read(&new).unwrap();
    // header keeps its bias (0: length − 4), the level checks clean
    assert_eq!(
        u32::from_le_bytes(nb[0..4].try_into().unwrap()) as usize,
        nb.len() - 4
    );
    ok(&["check", s(&new)]);
    // every chunk but SMPC and LGPC keeps its payload and size field
    let (old_l, _) = Level::read(&bytes).unwrap();
    let (new_l, _) = Level::read(&nb).unwrap();
    assert_eq!(old_l.chunks.len(), new_l.chunks.len());
    for (o, n) in old_l.chunks.iter().zip(&new_l.chunks) {
        assert_eq!(o.tag, n.tag);
        let (po, pn) = (o.offset.unwrap() + 8, n.offset.unwrap() + 8);
        let (bo, bn) = (
            &bytes[po..po + o.original_len],
            &nb[pn..pn + n.original_len],
        );
        if o.tag == levelgeom_wad::Tag::SMPC || o.tag == levelgeom_wad::Tag::LGPC {
            assert_ne!(bo, bn, "{:?} changed", o.tag);
        } else {
            assert_eq!(bo, bn, "{:?} untouched", o.tag);
            assert_eq!(o.declared_size, n.declared_size);
        }
    }
    // extract again: exactly those edits
    let b = dir.path().join("b");
    ok(&["extract", s(&new), s(&b)]);
    let (sa, sb) = (json(&a.join("strings.json")), json(&b.join("strings.json")));
    for (x, y) in sa["strings"]
        .as_array()
        .unwrap()
        .iter()
        .zip(sb["strings"].as_array().unwrap())
    {
        if x["column"] == 1 && x["row"] == 1 {
            assert_eq!(y["text"], new_text);
        } else {
            assert_eq!(x["text"], y["text"]);
        }
    }
    // stored as ISO-8859-1 (Ü one byte) + NUL, and its length field moved by the change
    let stored = nb_offset_text(&nb, &sb, 1, 1);
    assert_eq!(stored, new_text.chars().count() + 1);
    let (lo, ln) = (old_l.lgpc().unwrap(), new_l.lgpc().unwrap());
    assert_eq!(
        ln.lengths[4] as usize, stored,
        "column 1, row 1 (column-major: 1·3 + 1)"
    );
    assert_eq!(lo.lengths[4] as usize, "Falscher Hebel!".len() + 1);
    assert_eq!(
        (&lo.lengths[..4], &lo.lengths[5..]),
        (&ln.lengths[..4], &ln.lengths[5..])
    );
    assert_eq!(
        std::fs::read(a.join("smpc_001.wav")).unwrap(),
        std::fs::read(b.join("smpc_001.wav")).unwrap(),
        "the sine is untouched"
    );
    let (got, rate) = wav(&b.join("smpc_000.wav"));
    assert_eq!(rate, 11025);
    assert_eq!(got.len(), 4 * 28, "89 samples padded to whole blocks");
    assert!(
        snr_db(&got[..89], &tone) > 20.0,
        "{}",
        snr_db(&got[..89], &tone)
    );
    assert!(
        got[89..].iter().all(|v| v.unsigned_abs() < 700),
        "padding is near silence"
    );
}

/// The stored bytes of a string at the offset strings.json names: its ISO-8859-1 length + NUL.
fn nb_offset_text(wad: &[u8], st: &Value, c: u64, r: u64) -> usize {
    let e = st["strings"]
        .as_array()
        .unwrap()
        .iter()
        .find(|e| e["column"] == c && e["row"] == r)
        .unwrap();
    let off = e["offset"].as_u64().unwrap() as usize;
    let end = wad[off..].iter().position(|&b| b == 0).unwrap();
    let latin1: String = wad[off..off + end].iter().map(|&b| char::from(b)).collect();
    assert_eq!(latin1, e["text"].as_str().unwrap());
    end + 1
}

#[test]
fn bad_replacements_are_refused_with_a_reason() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = modder_wad(dir.path());
    let a = dir.path().join("a");
    ok(&["extract", s(&wad), s(&a)]);
    let out = dir.path().join("o.wad");
    let refused = |args: &[&str], needle: &str| {
        let o = levelgeom(args);
        let err = String::from_utf8_lossy(&o.stderr).to_string();
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        assert!(err.contains(needle), "{args:?}: {err}");
        assert!(!out.exists());
    };
    // a WAV with an odd number of samples for its two channels
    let odd = dir.path().join("odd.wav");
    let mut b = std::fs::read(a.join("smpc_000.wav")).unwrap();
    b[22] = 2; // channels, then byte rate and block align to match
    let rate = u32::from_le_bytes(b[24..28].try_into().unwrap());
    b[28..32].copy_from_slice(&(rate * 4).to_le_bytes());
    b[32] = 4;
    let n = u32::from_le_bytes(b[40..44].try_into().unwrap());
    if n % 4 == 0 {
        // one sample fewer (a whole frame is 4 bytes)
        b[40..44].copy_from_slice(&(n - 2).to_le_bytes());
        b.truncate(b.len() - 2);
        let riff = u32::from_le_bytes(b[4..8].try_into().unwrap());
        b[4..8].copy_from_slice(&(riff - 2).to_le_bytes());
    }
    std::fs::write(&odd, &b).unwrap();
    let arg = format!("0={}", s(&odd));
    refused(
        &["replace", s(&wad), s(&out), "--sound", &arg],
        "RIFF chunk 'data' at 0x00000024: 110 bytes are not a whole number of 4-byte frames",
    );
    // a sound that does not exist, an ID that is no number
    let arg = format!("7={}", s(&a.join("smpc_000.wav")));
    refused(
        &["replace", s(&wad), s(&out), "--sound", &arg],
        "SMPC has 2 sounds",
    );
    let arg = format!("x={}", s(&a.join("smpc_000.wav")));
    refused(
        &["replace", s(&wad), s(&out), "--sound", &arg],
        "no SMPC sound number",
    );
    // a character outside ISO-8859-1, a cell outside the table
    for (text, col, needle) in [("50 €", 0, "ISO-8859-1"), ("x", 9, "outside the table")] {
        let mut st = json(&a.join("strings.json"));
        st["strings"][0]["text"] = Value::from(text);
        st["strings"][0]["column"] = Value::from(col);
        let p = dir.path().join("bad.json");
        std::fs::write(&p, serde_json::to_string(&st).unwrap()).unwrap();
        refused(&["replace", s(&wad), s(&out), "--strings", s(&p)], needle);
    }
    refused(&["replace", s(&wad), s(&out)], "needs --strings");
}

/// SRPC speech lives in `Music/ENGLISH.CVS`: with `--cvs`, the entry's slice (the demo's one
/// entry: offset 0, 0x800 bytes, rate code 2048 → 22050 Hz) is decoded; a file too short for the
/// slice gives a warning and no WAV.
#[test]
fn speech_comes_from_the_cvs_file() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = modder_wad(dir.path());
    // 0x800 bytes = 128 blocks = 3584 samples of a 440 Hz sine, A = 16000
    let sine: Vec<i16> = (0..3584)
        .map(|k| {
            (16000.0 * (std::f64::consts::TAU * 440.0 * f64::from(k) / 22050.0).sin()).round()
                as i16
        })
        .collect();
    let cvs = dir.path().join("ENGLISH.CVS");
    let stream = levelgeom_wad::adpcm::encode(&sine, &Default::default());
    assert_eq!(stream.len(), 0x800);
    std::fs::write(&cvs, &stream).unwrap();
    let out = dir.path().join("x");
    ok(&["extract", s(&wad), s(&out), "--cvs", s(&cvs)]);
    let (got, rate) = wav(&out.join("srpc_000.wav"));
    assert_eq!((rate, got.len()), (22050, 3584));
    assert!(snr_db(&got, &sine) >= 48.8);
    let m = json(&out.join("manifest.json"));
    let sp = item(&m, "speech", 0);
    assert_eq!(
        (sp["id"].as_u64(), sp["cvs_size"].as_u64()),
        (Some(1), Some(0x800))
    );
    assert_eq!(sp["rate_hz"].as_f64(), Some(22050.0));

    std::fs::write(&cvs, &stream[..100]).unwrap();
    let o = ok(&["extract", s(&wad), s(&out), "--cvs", s(&cvs)]);
    assert!(String::from_utf8_lossy(&o.stderr).contains("past the end of the CVS file"));
    assert!(
        !out.join("srpc_000.wav").exists(),
        "the old output was replaced as a whole"
    );
}

/// `export --objects` of the modder level: the GLB nodes carry the MAP objects' positions,
/// yaw and raw fields, level.glb the three lights as `KHR_lights_punctual`, `lights.json` the
/// same in export space; both GLBs pass the Khronos validator (when installed).
#[test]
fn objects_and_lights_in_the_glb_files() {
    use levelgeom_testkit::glb::Glb;
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = modder_wad(dir.path());
    let (_, facts) = generate::modder_level().unwrap();
    let out = dir.path().join("e");
    ok(&["export", s(&wad), s(&out), "--objects", "--format", "gltf"]);
    let g = Glb::read(&out.join("objects.glb"));
    assert_eq!(g.root_names(), ["objects"]);
    // object 0: yaw 1024 (a quarter turn), local z negated: columns (0,0,1) (0,1,0) (1,0,0)
    let n = g.node("map_object_000");
    let m: Vec<f64> = n["matrix"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    let want = [
        0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 5.5, 1.0, -5.5, 1.0,
    ];
    for (a, b) in m.iter().zip(want) {
        assert!((a - b).abs() < 1e-6, "{m:?}");
    }
    assert_eq!(n["extras"]["definition_offset"], facts.direct.to_string());
    assert_eq!(n["extras"]["rot_y"], "1024");
    assert_eq!(n["extras"]["pos_z"], (5.5f64 * 4096.0).to_string());
    assert_eq!(
        g.node("map_object_001")["extras"]["mesh_reference"],
        "delegated"
    );
    assert!(g.node("map_object_002")["children"].is_array());
    g.node("map_object_002_marker");
    // the crate's one mesh, placed twice
    let crate_mesh = |name: &str| g.node(name)["mesh"].as_u64().unwrap();
    assert_eq!(
        crate_mesh("map_object_000_stpc_000"),
        crate_mesh("map_object_003_stpc_000")
    );

    let level = Glb::read(&out.join("level.glb"));
    let lights = level.json["extensions"]["KHR_lights_punctual"]["lights"]
        .as_array()
        .unwrap();
    let types: Vec<&str> = lights.iter().map(|l| l["type"].as_str().unwrap()).collect();
    assert_eq!(types, ["directional", "point", "point"]);
    assert_eq!(lights[1]["range"].as_f64(), Some(1.0));
    let lj = json(&out.join("lights.json"));
    let l1 = &lj["lights"][1];
    assert_eq!(l1["position"], serde_json::json!([10.0, 2.0, -10.0]));
    assert_eq!(l1["offset"].as_u64().map(|o| o > 0), Some(true));
    let l2 = &lj["lights"][2];
    assert_eq!(
        (l2["type"].as_u64(), l2["kind"].as_str()),
        (Some(4), Some("negative_point"))
    );

    let files = ["objects.glb", "level.glb"];
    let Some(reports) = gltf_validator(&files.map(|f| out.join(f))) else {
        return;
    };
    for (f, v) in files.iter().zip(reports) {
        assert!(
            v.passed && v.report.contains("0 errors, 0 warnings"),
            "{f}: {}",
            v.report
        );
    }
}

/// `info --json` names the texture-entry flags: the modder level's last entry is flagged
/// 0xA37E (hand-decoded: cut-out 0x2, padded border 0x4, double width 0x8, double height 0x10,
/// generated page 0x20, mode 3, blend mode 2, unknown bits 0x40 | 0x8000).
#[test]
fn info_json_names_texture_entry_flags() {
    let dir = tempfile::tempdir().unwrap();
    let (wad, _) = modder_wad(dir.path());
    let o = ok(&["info", s(&wad), "--json"]);
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let entries = v["entries"].as_array().unwrap();
    let e = entries.last().unwrap();
    assert_eq!(e["flags"]["value"], 0xA37E);
    assert_eq!(
        e["flags"]["names"],
        serde_json::json!([
            "cutout",
            "padded_border",
            "double_width",
            "double_height",
            "generated_page"
        ])
    );
    assert_eq!(
        (
            &e["flags"]["mode"],
            &e["flags"]["blend_mode"],
            &e["flags"]["unknown"]
        ),
        (&Value::from(3), &Value::from(2), &Value::from(0x8040))
    );
}
