//! Our LZHUF streams read by an independent decoder: blender-xray's `rw/lzhuf.py` (a port of
//! the 1989 `lzhuf.c`), run with `python3`, must give back the input byte for byte.

use std::process::Command;

use levelgeom_xray::lzhuf;

/// Inputs that exercise every part of the stream: literals enough for the Huffman tree to be
/// rebuilt (more than 16,384 symbols), matches of every length up to 60, the farthest
/// distance the encoder uses (4,035), and sorted index data (the reference's worst case).
fn samples() -> Vec<(&'static str, Vec<u8>)> {
    let mut x: u32 = 2024;
    let mut rnd = move || {
        x = x.wrapping_mul(1_103_515_245).wrapping_add(12_345);
        (x >> 16) as u8
    };
    // vertex-like: a float position from a small set, a random one, a packed normal
    let mut vertices = Vec::new();
    for i in 0..6000u32 {
        vertices.extend_from_slice(&((i % 17) as f32 * 0.5).to_le_bytes());
        vertices.extend_from_slice(&[rnd(), rnd(), 0x80, 0x3F]);
        vertices.extend_from_slice(&[0x7F, 0x80, rnd() & 0xF0, 0xFF]);
    }
    // index-like: triangles of increasing u16 indices
    let mut indices = Vec::new();
    for t in 0..10_000u16 {
        for k in [t, t + 1, t + 2] {
            indices.extend_from_slice(&k.to_le_bytes());
        }
    }
    // the only match of the tail lies 4,035 bytes back, then runs of every length to 60
    let mut far: Vec<u8> = (0..4035).map(|_| rnd()).collect();
    far.extend_from_within(..60);
    for len in 3..=60 {
        let start = far.len() - 200;
        far.extend_from_within(start..start + len);
        far.push(rnd());
    }
    vec![
        ("vertices", vertices),
        ("indices", indices),
        ("far", far),
        ("spaces", vec![b' '; 5000]),
        ("short", b"ab".to_vec()),
    ]
}

#[test]
fn blender_xray_decodes_our_streams_to_the_input() {
    let Some(peer) = levelgeom_testkit::blender_xray() else {
        levelgeom_testkit::tool_missing("blender-xray (shared/peers/blender-xray)");
        return;
    };
    if Command::new("python3").arg("--version").output().is_err() {
        levelgeom_testkit::tool_missing("python3");
        return;
    }
    let dir = tempfile::tempdir().unwrap();
    let mut args = Vec::new();
    for (name, plain) in samples() {
        let packed = lzhuf::compress(&plain).unwrap();
        assert_eq!(lzhuf::decompress(&packed).unwrap(), plain, "{name}");
        let p = dir.path().join(format!("{name}.plain"));
        let c = dir.path().join(format!("{name}.lz"));
        std::fs::write(&p, &plain).unwrap();
        std::fs::write(&c, &packed).unwrap();
        args.push(c);
        args.push(p);
    }
    // the peer's decoder takes the bit stream and the size (our stream's u32 prefix)
    let script = r#"
import importlib.util, sys
spec = importlib.util.spec_from_file_location("lzhuf", sys.argv[1] + "/io_scene_xray/rw/lzhuf.py")
lz = importlib.util.module_from_spec(spec)
spec.loader.exec_module(lz)
files = sys.argv[2:]
for c, p in zip(files[::2], files[1::2]):
    packed = open(c, "rb").read()
    plain = open(p, "rb").read()
    size = int.from_bytes(packed[:4], "little")
    out = lz.decompress_buffer(bytearray(packed[4:]), size)
    print(c, "same" if bytes(out) == plain and size == len(plain) else "DIFFERENT")
"#;
    let out = Command::new("python3")
        .arg("-c")
        .arg(script)
        .arg(&peer)
        .args(&args)
        .output()
        .unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(text.matches(" same").count(), 5, "{text}");
    assert!(!text.contains("DIFFERENT"), "{text}");
}
