//! Hollow primitives filled as the BIN chunk reaches them.
//!
//! A scene may hold hollow primitives ([`levelgeom_scene::Primitive::hollow`]) whose data a
//! [`PrimitiveSource`] fills on demand. [`filled`] hands them to the buffer's writer in buffer
//! order: a thread feeds the pool batch after batch ([`BATCH`] primitives decoded in parallel,
//! each into a buffer of its own), the writer takes them one by one and gives each buffer back
//! once its bytes are copied into the pieces. [`BUFFERS`] buffers exist at most, reused from one
//! primitive to the next (their vectors keep their capacity), so the memory they fault is a few
//! primitives' worth, not the scene's; the pool decodes the next batch while the writer writes.

use std::io;
use std::sync::mpsc;

use levelgeom_scene::{Primitive, PrimitiveSource};
use rayon::prelude::*;

use crate::ExportError;

/// Primitives the pool fills at once.
const BATCH: usize = 16;

/// Buffers in use at most: the batch being filled, and two being written or waiting.
const BUFFERS: usize = 3 * BATCH;

/// The filled primitives, in the order of the keys given to [`filled`].
pub(super) struct Filled {
    from: mpsc::Receiver<Result<Primitive, String>>,
    back: mpsc::Sender<Primitive>,
}

impl Filled {
    /// The next primitive.
    pub fn next(&mut self) -> io::Result<Primitive> {
        match self.from.recv() {
            Ok(Ok(p)) => Ok(p),
            Ok(Err(message)) => Err(io::Error::other(SourceFailed(message))),
            Err(_) => Err(io::Error::other(SourceFailed(
                "the source stopped before its last primitive".into(),
            ))),
        }
    }

    /// Give a primitive's buffer back for reuse.
    pub fn give_back(&self, p: Primitive) {
        // the feeder may be done and gone: the buffer is then simply dropped
        let _ = self.back.send(p);
    }
}

/// Run `write` with the primitives of `keys` filled by `source` (see the module docs). Returns
/// what `write` returns; the feeder stops when `write` returns early.
pub(super) fn filled<T>(
    source: &dyn PrimitiveSource,
    keys: &[usize],
    write: impl FnOnce(&mut Filled) -> io::Result<T>,
) -> io::Result<T> {
    let (to, from) = mpsc::sync_channel(BUFFERS);
    let (back, spare) = mpsc::channel::<Primitive>();
    for _ in 0..BUFFERS {
        let _ = back.send(Primitive::default());
    }
    std::thread::scope(|s| {
        s.spawn(move || {
            for batch in keys.chunks(BATCH) {
                let mut bufs = Vec::with_capacity(batch.len());
                for _ in batch {
                    match spare.recv() {
                        Ok(b) => bufs.push(b),
                        Err(_) => return,
                    }
                }
                let done: Vec<Result<(), String>> = bufs
                    .par_iter_mut()
                    .zip(batch)
                    .map(|(b, &key)| source.fill(key, b))
                    .collect();
                for (b, r) in bufs.into_iter().zip(done) {
                    if to.send(r.map(|()| b)).is_err() {
                        return;
                    }
                }
            }
        });
        let mut f = Filled { from, back };
        let out = write(&mut f);
        // dropping the ends stops a feeder still waiting for a buffer or sending
        drop(f);
        out
    })
}

/// A source's failure, carried through the writer's `io::Error` to [`export_error`].
#[derive(Debug)]
pub(super) struct SourceFailed(pub String);

impl std::fmt::Display for SourceFailed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SourceFailed {}

/// The error of written primitive `prim` whose data broke its promises.
pub(super) fn failed(prim: usize, message: String) -> io::Error {
    io::Error::other(SourceFailed(format!(
        "written primitive {prim}: {message}"
    )))
}

/// The writer's error as an [`ExportError`]: a source's failure as [`ExportError::Source`],
/// anything else as [`ExportError::Write`].
pub(super) fn export_error(e: io::Error) -> ExportError {
    match e.get_ref().and_then(|i| i.downcast_ref::<SourceFailed>()) {
        Some(SourceFailed(message)) => ExportError::Source {
            what: "a streamed mesh of the GLB".into(),
            message: message.clone(),
        },
        None => ExportError::Write(e),
    }
}
