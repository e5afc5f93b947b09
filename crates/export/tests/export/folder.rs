//! `folder::write_files`: files that are no scene, written as an export folder (the manifest,
//! the previous export's stale files removed, names that could leave the folder refused).

use levelgeom_export::folder::{write_files, FolderError, FolderOptions, MANIFEST};

fn files(names: &[&str]) -> Vec<(String, Vec<u8>)> {
    names
        .iter()
        .map(|n| ((*n).to_string(), n.as_bytes().to_vec()))
        .collect()
}

#[test]
fn files_are_written_with_a_manifest_and_replace_the_previous_export() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    let w = write_files(
        &out,
        &files(&["a.json", "b.wav"]),
        &FolderOptions::default(),
    )
    .unwrap();
    assert_eq!(
        w.files,
        vec![(out.join("a.json"), 6), (out.join("b.wav"), 5)]
    );
    assert_eq!(std::fs::read(out.join("b.wav")).unwrap(), b"b.wav");
    let manifest: serde_json::Value =
        serde_json::from_slice(&std::fs::read(out.join(MANIFEST)).unwrap()).unwrap();
    assert_eq!(manifest["files"], serde_json::json!(["a.json", "b.wav"]));
    // a file of the user's stays, the previous export's b.wav goes
    std::fs::write(out.join("notes.txt"), "mine").unwrap();
    write_files(&out, &files(&["a.json"]), &FolderOptions::default()).unwrap();
    assert!(!out.join("b.wav").exists());
    assert_eq!(std::fs::read(out.join("notes.txt")).unwrap(), b"mine");
    // nothing but the output folder was left beside it (no temporary folder)
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 1);
}

#[test]
fn names_that_leave_the_folder_or_repeat_are_refused_before_anything_is_written() {
    let d = tempfile::tempdir().unwrap();
    let out = d.path().join("out");
    for bad in [&["../up.txt"][..], &["a.txt", "a.txt"], &[""]] {
        match write_files(&out, &files(bad), &FolderOptions::default()) {
            Err(FolderError::BadFileName(n)) => assert!(bad.contains(&n.as_str()), "{n}"),
            other => panic!("{bad:?}: {other:?}"),
        }
        assert!(!out.exists());
    }
    assert_eq!(std::fs::read_dir(d.path()).unwrap().count(), 0);
}
