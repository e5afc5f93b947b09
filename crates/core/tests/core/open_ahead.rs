//! `open` reads the geom files beside an X-Ray `level` on a thread while the `level` is parsed:
//! the errors stay those of reading them one after the other — the `level`'s own first, then
//! `level.geom`'s, located the same — for a bad `level` and a missing, irregular or bad
//! `level.geom`.

use std::path::{Path, PathBuf};

use levelgeom_core::{Error, ExportOptions};

/// The fixture's `level` cut to 0x200 bytes: chunk 3 (fsL_VISUALS) at 0xEA claims 6,628 bytes
/// (its header's size field, read off a hex dump of the fixture), of which 0x200 − 0xF2 are
/// there. The CLI's `truncated_files_fail_with_offset_and_chunk_path` reads the same.
const CUT_LEVEL: &str = "at 0x000000F2 in fsL_VISUALS: chunk 3 claims 6628 bytes";

/// What `level.geom` is made in a test folder.
#[derive(Clone, Copy, Debug)]
enum Geom {
    Missing,
    Folder,
    Fifo,
    /// The fixture's `level.geom` one byte short.
    Cut,
    /// A copy of the `level` file.
    ALevel,
    Good,
}

const ALL: [Geom; 6] = [
    Geom::Missing,
    Geom::Folder,
    Geom::Fifo,
    Geom::Cut,
    Geom::ALevel,
    Geom::Good,
];

/// A level folder with the fixture's `level` (cut when `bad_level`) and `geom` as `level.geom`;
/// `None` where a FIFO cannot be made.
fn folder(dir: &Path, bad_level: bool, geom: Geom) -> Option<PathBuf> {
    let level = std::fs::read(crate::fixture().join("level")).unwrap();
    let level = if bad_level { &level[..0x200] } else { &level };
    let d = dir.join(format!(
        "{}-{geom:?}",
        if bad_level { "bad" } else { "good" }
    ));
    std::fs::create_dir(&d).unwrap();
    std::fs::write(d.join("level"), level).unwrap();
    let g = d.join("level.geom");
    let fixture_geom = || std::fs::read(crate::fixture().join("level.geom")).unwrap();
    match geom {
        Geom::Missing => {}
        Geom::Folder => std::fs::create_dir(&g).unwrap(),
        Geom::Fifo => {
            let made = std::process::Command::new("mkfifo").arg(&g).status();
            if !made.is_ok_and(|s| s.success()) {
                return None;
            }
        }
        Geom::Cut => {
            let bytes = fixture_geom();
            std::fs::write(&g, &bytes[..bytes.len() - 1]).unwrap();
        }
        Geom::ALevel => std::fs::write(&g, level).unwrap(),
        Geom::Good => std::fs::write(&g, fixture_geom()).unwrap(),
    }
    Some(d)
}

#[test]
fn a_bad_level_is_reported_whatever_its_level_geom_is() {
    let tmp = tempfile::tempdir().unwrap();
    for geom in ALL {
        let Some(d) = folder(tmp.path(), true, geom) else {
            continue;
        };
        let level = d.join("level");
        let e = levelgeom_core::open(&d).unwrap_err();
        assert!(
            matches!(&e, Error::Read { file, .. } if file == &level.display().to_string()),
            "{geom:?}: {e:?}"
        );
        assert_eq!(e.offset(), Some(0xF2), "{geom:?}");
        assert!(
            e.to_string()
                .starts_with(&format!("{}: {CUT_LEVEL}", level.display())),
            "{geom:?}: {e}"
        );
        // the same as opening the level's bytes alone, with no file beside it looked for
        let alone = levelgeom_core::open_bytes(&level, std::fs::read(&level).unwrap());
        assert_eq!(e.to_string(), alone.unwrap_err().to_string(), "{geom:?}");
    }
}

#[test]
fn a_good_level_reports_its_level_geom_as_reading_it_after_the_level_does() {
    let tmp = tempfile::tempdir().unwrap();
    for geom in ALL {
        let Some(d) = folder(tmp.path(), false, geom) else {
            continue;
        };
        let level = d.join("level");
        let g = d.join("level.geom");
        // the X-Ray crate's own opening: the level, then the files beside it, one after the
        // other on this thread
        let alone = levelgeom_xray::files::LevelFiles::open(&d);
        let opened = levelgeom_core::open(&d);
        match geom {
            // what is not a regular file is not paired (a FIFO is not opened: no hang); the
            // export then says where the geometry should be
            Geom::Missing | Geom::Folder | Geom::Fifo => {
                assert!(alone.unwrap().geom.is_none(), "{geom:?}");
                let opened = opened.unwrap();
                assert!(opened.companions().is_empty(), "{geom:?}");
                let e = opened
                    .export(&tmp.path().join("out"), &ExportOptions::default())
                    .unwrap_err();
                assert_eq!(
                    e.to_string(),
                    format!(
                        "{0}: no level.geom beside {0} (the visuals' geometry lives there)",
                        level.display()
                    ),
                    "{geom:?}"
                );
            }
            Geom::Cut => {
                let e = opened.unwrap_err();
                let levelgeom_xray::files::FilesError::Read { path, source } = alone.unwrap_err()
                else {
                    panic!("{geom:?}: not a read error");
                };
                assert_eq!(path, g);
                // the same offset and chunk path as read alone, naming level.geom
                assert_eq!(e.offset(), Some(source.offset), "{geom:?}");
                assert_eq!(e.to_string(), format!("{}: {source}", g.display()));
                assert!(e.to_string().contains("in fsL_"), "{e}");
            }
            Geom::ALevel => {
                let e = opened.unwrap_err();
                assert!(alone.is_err());
                assert_eq!(
                    e.to_string(),
                    format!(
                        "{}: the files beside it: {}: is a level, not a geom file",
                        level.display(),
                        g.display()
                    )
                );
            }
            Geom::Good => {
                let alone = alone.unwrap();
                let opened = opened.unwrap();
                assert_eq!(opened.companions(), vec![g.clone()]);
                // the same geometry as opened alone (the scene's name aside: the core names
                // it after the folder)
                let (mut a, b) = (
                    opened.to_scene(&Default::default()).unwrap(),
                    alone.to_scene(&Default::default()).unwrap(),
                );
                assert_eq!(a.meshes.len(), 5);
                a.name.clone_from(&b.name);
                assert_eq!(a, b);
            }
        }
    }
}

/// The files beside a `level` other than its geom files are read while those are: an error of
/// `level.geom` still goes before one of `level.cform`, and one of `level.cform` alone is
/// reported as read alone.
#[test]
fn a_bad_level_geom_goes_before_a_bad_level_cform() {
    let tmp = tempfile::tempdir().unwrap();
    let cform = std::fs::read(crate::fixture().join("level.cform")).unwrap();
    for geom in [Geom::Cut, Geom::Good] {
        let d = folder(tmp.path(), false, geom).unwrap();
        std::fs::write(d.join("level.cform"), &cform[..cform.len() - 1]).unwrap();
        let e = levelgeom_core::open(&d).unwrap_err();
        let alone = levelgeom_xray::files::LevelFiles::open(&d).unwrap_err();
        let levelgeom_xray::files::FilesError::Read { path, source } = alone else {
            panic!("{geom:?}: not a read error: {alone}");
        };
        let first = match geom {
            Geom::Cut => "level.geom",
            _ => "level.cform",
        };
        assert_eq!(path, d.join(first));
        assert_eq!(e.offset(), Some(source.offset), "{geom:?}");
        assert_eq!(e.to_string(), format!("{}: {source}", path.display()));
    }
}
