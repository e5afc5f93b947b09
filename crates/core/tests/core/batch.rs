//! Whole installs: discovery by content, verify over a tree, batch export equal to single
//! exports, in parallel and one by one.

use std::collections::BTreeMap;
use std::fs;
use std::path::{Path, PathBuf};

use levelgeom_core::batch::{self, Found, Run, What};
use levelgeom_core::ExportOptions;
use levelgeom_wad::generate::{generate, LevelSpec};

use crate::workspace;

/// A small install: WADs of different sizes (one not named `.wad`), two X-Ray levels, a cut
/// WAD, a `.wad` of random bytes, an unrelated file, a `level.geom` alone, a link cycle.
fn install(root: &Path) {
    let wads = root.join("data/wads");
    fs::create_dir_all(&wads).unwrap();
    fs::write(
        wads.join("T1L1M001.wad"),
        levelgeom_core::demo_bytes(false).unwrap(),
    )
    .unwrap();
    let spec = LevelSpec {
        grid_w: 12,
        grid_h: 10,
        island_x: 3,
        island_z: 3,
        island_w: 4,
        island_h: 3,
        water_rings: 1,
        subdivisions: 2,
        pages: 3,
        swap_tile: 2,
        seed: 7,
    };
    let small = generate(&spec).unwrap().to_bytes().unwrap();
    fs::write(wads.join("small.wad"), &small).unwrap();
    // found by content: no .wad in the name
    let bigger = generate(&LevelSpec {
        grid_w: 20,
        grid_h: 20,
        island_w: 8,
        island_h: 6,
        pages: 5,
        seed: 99,
        ..LevelSpec::demo()
    })
    .unwrap()
    .to_bytes()
    .unwrap();
    fs::create_dir_all(root.join("other")).unwrap();
    fs::write(root.join("other/bigger.dat"), &bigger).unwrap();
    // a level of the same name as another, elsewhere: the names clash
    fs::write(root.join("other/small.wad"), &small).unwrap();
    let mut cut = levelgeom_core::demo_bytes(false).unwrap();
    cut.truncate(cut.len() / 3);
    fs::write(wads.join("cut.wad"), &cut).unwrap();
    let noise: Vec<u8> = (0..777u32)
        .map(|i| (i.wrapping_mul(2_654_435_761) >> 13) as u8 | 0x80)
        .collect();
    fs::write(wads.join("music.wad"), &noise).unwrap();
    fs::write(root.join("readme.txt"), b"not a level").unwrap();
    for (from, to) in [
        ("crates/xray/tests/data/xray-v14-micro", "levels/micro"),
        ("crates/xray/tests/data/independent/v14", "levels/indep"),
    ] {
        let to = root.join(to);
        fs::create_dir_all(&to).unwrap();
        for e in fs::read_dir(workspace(from)).unwrap() {
            let e = e.unwrap();
            fs::copy(e.path(), to.join(e.file_name())).unwrap();
        }
    }
    fs::create_dir_all(root.join("loose")).unwrap();
    fs::copy(
        workspace("crates/xray/tests/data/xray-v14-micro/level.geom"),
        root.join("loose/level.geom"),
    )
    .unwrap();
    #[cfg(unix)]
    std::os::unix::fs::symlink("..", root.join("levels/cycle")).unwrap();
}

fn rel(root: &Path, p: &Path) -> String {
    p.strip_prefix(root).unwrap().display().to_string()
}

fn skipped(found: &[Found], root: &Path) -> BTreeMap<String, String> {
    found
        .iter()
        .filter_map(|f| match &f.what {
            What::Skipped { reason } => Some((rel(root, &f.path), reason.clone())),
            _ => None,
        })
        .collect()
}

