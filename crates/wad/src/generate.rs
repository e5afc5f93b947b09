//! A synthetic, self-consistent level generator (tests, the demo, benchmarks).
//!
//! (Skeleton: the generator is being written.)

/// The built-in demo WAD used by `levelgeom export --demo` (not yet generated: empty).
pub fn demo_level() -> Vec<u8> {
    Vec::new()
}
