//! The mutation tests, one test binary of their own: its counting allocator sees only them.
//!
//! * [`levels`]: every level fixture and small generated level, mutated, through `open`,
//!   `check`, `rebuild`, conversion, import of an edit and `export`;
//! * [`inputs`]: the other inputs (OBJ/MTL, glTF + `.bin` + images, GLB, WAV, strings JSON,
//!   CVS), mutated, through `import`, `replace` and `extract`.
//!
//! The two never run at once ([`SERIAL`]), so the largest allocation seen during a case is
//! that case's; the process runs under a 4 GiB address-space limit ([`limit_address_space`]),
//! so a runaway allocation fails as an error or a null, never by exhausting the machine.
#![allow(clippy::unwrap_used)]
#![allow(unsafe_code)] // the counting allocator and the setrlimit call below, nothing else

mod inputs;
mod levels;

use std::alloc::{GlobalAlloc, Layout, System};
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// No reader may ask for more than this in one allocation on these small files.
pub const ALLOCATION_LIMIT: usize = 256 << 20;

/// Held by each mutation test for its whole run.
pub static SERIAL: Mutex<()> = Mutex::new(());

/// A path below the workspace root.
pub fn workspace(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../..")
        .join(rel)
}

/// The real X-Ray fixture folder.
pub fn fixture() -> PathBuf {
    workspace("crates/xray/tests/data/xray-v14-micro")
}

/// The independent WAD (written from the format notes by a Python script).
pub fn indep_wad() -> PathBuf {
    workspace("crates/wad/tests/data/independent/indep.wad")
}

/// Limit this process's address space to 4 GiB (`RLIMIT_AS`; the attack runs used
/// the same bound), once.
pub fn limit_address_space() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(target_os = "linux")]
        {
            let lim = libc::rlimit {
                rlim_cur: 4 << 30,
                rlim_max: libc::RLIM_INFINITY,
            };
            // SAFETY: setrlimit reads the struct it is given; no memory is handed over.
            let _ = unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) };
        }
    });
}

/// The largest allocation since the last call, and reset.
pub fn take_largest() -> usize {
    LARGEST.swap(0, Ordering::Relaxed)
}

struct Counting;

/// The largest single allocation asked for since the last [`take_largest`].
pub static LARGEST: AtomicUsize = AtomicUsize::new(0);

// SAFETY: forwards every call to the system allocator unchanged; it only records the
// largest size asked for, and refuses (null, as an allocator may) requests above 4 GiB so
// that an over-allocation bug fails this test instead of the machine.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        LARGEST.fetch_max(layout.size(), Ordering::Relaxed);
        if layout.size() > 4 << 30 {
            return std::ptr::null_mut();
        }
        // SAFETY: the caller upholds `alloc`'s contract, which is System's too.
        unsafe { System.alloc(layout) }
    }
    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: `ptr` came from `System.alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }
    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        LARGEST.fetch_max(new_size, Ordering::Relaxed);
        if new_size > 4 << 30 {
            return std::ptr::null_mut();
        }
        // SAFETY: as for `alloc`; `ptr` came from this allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// xorshift64*: deterministic, seeded per case.
pub struct Rng(pub u64);

impl Rng {
    /// The next pseudo-random number.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    /// A pseudo-random number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        if n == 0 {
            0
        } else {
            (self.next_u64() % n as u64) as usize
        }
    }
}

/// One mutation of `b`; returns what it did, for the failure message.
pub fn mutate(b: &mut Vec<u8>, rng: &mut Rng) -> String {
    let len = b.len();
    match rng.below(7) {
        0 => {
            let at = rng.below(len);
            b.truncate(at);
            format!("truncate at {at}")
        }
        1 | 2 => {
            let at = rng.below(len);
            if let Some(x) = b.get_mut(at) {
                *x ^= 1 << rng.below(8);
            }
            format!("flip a bit at {at}")
        }
        3 | 4 => {
            let at = rng.below(len / 4) * 4;
            let v: u32 = match rng.below(6) {
                0 => 0xFFFF_FFFF,
                1 => 0x7FFF_FFFF,
                2 => 0x8000_0000 | (rng.next_u64() as u32 & 0xFF),
                3 => len as u32 + rng.below(16) as u32,
                4 => 0,
                _ => rng.next_u64() as u32 & 0xFFFF,
            };
            if at + 4 <= b.len() {
                b[at..at + 4].copy_from_slice(&v.to_le_bytes());
            }
            format!("u32 0x{v:08X} at {at}")
        }
        5 => {
            let at = rng.below(len);
            let n = rng.below(64).min(len - at.min(len));
            b.drain(at..at + n);
            format!("delete {n} bytes at {at}")
        }
        _ => {
            let at = rng.below(len);
            let n = rng.below(64).min(len - at.min(len));
            let copy: Vec<u8> = b[at..at + n].to_vec();
            let to = rng.below(b.len());
            b.splice(to..to, copy);
            format!("duplicate {n} bytes of {at} at {to}")
        }
    }
}