#[test]
fn discovery_finds_levels_by_content_sorted_once() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    install(&root);
    let found = batch::find_levels(std::slice::from_ref(&root));
    let levels: Vec<(String, &str)> = found
        .iter()
        .filter(|f| f.is_level())
        .map(|f| (rel(&root, &f.path), f.format().unwrap()))
        .collect();
    assert_eq!(
        levels,
        [
            ("data/wads/T1L1M001.wad".to_string(), "argonaut-wad"),
            ("data/wads/cut.wad".into(), "argonaut-wad"),
            ("data/wads/small.wad".into(), "argonaut-wad"),
            ("levels/indep".into(), "xray-level"),
            ("levels/micro".into(), "xray-level"),
            ("other/bigger.dat".into(), "argonaut-wad"),
            ("other/small.wad".into(), "argonaut-wad"),
        ]
    );
    // the X-Ray fixture's four files, in order
    let micro = found
        .iter()
        .find(|f| f.path.ends_with("levels/micro"))
        .unwrap();
    let What::Xray { files } = &micro.what else {
        panic!("{micro:?}")
    };
    let names: Vec<String> = files
        .iter()
        .map(|f| f.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["level", "level.geom", "level.geomx", "level.cform"]);
    let sum: u64 = files.iter().map(|f| fs::metadata(f).unwrap().len()).sum();
    assert_eq!(micro.bytes, sum);
    // skipped with reasons; readme.txt, LICENSE and README.md are ignored silently
    let s = skipped(&found, &root);
    assert_eq!(
        s.keys().collect::<Vec<_>>(),
        ["data/wads/music.wad", "loose/level.geom"]
    );
    assert!(
        s["data/wads/music.wad"].starts_with("not a level WAD"),
        "{s:?}"
    );
    assert!(
        s["loose/level.geom"].contains("without the X-Ray `level`"),
        "{s:?}"
    );
    // deterministic, and the link cycle did not make anything appear twice
    assert_eq!(batch::find_levels(std::slice::from_ref(&root)), found);
    // a file given by name is reported even when not named like a level
    let f = batch::find_levels(&[root.join("readme.txt")]);
    assert!(matches!(&f[0].what, What::Skipped { reason } if reason.contains("not a level file")));
    let f = batch::find_levels(&[root.join("nothing-here")]);
    assert!(matches!(&f[0].what, What::Skipped { reason } if reason.contains("cannot read")));
}

#[test]
fn verify_reports_every_level_and_a_summary() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    install(&root);
    let found = batch::find_levels(std::slice::from_ref(&root));
    let one = batch::verify_batch(
        &found,
        false,
        &Run {
            jobs: 1,
            ..Run::default()
        },
    );
    let two = batch::verify_batch(
        &found,
        false,
        &Run {
            jobs: 2,
            ..Run::default()
        },
    );
    assert_eq!(one, two, "the same report whatever the number of jobs");
    let by: BTreeMap<String, &batch::VerifyResult> = one
        .levels
        .iter()
        .map(|l| (rel(&root, &l.path), l))
        .collect();
    assert_eq!(by.len(), 7);
    for (name, l) in &by {
        if name == "data/wads/cut.wad" {
            assert!(!l.passed);
            assert_eq!(l.round_trip, None);
            let e = l.error.as_deref().unwrap();
            assert!(e.contains("cut.wad") && e.contains("at 0x"), "{e}");
            assert_eq!(l.reason.as_deref(), Some(e));
        } else {
            assert!(l.passed, "{name}: {l:?}");
            assert_eq!(l.round_trip.as_deref(), Some("ok"), "{name}");
            assert!(l.error.is_none());
        }
    }
    let micro = by["levels/micro"];
    assert_eq!(micro.files.len(), 4);
    assert!(micro
        .files
        .iter()
        .all(|f| f.round_trip.as_deref() == Some("ok")));
    assert_eq!(by["levels/indep"].files.len(), 2);
    let s = &one.summary;
    assert_eq!(
        (s.levels, s.passed, s.failed, s.skipped, s.unreadable),
        (7, 6, 1, 2, 1)
    );
    assert_eq!(s.bytes, found.iter().map(|f| f.bytes).sum::<u64>());
    assert_eq!(s.failures.len(), 1);
    assert!(s.failures[0].path.ends_with("cut.wad"));
    assert_eq!(one.exit_code(), 1);

    // the JSON report's shape
    let v: serde_json::Value = serde_json::from_str(&one.to_json()).unwrap();
    let l0 = &v["levels"][0];
    for key in ["path", "format", "bytes", "round_trip", "problems", "error"] {
        assert!(l0.get(key).is_some(), "{key} in {l0}");
    }
    assert_eq!(l0["round_trip"], "ok");
    assert_eq!(v["summary"]["levels"], 7);
    assert_eq!(v["summary"]["failed"], 1);
    assert_eq!(v["skipped"].as_array().unwrap().len(), 2);
    assert!(v["skipped"][0]["reason"].is_string());

    // without the cut file everything passes; with only broken files nothing could be read
    let good: Vec<Found> = found
        .iter()
        .filter(|f| !f.path.ends_with("cut.wad"))
        .cloned()
        .collect();
    assert_eq!(
        batch::verify_batch(&good, true, &Run::default()).exit_code(),
        0
    );
    let bad = batch::find_levels(&[root.join("data/wads/cut.wad"), root.join("readme.txt")]);
    assert_eq!(
        batch::verify_batch(&bad, false, &Run::default()).exit_code(),
        2
    );
    assert_eq!(
        batch::verify_batch(&[], false, &Run::default()).exit_code(),
        2
    );
}

