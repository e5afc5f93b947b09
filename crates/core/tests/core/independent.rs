//! Import checked by tools written from the format notes alone (tools/fixtures): the
//! independent WAD (`make_indep_wad.py`) plus an independently written edit
//! (`make_indep_obj.py`: a platform and a ramp, with hand-computed probe heights) imported, then
//! parsed by the independent checker `check_wad.py` (every seed §8 rule, and with `--base` every
//! untouched byte), and probed at the points the edit's expectations list.
//!
//! Needs `python3` (the CI machine has it); without it the test says so and passes.

use std::path::Path;
use std::process::Command;

use levelgeom_core::ImportOptions;
use serde_json::Value;

use crate::workspace;

fn python() -> bool {
    Command::new("python3")
        .arg("--version")
        .output()
        .is_ok_and(|o| o.status.success())
}

fn import(keep_tiles: bool, out: &Path) {
    let base = levelgeom_core::open(&crate::indep_wad()).unwrap();
    let r = base
        .import(
            &workspace("crates/wad/tests/data/independent/indep_edit.obj"),
            &ImportOptions {
                keep_tiles,
                ..ImportOptions::default()
            },
        )
        .unwrap();
    assert_eq!(r.summary.uv_misfits, 0, "{}", r.summary);
    std::fs::write(out, &r.bytes).unwrap();
}

#[test]
fn an_independent_checker_finds_the_import_of_an_independent_edit_consistent() {
    if !python() {
        eprintln!("python3 not found: the independent checker was not run");
        return;
    }
    let expect: Value = serde_json::from_str(
        &std::fs::read_to_string(workspace(
            "crates/wad/tests/data/independent/indep_edit.expect.json",
        ))
        .unwrap(),
    )
    .unwrap();
    let tol = expect["probe_tolerance"].as_f64().unwrap();
    let tmp = tempfile::tempdir().unwrap();
    for (keep, key) in [(true, "hits_keep_tiles"), (false, "hits_replace")] {
        let out = tmp.path().join(format!("edit_{keep}.wad"));
        import(keep, &out);
        let o = Command::new("python3")
            .arg(workspace("tools/fixtures/check_wad.py"))
            .arg(&out)
            .arg("--base")
            .arg(crate::indep_wad())
            .arg("--json")
            .output()
            .unwrap();
        let report: Value = serde_json::from_slice(&o.stdout).unwrap_or(Value::Null);
        assert_eq!(
            o.status.code(),
            Some(0),
            "keep_tiles {keep}: {report}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
        assert_eq!(
            report["problems"].as_array().map(Vec::len),
            Some(0),
            "{report}"
        );
        let level = levelgeom_core::open(&out).unwrap();
        for p in expect["probes"].as_array().unwrap() {
            let (x, z) = (
                p["x"].as_f64().unwrap() as f32,
                p["z"].as_f64().unwrap() as f32,
            );
            let want: Vec<f64> = p[key]
                .as_array()
                .unwrap()
                .iter()
                .map(|v| v.as_f64().unwrap())
                .collect();
            let got: Vec<f64> = level
                .probe(x, z)
                .unwrap()
                .iter()
                .map(|h| f64::from(h.y))
                .collect();
            assert_eq!(
                got.len(),
                want.len(),
                "keep {keep} at {x} {z}: {got:?} vs {want:?}"
            );
            for (g, w) in got.iter().zip(&want) {
                assert!(
                    (g - w).abs() <= tol,
                    "keep {keep} at {x} {z}: {got:?} vs {want:?}"
                );
            }
        }
    }
}
