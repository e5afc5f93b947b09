//! Which game builds wrote which `level` layout: the one table `info`'s build hints and the
//! writers' target names (`convert`, `import --to-version`) come from.
//!
//! An XRLC version number did not always mean one layout: xrLC changed some structures without
//! raising it. Each [`Layout`] row is one layout, with the builds known to carry it and the
//! xrLC dates that bound it in the engine history (`SkyLoaderr/xray-engine-repo`, dated SVN
//! commits). Build numbers are xray_re's table (`xr_level_version.h`) unless a row says
//! otherwise. Where one version had several layouts the writers write the latest, except for
//! XRLC 8 ([`target`]).

/// The XRLC versions this crate reads (blender-xray's list: the builds with public levels).
pub const VERSIONS: [u16; 9] = [4, 5, 8, 9, 10, 11, 12, 13, 14];

/// True for an XRLC version this crate reads.
pub fn known_version(v: u16) -> bool {
    VERSIONS.contains(&v)
}

/// One layout of a `level` of one XRLC version.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layout {
    /// XRLC version (`fsL_HEADER`).
    pub version: u16,
    /// What sets this layout apart within its version (empty when the version had one).
    pub variant: &'static str,
    /// The game builds known to carry it, as text (`"builds 1114, 1154"`).
    pub builds: &'static str,
    /// The xrLC dates that bound it in the engine history (empty when it predates it).
    pub dates: &'static str,
    /// The layout levelgeom's writers write for this version (one per version).
    pub written: bool,
}

/// Every known layout, oldest first; the last row of a version is the latest. Dates are those
/// of `XRCL_PRODUCTION_VERSION` in `xr_3da/xrLevel.h` (6 on 2002-03-11, 8 on 2002-04-01, 9 on
/// 2002-10-01, 10 for good on 2003-06-20, 11 on 2003-08-29, 12 on 2003-10-17, 13 on
/// 2005-02-01, 14 on 2005-04-22); XRLC 12's OGF 4 visuals from 2004-08-19.
pub const LAYOUTS: &[Layout] = &[
    // not in xray_re's table; blender-xray reads it (its users name build 1097, issue #636);
    // older than the engine history, which starts at XRLC 5 on 2002-01-15
    Layout {
        version: 4,
        variant: "",
        builds: "builds 1096/1097 (blender-xray's users; not in xray_re's table)",
        dates: "before 2002-01-15",
        written: true,
    },
    Layout {
        version: 5,
        variant: "",
        builds: "build 1098",
        dates: "2002-01-15 – 2002-03-10",
        written: true,
    },
    // xrLC 2002-08-30 (`66fe78212a`, xrLevel.h) adds fsL_IBUFFERS (11) and OGF_ICONTAINER
    Layout {
        version: 8,
        variant: "early layout (indices inside the visuals)",
        builds: "builds 1114, 1154 (xray_re reads them without an index buffer chunk)",
        dates: "2002-04-01 – 2002-08-29",
        written: true,
    },
    Layout {
        version: 8,
        variant: "late layout (fsL_IBUFFERS + OGF_ICONTAINER)",
        builds: "no public build known",
        dates: "2002-08-30 – 2002-09-29",
        written: false,
    },
    // xrLC 2002-09-30 (`0b46184139`, xrLevel.h and xrSaveLights.cpp): 7 fsL_LIGHT_CONTROL,
    // 8 fsL_LIGHT_DYNAMIC with 108-byte `{u32 controller; Flight}` lights, still version 8
    // (XRCL_PRODUCTION_VERSION 9 from 2002-10-01, `f57fb25234`)
    Layout {
        version: 8,
        variant: "2002-09-30 layout (late, + fsL_LIGHT_CONTROL, 108-byte lights in chunk 8)",
        builds: "no public build known",
        dates: "2002-09-30",
        written: false,
    },
    Layout {
        version: 9,
        variant: "",
        builds: "build 1472",
        dates: "2002-10-01 – 2003-06-19",
        written: true,
    },
    Layout {
        version: 10,
        variant: "",
        builds: "build 1475",
        dates: "2003-06-20 – 2003-08-28",
        written: true,
    },
    // xray_re says 1537; 1537 is an unofficial build, the official ones are 1558/1569
    Layout {
        version: 11,
        variant: "",
        builds: "builds 1558, 1569 (1537 unofficial)",
        dates: "2003-08-29 – 2003-10-16",
        written: true,
    },
    // xrLC of 2003-10-17 (`b58740e604`): still the 8–11 material tables (OGF_TEXTURE_L string
    // index pairs, 24-byte glows); "shader/textures" entries by the OGF header's shader id and
    // 18-byte glows from 2003-10-20 (`2dd23ba610`)
    Layout {
        version: 12,
        variant: "first layout (OGF 3, OGF_TEXTURE_L and 24-byte glows)",
        builds: "no public build known",
        dates: "2003-10-17 – 2003-10-19",
        written: false,
    },
    Layout {
        version: 12,
        variant: "OGF 3 layout",
        builds: "builds 1580–1865",
        dates: "2003-10-20 – 2004-08-18",
        written: false,
    },
    Layout {
        version: 12,
        variant: "OGF 4 layout",
        builds: "builds 1935–2218",
        dates: "2004-08-19 – 2005-01-31",
        written: true,
    },
    Layout {
        version: 13,
        variant: "",
        builds: "build 2215",
        dates: "2005-02-01 – 2005-04-21",
        written: true,
    },
    Layout {
        version: 14,
        variant: "",
        builds: "SoC release, CS, CoP",
        dates: "from 2005-04-22",
        written: true,
    },
];

