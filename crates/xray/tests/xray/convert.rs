//! `--to-version`: an import written as the other `level.geom` build (XRLC 13 ⇄ 14).
//!
//! The facts compared with are the format notes' (docs/formats/xray-level.md §2.2, §3): v14 static layouts of 32 bytes with a
//! SHORT2 base UV, v13 ones of 36 bytes with FLOAT2, v13 `level.geomx` 16 bytes, v14 12; the
//! base-UV encoding `s16 = ⌊uv·1024⌋`, `frac = ⌊255.5·(uv·1024 − s16)⌋`, worked out by hand
//! for one value below; the original files' bytes and geometry.

use levelgeom_scene::Scene;
use levelgeom_xray::decl::{self, Usage};
use levelgeom_xray::geom::VertexBuffer;
use levelgeom_xray::import::convert::{Converted, Packable};
use levelgeom_xray::import::{self, Base, ImportError, ImportOptions, Imported, Prepared};
use levelgeom_xray::vertex::Vertices;
use levelgeom_xray::{check, Geom, Level};

use super::import_edit::{export, fixture, generated, Files};

fn base(f: &Files) -> Base<'_> {
    Base {
        level: &f.level,
        geom: &f.geom,
        geomx: f.geomx.as_ref(),
        cform: f.cform.as_ref(),
    }
}

/// Import the level's own export (nothing edited) into build `to`.
fn convert(f: &Files, to: u16, allow_loss: bool) -> Result<Imported, ImportError> {
    import::import(
        base(f),
        &export(f),
        None,
        &ImportOptions {
            to_version: Some(to),
            allow_loss,
            ..ImportOptions::default()
        },
    )
}

/// The imported files as bytes, read back by our reader.
fn reread(i: &Imported) -> Files {
    Files {
        level: Level::read(&i.level.to_bytes().unwrap()).unwrap().0,
        geom: Geom::read(&i.geom.to_bytes().unwrap()).unwrap().0,
        geomx: i
            .geomx
            .as_ref()
            .map(|g| Geom::read(&g.to_bytes().unwrap()).unwrap().0),
        cform: i.cform.clone(),
    }
}

fn bytes(f: &Files) -> Vec<Vec<u8>> {
    let mut v = vec![f.level.to_bytes().unwrap(), f.geom.to_bytes().unwrap()];
    if let Some(g) = &f.geomx {
        v.push(g.to_bytes().unwrap());
    }
    if let Some(c) = &f.cform {
        v.push(c.to_bytes().unwrap());
    }
    v
}

fn assert_check_clean(f: &Files) {
    let mut p = check::level(&f.level, Some(&f.geom), f.geomx.as_ref());
    p.extend(check::geom(&f.geom));
    if let Some(c) = &f.cform {
        p.extend(check::cform(c));
    }
    assert!(p.is_empty(), "{p:?}");
}

fn versions(f: &Files) -> Vec<u16> {
    let mut v = vec![
        f.level.header().unwrap().version,
        f.geom.header().unwrap().version,
    ];
    if let Some(g) = &f.geomx {
        v.push(g.header().unwrap().version);
    }
    v
}

