//! Hollow primitives filled as the BIN chunk reaches them.
//!
//! A scene may hold hollow primitives ([`levelgeom_scene::Primitive::hollow`]) whose data a
//! [`PrimitiveSource`] fills on demand. [`filled`] hands them to the buffer's writer in buffer
//! order: a thread feeds the pool batch after batch ([`BATCH`] primitives decoded in parallel,
//! each into a buffer of its own), the writer takes them one by one and gives the buffers back
//! a batch at a time once their bytes are copied into the pieces. [`BATCHES`] batches of
//! buffers exist at most, reused from one primitive to the next (their vectors keep their
//! capacity), so the memory they fault is a few dozen primitives' worth, not the scene's; the
//! pool decodes the next batches while the writer writes.

use std::io;
use std::sync::mpsc;

use levelgeom_scene::{Primitive, PrimitiveSource};
use rayon::prelude::*;

use crate::clean::CleanPrimitive;
use crate::ExportError;

/// Primitives the pool fills at once (handed to the writer, and back, as one message: a
/// message per primitive woke a thread per primitive).
const BATCH: usize = 16;

/// Batches of buffers in use at most: the one being filled, and two being written or waiting.
const BATCHES: usize = 3;

/// One batch of filled primitives, in order (a failure ends it).
type Batch = Vec<Result<Primitive, String>>;

/// The filled primitives, in the order of the keys given to [`filled`].
pub(super) struct Filled {
    from: mpsc::Receiver<Batch>,
    /// The current batch, reversed (the next primitive last).
    batch: Batch,
    back: mpsc::Sender<Vec<Primitive>>,
    /// Buffers written, given back a batch at a time.
    done: Vec<Primitive>,
}

impl Filled {
    /// The next primitive.
    pub fn next(&mut self) -> io::Result<Primitive> {
        if self.batch.is_empty() {
            self.batch = self.from.recv().unwrap_or_default();
            self.batch.reverse();
        }
        match self.batch.pop() {
            Some(Ok(p)) => Ok(p),
            Some(Err(message)) => Err(io::Error::other(SourceFailed(message))),
            None => Err(io::Error::other(SourceFailed(
                "the source stopped before its last primitive".into(),
            ))),
        }
    }

    /// Give a primitive's buffer back for reuse.
    pub fn give_back(&mut self, p: Primitive) {
        self.done.push(p);
        if self.done.len() == BATCH {
            // the feeder may be done and gone: the buffers are then simply dropped
            let _ = self.back.send(std::mem::take(&mut self.done));
        }
    }
}

/// Run `write` with the primitives of `keys` filled by `source` (see the module docs): the
/// pool starts filling the first batches at once, whatever `write` does before it takes them.
/// Returns what `write` returns; the feeder stops when `write` returns early.
pub(super) fn filled<T>(
    source: &dyn PrimitiveSource,
    keys: &[usize],
    write: impl FnOnce(&mut Filled) -> T,
) -> T {
    let (to, from) = mpsc::sync_channel::<Batch>(BATCHES);
    let (back, spare) = mpsc::channel::<Vec<Primitive>>();
    for _ in 0..BATCHES {
        let _ = back.send((0..BATCH).map(|_| Primitive::default()).collect());
    }
    std::thread::scope(|s| {
        s.spawn(move || {
            for keys in keys.chunks(BATCH) {
                let Ok(mut bufs) = spare.recv() else { return };
                bufs.truncate(keys.len());
                let done: Vec<Result<(), String>> = bufs
                    .par_iter_mut()
                    .zip(keys)
                    .map(|(b, &key)| source.fill(key, b))
                    .collect();
                let batch = bufs.into_iter().zip(done).map(|(b, r)| r.map(|()| b));
                if to.send(batch.collect()).is_err() {
                    return;
                }
            }
        });
        let mut f = Filled {
            from,
            batch: Vec::new(),
            back,
            done: Vec::with_capacity(BATCH),
        };
        let out = write(&mut f);
        // dropping the ends stops a feeder still waiting for buffers or sending
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

/// The error of written primitive `prim` (`c`) whose data broke its promises.
pub(super) fn failed(prim: usize, c: &CleanPrimitive<'_>, message: String) -> io::Error {
    let key = c.hollow.map_or(0, |h| h.key);
    io::Error::other(SourceFailed(format!(
        "primitive {prim} of the buffer (source key {key}): {message}"
    )))
}

/// The writer's error as an [`ExportError`]: a source's failure as [`ExportError::Source`],
/// anything else as [`ExportError::Write`].
pub(super) fn export_error(e: io::Error) -> ExportError {
    match e.get_ref().and_then(|i| i.downcast_ref::<SourceFailed>()) {
        Some(SourceFailed(message)) => ExportError::Source {
            what: "a streamed mesh of the GLB's buffer".into(),
            message: message.clone(),
        },
        None => ExportError::Write(e),
    }
}