/// The layouts of XRLC `version`, oldest first (empty for an unknown version).
pub fn layouts(version: u16) -> impl Iterator<Item = &'static Layout> {
    LAYOUTS.iter().filter(move |l| l.version == version)
}

/// The layout the writers write for XRLC `version`: its latest, except XRLC 8, written in
/// its early layout (indices inside the visuals): the layout of the public builds 1114/1154
/// and the only one blender-xray and xray_re read, while the late-8 engine opens
/// `fsL_IBUFFERS` only when present (`FStaticRender_Loader.cpp`, `66fe78212a`).
pub fn target(version: u16) -> Option<&'static Layout> {
    layouts(version).find(|l| l.written)
}

/// What a writer targets, in words: `"XRLC 12, OGF 4 layout of builds 1935–2218 (one of its 3
/// layouts)"`, or `"XRLC 9 of build 1472"` for a version with one layout; a target that is not
/// its version's latest layout (XRLC 8, [`target`]) says so.
pub fn target_name(version: u16) -> String {
    match target(version) {
        Some(l) if l.variant.is_empty() => format!("XRLC {version} of {}", l.builds),
        Some(l) => {
            let n = layouts(version).count();
            let latest = layouts(version).last() == Some(l);
            format!(
                "XRLC {version}, {} of {} (one of its {n} layouts{})",
                l.variant,
                l.builds,
                if latest {
                    ""
                } else {
                    "; not its latest: the one of the public builds and the peer readers"
                }
            )
        }
        None => format!("XRLC {version}"),
    }
}

/// The build hint `info` shows for XRLC `version`: every layout's builds, with the variant
/// where there are several (`"OGF 3 layout: builds 1580–1865; OGF 4 layout: builds
/// 1935–2218"`).
pub fn hint(version: u16) -> Option<String> {
    let rows: Vec<&Layout> = layouts(version).collect();
    match rows.as_slice() {
        [] => None,
        [one] => Some(one.builds.to_string()),
        many => Some(
            many.iter()
                .map(|l| format!("{}: {}", l.variant, l.builds))
                .collect::<Vec<_>>()
                .join("; "),
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_version_has_a_target_and_names_it() {
        for v in VERSIONS {
            assert!(target(v).is_some(), "{v}");
        }
        assert_eq!(
            target_name(12),
            "XRLC 12, OGF 4 layout of builds 1935–2218 (one of its 3 layouts)"
        );
        assert_eq!(target_name(9), "XRLC 9 of build 1472");
        assert!(target_name(8).starts_with("XRLC 8, early layout"));
        assert!(
            target_name(8).ends_with("(one of its 3 layouts; not its latest: the one of the public builds and the peer readers)"),
            "{}",
            target_name(8)
        );
        for v in VERSIONS {
            assert_eq!(layouts(v).filter(|l| l.written).count(), 1, "{v}");
        }
        assert_eq!(
            hint(12).as_deref(),
            Some(
                "first layout (OGF 3, OGF_TEXTURE_L and 24-byte glows): no public build known; \
                 OGF 3 layout: builds 1580–1865; OGF 4 layout: builds 1935–2218"
            )
        );
        assert_eq!(hint(7), None);
    }
}