/// Node by node, primitive by primitive: positions bit for bit, lightmap UVs equal, the base
/// UVs within `uv_tol`; returns the largest base-UV difference.
fn compare_geometry(a: &Scene, b: &Scene, uv_tol: f64) -> f64 {
    assert_eq!(a.nodes.len(), b.nodes.len());
    let mut worst = 0.0f64;
    let mut compared = 0;
    for (na, nb) in a.nodes.iter().zip(&b.nodes) {
        assert_eq!(na.name, nb.name);
        assert_eq!(na.matrix, nb.matrix, "{}", na.name);
        let (Some(ma), Some(mb)) = (na.mesh, nb.mesh) else {
            assert_eq!(na.mesh.is_some(), nb.mesh.is_some());
            continue;
        };
        for (pa, pb) in a.meshes[ma].primitives.iter().zip(&b.meshes[mb].primitives) {
            let bits = |p: &[[f32; 3]]| -> Vec<[u32; 3]> {
                p.iter().map(|q| q.map(f32::to_bits)).collect()
            };
            assert_eq!(bits(&pa.positions), bits(&pb.positions), "{}", na.name);
            assert_eq!(pa.indices, pb.indices, "{}", na.name);
            assert_eq!(pa.uvs.len(), pb.uvs.len(), "{}", na.name);
            if pa.uvs.len() > 1 {
                assert_eq!(pa.uvs[1..], pb.uvs[1..], "{}", na.name);
            }
            if let (Some(ua), Some(ub)) = (pa.uvs.first(), pb.uvs.first()) {
                assert_eq!(ua.len(), ub.len());
                for (x, y) in ua.iter().zip(ub) {
                    for k in 0..2 {
                        let d = (f64::from(x[k]) - f64::from(y[k])).abs();
                        assert!(d <= uv_tol, "{}: uv {x:?} vs {y:?}", na.name);
                        worst = worst.max(d);
                    }
                }
            }
            compared += 1;
        }
    }
    assert!(compared > 0);
    worst
}

/// Strides of the `level.geom` buffers whose base UV is static (not the trees' SHORT4).
fn static_strides(g: &Geom) -> Vec<usize> {
    g.vertex_buffers()
        .unwrap()
        .iter()
        .filter(|b| {
            b.decl.find(Usage::TexCoord, 0).and_then(|e| e.decl_type())
                != Some(decl::DeclType::Short4)
        })
        .map(VertexBuffer::stride)
        .collect()
}

fn tree_buffers(g: &Geom) -> Vec<&VertexBuffer> {
    g.vertex_buffers()
        .unwrap()
        .iter()
        .filter(|b| b.decl == decl::mu_model())
        .collect()
}

/// 14 → 13 is exact and 13 → 14 gives back the original bytes (but for the header quality,
/// which XRLC 13 has no place for).
fn round_trip_14(f: &Files, has_geomx: bool) {
    let original = bytes(f);
    let v13 = convert(f, 13, false).expect("14 → 13 loses nothing");
    let c = v13.summary.conversion.clone().unwrap();
    assert_eq!((c.from, c.to), (14, 13));
    assert!(c.lost.is_empty(), "{:?}", c.lost);
    assert_eq!(c.max_uv_error, 0.0);
    let r13 = reread(&v13);
    assert!(
        versions(&r13).iter().all(|&v| v == 13),
        "{:?}",
        versions(&r13)
    );
    // the XRLC 13 engine reads the header as one u32 version (xrLevel.h before 2005-09-07):
    // no quality in its high half, and the conversion says so when one was dropped
    let qualities = |f: &Files| {
        let mut q = vec![
            f.level.header().unwrap().quality,
            f.geom.header().unwrap().quality,
        ];
        q.extend(f.geomx.iter().map(|g| g.header().unwrap().quality));
        q
    };
    assert!(
        qualities(&r13).iter().all(|&q| q == 0),
        "{:?}",
        qualities(&r13)
    );
    let had_quality = qualities(f).iter().any(|&q| q != 0);
    assert_eq!(
        c.notes.iter().any(|n| n.contains("XRLC quality")),
        had_quality,
        "{:?}",
        c.notes
    );
    // the spec's v13 layouts: 36-byte static vertices, FLOAT2 base UV; trees unchanged
    let s13 = static_strides(&r13.geom);
    assert!(!s13.is_empty() && s13.iter().all(|&s| s == 36), "{s13:?}");
    assert_eq!(tree_buffers(&r13.geom), tree_buffers(&f.geom));
    for b in r13.geom.vertex_buffers().unwrap() {
        if b.decl.find(Usage::TexCoord, 1).is_some() {
            assert_eq!(b.decl, decl::v13_lmap());
        }
    }
    if has_geomx {
        let gx = r13.geomx.as_ref().unwrap();
        assert!(gx
            .vertex_buffers()
            .unwrap()
            .iter()
            .all(|b| b.stride() == 16));
    }
    assert_check_clean(&r13);
    let worst = compare_geometry(&export(f), &export(&r13), 0.0);
    assert_eq!(worst, 0.0);

    // back to 14: the original bytes (a v13 level.geomx's UVs are dropped: that is a loss)
    let back = match convert(&r13, 14, false) {
        Ok(b) => {
            assert!(!has_geomx, "dropping level.geomx UVs must be refused");
            b
        }
        Err(e) => {
            assert!(has_geomx, "{e}");
            let msg = e.to_string();
            assert!(
                msg.contains("level.geomx base UVs") && msg.contains("--allow-loss"),
                "{msg}"
            );
            convert(&r13, 14, true).unwrap()
        }
    };
    let c = back.summary.conversion.clone().unwrap();
    assert_eq!(
        c.max_uv_error, 0.0,
        "the v13 UVs came from SHORT2 + fractions"
    );
    let r14 = reread(&back);
    // the original bytes, but for the quality words 13 cannot carry (bytes 10..12 of each
    // file: the u16 after the version in the first chunk's payload)
    let mut expected = original;
    for (file, q) in expected.iter_mut().zip(qualities(f)) {
        if q != 0 {
            file[10..12].copy_from_slice(&[0, 0]);
        }
    }
    assert!(
        bytes(&r14) == expected,
        "14 → 13 → 14 differs from the original bytes (quality aside)"
    );
}

