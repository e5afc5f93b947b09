//! Mutation test of the inputs that are not level files (issue 24): the generated modder WAD
//! exported as OBJ + MTL + page PNGs and as GLB, its GLB split into `.gltf` + `.bin`, its
//! extracted `smpc_000.wav` and `strings.json`, and a `Music/ENGLISH.CVS` holding its speech
//! entry — each mutated (the byte mutations of the level test, plus numbers in text files
//! made huge, negative or not numbers, and stacked) and fed to `import` (OBJ/MTL/PNG, glTF,
//! GLB), `replace` (WAV, strings) or `extract --cvs`. Asserted for every case:
//!
//! * no panic (and no abort: the process lives under a 4 GiB address-space limit);
//! * no single allocation above [`ALLOCATION_LIMIT`];
//! * every error of `replace` and `extract` locates the problem (a byte offset or JSON path,
//!   a RIFF chunk); mesh errors without a line, node or offset are listed (the mesh readers
//!   are issue 24 part A);
//! * nothing is left in the work folder after a failure;
//! * no input file changed.
//!
//! `cargo test` runs 1,000 cases; `.ci/run` more (`LEVELGEOM_INPUT_MUTATIONS=N`).

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use levelgeom_core::{ExportOptions, ExtractOptions, Formats, ImportOptions, ReplaceOptions};

use crate::{mutate, take_largest, Rng, ALLOCATION_LIMIT};

/// What a mutated file is fed to.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
enum Op {
    /// `import` of the mesh named (OBJ, glTF or GLB) into the base WAD.
    Import(&'static str),
    /// `replace --sound 0=smpc_000.wav`.
    Sound,
    /// `replace --strings strings.json`.
    Strings,
    /// `extract --cvs ENGLISH.CVS`.
    Cvs,
}

/// The seed files, by name, and which are mutated for which operation.
struct Seeds {
    files: Vec<(String, Vec<u8>)>,
    targets: Vec<(String, Op)>,
}

/// Split a GLB into its JSON (with `buffers[0].uri` = `bin`) and its BIN chunk.
fn split_glb(glb: &[u8], bin: &str) -> (Vec<u8>, Vec<u8>) {
    let u32_at = |at: usize| u32::from_le_bytes(glb[at..at + 4].try_into().unwrap()) as usize;
    let json_len = u32_at(12);
    let json = &glb[20..20 + json_len];
    let bin_at = 20 + json_len;
    let bin_len = u32_at(bin_at);
    let data = glb[bin_at + 8..bin_at + 8 + bin_len].to_vec();
    let mut doc: serde_json::Value = serde_json::from_slice(json).unwrap();
    doc["buffers"][0]["uri"] = serde_json::Value::from(bin);
    (serde_json::to_vec_pretty(&doc).unwrap(), data)
}

fn seeds(dir: &Path) -> Seeds {
    let (level, _) = levelgeom_wad::generate::modder_level().unwrap();
    let wad = dir.join("base.wad");
    std::fs::write(&wad, level.to_bytes().unwrap()).unwrap();
    let base = levelgeom_core::open(&wad).unwrap();
    let exp = dir.join("exp");
    base.export(
        &exp,
        &ExportOptions {
            formats: Formats {
                gltf: true,
                obj: true,
            },
            ..ExportOptions::default()
        },
    )
    .unwrap();
    let ext = dir.join("ext");
    base.extract(&ext, &ExtractOptions::default()).unwrap();
    let mut files = Vec::new();
    let mut targets = Vec::new();
    for e in std::fs::read_dir(&exp).unwrap() {
        let p = e.unwrap().path();
        let name = p.file_name().unwrap().to_string_lossy().into_owned();
        let bytes = std::fs::read(&p).unwrap();
        if name == "level.obj" || name.ends_with(".mtl") || name.ends_with(".png") {
            targets.push((name.clone(), Op::Import("level.obj")));
        } else if name == "level.glb" {
            let (json, bin) = split_glb(&bytes, "level.bin");
            files.push(("level.gltf".to_string(), json));
            files.push(("level.bin".to_string(), bin));
            targets.push(("level.gltf".into(), Op::Import("level.gltf")));
            targets.push(("level.bin".into(), Op::Import("level.gltf")));
            targets.push((name.clone(), Op::Import("level.glb")));
        } else {
            continue;
        }
        files.push((name, bytes));
    }
    for name in ["smpc_000.wav", "strings.json"] {
        files.push((name.into(), std::fs::read(ext.join(name)).unwrap()));
    }
    targets.push(("smpc_000.wav".into(), Op::Sound));
    targets.push(("strings.json".into(), Op::Strings));
    // the modder level's speech entry: offset 0, 0x800 bytes of ADPCM
    let speech: Vec<i16> = (0..3584).map(|k| ((k * 37) % 2000 - 1000) as i16).collect();
    files.push((
        "ENGLISH.CVS".into(),
        levelgeom_wad::adpcm::encode(&speech, &Default::default()),
    ));
    targets.push(("ENGLISH.CVS".into(), Op::Cvs));
    targets.sort();
    Seeds { files, targets }
}

/// Text-aware mutation: a number in the file made huge, negative, fractional or not a number
/// (OBJ indices and counts, JSON offsets and counts are where the readers are tested hardest).
fn mutate_number(b: &mut Vec<u8>, rng: &mut Rng) -> String {
    let starts: Vec<usize> = (0..b.len())
        .filter(|&i| b[i].is_ascii_digit() && (i == 0 || !b[i - 1].is_ascii_digit()))
        .collect();
    if starts.is_empty() {
        return mutate(b, rng);
    }
    let at = starts[rng.below(starts.len())];
    let end = (at..b.len())
        .find(|&i| !b[i].is_ascii_digit())
        .unwrap_or(b.len());
    let new: &str = [
        "4294967295",
        "99999999999999999999",
        "2147483648",
        "-1",
        "0",
        "1e38",
        "NaN",
        "1.5",
        "65536",
        "16777217",
    ][rng.below(10)];
    b.splice(at..end, new.bytes());
    format!("number at {at} made {new}")
}

fn digest(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut m = BTreeMap::new();
    for e in std::fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        let bytes = if p.is_dir() {
            b"<dir>".to_vec()
        } else {
            std::fs::read(&p).unwrap_or_default()
        };
        m.insert(p.file_name().unwrap().to_string_lossy().into_owned(), bytes);
    }
    m
}

