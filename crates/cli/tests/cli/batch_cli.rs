//! `levelgeom verify` and batch `export` over folders: exit codes, the JSON report, --strict,
//! the contact sheet; a single level keeps the single-export layout.

use std::path::{Path, PathBuf};

use serde_json::Value;

use super::common::{levelgeom as run, s};

fn workspace(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// Two WADs, the X-Ray fixture, a `.wad` of noise, an unrelated file.
fn install(root: &Path) {
    std::fs::create_dir_all(root.join("wads")).unwrap();
    let demo = levelgeom_wad::generate::demo_level().unwrap();
    std::fs::write(root.join("wads/a.wad"), &demo).unwrap();
    std::fs::write(root.join("wads/b.wad"), &demo).unwrap();
    std::fs::write(root.join("wads/noise.wad"), [0x11u8; 64]).unwrap();
    std::fs::write(root.join("notes.txt"), b"hello").unwrap();
    let x = root.join("levels/l01_escape");
    std::fs::create_dir_all(&x).unwrap();
    for f in ["level", "level.geom", "level.geomx", "level.cform"] {
        std::fs::copy(
            workspace("crates/xray/tests/data/xray-v14-micro").join(f),
            x.join(f),
        )
        .unwrap();
    }
}

#[test]
fn verify_exit_codes_and_json() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    install(&root);
    let o = run(&["verify", s(&root), "--jobs", "2"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{text}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(text.contains("3 levels"), "{text}");
    assert!(text.contains("3 passed, 0 failed, 1 skipped"), "{text}");
    assert!(
        text.contains("skipped") && text.contains("noise.wad"),
        "{text}"
    );
    // plain progress lines on stderr (not a terminal); none with --quiet
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("verified 3/3"), "{err}");
    let o = run(&["verify", s(&root), "--json", "--quiet"]);
    assert_eq!(o.status.code(), Some(0));
    assert!(
        o.stderr.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    let levels = v["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 3);
    for l in levels {
        for key in ["path", "format", "bytes", "round_trip", "problems", "error"] {
            assert!(l.get(key).is_some(), "{key} in {l}");
        }
        assert_eq!(l["round_trip"], "ok");
    }
    // sorted by path: levels/… before wads/…
    assert_eq!(levels[0]["format"], "xray-level");
    assert_eq!(levels[0]["files"].as_array().unwrap().len(), 4);
    assert_eq!(levels[1]["format"], "argonaut-wad");
    assert_eq!(v["summary"]["passed"], 3);
    assert!(v["skipped"][0]["reason"]
        .as_str()
        .unwrap()
        .contains("not a level WAD"));

    // a damaged level: exit 1, the others still verified
    let mut cut = std::fs::read(root.join("wads/b.wad")).unwrap();
    cut.truncate(cut.len() / 2);
    std::fs::write(root.join("wads/b.wad"), &cut).unwrap();
    let o = run(&["verify", s(&root), "--json", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(v["summary"]["passed"], 2);
    assert_eq!(v["summary"]["failed"], 1);
    assert!(v["levels"][2]["error"].as_str().unwrap().contains("at 0x"));
    let o = run(&["verify", s(&root), "-q"]);
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(
        text.contains("FAILED") && text.contains("first failure"),
        "{text}"
    );

    // nothing readable: exit 2
    let o = run(&[
        "verify",
        s(&root.join("wads/b.wad")),
        s(&root.join("notes.txt")),
        "-q",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let o = run(&["verify", s(&root.join("nowhere")), "-q"]);
    assert_eq!(o.status.code(), Some(2));
}

#[test]
fn strict_fails_levels_with_check_problems() {
    let tmp = tempfile::tempdir().unwrap();
    let mut bytes = levelgeom_wad::generate::demo_level().unwrap();
    let h = u32::from_le_bytes(bytes[0..4].try_into().unwrap()) + 8;
    bytes[0..4].copy_from_slice(&h.to_le_bytes());
    let p = tmp.path().join("hdr.wad");
    std::fs::write(&p, &bytes).unwrap();
    let o = run(&["verify", s(&p), "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let text = String::from_utf8_lossy(&o.stdout);
    assert!(text.contains("problem"), "{text}");
    let o = run(&["verify", s(&p), "-q", "--strict", "--json"]);
    assert_eq!(o.status.code(), Some(1));
    let v: Value = serde_json::from_slice(&o.stdout).unwrap();
    assert!(v["levels"][0]["problems"].as_u64().unwrap() > 0);
    assert_eq!(v["summary"]["strict"], true);
}

#[test]
fn batch_export_writes_level_folders_and_a_contact_sheet() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    install(&root);
    let out = tmp.path().join("out");
    let o = run(&[
        "export",
        s(&root),
        s(&out),
        "--preview",
        "--format",
        "gltf",
        "-j",
        "2",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    for name in ["a", "b", "l01_escape"] {
        assert!(out.join(name).join("level.glb").is_file(), "{name}");
        assert!(out.join(name).join("preview_persp.png").is_file(), "{name}");
    }
    let html = std::fs::read_to_string(out.join("index.html")).unwrap();
    for name in ["a", "b", "l01_escape"] {
        assert!(html.contains(&format!("<a href=\"{name}/\">")), "{html}");
        assert!(
            html.contains(&format!("src=\"{name}/preview_persp.png\"")),
            "{html}"
        );
    }
    assert!(out.join(".levelgeom-batch.json").is_file());
    // again into the same root: a previous batch of ours is fine
    let o = run(&["export", s(&root), s(&out), "--format", "gltf", "-q"]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        !out.join("index.html").exists(),
        "no previews, no contact sheet"
    );
    // two files are a batch too; a folder of other files is refused
    let two = tmp.path().join("two");
    let o = run(&[
        "export",
        s(&root.join("wads/a.wad")),
        s(&root.join("levels/l01_escape")),
        s(&two),
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(two.join("a/level.obj").is_file() && two.join("l01_escape/level.obj").is_file());
    let o = run(&["export", s(&root), s(&root.join("wads")), "-q"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
}

#[test]
fn one_level_keeps_the_single_export_layout() {
    let tmp = tempfile::tempdir().unwrap();
    let root = tmp.path().join("game");
    install(&root);
    let out = tmp.path().join("x");
    let o = run(&["export", s(&root.join("levels/l01_escape")), s(&out)]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(out.join("level.glb").is_file());
    assert!(!out.join(".levelgeom-batch.json").exists());
    let out = tmp.path().join("y");
    let o = run(&["export", s(&root.join("wads/a.wad")), s(&out)]);
    assert_eq!(o.status.code(), Some(0));
    assert!(out.join("level.glb").is_file());
}
