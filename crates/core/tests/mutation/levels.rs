//! Stable mutation test: every fixture and small generated file, mutated with deterministic
//! seeds (truncations, bit flips, absurd u32 counts and sizes at aligned offsets, deleted and
//! duplicated ranges, stacked mutations), through `open`, `info`, `check`, `rebuild`, an X-Ray
//! level's conversion to another build (`convert_xray`) and the import of an edit of its own
//! scene (a node moved, one removed), and `export`. Asserted for every case:
//!
//! * no panic;
//! * no single allocation above [`ALLOCATION_LIMIT`] (the counting allocator of this test
//!   binary records the largest request);
//! * every error of `open` names an offset inside the file;
//! * `check` passes ⇒ `export` succeeds (what export rejects, check reports);
//! * a failed export leaves no output folder and no temporary files behind.
//!
//! `cargo test` runs a few hundred cases; `.ci/run` runs thousands in release mode
//! (`LEVELGEOM_MUTATIONS=N`).

use std::path::Path;
use std::sync::atomic::{AtomicUsize, Ordering};

use levelgeom_core::{Error, ExportOptions, Formats};

use crate::{mutate, Rng, ALLOCATION_LIMIT, LARGEST};

/// Conversions to another build that succeeded / were refused.
static CONVERTED: AtomicUsize = AtomicUsize::new(0);
static CONVERT_REFUSED: AtomicUsize = AtomicUsize::new(0);
/// Edited exports imported and written.
static EDITED: AtomicUsize = AtomicUsize::new(0);

/// A base case: the files of a folder, and which of them is opened and mutated.
struct Base {
    name: &'static str,
    files: Vec<(&'static str, Vec<u8>)>,
    /// The file mutated.
    target: usize,
    /// The file opened (an X-Ray `level` is opened with its mutated `level.geom` beside it).
    open: usize,
}

fn bases() -> Vec<Base> {
    let read = |p: &Path| std::fs::read(p).unwrap();
    let x = crate::fixture();
    let xray_files = || {
        vec![
            ("level", read(&x.join("level"))),
            ("level.geom", read(&x.join("level.geom"))),
            ("level.geomx", read(&x.join("level.geomx"))),
            ("level.cform", read(&x.join("level.cform"))),
        ]
    };
    let small = levelgeom_wad::generate::generate(&levelgeom_wad::generate::LevelSpec {
        grid_w: 4,
        grid_h: 4,
        ..levelgeom_wad::generate::LevelSpec::demo()
    });
    let mut v = vec![
        Base {
            name: "indep.wad",
            files: vec![("indep.wad", read(&crate::indep_wad()))],
            target: 0,
            open: 0,
        },
        Base {
            name: "indep_map_plus4.wad",
            files: vec![(
                "indep.wad",
                read(&crate::workspace(
                    "crates/wad/tests/data/independent/indep_map_plus4.wad",
                )),
            )],
            target: 0,
            open: 0,
        },
        Base {
            name: "generated 4x4 wad",
            files: vec![("small.wad", small.unwrap().to_bytes().unwrap())],
            target: 0,
            open: 0,
        },
    ];
    for (name, target, open) in [
        ("fixture level", 0, 0),
        ("fixture level.geom under its level", 1, 0),
        ("fixture level.geomx under its level", 2, 0),
        ("fixture level.geom alone", 1, 1),
        ("fixture level.cform", 3, 3),
    ] {
        v.push(Base {
            name,
            files: xray_files(),
            target,
            open,
        });
    }
    for sub in ["v13", "v14", "v14_lzhuf"] {
        let d = crate::workspace(&format!("crates/xray/tests/data/independent/{sub}"));
        let mut files = Vec::new();
        for f in ["level", "level.geom"] {
            if d.join(f).is_file() {
                files.push((f, read(&d.join(f))));
            }
        }
        let name: &'static str = Box::leak(format!("independent {sub} level").into_boxed_str());
        v.push(Base {
            name,
            files: files.clone(),
            target: 0,
            open: 0,
        });
        let name: &'static str =
            Box::leak(format!("independent {sub} level.geom under its level").into_boxed_str());
        v.push(Base {
            name,
            files,
            target: 1,
            open: 0,
        });
    }
    // XRLC 4, 5, 8–12: geometry inside `level` (FVF and D3D9 buffers, OGF 2/3 visuals; 12 with
    // LZHUF-compressed buffers), the generator's level of each build
    for version in [4u16, 5, 8, 9, 10, 11, 12] {
        let (level, _) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
            version,
            compress: version == 12,
        });
        let name: &'static str =
            Box::leak(format!("generated XRLC {version} level").into_boxed_str());
        v.push(Base {
            name,
            files: vec![("level", level)],
            target: 0,
            open: 0,
        });
    }
    // the era variants: XRLC 12 with OGF 4 V/ICONTAINER visuals, XRLC 5 with progressive
    // strips (OGF_P_LODS) and a detail patch (OGF_DPATCH)
    use levelgeom_xray::generate::{old_level_with, OldVisuals, Options};
    for (name, version, layout) in [
        ("generated XRLC 12 OGF 4 level", 12u16, OldVisuals::Ogf4),
        (
            "generated XRLC 5 strips and patches level",
            5,
            OldVisuals::StripsAndPatches,
        ),
    ] {
        let level = old_level_with(
            Options {
                version,
                compress: version == 12,
            },
            layout,
        )
        .to_bytes()
        .expect("the generated level fits its fields");
        v.push(Base {
            name,
            files: vec![("level", level)],
            target: 0,
            open: 0,
        });
    }
    v
}

