//! Running levels in parallel: jobs, a stop flag, progress (see [`super`]).

use std::path::Path;
use std::sync::atomic::{AtomicBool, AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use super::Found;

/// How a batch runs: jobs, a stop flag, progress.
#[derive(Clone, Copy, Default)]
pub struct Run<'a> {
    /// Levels processed at once (rayon threads); 0 = one per core.
    pub jobs: usize,
    /// When set (e.g. by a Ctrl-C handler), no new level starts; the running ones finish.
    pub stop: Option<&'a AtomicBool>,
    /// Called from the job's thread each time a level is done.
    pub progress: Option<&'a (dyn Fn(&Progress<'_>) + Sync)>,
}

impl std::fmt::Debug for Run<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Run")
            .field("jobs", &self.jobs)
            .field("stop", &self.stop)
            .field("progress", &self.progress.is_some())
            .finish()
    }
}

/// What the progress callback of [`Run`] is told when a level is done.
#[derive(Clone, Copy, Debug)]
pub struct Progress<'a> {
    /// Levels done so far (this one included).
    pub done: usize,
    /// Levels to do.
    pub total: usize,
    /// Bytes of the levels done so far.
    pub bytes_done: u64,
    /// Bytes of all the levels.
    pub bytes_total: u64,
    /// The level just done.
    pub path: &'a Path,
    /// Whether it passed (verify) or was written (export).
    pub ok: bool,
}

impl Run<'_> {
    /// The number of jobs to run: [`Run::jobs`], or the machine's cores for 0.
    pub fn job_count(&self) -> usize {
        if self.jobs > 0 {
            self.jobs
        } else {
            std::thread::available_parallelism().map_or(1, usize::from)
        }
    }

    fn stopped(&self) -> bool {
        self.stop.is_some_and(|s| s.load(Ordering::SeqCst))
    }

    /// Run `f` over `levels` on [`Self::job_count`] threads, one level per job at a time; the
    /// results in input order, `None` for levels not started because of the stop flag.
    pub(super) fn map<T: Send>(
        &self,
        levels: &[&Found],
        f: impl Fn(usize, &Found) -> (T, bool) + Sync,
    ) -> Vec<Option<T>> {
        let total = levels.len();
        let bytes_total: u64 = levels.iter().map(|l| l.bytes).sum();
        let next = AtomicUsize::new(0);
        let done = AtomicUsize::new(0);
        let bytes_done = AtomicU64::new(0);
        let results: Mutex<Vec<Option<T>>> = Mutex::new((0..total).map(|_| None).collect());
        let jobs = self.job_count().min(total.max(1));
        let worker = || loop {
            if self.stopped() {
                break;
            }
            let i = next.fetch_add(1, Ordering::SeqCst);
            let Some(level) = levels.get(i) else { break };
            let (r, ok) = f(i, level);
            let d = done.fetch_add(1, Ordering::SeqCst) + 1;
            let b = bytes_done.fetch_add(level.bytes, Ordering::SeqCst) + level.bytes;
            if let Ok(mut v) = results.lock() {
                v[i] = Some(r);
            }
            if let Some(p) = self.progress {
                p(&Progress {
                    done: d,
                    total,
                    bytes_done: b,
                    bytes_total,
                    path: &level.path,
                    ok,
                });
            }
        };
        // One long-lived task per thread, each taking the next level when it is free: no more
        // than `jobs` levels are open at once, even when a level's own work (rendering a
        // preview) runs parallel loops on the same pool.
        match rayon::ThreadPoolBuilder::new().num_threads(jobs).build() {
            Ok(pool) => pool.scope(|s| {
                for _ in 0..jobs {
                    s.spawn(|_| worker());
                }
            }),
            Err(_) => worker(),
        }
        results
            .into_inner()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// Run `f`, turning a panic into an error message (one broken level never stops the others).
pub(super) fn guarded<T>(f: impl FnOnce() -> T) -> std::result::Result<T, String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)).map_err(|p| {
        let msg = p
            .downcast_ref::<&str>()
            .map(|s| (*s).to_string())
            .or_else(|| p.downcast_ref::<String>().cloned())
            .unwrap_or_default();
        format!("internal error (a bug, please report it): {msg}")
    })
}
