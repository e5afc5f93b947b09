//! The accessors a GLB read in part ([`super::partial::PartialGlb`]) reads straight from the
//! file into their destination, never into the file's buffer: a primitive's POSITION when it
//! is tightly packed `f32` VEC3, into the `Vec<[f32; 3]>` it becomes; its indices when they
//! are tightly packed `u32` (into the `Vec<u32>`) or `u16` (through a small reused buffer,
//! widened into the `Vec<u32>`). Each is checked first as a read from the buffer checks it
//! (the buffer is the file's size, its bytes only not read), so the errors and warnings are
//! those of the read from bytes; any other accessor (strided, normalized integers, sparse,
//! u8 indices, a buffer that is not the BIN chunk) is read the present way, from the
//! bufferViews fetched into the buffer ([`super::deferred`] leaves these ones out).
//!
//! The file's values are little-endian (the glTF 2.0 specification, "Buffers and Buffer
//! Views": all buffer data is little-endian); they are read as the host's own only on a
//! little-endian host (on another, everything is read the present way).

use gltf::accessor::{DataType, Dimensions};
use gltf::buffer::Source;

/// A host that reads the file's little-endian values as its own.
const HOST_LE: bool = cfg!(target_endian = "little");

/// The width of an index accessor read straight from the file.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum IndexWidth {
    /// `u16`, widened.
    U16,
    /// `u32`, as they are.
    U32,
}

/// The accessor's bufferView when it lies in the BIN chunk and the accessor has no sparse
/// part (on a little-endian host).
fn bin_view<'a>(acc: &gltf::Accessor<'a>) -> Option<gltf::buffer::View<'a>> {
    acc.view()
        .filter(|v| HOST_LE && acc.sparse().is_none() && matches!(v.buffer().source(), Source::Bin))
}

/// A POSITION accessor read straight from the file: tightly packed `f32` VEC3 (the stride as
/// [`super::Ctx::f32_arrays`] takes it).
pub(super) fn position(acc: &gltf::Accessor) -> bool {
    acc.dimensions() == Dimensions::Vec3
        && acc.data_type() == DataType::F32
        && bin_view(acc).is_some_and(|v| v.stride().unwrap_or(12) == 12)
}

/// An index accessor read straight from the file: tightly packed `u16` or `u32` SCALAR (the
/// stride as [`super::Ctx::indices`] takes it: at least the index's size).
pub(super) fn indices(acc: &gltf::Accessor) -> Option<IndexWidth> {
    let (width, size) = match acc.data_type() {
        DataType::U16 => (IndexWidth::U16, 2),
        DataType::U32 => (IndexWidth::U32, 4),
        _ => return None,
    };
    let tight = bin_view(acc).is_some_and(|v| v.stride().unwrap_or(size).max(size) == size);
    (acc.dimensions() == Dimensions::Scalar && tight).then_some(width)
}