#[test]
fn strict_makes_check_problems_fail() {
    let tmp = tempfile::tempdir().unwrap();
    // a WAD whose header does not match its length: reads (with a warning or problem) and
    // rebuilds byte for byte, but `check` reports the header
    let mut bytes = levelgeom_core::demo_bytes(false).unwrap();
    let h = u32::from_le_bytes(bytes[0..4].try_into().unwrap()) + 8;
    bytes[0..4].copy_from_slice(&h.to_le_bytes());
    let p = tmp.path().join("hdr.wad");
    fs::write(&p, &bytes).unwrap();
    let found = batch::find_levels(std::slice::from_ref(&p));
    let lax = batch::verify_one(&found[0], false);
    let strict = batch::verify_one(&found[0], true);
    assert_eq!(lax.round_trip.as_deref(), Some("ok"), "{lax:?}");
    assert!(lax.problems > 0, "{lax:?}");
    assert_eq!(lax.problems, lax.problem_list.len());
    assert!(lax.passed);
    assert!(!strict.passed);
    assert!(strict.reason.as_deref().unwrap().contains("--strict"));
}

/// Every file below `dir` (relative path → bytes).
fn tree(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    let mut out = BTreeMap::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                out.insert(rel(dir, &p), fs::read(&p).unwrap());
            }
        }
    }
    out
}

#[test]
fn batch_export_equals_single_exports() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    install(&root);
    let found = batch::find_levels(std::slice::from_ref(&root));
    let opts = ExportOptions {
        preview: true,
        ..ExportOptions::default()
    };
    let out1 = tmp.path().join("out1");
    let out2 = tmp.path().join("out2");
    let r1 = batch::export_batch(
        &found,
        &out1,
        &opts,
        &Run {
            jobs: 1,
            ..Run::default()
        },
    )
    .unwrap();
    let r2 = batch::export_batch(
        &found,
        &out2,
        &opts,
        &Run {
            jobs: 2,
            ..Run::default()
        },
    )
    .unwrap();
    let t1 = tree(&out1);
    assert_eq!(t1, tree(&out2), "one job and two jobs write the same bytes");
    assert_eq!(r1.exported(), 6);
    assert_eq!(r2.exported(), 6);
    let names: Vec<&str> = r1.levels.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(
        names,
        [
            "T1L1M001",
            "cut",
            "data_wads_small",
            "indep",
            "micro",
            "bigger",
            "other_small"
        ]
    );
    assert!(r1.levels[1].error.is_some());
    assert!(!out1.join("cut").exists(), "a failed level leaves nothing");

    // each level folder equals the single export of that level
    let levels: Vec<&Found> = found.iter().filter(|f| f.is_level()).collect();
    for (f, l) in levels.iter().zip(&r1.levels) {
        if l.error.is_some() {
            continue;
        }
        let single = tmp.path().join("single").join(&l.name);
        levelgeom_core::open(&f.path)
            .unwrap()
            .export(&single, &opts)
            .unwrap();
        let mut a = tree(&single);
        let mut b = tree(&l.outdir);
        // the manifests name the input as given, identical too
        assert_eq!(
            a.keys().collect::<Vec<_>>(),
            b.keys().collect::<Vec<_>>(),
            "{}",
            l.name
        );
        a.retain(|k, _| !k.starts_with('.'));
        b.retain(|k, _| !k.starts_with('.'));
        assert_eq!(a, b, "{}", l.name);
    }

    // the contact sheet links every exported level's preview and folder
    let html = String::from_utf8(t1["index.html"].clone()).unwrap();
    for l in r1.levels.iter().filter(|l| l.error.is_none()) {
        assert!(html.contains(&format!("href=\"{}/\"", l.name)), "{html}");
        assert!(html.contains(&format!("src=\"{}/preview_persp.png\"", l.name)));
    }
    assert!(t1.contains_key(".levelgeom-batch.json"));

    // a second batch into the same root is fine; a folder of other files is refused
    let again =
        batch::export_batch(&levels_only(&found, "micro"), &out1, &opts, &Run::default()).unwrap();
    assert_eq!(again.exported(), 1);
    assert_eq!(
        again.removed.len(),
        5,
        "the other levels of the first batch are gone"
    );
    assert!(out1.join("micro/level.glb").is_file());
    assert!(!out1.join("T1L1M001").exists());
    let theirs = tmp.path().join("theirs");
    fs::create_dir_all(&theirs).unwrap();
    fs::write(theirs.join("notes.txt"), b"mine").unwrap();
    let e = batch::export_batch(&found, &theirs, &opts, &Run::default()).unwrap_err();
    assert!(e.to_string().contains("--force"), "{e}");
    assert_eq!(tree(&theirs).len(), 1);
}

