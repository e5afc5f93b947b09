//! Any bytes through the glTF/GLB reader (for a `.gltf`, the bytes after the first NUL are its
//! `f.bin` buffer), then the world triangles of what it read.
#![no_main]
use libfuzzer_sys::fuzz_target;
use levelgeom_import::MemoryFiles;

fuzz_target!(|data: &[u8]| {
    let (doc, bin) = if data.starts_with(b"glTF") {
        (data, &[][..])
    } else {
        let cut = data.iter().position(|&b| b == 0).unwrap_or(data.len());
        (&data[..cut], data.get(cut + 1..).unwrap_or_default())
    };
    let files = MemoryFiles(vec![("f.bin".into(), bin.to_vec())]);
    if let Ok(m) = levelgeom_import::read_gltf(doc, "f.gltf", &files) {
        let _ = levelgeom_import::world_triangles(&m.scene, None, false);
    }
});