#[test]
fn fixture_14_to_13_is_exact_and_back_gives_the_original_bytes_but_quality() {
    round_trip_14(&fixture(), true);
}

#[test]
fn generated_14_to_13_and_back() {
    for compress in [false, true] {
        round_trip_14(&generated(14, compress), false);
    }
}

#[test]
fn fixture_13_geomx_gets_the_uvs_of_the_same_positions() {
    let f = fixture();
    let r13 = reread(&convert(&f, 13, false).unwrap());
    let gx = r13.geomx.as_ref().unwrap();
    // every fast-path vertex of visual 0 has the UV of one of its level.geom vertices at the
    // same position, floored to 1/1024 (SHORT2 /1024, no fraction bytes)
    let v = r13.level.visuals()[0];
    let (g, fp) = (v.gcontainer().unwrap(), v.fastpath().unwrap());
    let all = r13.geom.vertex_buffers().unwrap();
    let mv: Vertices = all[g.vb_index as usize].decode();
    let xv = gx.vertex_buffers().unwrap()[fp.vb_index as usize].decode();
    let mut checked = 0;
    for k in fp.vb_offset..fp.vb_offset + fp.vb_count {
        let p = xv.positions[k as usize];
        let uv = xv.uv[k as usize];
        let cands: Vec<[f32; 2]> = (g.vb_offset..g.vb_offset + g.vb_count)
            .filter(|&i| mv.positions[i as usize] == p)
            .map(|i| mv.uv[i as usize])
            .collect();
        assert!(!cands.is_empty());
        assert!(
            cands.iter().any(|c| {
                (0..2).all(|j| (f64::from(c[j]) * 1024.0).floor() / 1024.0 == f64::from(uv[j]))
            }),
            "{uv:?} not among {cands:?}"
        );
        checked += 1;
    }
    assert!(checked > 0);
}

/// A generated v13 level whose first static vertex has the base UV (0.3001, 0.3001) and a
/// tangent alpha of 1.0.
fn v13_with_uv() -> Files {
    let mut f = generated(13, false);
    let vbs = f.geom.vertex_buffers_mut().unwrap();
    let k = vbs.iter().position(|b| b.decl == decl::v13_lmap()).unwrap();
    let mut v = vbs[k].decode();
    v.uv[0] = [0.3001, 0.3001];
    v.tangent_alpha[0] = 1.0;
    vbs[k] = VertexBuffer::encode(decl::v13_lmap(), &v).unwrap();
    f
}

