//! `extract` and `replace` on the independent WAD (written from the notes by
//! `make_indep_wad.py`): its strings, name, sound and offsets against the Python expectations
//! and against samples decoded by hand from its known ADPCM bytes.

use levelgeom_core::{ExtractOptions, ReplaceOptions};
use serde_json::Value;

use crate::{indep_wad, workspace};

fn expect() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(workspace(
            "crates/wad/tests/data/independent/indep.expect.json",
        ))
        .unwrap(),
    )
    .unwrap()
}

fn payload_offset(e: &Value, tag: &str) -> u64 {
    e["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tag"] == tag)
        .unwrap()["payload_offset"]
        .as_u64()
        .unwrap()
}

#[test]
fn the_independent_wad_extracts_what_its_generator_put_in() {
    let e = expect();
    let level = levelgeom_core::open(&indep_wad()).unwrap();
    let tmp = tempfile::tempdir().unwrap();
    let out = tmp.path().join("x");
    let r = level.extract(&out, &ExtractOptions::default()).unwrap();
    let items = r.manifest["items"].as_array().unwrap();
    let find = |k: &str| items.iter().find(|i| i["kind"] == k).unwrap();

    // strings: the construction inputs, column by column, rows = 2 languages + voice id;
    // offsets: after the 12-byte head and 6 lengths, the strings back to back with NULs
    let st: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("strings.json")).unwrap()).unwrap();
    let mut at = payload_offset(&e, "LGPC") + 12 + 4 * 6;
    let list = st["strings"].as_array().unwrap();
    assert_eq!(list.len(), 6);
    for (k, s) in list.iter().enumerate() {
        let (c, r) = (k / 3, k % 3);
        assert_eq!(
            (s["column"].as_u64(), s["row"].as_u64()),
            (Some(c as u64), Some(r as u64))
        );
        assert_eq!(s["text"], e["lgpc"][c][r]);
        assert_eq!(s["offset"].as_u64(), Some(at));
        at += s["text"].as_str().unwrap().len() as u64 + 1;
    }
    // the name
    assert_eq!(find("name")["text"], e["name"]);
    assert_eq!(
        find("name")["offset"].as_u64(),
        Some(payload_offset(&e, "NAME") + 4)
    );
    // the sound: entry after the u32 count, ADPCM after type, size and the 20-byte header
    let snd = find("sound");
    let p = payload_offset(&e, "SMPC");
    assert_eq!(snd["offset"].as_u64(), Some(p + 4));
    assert_eq!(snd["adpcm_offset"].as_u64(), Some(p + 4 + 8 + 20));
    assert_eq!(snd["header"]["sample_rate"], e["smpc"][0]["sample_rate"]);
    assert_eq!(snd["samples"].as_u64(), Some(2 * 28));
    // the bytes are (i·37 + 11) & 0xFF: block 0 has byte 0 = 0x0B (shift 11, filter 0: no
    // prediction), so each sample is sign_extend(nibble) << 12 >> 11 = 2·nibble, low nibble
    // first: 0x55 → 10, 10; 0x7A → −12, 14; …
    let bytes: Vec<u8> = (0..32u32).map(|i| ((i * 37 + 11) & 0xFF) as u8).collect();
    let want: Vec<i16> = bytes[2..16]
        .iter()
        .flat_map(|&b| [b & 0x0F, b >> 4])
        .map(|n| 2 * (i16::from(n as i8) - if n >= 8 { 16 } else { 0 }))
        .collect();
    assert_eq!(&want[..4], &[10, 10, -12, 14]);
    let wav = std::fs::read(out.join("smpc_000.wav")).unwrap();
    let data: Vec<i16> = wav[44..]
        .chunks_exact(2)
        .map(|c| i16::from_le_bytes([c[0], c[1]]))
        .collect();
    assert_eq!(&wav[36..40], b"data");
    assert_eq!(&data[..28], &want[..]);

    // the independent file back in with the files just extracted: the same bytes
    let back = level
        .replace(&ReplaceOptions {
            strings: Some(out.join("strings.json")),
            sounds: vec![(0, out.join("smpc_000.wav"))],
            ..ReplaceOptions::default()
        })
        .unwrap();
    assert_eq!(back.bytes, std::fs::read(indep_wad()).unwrap());
    assert!(back.strings_changed.is_empty() && back.sounds_changed.is_empty());
    assert_eq!(back.sounds_unchanged, [0]);
}

