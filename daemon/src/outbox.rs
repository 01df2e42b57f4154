//! The outbox: verdict files written atomically, and the judged files kept
//! in `done/`.
//!
//! A reader of the outbox (a script, a judge's file manager) must never see
//! half a file, so every file is written under a dot-name, fsynced, and
//! renamed into place; the folder is fsynced once per batch so the renames
//! survive a power cut too.

use std::fs::{self, File};
use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use anyhow::{Context, Result};

use crate::config::Processed;

#[derive(Debug)]
pub struct Outbox {
    dir: PathBuf,
    done: PathBuf,
    /// Makes temporary names unique between concurrent writers.
    counter: AtomicU64,
}

/// One verdict's two files.
#[derive(Debug)]
pub struct VerdictFiles<'a> {
    pub index: usize,
    pub json: &'a str,
    pub report: &'a str,
}

impl Outbox {
    pub fn open(dir: &Path) -> Result<Outbox> {
        let done = dir.join("done");
        fs::create_dir_all(&done).with_context(|| format!("cannot create {}", done.display()))?;
        Ok(Outbox {
            dir: dir.to_path_buf(),
            done,
            counter: AtomicU64::new(0),
        })
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// Writes `<stem>.<n>.verdict.json` and `<stem>.<n>.report.txt` for each
    /// verdict. Rewriting the same verdicts gives the same files.
    pub fn write_verdicts(&self, stem: &str, verdicts: &[VerdictFiles<'_>]) -> Result<()> {
        for v in verdicts {
            let mut json = v.json.to_owned();
            if !json.ends_with('\n') {
                json.push('\n');
            }
            let base = format!("{stem}.{}", v.index);
            self.write_file(&format!("{base}.verdict.json"), json.as_bytes())?;
            self.write_file(&format!("{base}.report.txt"), v.report.as_bytes())?;
        }
        sync_dir(&self.dir).with_context(|| format!("cannot sync {}", self.dir.display()))
    }

    fn write_file(&self, name: &str, bytes: &[u8]) -> Result<()> {
        let n = self.counter.fetch_add(1, Ordering::Relaxed);
        let temp = self
            .dir
            .join(format!(".{name}.{}.{n}.tmp", std::process::id()));
        write_atomic(&temp, &self.dir.join(name), bytes)
            .with_context(|| format!("cannot write {}", self.dir.join(name).display()))
    }

    /// Moves a judged file out of the spool (or removes it, as configured).
    pub fn finish(&self, file: &Path, name: &str, processed: Processed) -> Result<()> {
        match processed {
            Processed::Remove => {
                fs::remove_file(file).with_context(|| format!("cannot remove {}", file.display()))
            }
            Processed::Move => {
                let target = self.done.join(name);
                move_file(file, &target).with_context(|| {
                    format!("cannot move {} to {}", file.display(), target.display())
                })
            }
        }
    }
}

/// Writes `bytes` to `temp`, fsyncs, renames to `target`.
pub fn write_atomic(temp: &Path, target: &Path, bytes: &[u8]) -> io::Result<()> {
    let result = (|| {
        let mut file = File::create(temp)?;
        file.write_all(bytes)?;
        file.sync_all()?;
        fs::rename(temp, target)
    })();
    if result.is_err() {
        let _ = fs::remove_file(temp);
    }
    result
}

/// Makes the renames in a folder durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    File::open(dir)?.sync_all()
}

/// Renames, or copies and removes when the two folders are on different
/// filesystems (an outbox on another mount than the inbox).
pub fn move_file(from: &Path, to: &Path) -> io::Result<()> {
    match fs::rename(from, to) {
        Ok(()) => {
            // rename(2) does nothing when both names are links to one file:
            // a claim cut short by kill -9 leaves the inbox name linked to
            // the claimed one, and once that copy is done, the second
            // claim's file is the same file as the one in done/. Its
            // claimed name must still go.
            use std::os::unix::fs::MetadataExt;
            if let (Ok(a), Ok(b)) = (fs::symlink_metadata(from), fs::symlink_metadata(to)) {
                if (a.dev(), a.ino()) == (b.dev(), b.ino()) {
                    fs::remove_file(from)?;
                }
            }
            Ok(())
        }
        Err(e) if e.kind() == io::ErrorKind::CrossesDevices => {
            let temp = to.with_file_name(format!(
                ".{}.{}.tmp",
                to.file_name().unwrap_or_default().to_string_lossy(),
                std::process::id()
            ));
            fs::copy(from, &temp)?;
            File::open(&temp)?.sync_all()?;
            fs::rename(&temp, to)?;
            fs::remove_file(from)
        }
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Found by the kill -9 load test: a file claimed twice through one
    /// inode stayed in `.processing/` after its move to done/.
    #[test]
    fn moving_a_link_onto_its_own_file_removes_the_link() {
        let dir = tempfile::tempdir().unwrap();
        let (done, claimed) = (dir.path().join("done.fen"), dir.path().join("claimed.fen"));
        fs::write(&done, "x").unwrap();
        fs::hard_link(&done, &claimed).unwrap();
        move_file(&claimed, &done).unwrap();
        assert!(!claimed.exists());
        assert_eq!(fs::read_to_string(&done).unwrap(), "x");
    }

    #[test]
    fn verdicts_land_complete_and_nothing_else() {
        let dir = tempfile::tempdir().unwrap();
        let outbox = Outbox::open(dir.path()).unwrap();
        outbox
            .write_verdicts(
                "a",
                &[VerdictFiles {
                    index: 0,
                    json: "{\"verdict\":\"sound\"}",
                    report: "Verdict: sound\n",
                }],
            )
            .unwrap();
        let mut names: Vec<_> = fs::read_dir(dir.path())
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        names.sort();
        assert_eq!(names, ["a.0.report.txt", "a.0.verdict.json", "done"]);
        let json = fs::read_to_string(dir.path().join("a.0.verdict.json")).unwrap();
        assert_eq!(json, "{\"verdict\":\"sound\"}\n");
    }
}
