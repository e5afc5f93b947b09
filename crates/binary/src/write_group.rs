//! Several output files written all or nothing (an OBJ, its MTL and its texture pages).

use std::io::{self, Write};
use std::path::{Path, PathBuf};

/// Why [`write_group`] wrote nothing: the file it was at, and the error.
#[derive(Debug, thiserror::Error)]
#[error("{}: {source}", path.display())]
pub struct GroupError {
    /// The output (or temporary) file the error is about.
    pub path: PathBuf,
    /// What went wrong.
    #[source]
    pub source: io::Error,
}

fn at(path: &Path) -> impl FnOnce(io::Error) -> GroupError + '_ {
    move |source| GroupError {
        path: path.to_path_buf(),
        source,
    }
}

fn refused(path: &Path, kind: io::ErrorKind, message: String) -> GroupError {
    GroupError {
        path: path.to_path_buf(),
        source: io::Error::new(kind, message),
    }
}

/// Write every `(path, bytes)` of `files`, all or nothing.
///
/// First every target is checked (none may be one of `protect`, the command's inputs, by
/// [`crate::same_file`]; none a folder; none named twice; none existing unless `force`), then
/// every file is written to a temporary beside its target and flushed to disk, and only then
/// are the temporaries renamed into place. When any step fails nothing is left: temporaries are
/// removed, and a rename failing part way puts back what the earlier renames replaced (kept
/// meanwhile as a hard link) and removes what they added. A process killed on the way leaves
/// only temporaries, which a later write removes ([`crate::sweep_temps`]).
///
/// # Errors
/// [`GroupError`] naming the file; nothing was changed.
pub fn write_group(
    files: &[(PathBuf, Vec<u8>)],
    protect: &[&Path],
    force: bool,
) -> Result<(), GroupError> {
    for (k, (path, _)) in files.iter().enumerate() {
        crate::fs::refuse_inputs(path, protect).map_err(at(path))?;
        if files[..k]
            .iter()
            .any(|(p, _)| p == path || crate::same_file(p, path))
        {
            return Err(refused(
                path,
                io::ErrorKind::InvalidInput,
                "is named twice among the outputs".into(),
            ));
        }
        if path.file_name().is_none() {
            return Err(refused(
                path,
                io::ErrorKind::InvalidInput,
                "output path has no file name".into(),
            ));
        }
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => {
                return Err(refused(
                    path,
                    io::ErrorKind::AlreadyExists,
                    "a folder of that name is in the way".into(),
                ))
            }
            Ok(_) if !force => {
                return Err(refused(
                    path,
                    io::ErrorKind::AlreadyExists,
                    "the file exists; choose another output path or pass --force to replace it"
                        .into(),
                ))
            }
            _ => {}
        }
    }
    let dir_of = |p: &Path| match p.parent() {
        Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
        _ => PathBuf::from("."),
    };
    // 1. every file into its temporary
    let mut temps: Vec<PathBuf> = Vec::new();
    let staged = files.iter().try_for_each(|(path, bytes)| {
        let dir = dir_of(path);
        std::fs::create_dir_all(&dir).map_err(at(&dir))?;
        let tmp = crate::temp::file_in(&dir);
        let f = std::fs::File::create(&tmp).map_err(at(&tmp))?;
        temps.push(tmp.clone());
        let mut w = io::BufWriter::with_capacity(64 << 10, f);
        w.write_all(bytes).map_err(at(path))?;
        let f = w
            .into_inner()
            .map_err(|e| at(path)(io::IntoInnerError::into_error(e)))?;
        f.sync_all().map_err(at(path))
    });
    if let Err(e) = staged {
        for t in &temps {
            let _ = std::fs::remove_file(t);
        }
        return Err(e);
    }
    // 2. what each rename replaces, kept as a hard link until all are done
    let backups: Vec<Option<PathBuf>> = files
        .iter()
        .map(|(path, _)| {
            let m = std::fs::symlink_metadata(path).ok()?;
            if !m.is_file() {
                return None;
            }
            let b = crate::temp::file_in(&dir_of(path));
            std::fs::hard_link(path, &b).ok().map(|()| b)
        })
        .collect();
    let existed: Vec<bool> = files
        .iter()
        .map(|(p, _)| std::fs::symlink_metadata(p).is_ok())
        .collect();
    // 3. the renames
    for (k, ((path, _), tmp)) in files.iter().zip(&temps).enumerate() {
        if let Err(e) = std::fs::rename(tmp, path) {
            for (j, (done, _)) in files[..k].iter().enumerate() {
                match &backups[j] {
                    Some(b) => {
                        let _ = std::fs::rename(b, done);
                    }
                    None if !existed[j] => {
                        let _ = std::fs::remove_file(done);
                    }
                    None => {}
                }
            }
            for t in &temps[k..] {
                let _ = std::fs::remove_file(t);
            }
            for b in backups[k..].iter().flatten() {
                let _ = std::fs::remove_file(b);
            }
            return Err(at(path)(e));
        }
    }
    for b in backups.iter().flatten() {
        let _ = std::fs::remove_file(b);
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listing(d: &Path) -> Vec<String> {
        let mut v: Vec<String> = std::fs::read_dir(d)
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        v.sort();
        v
    }

    #[test]
    fn all_or_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let files = vec![
            (d.join("s.obj"), b"obj".to_vec()),
            (d.join("s.mtl"), b"mtl".to_vec()),
            (d.join("page_00.png"), b"png".to_vec()),
        ];
        // a folder in the way of the last: nothing written
        std::fs::create_dir(d.join("page_00.png")).unwrap();
        let e = write_group(&files, &[], false).unwrap_err();
        assert!(e.to_string().contains("page_00.png: a folder"), "{e}");
        assert_eq!(listing(d), ["page_00.png"]);
        std::fs::remove_dir(d.join("page_00.png")).unwrap();
        write_group(&files, &[], false).unwrap();
        assert_eq!(listing(d), ["page_00.png", "s.mtl", "s.obj"]);
        // exists without force; an input among them
        assert!(write_group(&files, &[], false).is_err());
        let input = d.join("s.mtl");
        let e = write_group(&files, &[&input], true).unwrap_err();
        assert_eq!(e.source.kind(), io::ErrorKind::InvalidInput);
        assert_eq!(std::fs::read(d.join("s.obj")).unwrap(), b"obj");
        // a target named twice
        let twice = vec![files[0].clone(), files[0].clone()];
        assert!(write_group(&twice, &[], true).is_err());
        // replaced with force; no temporaries or backups left
        let again: Vec<_> = files
            .iter()
            .map(|(p, _)| (p.clone(), b"new".to_vec()))
            .collect();
        write_group(&again, &[], true).unwrap();
        assert_eq!(std::fs::read(d.join("page_00.png")).unwrap(), b"new");
        assert_eq!(listing(d), ["page_00.png", "s.mtl", "s.obj"]);
    }

    #[cfg(unix)]
    #[test]
    fn a_failed_write_leaves_nothing() {
        use std::os::unix::fs::PermissionsExt;
        // a sub-folder that cannot be written: the write of the last file fails after the
        // first two were staged
        let dir = tempfile::tempdir().unwrap();
        let d = dir.path();
        let ro = d.join("ro");
        std::fs::create_dir(&ro).unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        if std::fs::write(ro.join("probe"), b"").is_ok() {
            return; // running as root: permissions do not stop writes
        }
        let files = vec![
            (d.join("s.obj"), b"obj".to_vec()),
            (d.join("s.mtl"), b"mtl".to_vec()),
            (ro.join("page_00.png"), b"png".to_vec()),
        ];
        assert!(write_group(&files, &[], false).is_err());
        assert_eq!(listing(d), ["ro"]);
        assert!(listing(&ro).is_empty());
    }
}
