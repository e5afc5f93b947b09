//! What a newcomer tripped over (issue 26, items 1–17): each message says what is wrong and
//! what to do, options are never silently ignored, and nothing is written on a refusal.

use std::path::{Path, PathBuf};

use super::common::{os, run, s, xray_fixture_dir, XRAY_FILES};
use serde_json::Value;

/// `render`'s background (levelgeom_render::BACKGROUND), as the render crate documents it.
const SKY: [u8; 4] = [158, 178, 200, 255];

fn run_s(args: &[&str]) -> (i32, String, String) {
    let a: Vec<&std::ffi::OsStr> = args.iter().map(os).collect();
    run(&a)
}

/// A temporary folder with the demo WAD (`demo.wad`) and the X-Ray fixture (`micro/`).
fn setup() -> (tempfile::TempDir, PathBuf, PathBuf) {
    let t = tempfile::tempdir().unwrap();
    let wad = t.path().join("demo.wad");
    std::fs::write(&wad, levelgeom_wad::generate::demo_level().unwrap()).unwrap();
    let micro = t.path().join("micro");
    std::fs::create_dir(&micro).unwrap();
    for f in XRAY_FILES {
        std::fs::copy(xray_fixture_dir().join(f), micro.join(f)).unwrap();
    }
    (t, wad, micro)
}

/// RGBA8 pixels of a PNG file (decoded by the png crate).
fn pixels(p: &Path) -> Vec<[u8; 4]> {
    let mut dec = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(p).unwrap()))
        .read_info()
        .unwrap();
    let mut buf = vec![0; dec.output_buffer_size().unwrap()];
    let info = dec.next_frame(&mut buf).unwrap();
    assert_eq!(info.color_type, png::ColorType::Rgba);
    buf[..info.buffer_size()]
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

#[test]
fn item1_render_demo_refuses_a_level_file() {
    let (t, wad, _) = setup();
    let png = t.path().join("out.png");
    let (code, _, err) = run_s(&["render", "--demo", s(&wad), s(&png)]);
    assert_eq!(code, 2, "{err}");
    assert!(err.contains("--demo takes only OUT.png"), "{err}");
    assert!(!png.exists());
}

