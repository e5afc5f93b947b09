//! PNG encoding decoded with the png crate; texture files written to a folder.

use levelgeom_export::png::encode_rgba8;
use levelgeom_export::{texture_file_name, write_textures, ExportError};
use levelgeom_scene::*;

fn decode(bytes: &[u8]) -> (u32, u32, ::png::ColorType, Vec<u8>) {
    let mut r = ::png::Decoder::new(std::io::Cursor::new(bytes.to_vec()))
        .read_info()
        .unwrap();
    let mut buf = vec![0; r.output_buffer_size().unwrap()];
    let info = r.next_frame(&mut buf).unwrap();
    buf.truncate(info.buffer_size());
    (info.width, info.height, info.color_type, buf)
}

fn rgba(name: &str, width: u32, height: u32, pixels: Vec<u8>) -> Texture {
    Texture {
        name: name.into(),
        source: TextureSource::Rgba8 {
            width,
            height,
            pixels,
        },
    }
}

#[test]
fn encode_decodes_to_the_same_pixels() {
    // 3×2, every pixel different, including alpha 0 and 128
    let px: Vec<u8> = (0u8..24).map(|i| i.wrapping_mul(37)).collect();
    let png = encode_rgba8(3, 2, &px).unwrap();
    assert_eq!(&png[..8], b"\x89PNG\r\n\x1a\n");
    assert_eq!(decode(&png), (3, 2, ::png::ColorType::Rgba, px));
}

#[test]
fn bad_sizes_are_errors() {
    assert!(matches!(
        encode_rgba8(2, 2, &[0; 15]),
        Err(ExportError::Texture { .. })
    ));
    assert!(matches!(
        encode_rgba8(0, 1, &[]),
        Err(ExportError::Texture { .. })
    ));
    assert!(matches!(
        encode_rgba8(u32::MAX, u32::MAX, &[0; 4]),
        Err(ExportError::Texture { .. })
    ));
}

#[test]
fn file_names_stay_in_the_folder() {
    let ext = |n: &str| Texture {
        name: n.into(),
        source: TextureSource::External { uri: "x".into() },
    };
    assert_eq!(texture_file_name(&ext("page_03")), "page_03.png");
    assert_eq!(texture_file_name(&ext("../a b/c")), ".._a_b_c.png");
    assert_eq!(texture_file_name(&ext("")), "texture.png");
    assert_eq!(texture_file_name(&ext("..")), "texture.png");
}

#[test]
fn write_textures_writes_decoded_ones_and_skips_external() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Scene::default();
    s.textures.push(rgba("page_00", 1, 1, vec![1, 2, 3, 4]));
    s.textures.push(Texture {
        name: "ext".into(),
        source: TextureSource::External {
            uri: "ext.dds".into(),
        },
    });
    s.textures
        .push(rgba("page_02", 1, 2, vec![9, 8, 7, 6, 5, 4, 3, 2]));
    let written = write_textures(&s, dir.path(), None, &[]).unwrap();
    assert_eq!(
        written,
        vec![
            dir.path().join("page_00.png"),
            dir.path().join("page_02.png")
        ]
    );
    let (w, h, _, px) = decode(&std::fs::read(&written[1]).unwrap());
    assert_eq!((w, h, px), (1, 2, vec![9, 8, 7, 6, 5, 4, 3, 2]));
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2);

    // subset, out-of-range index ignored
    let dir2 = tempfile::tempdir().unwrap();
    let written = write_textures(&s, dir2.path(), Some(&[2, 99]), &[]).unwrap();
    assert_eq!(written, vec![dir2.path().join("page_02.png")]);

    // an input path is protected
    let err = write_textures(
        &s,
        dir2.path(),
        Some(&[2]),
        &[&dir2.path().join("page_02.png")],
    );
    assert!(matches!(err, Err(ExportError::Io { .. })));
}

#[test]
fn write_textures_rejects_clashes_and_bad_pixels() {
    let dir = tempfile::tempdir().unwrap();
    let mut s = Scene::default();
    s.textures.push(rgba("a b", 1, 1, vec![0; 4]));
    s.textures.push(rgba("a_b", 1, 1, vec![0; 4]));
    match write_textures(&s, dir.path(), None, &[]) {
        Err(ExportError::DuplicateFileName {
            file,
            first,
            second,
        }) => {
            assert_eq!((file.as_str(), first, second), ("a_b.png", 0, 1))
        }
        other => panic!("{other:?}"),
    }
    assert_eq!(
        std::fs::read_dir(dir.path()).unwrap().count(),
        0,
        "nothing written"
    );
    let mut s = Scene::default();
    s.textures.push(rgba("short", 2, 2, vec![0; 12]));
    match write_textures(&s, dir.path(), None, &[]) {
        Err(ExportError::Texture { name, .. }) => assert_eq!(name, "short"),
        other => panic!("{other:?}"),
    }
}