fn case_count() -> usize {
    std::env::var("LEVELGEOM_MUTATIONS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(300)
}

fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .map(|it| {
            it.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    v.sort();
    v
}

/// Import an edit of the X-Ray level at `path`'s own scene into it: whether it was written.
fn edit_xray(path: &Path) -> bool {
    use levelgeom_xray::import::{self, Base, ImportOptions};
    let Ok(f) = levelgeom_xray::files::LevelFiles::open(path) else {
        return false;
    };
    let Ok(mut s) = f.to_scene(&levelgeom_xray::SceneOptions::default()) else {
        return false;
    };
    let meshes: Vec<usize> = (0..s.nodes.len())
        .filter(|&n| s.nodes[n].mesh.is_some())
        .collect();
    if let Some(&first) = meshes.first() {
        s.nodes[first].matrix[12] += 1.0;
    }
    if let (Some(&last), true) = (meshes.last(), meshes.len() > 1) {
        s.nodes[last].mesh = None;
        s.nodes[last].extras.clear();
        s.nodes[last].name = "removed".into();
    }
    let no_geom = levelgeom_xray::Geom { chunks: Vec::new() };
    let base = Base {
        level: &f.level,
        geom: f.geom.as_ref().map_or(&no_geom, |g| &g.geom),
        geomx: f.geomx.as_ref().map(|g| &g.geom),
        cform: f.cform.as_ref().map(|c| &c.cform),
    };
    match import::import(base, &s, None, &ImportOptions::default()) {
        Ok(out) => out.level.to_bytes().is_ok(),
        Err(_) => false,
    }
}

/// Run one mutated case; `Err` describes a broken property.
fn run_case(base: &Base, bytes: &[u8], work: &Path) -> Result<&'static str, String> {
    let input = work.join("in");
    std::fs::create_dir_all(&input).unwrap();
    for (i, (name, b)) in base.files.iter().enumerate() {
        let b: &[u8] = if i == base.target { bytes } else { b };
        std::fs::write(input.join(name), b).unwrap();
    }
    let path = input.join(base.files[base.open].0);
    let level = match levelgeom_core::open(&path) {
        Ok(l) => l,
        Err(e) => {
            return match (&e, e.offset()) {
                (_, Some(at)) if at <= bytes.len().max(base.files[base.open].1.len()) as u64 => {
                    Ok("refused")
                }
                (Error::Unsupported { .. }, None) => Ok("refused"),
                // a file beside the level refused as a whole (its kind), naming that file
                (Error::XrayBeside { .. }, None) => Ok("refused"),
                _ => Err(format!("open error without an offset in the file: {e}")),
            };
        }
    };
    let _ = level
        .info()
        .map_err(|e| format!("info failed after open: {e}"))?;
    let rebuilt = level
        .rebuild()
        .map_err(|e| format!("rebuild failed: {e}"))?;
    let opened: &[u8] = if base.open == base.target {
        bytes
    } else {
        &base.files[base.open].1
    };
    if rebuilt != opened {
        return Err(format!(
            "rebuild differs at {:?}",
            levelgeom_core::first_difference(&rebuilt, opened)
        ));
    }
    let report = level.check();
    let out = work.join("out");
    let opts = ExportOptions {
        formats: Formats {
            gltf: true,
            obj: true,
        },
        ..ExportOptions::default()
    };
    // an X-Ray level converted to another build (what `convert` / `import --to-version` do):
    // refusals are fine, a panic is not
    if level.format() == levelgeom_core::Format::XrayLevel {
        let to = [4u16, 5, 8, 9, 10, 11, 12, 13, 14][bytes.len() % 9];
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            level.convert_xray(to, true).map(|_| ())
        }));
        match r {
            Err(_) => return Err(format!("convert to XRLC {to} panicked")),
            Ok(Err(e)) if e.to_string().is_empty() => {
                return Err(format!("convert to XRLC {to}: an empty error"))
            }
            Ok(Ok(())) => {
                CONVERTED.fetch_add(1, Ordering::Relaxed);
            }
            Ok(Err(_)) => {
                CONVERT_REFUSED.fetch_add(1, Ordering::Relaxed);
            }
        }
    }
    // … and edited as a modder would (the first mesh node moved 1 m, the last one removed),
    // written back in its own build: refusals are fine, a panic is not
    if level.format() == levelgeom_core::Format::XrayLevel {
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| edit_xray(&path)));
        match r {
            Err(_) => return Err("import of an edited export panicked".into()),
            Ok(true) => {
                EDITED.fetch_add(1, Ordering::Relaxed);
            }
            Ok(false) => {}
        }
    }
    let has_geom = level.companions().iter().any(|p| p.ends_with("level.geom"));
    let exportable = match level.format() {
        levelgeom_core::Format::Wad => true,
        levelgeom_core::Format::XrayLevel => has_geom,
        _ => false,
    };
    let full = level.export(&out, &opts);
    // the glTF-only export writes from a hollow scene (the vertices decoded as the GLB's
    // buffer reaches them): no panic, and the same `level.glb` whenever the full export wrote one
    if level.format() == levelgeom_core::Format::XrayLevel {
        let streamed_out = work.join("gltf");
        let gltf_only = ExportOptions {
            formats: Formats {
                gltf: true,
                obj: false,
            },
            ..ExportOptions::default()
        };
        let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            level.export(&streamed_out, &gltf_only)
        }));
        match (r, &full) {
            (Err(_), _) => return Err("glTF-only export panicked".into()),
            (Ok(Err(e)), Ok(_)) => {
                return Err(format!(
                    "glTF-only export failed where the full one did not: {e}"
                ))
            }
            (Ok(Ok(_)), Ok(_)) => {
                let read = |d: &Path| std::fs::read(d.join("level.glb")).ok();
                if read(&out) != read(&streamed_out) {
                    return Err("glTF-only export wrote another level.glb".into());
                }
            }
            _ => {}
        }
        let _ = std::fs::remove_dir_all(&streamed_out);
    }
    match full {
        Ok(_) => Ok(if report.problems.is_empty() {
            "exported"
        } else {
            "exported despite problems"
        }),
        Err(e) => {
            if !entries(&out).is_empty() || out.exists() {
                return Err(format!("failed export left {:?}: {e}", entries(&out)));
            }
            let stray: Vec<String> = entries(work).into_iter().filter(|n| n != "in").collect();
            if !stray.is_empty() {
                return Err(format!(
                    "failed export left {stray:?} beside the output: {e}"
                ));
            }
            if exportable && report.problems.is_empty() {
                return Err(format!("check passed but export failed: {e}"));
            }
            Ok("export refused")
        }
    }
}

