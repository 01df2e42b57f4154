//! The finished slices of a table being generated, in a scratch file beside
//! the table (`<table>.<pid>-<thread>.slices`): one code byte per slot, a
//! slice's slots together, in the order the slices were finished. From it
//! the table file is assembled in index order, a batch of king pairs at a
//! time.

use std::fs::File;
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};

use rayon::prelude::*;

use super::super::file::{self, FileError, BLOCK_SLOTS};
use super::super::index::Layout;
use super::Written;

/// Slots assembled at once (a batch holds them twice: as read, and in
/// index order).
pub(super) const BATCH_SLOTS: u64 = 1 << 24;

/// Bytes written to the scratch file at once.
const WRITE_BYTES: usize = 1 << 20;

#[derive(Debug)]
pub(super) struct Slices {
    path: PathBuf,
    file: File,
    rest_size: u64,
    /// By slice: its offset in the file, `u64::MAX` until written.
    offsets: Vec<u64>,
    end: u64,
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FileError + '_ {
    move |source| FileError::Io {
        path: path.to_owned(),
        source,
    }
}

impl Slices {
    /// A fresh scratch file for the table that goes to `table`.
    pub(super) fn create(table: &Path, layout: &Layout) -> Result<Slices, FileError> {
        // Two processes may generate one table at once (see `file::write`):
        // each has its own scratch file.
        let thread = format!("{:?}", std::thread::current().id());
        let digits: String = thread.chars().filter(char::is_ascii_digit).collect();
        let path = table.with_extension(format!("{}-{digits}.slices", std::process::id()));
        let file = File::options()
            .read(true)
            .write(true)
            .create(true)
            .truncate(true)
            .open(&path)
            .map_err(io(&path))?;
        Ok(Slices {
            file,
            rest_size: layout.rest_size(),
            offsets: vec![u64::MAX; layout.pawn_configs() as usize],
            end: 0,
            path,
        })
    }

    /// Appends the codes of slice `config`, which must be `rest_size` long.
    pub(super) fn write(
        &mut self,
        config: u32,
        codes: impl Iterator<Item = u8>,
    ) -> Result<(), FileError> {
        let start = self.end;
        let mut buffer = Vec::with_capacity(WRITE_BYTES);
        for code in codes {
            buffer.push(code);
            if buffer.len() == WRITE_BYTES {
                self.append(&buffer)?;
                buffer.clear();
            }
        }
        self.append(&buffer)?;
        assert_eq!(self.end - start, self.rest_size, "a whole slice");
        self.offsets[config as usize] = start;
        Ok(())
    }

    fn append(&mut self, bytes: &[u8]) -> Result<(), FileError> {
        self.file
            .write_all_at(bytes, self.end)
            .map_err(io(&self.path))?;
        self.end += bytes.len() as u64;
        Ok(())
    }

    /// `len` codes of slice `config` from place `start`.
    fn read_range(&self, config: u32, start: u64, len: usize) -> Result<Vec<u8>, FileError> {
        let offset = self.offsets[config as usize];
        assert!(offset != u64::MAX, "slice {config} is finished");
        let mut codes = vec![0u8; len];
        self.file
            .read_exact_at(&mut codes, offset + start)
            .map_err(io(&self.path))?;
        Ok(codes)
    }

    /// Every code of slice `config`.
    pub(super) fn read(&self, config: u32) -> Result<Vec<u8>, FileError> {
        self.read_range(config, 0, self.rest_size as usize)
    }

    /// Writes the table file from the finished slices. The index runs over
    /// side and king pair (outermost), then the groups with the pawn
    /// groups among them; a slice's places run over side, king pair and
    /// the groups without pawns. A batch of (side, king pair) values is a
    /// run of the index and of each slice's places, so each slice is read
    /// once per batch.
    pub(super) fn assemble(&self, layout: &Layout, path: &Path) -> Result<Written, FileError> {
        let configs = layout.pawn_configs();
        let outer = 2 * layout.king_pairs() as u64;
        let inner = self.rest_size / outer;
        let per_outer = layout.size() / outer;
        let config_base: Vec<usize> = (0..configs).map(|c| layout.join(c, 0) as usize).collect();
        let inner_base: Vec<usize> = (0..inner).map(|k| layout.join(0, k) as usize).collect();
        let batch = (BATCH_SLOTS / per_outer).max(1);
        let mut pending: Vec<u8> = Vec::new();
        let mut blocks: Vec<Vec<u8>> = Vec::new();
        let mut longest_win = 0u16;
        let block = BLOCK_SLOTS as usize;
        for first in (0..outer).step_by(batch as usize) {
            let n = batch.min(outer - first) as usize;
            let pieces = (0..configs)
                .map(|c| self.read_range(c, first * inner, n * inner as usize))
                .collect::<Result<Vec<_>, _>>()?;
            let mut ordered = vec![0u8; n * per_outer as usize];
            let inner = inner as usize;
            ordered
                .par_chunks_mut(per_outer as usize)
                .enumerate()
                .for_each(|(j, out)| {
                    for (piece, &base) in pieces.iter().zip(&config_base) {
                        let places = &piece[j * inner..(j + 1) * inner];
                        for (&code, &at) in places.iter().zip(&inner_base) {
                            out[base + at] = code;
                        }
                    }
                });
            drop(pieces);
            longest_win = longest_win.max(longest_win_in(&ordered));
            pending.extend_from_slice(&ordered);
            drop(ordered);
            let whole = pending.len() / block * block;
            blocks.extend(compress(&pending[..whole]));
            pending.drain(..whole);
        }
        blocks.extend(compress(&pending));
        let file_bytes = file::write_compressed(path, &layout.material(), layout.size(), &blocks)?;
        Ok(Written {
            file_bytes,
            longest_win,
        })
    }

    /// Deletes the scratch file (best effort: it is only scratch).
    pub(super) fn remove(self) {
        drop(self.file);
        let _ = std::fs::remove_file(&self.path);
    }
}

fn compress(codes: &[u8]) -> Vec<Vec<u8>> {
    codes
        .par_chunks(BLOCK_SLOTS as usize)
        .map(file::compress_block)
        .collect()
}

/// The longest win among `codes`: a win takes an odd number of plies, so
/// its code (plies + 1) is even and not 0.
fn longest_win_in(codes: &[u8]) -> u16 {
    codes
        .par_iter()
        .filter(|&&c| c != 0 && c % 2 == 0)
        .map(|&c| u16::from(c) - 1)
        .max()
        .unwrap_or(0)
}
