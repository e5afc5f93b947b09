//! A folder of output files written all or nothing: the one writer behind every command that
//! writes a folder (`export`, `extract`, an X-Ray `import`/`convert` into a folder, the batch
//! export's root).
//!
//! The files are made in a fresh temporary folder beside the output folder ([`Staging`]) and
//! moved in only when all of them were written (renames on the same file system); a failure on
//! the way removes the temporary folder and leaves the output folder as it was. What an output
//! folder may already hold is each command's rule, decided on what [`inspect`] finds.

use std::io;
use std::path::{Path, PathBuf};

/// A file-system operation on an output folder failed.
#[derive(Debug, thiserror::Error)]
#[error("{what} {}: {source}", path.display())]
pub struct FolderIoError {
    /// What was being done (`cannot write`, `cannot move into place`, …).
    pub what: &'static str,
    /// The path it failed on.
    pub path: PathBuf,
    /// The error.
    #[source]
    pub source: io::Error,
}

/// An [`FolderIoError`] maker for `map_err`.
pub fn folder_io(what: &'static str, path: &Path) -> impl FnOnce(io::Error) -> FolderIoError {
    let path = path.to_path_buf();
    move |source| FolderIoError { what, path, source }
}

/// What is at an output folder's path before anything is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Existing {
    /// Nothing: the folder will be created.
    Absent,
    /// An empty folder.
    Empty,
    /// A folder with something in it.
    NotEmpty,
    /// Something that is not a folder.
    NotAFolder,
}

/// What is at `outdir`.
///
/// # Errors
/// When the path or the folder cannot be looked at.
pub fn inspect(outdir: &Path) -> Result<Existing, FolderIoError> {
    match std::fs::metadata(outdir) {
        Ok(m) if !m.is_dir() => Ok(Existing::NotAFolder),
        Ok(_) => {
            let empty = std::fs::read_dir(outdir)
                .map_err(folder_io("cannot read the folder", outdir))?
                .next()
                .is_none();
            Ok(if empty {
                Existing::Empty
            } else {
                Existing::NotEmpty
            })
        }
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(Existing::Absent),
        Err(e) => Err(folder_io("cannot look at", outdir)(e)),
    }
}

/// The first of `names` (files to be written into `outdir`) that a folder blocks.
pub fn folder_in_the_way<'a>(
    outdir: &Path,
    names: impl IntoIterator<Item = &'a str>,
) -> Option<PathBuf> {
    names
        .into_iter()
        .map(|n| outdir.join(n))
        .find(|p| p.is_dir())
}

/// A fresh temporary folder beside an output folder, where the files of one write are made
/// before [`Staging::commit`] moves them in. Dropped without a commit, it is removed with
/// everything in it; a process killed on the way leaves a folder a later run recognises and
/// sweeps ([`crate::sweep_temps`]).
#[derive(Debug)]
pub struct Staging {
    dir: PathBuf,
    outdir: PathBuf,
}

impl Staging {
    /// A temporary folder beside `outdir` (its parent folder is created when missing).
    ///
    /// # Errors
    /// When the parent folder or the temporary folder cannot be created.
    pub fn beside(outdir: &Path) -> Result<Staging, FolderIoError> {
        let parent = match outdir.parent() {
            Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
            _ => PathBuf::from("."),
        };
        std::fs::create_dir_all(&parent).map_err(folder_io("cannot create the folder", &parent))?;
        // short name: the output's own name may already be near the file system's length limit
        let dir = crate::temp::create_dir_in(&parent)
            .map_err(folder_io("cannot create a temporary folder in", &parent))?;
        Ok(Staging {
            dir,
            outdir: outdir.to_path_buf(),
        })
    }

    /// The temporary folder: write the files into it.
    pub fn path(&self) -> &Path {
        &self.dir
    }

    /// Write one file `name` into the temporary folder.
    ///
    /// # Errors
    /// When it cannot be written.
    pub fn write(&self, name: &str, bytes: &[u8]) -> Result<(), FolderIoError> {
        let p = self.dir.join(name);
        std::fs::write(&p, bytes).map_err(folder_io("cannot write", &p))
    }

    /// Move the staged files `names` into the output folder: the whole temporary folder
    /// becomes it when it does not exist; else `stale` (names of files a previous run of ours
    /// wrote there, not among `names`) are removed first and each file is renamed into place,
    /// other files of the folder kept.
    ///
    /// # Errors
    /// When a removal or a rename fails (what was moved in before stays).
    pub fn commit(self, names: &[String], stale: &[String]) -> Result<(), FolderIoError> {
        let out = &self.outdir;
        if !out.exists() {
            return std::fs::rename(&self.dir, out)
                .map_err(folder_io("cannot create the output folder", out));
        }
        for name in stale.iter().filter(|s| !names.contains(s)) {
            let p = out.join(name);
            if p.is_file() {
                std::fs::remove_file(&p).map_err(folder_io("cannot remove the stale file", &p))?;
            }
        }
        for name in names {
            let to = out.join(name);
            std::fs::rename(self.dir.join(name), &to)
                .map_err(folder_io("cannot move into place", &to))?;
        }
        Ok(())
    }
}

impl Drop for Staging {
    fn drop(&mut self) {
        // after a commit that renamed the whole folder there is nothing left to remove
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn scratch(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!(
            "levelgeom-binary-folder-{name}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    #[test]
    fn a_new_folder_appears_whole_and_a_dropped_staging_leaves_nothing() {
        let root = scratch("new");
        let out = root.join("out");
        assert_eq!(inspect(&out).unwrap(), Existing::Absent);
        let s = Staging::beside(&out).unwrap();
        s.write("a.txt", b"a").unwrap();
        // not committed: nothing at the output, no temporary left
        drop(s);
        assert_eq!(inspect(&out).unwrap(), Existing::Absent);
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 0);

        let s = Staging::beside(&out).unwrap();
        s.write("a.txt", b"a").unwrap();
        s.write("b.txt", b"bb").unwrap();
        s.commit(&["a.txt".into(), "b.txt".into()], &[]).unwrap();
        assert_eq!(std::fs::read(out.join("b.txt")).unwrap(), b"bb");
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1);
        assert_eq!(inspect(&out).unwrap(), Existing::NotEmpty);
        assert_eq!(inspect(&out.join("a.txt")).unwrap(), Existing::NotAFolder);
        let _ = std::fs::remove_dir_all(&root);
    }

    #[test]
    fn into_an_existing_folder_stale_files_go_and_others_stay() {
        let root = scratch("existing");
        let out = root.join("out");
        std::fs::create_dir_all(out.join("sub")).unwrap();
        for (n, b) in [
            ("old.obj", "old"),
            ("mine.txt", "user"),
            ("a.txt", "before"),
        ] {
            std::fs::write(out.join(n), b).unwrap();
        }
        assert_eq!(
            folder_in_the_way(&out, ["a.txt", "sub"]),
            Some(out.join("sub"))
        );
        let s = Staging::beside(&out).unwrap();
        s.write("a.txt", b"after").unwrap();
        s.commit(&["a.txt".into()], &["old.obj".into(), "a.txt".into()])
            .unwrap();
        assert_eq!(std::fs::read(out.join("a.txt")).unwrap(), b"after");
        assert_eq!(std::fs::read(out.join("mine.txt")).unwrap(), b"user");
        assert!(!out.join("old.obj").exists());
        // the temporary folder is gone
        assert_eq!(std::fs::read_dir(&root).unwrap().count(), 1);
        let _ = std::fs::remove_dir_all(&root);
    }
}