/// Does the error say where? A byte offset, a JSON path, a RIFF chunk, a line, a glTF
/// object or GLB part (a triangle index alone is not a place in the file).
fn located(e: &str) -> bool {
    [
        "at 0x",
        "at byte",
        "RIFF chunk",
        "$.",
        "line ",
        "node",
        "accessor",
        "offset",
        "buffers[",
        "bufferViews[",
        "images[",
        "meshes[",
        "GLB ",
    ]
    .iter()
    .any(|n| e.contains(n))
}

/// The outcome of one case, or `Err` with the broken property.
fn run_case(
    base: &levelgeom_core::LevelFile,
    op: Op,
    work: &Path,
    unlocated_mesh: &mut Vec<String>,
) -> Result<&'static str, String> {
    let input = work.join("in");
    let before = digest(&input);
    let out = work.join("out");
    let result: Result<(), levelgeom_core::Error> = match op {
        Op::Import(mesh) => base
            .import(&input.join(mesh), &ImportOptions::default())
            .map(|_| ()),
        Op::Sound => base
            .replace(&ReplaceOptions {
                strings: None,
                sounds: vec![(0, input.join("smpc_000.wav"))],
                ..ReplaceOptions::default()
            })
            .map(|_| ()),
        Op::Strings => base
            .replace(&ReplaceOptions {
                strings: Some(input.join("strings.json")),
                ..ReplaceOptions::default()
            })
            .map(|_| ()),
        Op::Cvs => base
            .extract(
                &out,
                &ExtractOptions {
                    force: false,
                    cvs: Some(input.join("ENGLISH.CVS")),
                },
            )
            .map(|_| ()),
    };
    if digest(&input) != before {
        return Err("an input file changed".into());
    }
    match result {
        Ok(()) => Ok("handled"),
        Err(e) => {
            let e = e.to_string();
            if e.is_empty() {
                return Err("an empty error".into());
            }
            let stray: Vec<String> = digest(work).into_keys().filter(|n| n != "in").collect();
            if !stray.is_empty() {
                return Err(format!("the failure left {stray:?}: {e}"));
            }
            if !located(&e) {
                // the mesh readers' locations are issue 24 part A: listed, not failed
                if matches!(op, Op::Import(_)) {
                    unlocated_mesh.push(e);
                } else {
                    return Err(format!("an error without a location: {e}"));
                }
            }
            Ok("refused")
        }
    }
}

