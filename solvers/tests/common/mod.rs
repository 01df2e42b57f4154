//! Shared by the integration tests: the corpus helpers of
//! [`solvers::testing`], and the Syzygy tables the test setup obtains.
#![allow(dead_code, unused_imports)]

use std::path::{Path, PathBuf};
use std::process::Command;

pub use solvers::testing::{data, keys_uci, read_csv, split_csv};

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
