//! Reading started on a thread of its own before its result is needed: the mesh file of an
//! X-Ray import ([`crate::MeshAhead`]) and the geom files beside an X-Ray `level`
//! ([`GeomAhead`]), each read while the `level` is parsed.

use std::path::{Path, PathBuf};

use levelgeom_binary::Limits;
use levelgeom_xray::files::{FilesError, GeomFile};

/// Work running on a thread of its own, or, where no thread could be started, the same work
/// still to do; [`Ahead::join`] gives its result either way (dropped, a running thread is left
/// to finish on its own and its result is thrown away).
pub(crate) enum Ahead<T> {
    /// Started.
    Running(std::thread::JoinHandle<T>),
    /// No thread could be started: done when joined.
    Deferred(Box<dyn FnOnce() -> T + Send>),
}

impl<T: Send + 'static> Ahead<T> {
    /// Start `work` on a thread named `name` (a copy of it is kept for when none can be
    /// started).
    pub(crate) fn start<F>(name: &str, work: F) -> Ahead<T>
    where
        F: FnOnce() -> T + Clone + Send + 'static,
    {
        match std::thread::Builder::new()
            .name(name.into())
            .spawn(work.clone())
        {
            Ok(thread) => Ahead::Running(thread),
            Err(_) => Ahead::Deferred(Box::new(work)),
        }
    }

    /// The work's result (a panic of its thread goes on here).
    pub(crate) fn join(self) -> T {
        match self {
            Ahead::Running(thread) => thread
                .join()
                .unwrap_or_else(|panic| std::panic::resume_unwind(panic)),
            Ahead::Deferred(work) => work(),
        }
    }
}

/// What [`levelgeom_xray::files::siblings_with`] gives: `level.geom` and `level.geomx`.
type Geoms = Result<(Option<GeomFile>, Option<GeomFile>), FilesError>;

/// The `level.geom` and `level.geomx` beside an X-Ray `level` file, as
/// [`levelgeom_xray::files::siblings_with`] reads them; for a `level` (told by its content),
/// read on a thread of its own from before the `level` is parsed ([`GeomAhead::start`]).
/// Errors are the same, and reported at the same point ([`GeomAhead::join`]), as reading
/// them there.
pub(crate) struct GeomAhead {
    path: PathBuf,
    limits: Limits,
    read: Option<Ahead<Geoms>>,
}

impl GeomAhead {
    /// The geom files beside `level_path`, whose bytes are `bytes`: when they are an X-Ray
    /// `level` (the only file whose siblings are read), read from now on a thread of its own;
    /// else nothing is read until [`Self::join`].
    pub(crate) fn start(level_path: &Path, bytes: &[u8], limits: Limits) -> GeomAhead {
        let level = crate::Engine::sniff(bytes) == Some(crate::Engine::Xray)
            && levelgeom_xray::kind(bytes) == Some(levelgeom_xray::Kind::Level);
        let read = level.then(|| {
            let path = level_path.to_path_buf();
            Ahead::start("read level.geom", move || {
                levelgeom_xray::files::siblings_with(&path, limits)
            })
        });
        GeomAhead {
            path: level_path.to_path_buf(),
            limits,
            read,
        }
    }

    /// The geom files, with the errors [`levelgeom_xray::files::siblings_with`] gives.
    pub(crate) fn join(self) -> Geoms {
        match self.read {
            Some(read) => read.join(),
            None => levelgeom_xray::files::siblings_with(&self.path, self.limits),
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::Ahead;

    #[test]
    fn work_is_done_on_its_thread_or_at_the_join() {
        let main = std::thread::current().id();
        let started = Ahead::start("test", move || std::thread::current().id() != main);
        assert!(started.join(), "ran on a thread of its own");
        // what `start` keeps where no thread can be started
        let deferred: Ahead<bool> =
            Ahead::Deferred(Box::new(move || std::thread::current().id() == main));
        assert!(deferred.join(), "ran at the join, on the joining thread");
    }

    #[test]
    fn a_panic_of_the_thread_goes_on_at_the_join() {
        let ahead: Ahead<u8> = Ahead::start("test", || panic!("the work failed"));
        let panic = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| ahead.join()));
        let message = panic.unwrap_err();
        assert_eq!(message.downcast_ref::<&str>(), Some(&"the work failed"));
    }
}