#[test]
fn mutated_files_are_refused_cleanly_or_handled() {
    let _serial = crate::SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    crate::limit_address_space();
    crate::take_largest();
    let bases = bases();
    let n = case_count();
    let tmp = tempfile::tempdir().unwrap();
    let mut failures = Vec::new();
    let mut outcomes = std::collections::BTreeMap::<&str, usize>::new();
    for case in 0..n {
        let base = &bases[case % bases.len()];
        let mut rng = Rng(0x9E37_79B9_7F4A_7C15 ^ (case as u64).wrapping_mul(0x1000_0001));
        let mut bytes = base.files[base.target].1.clone();
        let mut what = Vec::new();
        for _ in 0..1 + rng.below(3) {
            what.push(mutate(&mut bytes, &mut rng));
        }
        let work = tmp.path().join(format!("c{case}"));
        if std::env::var_os("LEVELGEOM_MUTATION_TRACE").is_some() {
            eprintln!("case {case} ({}: {})", base.name, what.join(", "));
        }
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            run_case(base, &bytes, &work)
        }));
        match result {
            Ok(Ok(o)) => *outcomes.entry(o).or_default() += 1,
            Ok(Err(msg)) => failures.push(format!(
                "case {case} ({}: {}): {msg}",
                base.name,
                what.join(", ")
            )),
            Err(_) => failures.push(format!(
                "case {case} ({}: {}): PANIC",
                base.name,
                what.join(", ")
            )),
        }
        let _ = std::fs::remove_dir_all(&work);
    }
    let largest = LARGEST.load(Ordering::Relaxed);
    let (converted, convert_refused) = (
        CONVERTED.load(Ordering::Relaxed),
        CONVERT_REFUSED.load(Ordering::Relaxed),
    );
    let edited = EDITED.load(Ordering::Relaxed);
    println!(
        "{n} cases: {outcomes:?}; largest allocation {largest} bytes; conversions {converted} \
         made, {convert_refused} refused; {edited} edited levels written"
    );
    assert!(
        failures.is_empty(),
        "{} of {n} cases failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(
        largest <= ALLOCATION_LIMIT,
        "largest allocation {largest} bytes"
    );
    // the mutations reach every stage, not only the detection
    assert!(
        outcomes.get("refused").copied().unwrap_or(0) > 0,
        "{outcomes:?}"
    );
    assert!(
        outcomes.get("exported").copied().unwrap_or(0) > 0,
        "{outcomes:?}"
    );
    assert!(converted > 0, "no mutated X-Ray level reached a conversion");
    assert!(edited > 0, "no edit of a mutated X-Ray level was written");
}
