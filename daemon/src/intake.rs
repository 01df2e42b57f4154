//! File intake, the same for `cookd solve` and `cookd run`: which names are
//! problem files, reading one within the size bound, and the `error`
//! verdict for a file that cannot be judged at all.

use std::ffi::OsStr;
use std::path::{Path, PathBuf};

use solvers::problem::{Location, ParseError, ParseErrorKind, MAX_FILE_BYTES};
use solvers::verdict::Verdict;

/// Whether a name is a problem file: not a dot-file (our own folders,
/// editors' temporaries), not a partial upload (`*.part`), not the README
/// that ships in the repository's inbox.
pub fn is_candidate(name: &OsStr) -> bool {
    let name = name.to_string_lossy();
    !(name.starts_with('.') || name.ends_with(".part") || name.eq_ignore_ascii_case("README.md"))
}

/// Expands folders into the problem files they hold (sorted, recursively);
/// any other path is taken as it is.
pub fn files_in(path: &Path, files: &mut Vec<PathBuf>) {
    if !path.is_dir() {
        files.push(path.to_path_buf());
        return;
    }
    let mut entries: Vec<PathBuf> = match std::fs::read_dir(path) {
        Ok(dir) => dir.filter_map(|e| e.ok()).map(|e| e.path()).collect(),
        Err(_) => {
            files.push(path.to_path_buf());
            return;
        }
    };
    entries.sort();
    for entry in entries {
        if entry.file_name().is_some_and(is_candidate) {
            files_in(&entry, files);
        }
    }
}

/// A file's content, or why it cannot be judged at all: one far larger than
/// any problem file is refused without being read into memory.
pub fn read(path: &Path) -> Result<Vec<u8>, ParseErrorKind> {
    let cannot_read = |e: std::io::Error| ParseErrorKind::Syntax(format!("cannot read file: {e}"));
    let meta = std::fs::metadata(path).map_err(cannot_read)?;
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(ParseErrorKind::TooLarge(meta.len() as usize));
    }
    std::fs::read(path).map_err(cannot_read)
}

/// The `error` verdict for the whole file `file`.
pub fn file_error(file: &str, kind: ParseErrorKind) -> Verdict {
    Verdict::for_error(&ParseError {
        file: file.to_owned(),
        location: Location { line: 1, column: 1 },
        index: 0,
        twin: None,
        kind,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_skip_dot_part_and_readme() {
        for skipped in [".x", ".processing", "a.part", "README.md", "readme.MD"] {
            assert!(!is_candidate(OsStr::new(skipped)), "{skipped}");
        }
        for taken in ["a.fen", "problems.txt", "x.yaml", "part"] {
            assert!(is_candidate(OsStr::new(taken)), "{taken}");
        }
    }

    #[test]
    fn a_file_past_the_bound_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("big.fen");
        let file = std::fs::File::create(&path).unwrap();
        file.set_len(MAX_FILE_BYTES as u64 + 1).unwrap();
        assert!(matches!(read(&path), Err(ParseErrorKind::TooLarge(_))));
        let verdict = file_error("big.fen", read(&path).unwrap_err());
        assert!(verdict.error.unwrap().starts_with("big.fen:1:1"));
        assert!(matches!(
            read(&dir.path().join("none.fen")),
            Err(ParseErrorKind::Syntax(_))
        ));
    }
}
