//! `level.hom` / `level.som`: the generator's files (written byte by byte in the LevelEditor's
//! layout, `BuilderOGF.cpp`) read into the polygons the generator lists, write back byte for
//! byte, become hidden scene trees at hand-mirrored positions, and each check fires on a
//! broken file. Offsets below are hand computed: chunk 0 is 8 + 4 bytes, so chunk 1's header
//! is at 12 and its first polygon at 20; a HOM polygon is 40 bytes, a SOM polygon 44.

use std::path::Path;

use levelgeom_xray::occluders::generate::{hom_bytes, som_bytes, HOM_POLYS, SOM_POLYS};
use levelgeom_xray::occluders::{Hom, Som};
use levelgeom_xray::{Kind, LevelFiles, SceneOptions};

fn fixture() -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/xray-v14-micro")
}

#[test]
fn generated_files_are_told_apart_by_content_and_round_trip() {
    let (h, s) = (hom_bytes(), som_bytes());
    // 12 + 8 + 4 × 40 and 12 + 8 + 3 × 44
    assert_eq!(h.len(), 180);
    assert_eq!(s.len(), 152);
    assert_eq!(levelgeom_xray::kind(&h), Some(Kind::Hom));
    assert_eq!(levelgeom_xray::kind(&s), Some(Kind::Som));
    let (hom, w) = Hom::read(&h).unwrap();
    assert!(w.is_empty());
    assert_eq!(hom.version(), Some(0));
    let got: Vec<_> = hom.polys().map(|p| (p.v, p.flags)).collect();
    assert_eq!(got, HOM_POLYS.to_vec());
    assert_eq!(hom.to_bytes().unwrap(), h);
    let (som, _) = Som::read(&s).unwrap();
    let got: Vec<_> = som.polys().map(|p| (p.v, p.b2sided, p.occ)).collect();
    assert_eq!(got, SOM_POLYS.to_vec());
    assert_eq!(som.to_bytes().unwrap(), s);
    assert!(hom.check().is_empty(), "{:?}", hom.check());
    assert!(som.check().is_empty(), "{:?}", som.check());
    // through the generic opener, as `rebuild` does
    for b in [&h, &s] {
        let (o, _) = levelgeom_xray::files::Opened::read(b).unwrap().unwrap();
        assert_eq!(&o.to_bytes().unwrap(), b);
    }
}

#[test]
fn unknown_chunks_and_a_partial_polygon_are_kept_verbatim() {
    let mut h = hom_bytes();
    // a trailing chunk 7 of 3 bytes, unknown to every source
    h.extend_from_slice(&[7, 0, 0, 0, 3, 0, 0, 0, 0xAA, 0xBB, 0xCC]);
    let (hom, _) = Hom::read(&h).unwrap();
    assert_eq!(hom.to_bytes().unwrap(), h);
    // 6 stray bytes at the end of the polygon chunk: the chunk size grows from 160 to 166
    let mut s = hom_bytes();
    s[16..20].copy_from_slice(&166u32.to_le_bytes());
    s.extend_from_slice(&[1, 2, 3, 4, 5, 6]);
    let (hom, warnings) = Hom::read(&s).unwrap();
    assert_eq!(warnings.len(), 1);
    assert_eq!(hom.to_bytes().unwrap(), s);
    let p = hom.check();
    assert_eq!(p.len(), 1, "{p:?}");
    assert_eq!(p[0].path, "HOM_CHUNK_POLYGONS");
    assert_eq!(p[0].offset, Some(20 + 160));
}

#[test]
fn a_truncated_file_gives_a_located_error() {
    let h = hom_bytes();
    let cut = &h[..100];
    // still recognised, so that reading says where it breaks
    assert_eq!(levelgeom_xray::kind(cut), Some(Kind::Hom));
    let e = Hom::read(cut).unwrap_err();
    assert_eq!(e.offset, 12, "{e}");
    let text = e.to_string();
    assert!(text.contains("HOM_CHUNK_POLYGONS"), "{text}");
    assert!(text.contains("160"), "{text}");
    let s = som_bytes();
    let e = Som::read(&s[..s.len() - 1]).unwrap_err();
    assert!(e.to_string().contains("SOM_CHUNK_POLYGONS"), "{e}");
}