/// Damaged WADs (deterministic byte flips and truncations of the independent WAD and the modder
/// level) never panic in `extract`, `export --objects` (the 0x00B2 scan over damaged STPC and
/// MAP objects) or an identity `replace`; a failed extract leaves no folder.
#[test]
fn damaged_wads_extract_export_objects_and_replace_without_panic() {
    let (modder, _) = levelgeom_wad::generate::modder_level().unwrap();
    let bases = [
        std::fs::read(indep_wad()).unwrap(),
        modder.to_bytes().unwrap(),
    ];
    let tmp = tempfile::tempdir().unwrap();
    let mut opened = 0;
    for case in 0..120usize {
        let base = &bases[case % 2];
        if case % 2 == 1 && case > 40 {
            continue; // the big one is slow in debug builds: 20 cases are enough
        }
        let mut b = base.clone();
        let mut x = (case as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for _ in 0..1 + case % 3 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let at = 4 + (x as usize) % (b.len() - 4);
            b[at] ^= (x >> 32) as u8 | 1;
        }
        if case % 7 == 0 {
            b.truncate(b.len() - (x as usize % 64));
        }
        let dir = tmp.path().join(format!("c{case}"));
        std::fs::create_dir_all(&dir).unwrap();
        let p = dir.join("in.wad");
        std::fs::write(&p, &b).unwrap();
        let Ok(level) = levelgeom_core::open(&p) else {
            continue;
        };
        opened += 1;
        let out = dir.join("x");
        if level.extract(&out, &ExtractOptions::default()).is_err() {
            assert!(
                !out.exists(),
                "case {case}: a failed extract left its folder"
            );
            continue;
        }
        let opts = levelgeom_core::ExportOptions {
            formats: levelgeom_core::Formats {
                gltf: true,
                obj: false,
            },
            engine: levelgeom_core::EngineOptions {
                wad: Some(levelgeom_core::WadOptions {
                    objects: true,
                    ..Default::default()
                }),
                ..Default::default()
            },
            ..Default::default()
        };
        let _ = level.export(&dir.join("e"), &opts);
        let sounds: Vec<(usize, std::path::PathBuf)> = std::fs::read_dir(&out)
            .unwrap()
            .filter_map(|e| {
                let n = e.unwrap().file_name().to_string_lossy().into_owned();
                let id = n
                    .strip_prefix("smpc_")?
                    .strip_suffix(".wav")?
                    .parse()
                    .ok()?;
                Some((id, out.join(n)))
            })
            .collect();
        let strings = out.join("strings.json");
        if let Ok(r) = level.replace(&ReplaceOptions {
            strings: strings.is_file().then_some(strings),
            sounds,
            ..ReplaceOptions::default()
        }) {
            assert_eq!(r.bytes, b, "case {case}: identity replace changed bytes");
        }
    }
    assert!(opened > 20, "only {opened} damaged files opened");
}

/// A length change keeps the header's bias (here 0x800, as Croc 2 PSX files have) and the MAP
/// quirk of `indep_map_plus4.wad` (MAP declared 4 bytes too large) stays as it was.
#[test]
fn replace_keeps_the_header_bias_and_the_map_quirk() {
    let tmp = tempfile::tempdir().unwrap();
    let plus4 = workspace("crates/wad/tests/data/independent/indep_map_plus4.wad");
    let mut biased = std::fs::read(&plus4).unwrap();
    let h = u32::from_le_bytes(biased[0..4].try_into().unwrap()) + 0x800;
    biased[0..4].copy_from_slice(&h.to_le_bytes());
    let p = tmp.path().join("biased.wad");
    std::fs::write(&p, &biased).unwrap();
    let level = levelgeom_core::open(&p).unwrap();
    let out = tmp.path().join("x");
    level.extract(&out, &ExtractOptions::default()).unwrap();
    let mut st: Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("strings.json")).unwrap()).unwrap();
    st["strings"][0]["text"] = Value::from("Hello again, Kuzco");
    let sj = tmp.path().join("s.json");
    std::fs::write(&sj, st.to_string()).unwrap();
    let r = level
        .replace(&ReplaceOptions {
            strings: Some(sj),
            ..ReplaceOptions::default()
        })
        .unwrap();
    assert_eq!(r.strings_changed, [(0, 0)]);
    let b = &r.bytes;
    assert_eq!(
        b.len(),
        biased.len() + "Hello again, Kuzco".len() - "Hello Kuzco".len()
    );
    let h = u32::from_le_bytes(b[0..4].try_into().unwrap()) as usize;
    assert_eq!(h, b.len() - 4 + 0x800, "bias 0x800 kept");
    // MAP: same offset, same declared size (payload + 4), LGPC after it re-laid
    let e = expect();
    let map = e["chunks"]
        .as_array()
        .unwrap()
        .iter()
        .find(|c| c["tag"] == "MAP ")
        .unwrap();
    let at = map["offset"].as_u64().unwrap() as usize;
    assert_eq!(&b[at..at + 4], b" PAM");
    let declared = u32::from_le_bytes(b[at + 4..at + 8].try_into().unwrap()) as u64;
    assert_eq!(declared, map["size"].as_u64().unwrap() + 4);
    let (lv, warnings) = levelgeom_wad::Level::read(b).unwrap();
    assert!(
        warnings.iter().any(|w| w.to_string().contains("MAP")),
        "{warnings:?}"
    );
    let t = lv.lgpc().unwrap().table().unwrap();
    assert_eq!(t[0][0], b"Hello again, Kuzco");
    assert_eq!(t[1][1], b"Tira la leva");
}
