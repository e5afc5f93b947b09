//! Printing shared by the subcommands: warnings (one cap policy) and counts.

/// At most this many warnings are printed one by one; the rest are counted.
pub const MAX_WARNINGS_SHOWN: usize = 20;

/// `1 thing` / `n things` (`count(n, "mesh")` → `meshes`, `"vertex"` → `vertices`).
pub fn count(n: usize, thing: &str) -> String {
    if n == 1 {
        return format!("1 {thing}");
    }
    let plural = if let Some(stem) = thing.strip_suffix("ex") {
        format!("{stem}ices")
    } else if thing.ends_with("sh") || thing.ends_with('s') {
        format!("{thing}es")
    } else {
        format!("{thing}s")
    };
    format!("{n} {plural}")
}

/// Print warnings to stderr: the first [`MAX_WARNINGS_SHOWN`], then how many more there are.
pub fn warnings<T: std::fmt::Display>(warnings: &[T]) {
    for w in warnings.iter().take(MAX_WARNINGS_SHOWN) {
        eprintln!("levelgeom: warning: {w}");
    }
    if warnings.len() > MAX_WARNINGS_SHOWN {
        eprintln!(
            "levelgeom: {} not shown",
            count(warnings.len() - MAX_WARNINGS_SHOWN, "more warning")
        );
    }
}

/// `--jobs N`: 1 or more (0 would be "one per core", which leaving the option out says).
pub fn jobs(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(0) => Err(
            "0 jobs cannot run anything: give 1 or more, or leave --jobs out for one \
                      per core"
                .into(),
        ),
        Ok(n) => Ok(n),
        Err(e) => Err(format!("{s:?}: {e}")),
    }
}

/// The options whose flag is set, by name.
pub fn given<const N: usize>(flags: [(bool, &'static str); N]) -> Vec<&'static str> {
    flags
        .into_iter()
        .filter_map(|(set, name)| set.then_some(name))
        .collect()
}

#[cfg(test)]
mod tests {
    #[test]
    fn counts_agree_in_number() {
        assert_eq!(super::count(1, "mesh"), "1 mesh");
        assert_eq!(super::count(2, "placed mesh"), "2 placed meshes");
        assert_eq!(super::count(0, "vertex"), "0 vertices");
        assert_eq!(super::count(3, "warning"), "3 warnings");
        assert_eq!(super::count(1, "more warning"), "1 more warning");
    }
}