#[test]
fn each_check_fires_on_a_broken_file() {
    // HOM polygon 2 (at 20 + 80): flags 5; polygon 0 collapsed onto a line
    let mut h = hom_bytes();
    h[20 + 80 + 36..20 + 80 + 40].copy_from_slice(&5u32.to_le_bytes());
    // v3 of polygon 0 := v2 (14, 0, 20): zero area
    let v2: Vec<u8> = h[20 + 12..20 + 24].to_vec();
    h[20 + 24..20 + 36].copy_from_slice(&v2);
    let (hom, _) = Hom::read(&h).unwrap();
    let p = hom.check();
    assert_eq!(p.len(), 2, "{p:?}");
    assert_eq!(p[0].path, "HOM_CHUNK_POLYGONS/poly[0]");
    assert_eq!(p[0].offset, Some(20));
    assert!(p[0].message.contains("degenerate"), "{}", p[0].message);
    assert_eq!(p[1].path, "HOM_CHUNK_POLYGONS/poly[2]");
    assert_eq!(p[1].offset, Some(20 + 80 + 36));
    assert!(p[1].message.contains("flags is 5"), "{}", p[1].message);

    // SOM: version 3, polygon 1's factor 1.5, polygon 2's b2sided 2, a NaN coordinate in 0
    let mut s = som_bytes();
    s[8..12].copy_from_slice(&3u32.to_le_bytes());
    s[20 + 44 + 40..20 + 44 + 44].copy_from_slice(&1.5f32.to_le_bytes());
    s[20 + 88 + 36..20 + 88 + 40].copy_from_slice(&2u32.to_le_bytes());
    s[20..24].copy_from_slice(&f32::NAN.to_le_bytes());
    let (som, _) = Som::read(&s).unwrap();
    let p = som.check();
    let by = |path: &str, what: &str| {
        p.iter()
            .find(|x| x.path == path && x.message.contains(what))
            .unwrap_or_else(|| panic!("no `{what}` at {path} in {p:?}"))
    };
    assert_eq!(by("SOM_CHUNK_VERSION", "version 3").offset, None);
    assert_eq!(
        by("SOM_CHUNK_POLYGONS/poly[1]", "occlusion factor 1.5").offset,
        Some(20 + 44 + 40)
    );
    assert_eq!(
        by("SOM_CHUNK_POLYGONS/poly[2]", "b2sided is 2").offset,
        Some(20 + 88 + 36)
    );
    assert_eq!(
        by("SOM_CHUNK_POLYGONS/poly[0]", "not finite").offset,
        Some(20)
    );
    assert_eq!(p.len(), 4, "{p:?}");
}