#[test]
fn v13_to_14_quantises_uvs_and_is_refused_without_allow_loss() {
    let f = v13_with_uv();
    let e = convert(&f, 14, false).unwrap_err();
    let msg = e.to_string();
    assert!(
        matches!(
            e,
            ImportError::Loss {
                from: 13,
                to: 14,
                ..
            }
        ),
        "{msg}"
    );
    assert!(
        msg.contains("base UVs of") && msg.contains("largest UV error"),
        "{msg}"
    );
    assert!(
        msg.contains("tangent/binormal alpha of 1 vertices"),
        "{msg}"
    );
    assert!(msg.contains("--allow-loss"), "{msg}");

    let out = convert(&f, 14, true).unwrap();
    let c = out.summary.conversion.clone().unwrap();
    assert_eq!(c.lost.len(), 2, "{:?}", c.lost);
    let r = reread(&out);
    assert!(versions(&r).iter().all(|&v| v == 14));
    assert_check_clean(&r);
    let vb = r
        .geom
        .vertex_buffers()
        .unwrap()
        .iter()
        .find(|b| b.decl.find(Usage::TexCoord, 1).is_some())
        .unwrap();
    assert_eq!(vb.decl, decl::r1_lmap());
    // by hand: 0.3001 (f32 0.30009999871…) · 1024 = 307.30239868…; s16 = 307;
    // 255.5 · 0.30239868 = 77.26…; frac = 77. The bytes: TEXCOORD0 at 24, the fractions in the
    // alphas of TANGENT (19) and BINORMAL (23).
    let d = &vb.data[..32];
    assert_eq!(i16::from_le_bytes([d[24], d[25]]), 307);
    assert_eq!(i16::from_le_bytes([d[26], d[27]]), 307);
    assert_eq!((d[19], d[23]), (77, 77));
    // the quantisation step of the SHORT2 + fraction encoding is below 1/(255.5·1024) in UV
    // units (the fraction bucket width 1/255.5 of a 1/1024 step), plus f32 rounding
    let step = 1.0 / (255.5 * 1024.0) + 1e-7;
    let worst = compare_geometry(&export(&f), &export(&r), step);
    let expect = (f64::from(0.3001f32) - (307.0 + 77.0 / 255.0) / 1024.0).abs();
    // (the decoded UV is an f32: within one f32 step at 0.3, 2^-25)
    assert!(
        (worst - expect).abs() <= 2f64.powi(-25),
        "{worst} vs {expect}"
    );
    assert!(
        (c.max_uv_error - worst).abs() < 1e-7,
        "{} vs {worst}",
        c.max_uv_error
    );
    // the generated level's other UVs (x/4 + 1/2 + 1/3) hit exact fractions (85/255 = 1/3), so
    // the largest error is vertex 0's (checked above: worst ≈ expect)
}

#[test]
fn generated_13_to_14_to_13_keeps_geometry() {
    for compress in [false, true] {
        let f = generated(13, compress);
        let out = convert(&f, 14, true).unwrap();
        let r14 = reread(&out);
        assert!(versions(&r14).iter().all(|&v| v == 14));
        assert_check_clean(&r14);
        let s14 = static_strides(&r14.geom);
        assert!(s14.iter().all(|&s| s == 32), "{s14:?}");
        let step = 1.0 / (255.5 * 1024.0) + 1e-7;
        compare_geometry(&export(&f), &export(&r14), step);
        let back = reread(&convert(&r14, 13, false).unwrap());
        assert!(versions(&back).iter().all(|&v| v == 13));
        compare_geometry(&export(&r14), &export(&back), 0.0);
    }
}

#[test]
fn other_target_versions_are_refused() {
    let f = fixture();
    for to in [3u16, 6, 7, 15] {
        let e = convert(&f, to, true).unwrap_err();
        assert!(matches!(e, ImportError::TargetVersion { from: 14, to: t } if t == to));
        let msg = e.to_string();
        assert!(
            msg.contains("4, 5 and 8–14") && msg.contains(&to.to_string()),
            "{msg}"
        );
    }
    // the same build: no conversion, the plain import's bytes
    let same = convert(&f, 14, false).unwrap();
    assert!(same.summary.conversion.is_none());
    assert!(bytes(&reread(&same)) == bytes(&f));
}