fn case_count() -> usize {
    std::env::var("LEVELGEOM_INPUT_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(1000)
}

#[test]
fn mutated_inputs_are_refused_cleanly_or_handled() {
    let _serial = crate::SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    crate::limit_address_space();
    let tmp = tempfile::tempdir().unwrap();
    let seeds = seeds(tmp.path());
    let base = levelgeom_core::open(&tmp.path().join("base.wad")).unwrap();
    take_largest();
    let n = case_count();
    let mut failures = Vec::new();
    let mut unlocated_mesh = Vec::new();
    let mut outcomes = BTreeMap::<String, usize>::new();
    let mut largest = (0usize, String::new());
    for case in 0..n {
        let (target, op) = &seeds.targets[case % seeds.targets.len()];
        let mut rng = Rng(0xD1B5_4A32_D192_ED03 ^ (case as u64).wrapping_mul(0x1000_0001));
        let work: PathBuf = tmp.path().join(format!("c{case}"));
        let input = work.join("in");
        std::fs::create_dir_all(&input).unwrap();
        let mut what = Vec::new();
        for (name, bytes) in &seeds.files {
            let mut bytes = bytes.clone();
            if name == target {
                let text = !name.ends_with(".png")
                    && !name.ends_with(".bin")
                    && !name.ends_with(".glb")
                    && !name.ends_with(".wav")
                    && !name.ends_with(".CVS");
                for _ in 0..1 + rng.below(3) {
                    what.push(if text && rng.below(2) == 0 {
                        mutate_number(&mut bytes, &mut rng)
                    } else {
                        mutate(&mut bytes, &mut rng)
                    });
                }
            }
            std::fs::write(input.join(name), bytes).unwrap();
        }
        let label = format!("case {case} ({target} for {op:?}: {})", what.join(", "));
        if std::env::var_os("LEVELGEOM_MUTATION_TRACE").is_some() {
            eprintln!("{label}");
        }
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_case(&base, *op, &work, &mut unlocated_mesh)
        }));
        let big = take_largest();
        if big > largest.0 {
            largest = (big, label.clone());
        }
        match r {
            Ok(Ok(o)) => *outcomes.entry(format!("{op:?} {o}")).or_default() += 1,
            Ok(Err(msg)) => failures.push(format!("{label}: {msg}")),
            Err(_) => failures.push(format!("{label}: PANIC")),
        }
        if big > ALLOCATION_LIMIT {
            failures.push(format!("{label}: an allocation of {big} bytes"));
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    println!(
        "{n} input cases: {outcomes:?}; largest allocation {} bytes ({}); {} mesh errors without a location",
        largest.0,
        largest.1,
        unlocated_mesh.len()
    );
    for e in unlocated_mesh.iter().take(10) {
        println!("  unlocated mesh error: {e}");
    }
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // the mutations reach every operation, and some get through
    for op in ["Sound", "Strings", "Import"] {
        assert!(
            outcomes
                .keys()
                .any(|k| k.starts_with(op) && k.ends_with("refused")),
            "no {op} case refused: {outcomes:?}"
        );
    }
    assert!(
        outcomes.keys().any(|k| k.starts_with("Cvs")),
        "{outcomes:?}"
    );
    assert!(
        outcomes.keys().any(|k| k.ends_with("handled")),
        "{outcomes:?}"
    );
}