#[test]
fn item2_a_level_geom_with_its_level_beside_it_is_that_level() {
    let (_t, _, micro) = setup();
    let (code, out, err) = run_s(&["verify", "-q", s(&micro.join("level.geom"))]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(out.contains("1 passed, 0 failed, 0 skipped"), "{out}");
    assert!(!out.contains("without the X-Ray `level`"), "{out}");
    // alone, it is still explained
    let lone = micro.parent().unwrap().join("lone");
    std::fs::create_dir(&lone).unwrap();
    std::fs::copy(micro.join("level.geom"), lone.join("level.geom")).unwrap();
    let (code, out, _) = run_s(&["verify", "-q", s(&lone.join("level.geom"))]);
    assert_eq!(code, 2);
    assert!(out.contains("without the X-Ray `level`"), "{out}");
}

#[test]
fn item3_import_help_names_every_build_written() {
    let (code, out, _) = run_s(&["import", "--help"]);
    assert_eq!(code, 0);
    assert!(!out.contains("13 or 14"), "{out}");
    assert!(out.contains("4, 5, 8–14"), "{out}");
}

#[test]
fn item4_colour_sets_are_refused_for_x_ray_pointing_to_vertex_light() {
    let (t, _, micro) = setup();
    for opt in [&["--all-colour-sets"][..], &["--colour-set", "1"]] {
        let dir = t.path().join("out");
        let mut a = vec!["export", s(&micro), s(&dir)];
        a.extend(opt);
        let (code, _, err) = run_s(&a);
        assert_eq!(code, 2, "{opt:?}: {err}");
        assert!(err.contains("no vertex-colour sets"), "{err}");
        assert!(err.contains("--vertex-light"), "{err}");
        assert!(!err.contains("at most 0"), "{err}");
        assert!(!dir.exists());
    }
}

/// The single export and the batch word the colour-set refusal in one sentence (core's
/// `Error::NoColourSets`): the single export's error is the batch's `FAILED` reason for
/// `--colour-set 1`, and the batch's warning for `--all-colour-sets` (where the WAD of the same
/// batch has sets, so the batch goes on).
#[test]
fn item4_single_and_batch_export_print_the_same_colour_set_sentence() {
    let (t, wad, micro) = setup();
    for (k, opt) in [&["--colour-set", "1"][..], &["--all-colour-sets"]]
        .into_iter()
        .enumerate()
    {
        let one = t.path().join(format!("one{k}"));
        let mut a = vec!["export", s(&micro), s(&one)];
        a.extend(opt);
        let (code, _, err) = run_s(&a);
        assert_eq!(code, 2, "{opt:?}: {err}");
        let sentence = err
            .trim_end()
            .strip_prefix("levelgeom: error: ")
            .unwrap_or_else(|| panic!("{err}"));
        assert!(
            sentence.starts_with(&format!("{}: ", opt.join(" ")))
                && sentence.contains("is an X-Ray level, which has no vertex-colour sets")
                && sentence.ends_with("or as COLOR_0 with --vertex-light"),
            "{sentence}"
        );
        let batch = t.path().join(format!("batch{k}"));
        let mut a = vec!["export", "-q", s(&wad), s(&micro), s(&batch)];
        a.extend(opt);
        let (code, text, err) = run_s(&a);
        let want = if k == 0 {
            assert_eq!(
                code, 1,
                "the WAD exported, the X-Ray level failed: {text}{err}"
            );
            format!("FAILED {}: {sentence}\n", micro.display())
        } else {
            assert_eq!(code, 0, "{text}{err}");
            format!("  warning: {sentence} (nothing more written)\n")
        };
        assert!(text.contains(&want), "{want:?} not in:\n{text}");
    }
}

#[test]
fn item5_wrong_engine_refusals_name_the_options_given() {
    let (t, wad, micro) = setup();
    let out = t.path().join("o");
    let (code, _, err) = run_s(&["export", s(&wad), s(&out), "--vertex-light"]);
    assert_eq!(code, 2);
    assert!(err.contains("--vertex-light is an X-Ray option"), "{err}");
    assert!(
        !err.contains("--textures") && !err.contains("--portals"),
        "{err}"
    );
    let (_, _, err) = run_s(&["export", s(&wad), s(&out), "--lods", "--portals"]);
    assert!(
        err.contains("--lods and --portals are X-Ray options"),
        "{err}"
    );
    let (_, _, err) = run_s(&["export", s(&micro), s(&out), "--mirror-z"]);
    assert!(err.contains("--mirror-z is a WAD option"), "{err}");
    assert!(!err.contains("--objects"), "{err}");
    let (_, _, err) = run_s(&[
        "import",
        s(&wad),
        s(&wad),
        s(&t.path().join("x.wad")),
        "--allow-loss",
    ]);
    assert!(err.contains("--allow-loss is an X-Ray option"), "{err}");
    assert!(!err.contains("--delete-missing"), "{err}");
}

#[test]
fn item6_an_output_that_is_a_folder_is_said_to_be_one_at_once() {
    let (t, wad, _) = setup();
    let dir = t.path().join("pictures");
    std::fs::create_dir(&dir).unwrap();
    for force in [false, true] {
        let mut a = vec!["render", s(&wad), s(&dir)];
        if force {
            a.push("--force");
        }
        let (code, _, err) = run_s(&a);
        assert_eq!(code, 2);
        assert!(err.contains("a folder of that name is in the way"), "{err}");
        assert!(!err.contains("--force"), "force {force}: {err}");
    }
    assert!(dir.is_dir());
}

#[test]
fn item7_previews_of_the_collision_alone_are_not_blank() {
    let (t, _, micro) = setup();
    let out = t.path().join("o");
    let (code, _, err) = run_s(&[
        "export",
        s(&micro),
        s(&out),
        "--only",
        "collision",
        "--preview",
    ]);
    assert_eq!(code, 0, "{err}");
    for f in ["preview_top.png", "preview_persp.png"] {
        let px = pixels(&out.join(f));
        let drawn = px.iter().filter(|p| **p != SKY).count();
        // the fixture's 44 collision triangles span the level: a good part of the picture
        assert!(drawn > px.len() / 20, "{f}: {drawn} of {} pixels", px.len());
    }
}

#[test]
fn item8_render_collision_shows_collision_under_the_level() {
    let (t, _, micro) = setup();
    let plain = t.path().join("plain.png");
    let coll = t.path().join("coll.png");
    assert_eq!(run_s(&["render", s(&micro), s(&plain)]).0, 0);
    assert_eq!(run_s(&["render", s(&micro), s(&coll), "--collision"]).0, 0);
    let (a, b) = (pixels(&plain), pixels(&coll));
    // the overlay's magenta (1, 0.2, 0.8) at 60 % over grey: red and blue well above green
    let magenta = |p: &[u8; 4]| {
        let [r, g, b] = [p[0], p[1], p[2]].map(i32::from);
        r - g > 60 && b - g > 40
    };
    let changed = a.iter().zip(&b).filter(|(x, y)| x != y).count();
    let tinted = b.iter().filter(|p| magenta(p)).count();
    assert_eq!(a.iter().filter(|p| magenta(p)).count(), 0);
    assert!(changed > a.len() / 20, "{changed} pixels changed");
    assert!(tinted > a.len() / 20, "{tinted} pixels tinted");
}

#[test]
fn item10_batch_export_shows_warnings_and_json_lists_files_and_warnings() {
    let (t, wad, micro) = setup();
    let out = t.path().join("batch");
    let (code, text, err) = run_s(&[
        "export",
        "-q",
        s(&wad),
        s(&micro),
        s(&out),
        "--all-colour-sets",
    ]);
    assert_eq!(code, 0, "{err}");
    assert!(text.contains("1 warning)"), "{text}");
    assert!(
        text.contains("  warning: --all-colour-sets: ")
            && text.contains("is an X-Ray level, which has no vertex-colour sets"),
        "{text}"
    );
    let out2 = t.path().join("batch2");
    let (code, text, _) = run_s(&[
        "export",
        "-q",
        "--json",
        s(&wad),
        s(&micro),
        s(&out2),
        "--all-colour-sets",
    ]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["summary"]["exported"], 2);
    assert_eq!(v["summary"]["failed"], 0);
    let levels = v["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    let mut warned = 0;
    for l in levels {
        warned += l["warnings"].as_array().unwrap().len();
        for f in l["files"].as_array().unwrap() {
            let p = Path::new(f["path"].as_str().unwrap());
            assert_eq!(f["bytes"], std::fs::metadata(p).unwrap().len(), "{p:?}");
        }
    }
    assert_eq!(warned, 1);
    // a single export
    let one = t.path().join("one");
    let (code, text, _) = run_s(&["export", "--json", s(&micro), s(&one)]);
    assert_eq!(code, 0);
    let v: Value = serde_json::from_str(&text).unwrap();
    let files = v["files"].as_array().unwrap();
    assert_eq!(files.len(), 3, "level.glb, level.obj, level.mtl");
    for f in files {
        let p = Path::new(f["path"].as_str().unwrap());
        assert_eq!(f["bytes"], std::fs::metadata(p).unwrap().len());
    }
    // the fixture's own counts (xray_cli pins them against the file): 9 placed, 5 distinct
    assert_eq!(v["placed_meshes"], 9);
    assert_eq!(v["distinct_meshes"], 5);
    assert!(v["warnings"].as_array().unwrap().is_empty());
}

#[test]
fn item11_a_batch_that_finds_nothing_or_a_missing_path_writes_nothing() {
    let (t, wad, _) = setup();
    let empty = t.path().join("empty");
    std::fs::create_dir(&empty).unwrap();
    let out = t.path().join("out");
    let (code, _, err) = run_s(&["export", s(&empty), s(&out)]);
    assert_eq!(code, 2);
    assert!(err.contains("no level found"), "{err}");
    assert!(!out.exists(), "OUTROOT created");
    let typo = t.path().join("dmeo.wad");
    let (code, _, err) = run_s(&["export", s(&typo), s(&wad), s(&out)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("dmeo.wad") && err.contains("cannot read"),
        "{err}"
    );
    assert!(!out.exists(), "OUTROOT created");
    let (code, _, _) = run_s(&["verify", s(&typo), s(&wad)]);
    assert_eq!(code, 2);
}

#[test]
fn item12_probe_outside_the_grid_says_so() {
    let (_t, wad, _) = setup();
    // the demo's grid is 16×16 (its MAP header; `info` prints it)
    let (code, out, _) = run_s(&["probe", s(&wad), "3", "3"]);
    assert_eq!(code, 0);
    assert!(out.contains("outside the 16×16 grid"), "{out}");
    assert!(out.contains("z is negative"), "{out}");
    let (_, out, _) = run_s(&["probe", s(&wad), "3", "-3"]);
    assert!(!out.contains("outside"), "{out}");
}

#[test]
fn item13_read_errors_name_the_read_and_outputs_that_exist_one_wording() {
    let (t, wad, _) = setup();
    let missing = t.path().join("nosuch.wad");
    let (code, _, err) = run_s(&["info", s(&missing)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("cannot read ") && !err.contains("or write"),
        "{err}"
    );
    let existing = t.path().join("exists.bin");
    std::fs::write(&existing, b"x").unwrap();
    for a in [
        vec!["rebuild", s(&wad), s(&existing)],
        vec!["render", s(&wad), s(&existing)],
        vec!["demo", s(&existing)],
    ] {
        let (code, _, err) = run_s(&a);
        assert_eq!(code, 2, "{a:?}");
        assert!(
            err.contains(
                "the file exists; choose another output path or pass --force to replace it"
            ),
            "{a:?}: {err}"
        );
    }
    assert_eq!(std::fs::read(&existing).unwrap(), b"x");
}

#[test]
fn item14_our_own_mesh_fed_back_says_import_takes_it() {
    let (t, wad, micro) = setup();
    let out = t.path().join("x");
    assert_eq!(run_s(&["export", s(&micro), s(&out)]).0, 0);
    let glb = out.join("level.glb");
    let (code, _, err) = run_s(&["info", s(&glb)]);
    assert_eq!(code, 2);
    assert!(
        err.contains("it is a mesh") && err.contains("levelgeom import"),
        "{err}"
    );
    let (code, _, err) = run_s(&["import", s(&wad), s(&glb), s(&t.path().join("n.wad"))]);
    assert_eq!(code, 2);
    assert!(err.contains("export of an X-Ray level"), "{err}");
}

#[test]
fn item15_placed_and_distinct_counts_are_explained() {
    let (t, _, micro) = setup();
    let (code, out, _) = run_s(&["export", s(&micro), s(&t.path().join("o"))]);
    assert_eq!(code, 0);
    assert!(out.contains("9 placed meshes (5 distinct"), "{out}");
    assert!(
        out.contains("a mesh placed at several nodes counts each time"),
        "{out}"
    );
}

#[test]
fn item16_verify_names_the_failing_path_once() {
    let (t, wad, _) = setup();
    let bytes = std::fs::read(&wad).unwrap();
    let cut = t.path().join("cut.wad");
    std::fs::write(&cut, &bytes[..200_000]).unwrap();
    let (code, out, _) = run_s(&["verify", "-q", s(&cut)]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("FAILED"), "{out}");
    for line in out.lines().filter(|l| l.contains("cut.wad")) {
        assert_eq!(line.matches("cut.wad").count(), 1, "{line}");
    }
}

#[test]
fn item17_counts_agree_in_number_and_zero_jobs_is_refused() {
    let (t, wad, _) = setup();
    let (_, out, _) = run_s(&["info", s(&wad)]);
    assert!(
        out.contains(" 1 sound\n") || out.contains(" 1 sound"),
        "{out}"
    );
    assert!(
        !out.contains("1 sounds") && !out.contains("1 speech references"),
        "{out}"
    );
    let (code, _, err) = run_s(&[
        "export",
        "--jobs",
        "0",
        s(&wad),
        s(&wad),
        s(&t.path().join("o")),
    ]);
    assert_eq!(code, 2);
    assert!(err.contains("1 or more"), "{err}");
    let (code, _, _) = run_s(&["verify", "--jobs", "0", s(&wad)]);
    assert_eq!(code, 2);
}

#[test]
fn item18_the_demo_has_strings_to_show() {
    let (t, wad, _) = setup();
    let (_, out, _) = run_s(&["info", s(&wad)]);
    // hand computed: 12 header bytes + 2 rows × 3 strings × 4-byte lengths + the strings with
    // their NULs: "Welcome to Synthetic Island!" 29, "#001" 5, "The lever opens the gate." 26,
    // "#002" 5, "Kuzco, over here!" 18, "#003" 5 = 88
    let lgpc = out.lines().find(|l| l.contains("LGPC")).unwrap();
    assert!(lgpc.contains(" 124  2 rows × 3 strings"), "{lgpc}");
    let dir = t.path().join("x");
    assert_eq!(run_s(&["extract", s(&wad), s(&dir)]).0, 0);
    let csv = std::fs::read_to_string(dir.join("strings.csv")).unwrap();
    assert!(csv.contains("0,Welcome to Synthetic Island!,#001"), "{csv}");
    assert!(csv.contains("2,\"Kuzco, over here!\",#003"), "{csv}");
}

/// The pictures in `docs/` are what the documented commands draw now (docs/guide/pictures.md
/// names them); when the renderer or the demo changes on purpose, regenerate them with those
/// commands.
#[test]
fn item9_the_pictures_in_docs_are_not_stale() {
    let t = tempfile::tempdir().unwrap();
    let docs = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs");
    let demo = t.path().join("demo.png");
    assert_eq!(run_s(&["render", "--demo", s(&demo)]).0, 0);
    let micro = t.path().join("micro.png");
    let fixture = xray_fixture_dir();
    assert_eq!(
        run_s(&["render", s(&fixture), s(&micro), "--size", "640x400"]).0,
        0
    );
    for (made, doc, command) in [
        (&demo, "demo_preview_persp.png", "levelgeom render --demo docs/demo_preview_persp.png --force"),
        (
            &micro,
            "xray_fixture_persp.png",
            "levelgeom render crates/xray/tests/data/xray-v14-micro docs/xray_fixture_persp.png --size 640x400 --force",
        ),
    ] {
        assert!(
            std::fs::read(made).unwrap() == std::fs::read(docs.join(doc)).unwrap(),
            "docs/{doc} is stale: regenerate it with `{command}`"
        );
    }
}