fn levels_only(found: &[Found], name: &str) -> Vec<Found> {
    found
        .iter()
        .filter(|f| f.path.ends_with(name))
        .cloned()
        .collect()
}

#[test]
fn a_stop_flag_starts_no_new_level() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    install(&root);
    let found = batch::find_levels(std::slice::from_ref(&root));
    let stop = std::sync::atomic::AtomicBool::new(false);
    let stop_after_first = |_: &batch::Progress<'_>| {
        stop.store(true, std::sync::atomic::Ordering::SeqCst);
    };
    let r = batch::verify_batch(
        &found,
        false,
        &Run {
            jobs: 1,
            stop: Some(&stop),
            progress: Some(&stop_after_first),
        },
    );
    assert_eq!(r.levels.len(), 1);
    assert_eq!(r.summary.not_run, 6);
    assert!(r.summary.interrupted);
    let out = tmp.path().join("out");
    stop.store(false, std::sync::atomic::Ordering::SeqCst);
    let e = batch::export_batch(
        &found,
        &out,
        &ExportOptions::default(),
        &Run {
            jobs: 1,
            stop: Some(&stop),
            progress: Some(&stop_after_first),
        },
    )
    .unwrap();
    assert_eq!(e.levels.len(), 1);
    assert_eq!(e.not_run, 6);
    let dirs: Vec<PathBuf> = fs::read_dir(&out)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_dir())
        .collect();
    assert_eq!(
        dirs.len(),
        1,
        "only the finished level is there, no temporary folder"
    );
}

/// Levels of XRLC 4–10 start with a 128-byte header chunk (`u32 version; char name[124]`,
/// the engine's `hdrLEVEL` of 2002-01-15 to 2003-06-20), not the 4-byte one: found alike.
#[test]
fn discovery_finds_an_old_level_with_a_128_byte_header() {
    let tmp = tempfile::tempdir().unwrap();
    let d = tmp.path().join("l01_escape");
    fs::create_dir_all(&d).unwrap();
    let (lb, _) = levelgeom_xray::generate::level_bytes(levelgeom_xray::generate::Options {
        version: 5,
        compress: false,
    });
    assert_eq!(&lb[..8], &[1, 0, 0, 0, 128, 0, 0, 0]);
    fs::write(d.join("level"), &lb).unwrap();
    let found = batch::find_levels(&[tmp.path().to_path_buf()]);
    let levels: Vec<(String, &str)> = found
        .iter()
        .filter(|f| f.is_level())
        .map(|f| (rel(tmp.path(), &f.path), f.format().unwrap()))
        .collect();
    assert_eq!(levels, [("l01_escape".to_string(), "xray-level")]);
}
