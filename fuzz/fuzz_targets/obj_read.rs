//! Any bytes through the OBJ reader (the bytes before the first NUL the OBJ, the rest its
//! `f.mtl`), then the world triangles of what it read.
#![no_main]
use libfuzzer_sys::fuzz_target;
use levelgeom_import::MemoryFiles;

fuzz_target!(|data: &[u8]| {
    let cut = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let mtl = data.get(cut + 1..).unwrap_or_default().to_vec();
    let files = MemoryFiles(vec![("f.mtl".into(), mtl)]);
    if let Ok(m) = levelgeom_import::read_obj(&data[..cut], "f.obj", &files) {
        let _ = levelgeom_import::world_triangles(&m.scene, None, false);
    }
});