#[test]
fn occluders_beside_a_level_become_hidden_trees_at_mirrored_positions() {
    let d = tempfile::tempdir().unwrap();
    for f in ["level", "level.geom"] {
        std::fs::copy(fixture().join(f), d.path().join(f)).unwrap();
    }
    // without them, asking for occluders is a clear error
    let files = LevelFiles::open(d.path()).unwrap();
    let opts = SceneOptions {
        occluders: true,
        ..SceneOptions::default()
    };
    let e = files.to_scene(&opts).unwrap_err();
    assert!(e.to_string().contains("no level.hom or level.som"), "{e}");

    std::fs::write(d.path().join("level.hom"), hom_bytes()).unwrap();
    std::fs::write(d.path().join("level.som"), som_bytes()).unwrap();
    let files = LevelFiles::open(d.path()).unwrap();
    let check = files.check();
    assert!(check.notes.iter().any(|n| n.ends_with("level.hom")));
    assert!(check.notes.iter().any(|n| n.ends_with("level.som")));
    assert!(check.problems.is_empty(), "{:?}", check.problems);
    let scene = files.to_scene(&opts).unwrap();
    let root = *scene.roots.last().unwrap();
    let r = &scene.nodes[root];
    assert_eq!(r.name, "occluders");
    assert!(r.hidden);
    let names: Vec<&str> = r
        .children
        .iter()
        .map(|&c| scene.nodes[c].name.as_str())
        .collect();
    assert_eq!(names, ["hom", "som"]);
    let leaf = |tree: usize, name: &str| {
        let t = &scene.nodes[r.children[tree]];
        let n = t
            .children
            .iter()
            .map(|&c| &scene.nodes[c])
            .find(|n| n.name == name)
            .unwrap_or_else(|| panic!("no {name}"));
        let p = &scene.meshes[n.mesh.unwrap()].primitives[0];
        let tris: Vec<[[f32; 3]; 3]> = p
            .indices
            .chunks_exact(3)
            .map(|t| [0, 1, 2].map(|k| p.positions[t[k] as usize]))
            .collect();
        (n.extras.clone(), tris, n.hidden)
    };
    // HOM polygon 2, (0,1.5,0) (2,1.5,0) (2,1.5,2), two-sided: mirrored z and reversed winding
    let (extras, tris, hidden) = leaf(0, "hom_flags1");
    assert!(hidden);
    assert!(extras.contains(&("two_sided".into(), "true".into())));
    assert_eq!(tris.len(), 2);
    assert_eq!(
        tris[0],
        [[0.0, 1.5, -0.0], [2.0, 1.5, -2.0], [2.0, 1.5, -0.0]]
    );
    let (extras, tris, _) = leaf(0, "hom_flags0");
    assert!(extras.contains(&("flags".into(), "0".into())));
    assert_eq!(
        tris[1],
        [[10.0, 0.0, -20.0], [10.0, 3.0, -20.0], [14.0, 3.0, -20.0]]
    );
    // SOM polygon 2: (1,2,3) (4,2,3) (1,6,3), two-sided, factor 0.75
    let (extras, tris, _) = leaf(1, "som_occ0.75_2s");
    assert!(extras.contains(&("occlusion".into(), "0.75".into())));
    assert_eq!(
        tris,
        [[[1.0, 2.0, -3.0], [1.0, 6.0, -3.0], [4.0, 2.0, -3.0]]]
    );
    let (_, tris, _) = leaf(1, "som_occ0.25");
    assert_eq!(tris.len(), 2);

    // a level.som that is something else is an error naming it
    std::fs::write(d.path().join("level.som"), hom_bytes()).unwrap();
    let e = LevelFiles::open(d.path()).unwrap_err().to_string();
    assert!(
        e.contains("level.som") && e.contains("not a level.som"),
        "{e}"
    );
}

/// A polygon chunk of 440 bytes is 11 HOM polygons or 10 SOM polygons: the reading whose
/// two-sided words are 0 or 1 wins.
#[test]
fn a_chunk_both_sizes_divide_is_told_apart_by_its_words() {
    let file = |polys: &[u8]| {
        let mut b = vec![0, 0, 0, 0, 4, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0];
        b.extend_from_slice(&(polys.len() as u32).to_le_bytes());
        b.extend_from_slice(polys);
        b
    };
    let mut som = Vec::new();
    for i in 0..10u32 {
        let (v, sided, occ) = SOM_POLYS[i as usize % 3];
        for c in v.iter().flatten() {
            som.extend_from_slice(&(c + 1.0 + i as f32).to_le_bytes());
        }
        som.extend_from_slice(&sided.to_le_bytes());
        som.extend_from_slice(&occ.to_le_bytes());
    }
    assert_eq!(som.len(), 440);
    let s = file(&som);
    assert_eq!(levelgeom_xray::kind(&s), Some(Kind::Som));
    let (parsed, _) = Som::read(&s).unwrap();
    assert_eq!(parsed.polys().count(), 10);
    assert_eq!(parsed.to_bytes().unwrap(), s);
    let mut hom = Vec::new();
    for i in 0..11u32 {
        let (v, flags) = HOM_POLYS[i as usize % 4];
        for c in v.iter().flatten() {
            hom.extend_from_slice(&(c + 1.0 + i as f32).to_le_bytes());
        }
        hom.extend_from_slice(&flags.to_le_bytes());
    }
    assert_eq!(hom.len(), 440);
    assert_eq!(levelgeom_xray::kind(&file(&hom)), Some(Kind::Hom));
}
