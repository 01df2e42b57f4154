//! Shared by the data-driven tests and benchmarks: reading the corpus CSV
//! files (tests/data/*.csv, one row per case). Each user takes what it needs.
#![allow(dead_code)]

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::Command;

/// Splits one CSV line; fields may be quoted ("a, b" and "" for a quote).
pub fn split_csv(line: &str) -> Vec<String> {
    let mut fields = Vec::new();
    let mut field = String::new();
    let mut quoted = false;
    let mut chars = line.chars().peekable();
    while let Some(c) = chars.next() {
        match (c, quoted) {
            ('"', true) if chars.peek() == Some(&'"') => {
                field.push('"');
                chars.next();
            }
            ('"', _) => quoted = !quoted,
            (',', false) => fields.push(std::mem::take(&mut field)),
            _ => field.push(c),
        }
    }
    fields.push(field);
    fields
}

/// Rows as maps from header name to field.
pub fn read_csv(path: &str) -> Vec<HashMap<String, String>> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut lines = text.lines().filter(|l| !l.trim().is_empty());
    let header = split_csv(lines.next().expect("header"));
    lines
        .map(|line| header.iter().cloned().zip(split_csv(line)).collect())
        .collect()
}

pub fn data(name: &str) -> String {
    format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"))
}

#[test]
fn csv_splitter_handles_quotes() {
    assert_eq!(split_csv(r#"a,"b, c",d"#), vec!["a", "b, c", "d"]);
    assert_eq!(split_csv(r#""say ""hi""",x"#), vec![r#"say "hi""#, "x"]);
}

/// The complete 3- and 4-piece Syzygy set, obtained by the test setup: from
/// `COOKD_SYZYGY_DIR` when that names a folder holding it, else downloaded
/// once (python-chess 1.11.2's source package on PyPI carries it) into the
/// target folder by `tests/support/fetch_syzygy.py`, checked file by file
/// against `tests/data/syzygy.sha256`.
pub fn syzygy_dir() -> PathBuf {
    if let Some(dir) = std::env::var_os("COOKD_SYZYGY_DIR") {
        return dir.into();
    }
    let dest = Path::new(env!("CARGO_TARGET_TMPDIR")).join("syzygy-3-4");
    if !dest.is_dir() {
        let manifest = env!("CARGO_MANIFEST_DIR");
        let status = Command::new("python3")
            .arg(format!("{manifest}/tests/support/fetch_syzygy.py"))
            .arg(&dest)
            .arg(format!("{manifest}/tests/data/syzygy.sha256"))
            .status()
            .expect("python3 runs tests/support/fetch_syzygy.py");
        assert!(
            status.success(),
            "could not obtain the Syzygy tables (set COOKD_SYZYGY_DIR to a folder holding them)"
        );
    }
    dest
}
