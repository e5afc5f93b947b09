//! The `levelgeom` binary on WAD files: info (text and JSON), rebuild --verify, check, and
//! damaged input. Expectations come from the independently written `indep.wad` and its
//! `indep.expect.json` (tools/fixtures/make_indep_wad.py) or are computed by hand.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use levelgeom_wad::level::Level;
use serde_json::Value;

fn bin() -> Command {
    Command::new(env!("CARGO_BIN_EXE_levelgeom"))
}

fn data(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../wad/tests/data/independent")
        .join(name)
}

fn run(args: &[&std::ffi::OsStr]) -> Output {
    bin().args(args).output().expect("runs levelgeom")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn expect_json(name: &str) -> Value {
    let s = std::fs::read_to_string(data(name)).expect("expect.json");
    serde_json::from_str(&s).expect("valid JSON")
}

#[test]
fn info_json_matches_the_independent_expectations() {
    let wad = data("indep.wad");
    let out = run(&["info".as_ref(), wad.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON on stdout");
    let want = expect_json("indep.expect.json");
    assert_eq!(v["format"], "argonaut-wad");
    assert_eq!(v["size"], want["file_size"]);
    assert_eq!(v["header"]["value"], want["header"]);
    assert_eq!(v["header"]["bias"], want["header_bias"]);
    let got = v["chunks"].as_array().expect("chunks");
    let exp = want["chunks"].as_array().expect("chunks");
    assert_eq!(got.len(), exp.len());
    for (g, e) in got.iter().zip(exp) {
        for k in ["tag", "offset", "declared_size", "size"] {
            assert_eq!(g[k], e[k], "{k} of {}", e["tag"]);
        }
    }
    let level = &v["level"];
    let counts = &want["counts"];
    for k in [
        "wfpc",
        "grid",
        "tiles",
        "trak_models",
        "stpc_models",
        "texture_pages",
        "texture_entries",
    ] {
        assert_eq!(level[k], counts[k], "{k}");
    }
    assert_eq!(v["warnings"].as_array().map(|w| w.len()), Some(0));
}

#[test]
fn info_text_lists_every_chunk() {
    let wad = data("indep.wad");
    let out = run(&["info".as_ref(), wad.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let s = text(&out.stdout);
    // TEXT at offset 40 = 0x28 with its declared size
    assert!(
        s.contains("0x00000028  TEXT       22537       22537"),
        "{s}"
    );
    assert!(s.contains("3 pages (1 rle, 1 raw16, 1 8-bit)"), "{s}");
    assert!(s.contains("8×8 grid, 5 tiles"), "{s}");
    assert_eq!(s.lines().filter(|l| l.starts_with("0x")).count(), 17);
}

#[test]
fn map_plus_4_warns_and_rebuilds_byte_for_byte() {
    let wad = data("indep_map_plus4.wad");
    let out = run(&["info".as_ref(), wad.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let map = v["chunks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["tag"] == "MAP "))
        .expect("MAP");
    assert_eq!(
        map["declared_size"].as_u64(),
        map["size"].as_u64().map(|s| s + 4)
    );
    let warnings = v["warnings"].as_array().expect("warnings");
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].as_str().is_some_and(|w| w.contains("in MAP")));

    let dir = tempfile::tempdir().expect("tempdir");
    let outp = dir.path().join("out.wad");
    let out = run(&[
        "rebuild".as_ref(),
        wad.as_os_str(),
        outp.as_os_str(),
        "--verify".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert!(text(&out.stdout).starts_with("identical:"));
    assert_eq!(
        std::fs::read(&outp).expect("output"),
        std::fs::read(&wad).expect("input")
    );
}

#[test]
fn rebuild_verify_is_identical_and_never_overwrites_the_input() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wad = dir.path().join("in.wad");
    std::fs::copy(data("indep.wad"), &wad).expect("copy");
    let outp = dir.path().join("out.wad");
    let out = run(&[
        "rebuild".as_ref(),
        wad.as_os_str(),
        outp.as_os_str(),
        "--verify".as_ref(),
    ]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    assert_eq!(
        text(&out.stdout).trim(),
        format!(
            "identical: {} rebuilds byte for byte (28775 bytes)",
            wad.display()
        )
    );
    let out = run(&["rebuild".as_ref(), wad.as_os_str(), wad.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("refusing to overwrite"));
}

#[test]
fn a_truncated_file_exits_2_naming_the_offset_and_chunk() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wad = dir.path().join("cut.wad");
    let bytes = std::fs::read(data("indep.wad")).expect("indep.wad");
    std::fs::write(&wad, &bytes[..1000]).expect("write");
    for cmd in ["info", "check"] {
        let out = run(&[cmd.as_ref(), wad.as_os_str()]);
        assert_eq!(out.status.code(), Some(2), "{cmd}");
        let err = text(&out.stderr);
        // TEXT's header is at 40; its size field at 44 = 0x2C declares more than remains
        assert!(
            err.contains(&format!(
                "{}: at 0x0000002C in TEXT: declared size 22537 runs past the end of the file",
                wad.display()
            )),
            "{cmd}: {err}"
        );
    }
    let outp = dir.path().join("out.wad");
    let out = run(&["rebuild".as_ref(), wad.as_os_str(), outp.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(text(&out.stderr).contains("at 0x0000002C in TEXT"));
    assert!(!outp.exists());
}

#[test]
fn a_corrupt_count_inside_a_chunk_exits_2_with_its_path() {
    let dir = tempfile::tempdir().expect("tempdir");
    let wad = dir.path().join("bad.wad");
    let mut bytes = std::fs::read(data("indep.wad")).expect("indep.wad");
    // LGPC's header is at 0x6FF6 (indep.expect.json); its payload at 0x6FFE; cols at +4
    let want = expect_json("indep.expect.json");
    let lgpc = want["chunks"]
        .as_array()
        .and_then(|c| c.iter().find(|c| c["tag"] == "LGPC"))
        .and_then(|c| c["payload_offset"].as_u64())
        .expect("LGPC") as usize;
    bytes[lgpc + 4..lgpc + 8].copy_from_slice(&0x00FF_FFFFu32.to_le_bytes());
    std::fs::write(&wad, &bytes).expect("write");
    let out = run(&["info".as_ref(), wad.as_os_str()]);
    assert_eq!(out.status.code(), Some(2));
    let err = text(&out.stderr);
    // the lengths table starts at payload + 12
    assert!(
        err.contains(&format!("at 0x{:08X} in LGPC: count", lgpc + 12)),
        "{err}"
    );
}

#[test]
fn check_passes_the_generated_demo_and_flags_a_broken_texture_index() {
    let dir = tempfile::tempdir().expect("tempdir");
    let demo = levelgeom_wad::generate::demo_level().unwrap();
    let good = dir.path().join("demo.wad");
    std::fs::write(&good, &demo).expect("write");
    let out = run(&["check".as_ref(), good.as_os_str()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout).trim(),
        format!("{}: no problems found", good.display())
    );

    let (mut level, _) = Level::read(&demo).expect("demo parses");
    let entries = level.text().map(|t| t.entries.len()).expect("TEXT");
    let (mi, fi) = {
        let trak = level.trak_mut().expect("TRAK");
        let mi = trak
            .models
            .iter()
            .position(|m| !m.faces.is_empty())
            .expect("a model with faces");
        trak.models[mi].faces[0].texture = 999;
        (mi, 0)
    };
    let bad = dir.path().join("bad.wad");
    std::fs::write(&bad, level.to_bytes().unwrap()).expect("write");
    let out = run(&["check".as_ref(), bad.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    let s = text(&out.stdout);
    let line = format!("TRAK/models[{mi}]/faces[{fi}]: texture index 999 is not below the {entries} texture entries");
    assert!(s.lines().any(|l| l == line), "{s}");
}

#[test]
fn info_demo_json_describes_the_built_in_level() {
    let out = run(&["info".as_ref(), "--demo".as_ref(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0), "{}", text(&out.stderr));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    let demo = levelgeom_wad::generate::demo_level().unwrap();
    assert_eq!(v["size"].as_u64(), Some(demo.len() as u64));
    assert_eq!(v["header"]["value"].as_u64(), Some(demo.len() as u64 - 4));
    let tags: Vec<&str> = v["chunks"]
        .as_array()
        .expect("chunks")
        .iter()
        .filter_map(|c| c["tag"].as_str())
        .collect();
    assert_eq!(tags.first(), Some(&"INFO"));
    assert_eq!(tags.last(), Some(&"END "));
}

#[test]
fn check_finds_no_problems_in_the_independent_wads() {
    // Written from the seed and the spec alone (tools/fixtures/make_indep_wad.py); its first
    // version forgot the batch flag where an STPC face switches page, and `check` caught that.
    for name in ["indep.wad", "indep_map_plus4.wad"] {
        let wad = data(name);
        let out = run(&["check".as_ref(), wad.as_os_str()]);
        assert_eq!(out.status.code(), Some(0), "{name}: {}", text(&out.stdout));
        assert!(text(&out.stdout).contains("no problems found"), "{name}");
    }
}

#[test]
fn check_reports_a_header_that_is_not_the_length_minus_4() {
    // indep.wad is 28775 bytes; a header of 28775 − 4 + 0x800 = 30819 has bias +2048.
    let dir = tempfile::tempdir().expect("tempdir");
    let wad = dir.path().join("bias.wad");
    let mut bytes = std::fs::read(data("indep.wad")).expect("indep.wad");
    bytes[..4].copy_from_slice(&30819u32.to_le_bytes());
    std::fs::write(&wad, &bytes).expect("write");
    let out = run(&["check".as_ref(), wad.as_os_str()]);
    assert_eq!(out.status.code(), Some(1), "{}", text(&out.stdout));
    assert_eq!(
        text(&out.stdout).lines().collect::<Vec<_>>(),
        ["at 0x00000000 in header: the file header is 30819 (0x00007863), but the file length − 4 is 28771 (bias +2048)"]
    );
    // info still describes it, with the bias
    let out = run(&["info".as_ref(), wad.as_os_str(), "--json".as_ref()]);
    assert_eq!(out.status.code(), Some(0));
    let v: Value = serde_json::from_slice(&out.stdout).expect("JSON");
    assert_eq!(v["header"]["value"], 30819);
    assert_eq!(v["header"]["bias"], 2048);
}