/// The files of an import as bytes (`level.geom` when the build has one).
fn written(i: &Imported) -> Vec<Vec<u8>> {
    let mut v = vec![i.level.to_bytes().unwrap()];
    if !i.geom.chunks.is_empty() {
        v.push(i.geom.to_bytes().unwrap());
    }
    v.extend(i.geomx.as_ref().map(|g| g.to_bytes().unwrap()));
    v.extend(i.cform.as_ref().map(|c| c.to_bytes().unwrap()));
    v
}

/// The unedited import of `f` into `to` with `converted` given as made beforehand.
fn convert_prepared(f: &Files, to: u16, converted: Option<Converted>) -> Imported {
    import::import_prepared(
        base(f),
        &export(f),
        None,
        &ImportOptions {
            to_version: Some(to),
            ..ImportOptions::default()
        },
        Prepared {
            reference: None,
            converted: Some(Box::new(move || converted)),
        },
    )
    .unwrap()
}

#[test]
fn buffers_converted_ahead_are_taken_only_for_the_buffers_they_were_made_of() {
    let f = fixture();
    // the base's own buffers: the same files and summary as converting them in the import
    for to in [13u16, 12] {
        let plain = convert(&f, to, false).unwrap();
        let ahead = Converted::new(&f.geom, 14, to).unwrap().unwrap();
        // 14 → 13 is the step of both (12 is reached from 13)
        assert_eq!(ahead.build(), 13);
        let v13 = reread(&convert(&f, 13, false).unwrap()).geom;
        assert!(ahead.vertex_buffers() == v13.vertex_buffers().unwrap());
        let out = convert_prepared(&f, to, Some(ahead));
        assert!(written(&out) == written(&plain), "to {to}");
        assert_eq!(out.summary, plain.summary, "to {to}");
    }
    // made of other buffers (one position byte changed): not taken, the import's own bytes
    let mut other = f.geom.clone();
    other.vertex_buffers_mut().unwrap()[0].data[0] ^= 1;
    let wrong = Converted::new(&other, 14, 13).unwrap().unwrap();
    let right = Converted::new(&f.geom, 14, 13).unwrap().unwrap();
    assert!(wrong.vertex_buffers() != right.vertex_buffers());
    let out = convert_prepared(&f, 13, Some(wrong));
    assert!(written(&out) == written(&convert(&f, 13, false).unwrap()));
    // none made for a conversion that re-encodes no level.geom buffer
    assert!(Converted::new(&f.geom, 14, 14).unwrap().is_none());
    assert!(Converted::new(&generated(13, false).geom, 13, 12)
        .unwrap()
        .is_none());
}

#[test]
fn chunks_packed_ahead_are_the_ones_the_conversion_to_12_writes() {
    // XRLC 12 compresses its vertex, index and SWI buffer chunks
    // (`docs/formats/xray-level.md` §4.4); what is packed beforehand must be equal to them, or
    // it would not be taken
    for (f, from) in [(fixture(), 14u16), (generated(13, false), 13)] {
        let converted = Converted::new(&f.geom, from, 12).unwrap();
        let mut ahead = Vec::new();
        for which in [Packable::Vertex, Packable::Others] {
            ahead.extend(
                import::convert::packed_chunks(&f.geom, converted.as_ref(), from, 12, which)
                    .unwrap(),
            );
        }
        assert_eq!(ahead.len(), 3, "from {from}");
        let out = convert(&f, 12, false).unwrap();
        let compressed: Vec<_> = out
            .level
            .chunks
            .iter()
            .filter(|c| c.raw_id & levelgeom_xray::chunk::COMPRESSED != 0)
            .map(|c| &c.value)
            .collect();
        assert_eq!(compressed.len(), 3, "from {from}");
        for value in &ahead {
            assert!(compressed.contains(&value), "from {from}");
        }
        // packed, they give the bytes packing the written chunks gives
        let packed: Vec<_> = ahead
            .into_iter()
            .map(|c| levelgeom_xray::level::pack_ahead(c).unwrap())
            .collect();
        assert!(out.level.to_bytes_with(&packed).unwrap() == out.level.to_bytes().unwrap());
        // no other build packs any
        for to in [13u16, 11] {
            let none = import::convert::packed_chunks(&f.geom, None, from, to, Packable::Others);
            assert!(none.unwrap().is_empty());
        }
    }
}
