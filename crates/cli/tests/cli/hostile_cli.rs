//! Issue 24, part B: the minimal hostile cases for the inputs that are not meshes — FIFOs and
//! sparse giants as `--sound`, `--strings` and `--cvs`, WAVs the game cannot play, strings
//! JSON that is not UTF-8 or not JSON, a NaN probe, a `sample` whose last file cannot be
//! written, and the temporary a killed process leaves. Each asserts the exit code (2), that the
//! error line locates the problem, and that nothing was written.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

use crate::common::{s, wav_bytes};

/// Run levelgeom under a 1 GiB address-space limit and a 60 s watchdog (a FIFO that blocks
/// would otherwise hang the test run; reading a sparse 3 GiB file whole would fail the limit).
fn levelgeom(args: &[&str]) -> Output {
    let mut c = Command::new("sh");
    c.arg("-c")
        .arg("ulimit -v 1048576; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_levelgeom"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = c.spawn().unwrap();
    let start = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            panic!("levelgeom {args:?} still running after 60 s (blocked?)");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// The run failed with exit 2 and a `levelgeom: error:` line holding every needle.
fn refused(args: &[&str], needles: &[&str]) -> String {
    let o = levelgeom(args);
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "levelgeom {args:?}: {err}");
    assert!(err.contains("levelgeom: error:"), "{err}");
    for n in needles {
        assert!(err.contains(n), "{n:?} not in: {err}");
    }
    err
}

fn modder_wad(dir: &Path) -> PathBuf {
    let (level, _) = levelgeom_wad::generate::modder_level().unwrap();
    let p = dir.join("modder.wad");
    std::fs::write(&p, level.to_bytes().unwrap()).unwrap();
    p
}

fn mkfifo(p: &Path) -> bool {
    Command::new("mkfifo")
        .arg(p)
        .status()
        .is_ok_and(|s| s.success())
}

fn listing(d: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(d)
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    v.sort();
    v
}

#[test]
fn fifos_are_refused_not_waited_on() {
    let dir = tempfile::tempdir().unwrap();
    let wad = modder_wad(dir.path());
    let fifo = dir.path().join("pipe");
    if !mkfifo(&fifo) {
        return;
    }
    let out = dir.path().join("out.wad");
    let sound = format!("0={}", s(&fifo));
    for args in [
        vec!["replace", s(&wad), s(&out), "--sound", &sound],
        vec!["replace", s(&wad), s(&out), "--strings", s(&fifo)],
    ] {
        refused(&args, &["pipe", "not a regular file"]);
    }
    let x = dir.path().join("x");
    refused(
        &["extract", s(&wad), s(&x), "--cvs", s(&fifo)],
        &["pipe", "not a regular file"],
    );
    assert!(!out.exists() && !x.exists());
}

/// A sparse 3 GiB CVS whose first 0x800 bytes are the demo's speech entry: extract reads that
/// slice only (under a 1 GiB address-space limit); a sparse 3 GiB strings JSON is refused by
/// its size before a byte is read.
#[test]
fn sparse_giants_are_read_only_as_far_as_used() {
    let dir = tempfile::tempdir().unwrap();
    let wad = modder_wad(dir.path());
    let cvs = dir.path().join("ENGLISH.CVS");
    let stream = levelgeom_wad::adpcm::encode(&[1000i16; 3584], &Default::default());
    assert_eq!(stream.len(), 0x800);
    std::fs::write(&cvs, &stream).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&cvs).unwrap();
    f.set_len(3 << 30).unwrap();
    drop(f);
    let x = dir.path().join("x");
    let o = levelgeom(&["extract", s(&wad), s(&x), "--cvs", s(&cvs)]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(x.join("srpc_000.wav").is_file());

    let json = dir.path().join("strings.json");
    let f = std::fs::File::create(&json).unwrap();
    f.set_len(3 << 30).unwrap();
    drop(f);
    refused(
        &[
            "replace",
            s(&wad),
            s(&dir.path().join("o.wad")),
            "--strings",
            s(&json),
        ],
        &[
            "strings.json",
            "is 3221225472 bytes, more than the 33554432",
        ],
    );
}

/// WAVs the game cannot play: rate 0 (it was written into the WAD), 3 channels, 12 bits; and
/// a truncated `data` chunk. Each error names the value, the chunk and its offset.
#[test]
fn unplayable_and_broken_wavs_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let wad = modder_wad(dir.path());
    let out = dir.path().join("out.wad");
    let mut broken = wav_bytes(1, 1, 16, 22050, &[0; 8]);
    broken.truncate(48);
    for (bytes, needles) in [
        (
            wav_bytes(1, 1, 16, 0, &[0; 4]),
            vec!["'fmt ' at 0x0000000C +4: sample rate 0 Hz; the game plays 100 to 100000"],
        ),
        (
            wav_bytes(1, 3, 16, 22050, &[0; 6]),
            vec!["'fmt ' at 0x0000000C +2: 3 channels"],
        ),
        (
            wav_bytes(1, 1, 12, 22050, &[0; 4]),
            vec!["'fmt ' at 0x0000000C +14: 12-bit integer samples"],
        ),
        (
            broken,
            vec!["'data' at 0x00000024: declares 8 bytes of samples, the file has 4"],
        ),
    ] {
        let w = dir.path().join("in.wav");
        std::fs::write(&w, &bytes).unwrap();
        let arg = format!("0={}", s(&w));
        let mut n = needles.clone();
        n.push("in.wav");
        refused(&["replace", s(&wad), s(&out), "--sound", &arg], &n);
        assert!(!out.exists());
    }
}

/// Strings JSON errors name the byte offset and the JSON path: invalid UTF-8 (was an I/O error
/// without a position), a syntax error, a cell without text.
#[test]
fn strings_json_errors_are_located() {
    let dir = tempfile::tempdir().unwrap();
    let wad = modder_wad(dir.path());
    let out = dir.path().join("out.wad");
    let p = dir.path().join("s.json");
    // byte 0x2F is the 0xFF inside the first text (hand counted: `{"strings": ` 12 bytes,
    // `[{"column": 0, ` 15, `"row": 0, ` 10, `"text": "a` 10)
    let mut bad_utf8 = br#"{"strings": [{"column": 0, "row": 0, "text": "a"#.to_vec();
    assert_eq!(bad_utf8.len(), 47);
    bad_utf8.extend_from_slice(b"\xFF\"}]}");
    for (bytes, needles) in [
        (
            bad_utf8,
            vec!["at byte 0x0000002F ($.strings[0].text): not UTF-8 (byte 0xFF)"],
        ),
        (
            br#"{"strings": [{"column": 0, "row": 0, "text": x}]}"#.to_vec(),
            vec!["at byte 0x0000002D ($.strings[0].text): not JSON"],
        ),
        (
            br#"  {"string": []}"#.to_vec(),
            vec![r#"at byte 0x00000002 ($): no "strings" array"#],
        ),
        (
            br#"{"strings": [{"column": 0, "row": 0, "text": "a"}, {"column": 0}]}"#.to_vec(),
            vec![r#"at byte 0x00000033 ($.strings[1]): needs "column", "row" and "text""#],
        ),
    ] {
        std::fs::write(&p, &bytes).unwrap();
        let mut n = needles.clone();
        n.push("s.json");
        refused(&["replace", s(&wad), s(&out), "--strings", s(&p)], &n);
        assert!(!out.exists());
    }
}

#[test]
fn probe_refuses_coordinates_that_are_no_point() {
    let dir = tempfile::tempdir().unwrap();
    let wad = modder_wad(dir.path());
    refused(
        &["probe", s(&wad), "NaN", "0"],
        &["probe x: NaN is no point of a level"],
    );
    refused(&["probe", s(&wad), "--", "0", "-inf"], &["probe z: -inf"]);
    refused(&["probe", s(&wad), "1e30", "0"], &["probe x", "±524288"]);
    let o = levelgeom(&["probe", s(&wad), "524288", "0"]);
    assert!(o.status.success());
}

/// `sample` writes its OBJ, MTL and pages all or nothing: with a folder in the way of
/// `page_00.png`, neither `s.obj` nor `s.mtl` is left (they were before).
#[test]
fn sample_is_all_or_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let wad = modder_wad(dir.path());
    let out = dir.path().join("o");
    std::fs::create_dir_all(out.join("page_00.png")).unwrap();
    refused(
        &["sample", s(&wad), s(&out.join("s.obj"))],
        &["page_00.png", "folder"],
    );
    assert_eq!(listing(&out), ["page_00.png"]);
    std::fs::remove_dir(out.join("page_00.png")).unwrap();
    let o = levelgeom(&["sample", s(&wad), s(&out.join("s.obj"))]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(listing(&out).contains(&"s.mtl".to_string()));
}

/// A process killed while writing (here: `SIGXFSZ` past a one-block file size limit, the
/// issue's case) leaves its temporary; the next run into the folder removes it, since its
/// process is gone.
#[test]
fn a_killed_processs_temporary_is_removed_by_the_next_run() {
    let dir = tempfile::tempdir().unwrap();
    let wad = modder_wad(dir.path());
    let out = dir.path().join("o");
    std::fs::create_dir(&out).unwrap();
    // a run that writes more than the one block `ulimit -f 1` allows: killed mid-write
    let o = Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 1; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_levelgeom"))
        .args(["rebuild", s(&wad), s(&out.join("a.wad"))])
        .output()
        .unwrap();
    assert!(!o.status.success());
    let left = listing(&out);
    if !Path::new("/proc/self").exists() {
        return; // no /proc: nothing is swept
    }
    assert!(!left.is_empty(), "the killed run left no temporary");
    assert!(
        left.iter()
            .all(|n| n.starts_with(".levelgeom-") && n.ends_with(".tmp")),
        "{left:?}"
    );
    let ok = levelgeom(&["rebuild", s(&wad), s(&out.join("b.wad"))]);
    assert!(
        ok.status.success(),
        "{}",
        String::from_utf8_lossy(&ok.stderr)
    );
    assert_eq!(listing(&out), ["b.wad"]);
}
