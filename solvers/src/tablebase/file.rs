//! The on-disk form of a DTM table (`<material>.cdtm`, e.g. `KRvKN.cdtm`).
//!
//! ```text
//! offset  size  field
//! 0       8     magic "COOKDTM\0"
//! 8       4     format version (u32 little-endian), currently 1
//! 12      16    material key, ASCII, NUL-padded (normalized: KRvKN)
//! 28      8     slots in the table (u64 LE), see `index::Layout`
//! 36      4     slots per block (u32 LE)
//! 40      4     blocks (u32 LE) = n
//! 44      12·n  per block: end of its data relative to the data start
//!               (u64 LE), then the CRC-32 of its compressed bytes (u32 LE)
//! 44+12n  4     CRC-32 of every header byte before this field
//! 48+12n  …     the blocks, each one LZ4 block (lz4_flex's raw block
//!               format) of one DTM code byte per slot
//! ```
//!
//! Probing one position reads and checks one block. A file whose header
//! checksum, length or block checksum does not match is reported as
//! corrupt and never used.

use std::fs::File;
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use super::Material;

const MAGIC: &[u8; 8] = b"COOKDTM\0";
pub const VERSION: u32 = 1;
/// Small enough that one probe reads little, large enough that LZ4 finds
/// the long runs of equal values.
pub const BLOCK_SLOTS: u32 = 1 << 16;
const FIXED_HEADER: usize = 44;

/// The file name of a material's table.
pub fn file_name(material: &Material) -> String {
    format!("{material}.cdtm")
}

#[derive(Debug, thiserror::Error)]
pub enum FileError {
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{path} is corrupt or truncated ({why}); delete it and generate it again")]
    Corrupt { path: PathBuf, why: String },
}

fn io(path: &Path) -> impl FnOnce(std::io::Error) -> FileError + '_ {
    move |source| FileError::Io {
        path: path.to_owned(),
        source,
    }
}

/// Writes a table atomically (temp file, fsync, rename).
pub fn write(path: &Path, material: &Material, codes: &[u8]) -> Result<u64, FileError> {
    let blocks: Vec<Vec<u8>> = {
        use rayon::prelude::*;
        codes
            .par_chunks(BLOCK_SLOTS as usize)
            .map(compress_block)
            .collect()
    };
    write_compressed(path, material, codes.len() as u64, &blocks)
}

/// One block of codes ([`BLOCK_SLOTS`] of them, fewer in the last block)
/// as the file stores it.
pub fn compress_block(codes: &[u8]) -> Vec<u8> {
    lz4_flex::compress(codes)
}

/// Writes a table of `slots` codes atomically from its blocks, each made
/// by [`compress_block`]; returns the file's length.
pub fn write_compressed(
    path: &Path,
    material: &Material,
    slots: u64,
    blocks: &[Vec<u8>],
) -> Result<u64, FileError> {
    assert_eq!(
        slots.div_ceil(u64::from(BLOCK_SLOTS)),
        blocks.len() as u64,
        "one block per {BLOCK_SLOTS} slots"
    );
    let mut header = Vec::with_capacity(FIXED_HEADER + 12 * blocks.len() + 4);
    header.extend_from_slice(MAGIC);
    header.extend_from_slice(&VERSION.to_le_bytes());
    let mut key = [0u8; 16];
    let text = material.to_string();
    key[..text.len()].copy_from_slice(text.as_bytes());
    header.extend_from_slice(&key);
    header.extend_from_slice(&slots.to_le_bytes());
    header.extend_from_slice(&BLOCK_SLOTS.to_le_bytes());
    header.extend_from_slice(&(blocks.len() as u32).to_le_bytes());
    let mut end = 0u64;
    for block in blocks {
        end += block.len() as u64;
        header.extend_from_slice(&end.to_le_bytes());
        header.extend_from_slice(&crc32fast::hash(block).to_le_bytes());
    }
    let crc = crc32fast::hash(&header);
    header.extend_from_slice(&crc.to_le_bytes());

    // Tables are generated on demand into a shared cache: two problems (or
    // two cookd processes) may write the same table at once. Each writes
    // its own temporary file; the renames are atomic and the contents
    // equal, so whichever lands last is as good.
    let thread = format!("{:?}", std::thread::current().id());
    let digits: String = thread.chars().filter(char::is_ascii_digit).collect();
    let tmp = path.with_extension(format!("cdtm.{}-{digits}.part", std::process::id()));
    let mut file = File::create(&tmp).map_err(io(&tmp))?;
    file.write_all(&header).map_err(io(&tmp))?;
    for block in blocks {
        file.write_all(block).map_err(io(&tmp))?;
    }
    file.sync_all().map_err(io(&tmp))?;
    std::fs::rename(&tmp, path).map_err(io(path))?;
    Ok(header.len() as u64 + end)
}

/// An opened table file: the header in memory, blocks read on demand.
#[derive(Debug)]
pub struct TableFile {
    path: PathBuf,
    material: Material,
    slots: u64,
    block_slots: u32,
    /// (start, end, crc) of each block, absolute file offsets.
    blocks: Vec<(u64, u64, u32)>,
    file: std::sync::Mutex<File>,
}

impl TableFile {
    /// Opens and checks the header of `path`, which must hold `material`.
    pub fn open(path: &Path, material: &Material) -> Result<TableFile, FileError> {
        let corrupt = |why: &str| FileError::Corrupt {
            path: path.to_owned(),
            why: why.to_owned(),
        };
        let mut file = File::open(path).map_err(io(path))?;
        let len = file.metadata().map_err(io(path))?.len();
        let mut fixed = [0u8; FIXED_HEADER];
        file.read_exact(&mut fixed)
            .map_err(|_| corrupt("shorter than a header"))?;
        if &fixed[..8] != MAGIC {
            return Err(corrupt("not a cookd DTM table"));
        }
        let u32_at = |b: &[u8], at: usize| u32::from_le_bytes(b[at..at + 4].try_into().unwrap());
        let u64_at = |b: &[u8], at: usize| u64::from_le_bytes(b[at..at + 8].try_into().unwrap());
        let version = u32_at(&fixed, 8);
        if version != VERSION {
            return Err(corrupt(&format!(
                "format version {version}, expected {VERSION}"
            )));
        }
        let slots = u64_at(&fixed, 28);
        let block_slots = u32_at(&fixed, 36);
        let n = u32_at(&fixed, 40) as usize;
        if block_slots == 0 || slots.div_ceil(u64::from(block_slots)) != n as u64 {
            return Err(corrupt("block count does not match the slot count"));
        }
        let mut rest = vec![0u8; 12 * n + 4];
        file.read_exact(&mut rest)
            .map_err(|_| corrupt("header cut short"))?;
        let mut header = fixed.to_vec();
        header.extend_from_slice(&rest[..12 * n]);
        if crc32fast::hash(&header) != u32_at(&rest, 12 * n) {
            return Err(corrupt("header checksum mismatch"));
        }
        let key = String::from_utf8_lossy(&fixed[12..28]);
        if key.trim_end_matches('\0') != material.to_string() {
            return Err(corrupt(&format!(
                "holds {}, not {material}",
                key.trim_end_matches('\0')
            )));
        }
        let data_start = (FIXED_HEADER + 12 * n + 4) as u64;
        let mut blocks = Vec::with_capacity(n);
        let mut start = data_start;
        for i in 0..n {
            let end = data_start + u64_at(&rest, 12 * i);
            if end < start {
                return Err(corrupt("block offsets out of order"));
            }
            blocks.push((start, end, u32_at(&rest, 12 * i + 8)));
            start = end;
        }
        if start != len {
            return Err(corrupt(&format!("{len} bytes, header says {start}")));
        }
        Ok(TableFile {
            path: path.to_owned(),
            material: *material,
            slots,
            block_slots,
            blocks,
            file: std::sync::Mutex::new(file),
        })
    }

    pub fn material(&self) -> Material {
        self.material
    }

    pub fn slots(&self) -> u64 {
        self.slots
    }

    fn block_len(&self, block: usize) -> usize {
        let first = block as u64 * u64::from(self.block_slots);
        (self.slots - first).min(u64::from(self.block_slots)) as usize
    }

    /// The decompressed, checked block `block`.
    pub fn read_block(&self, block: usize) -> Result<Vec<u8>, FileError> {
        let (start, end, crc) = self.blocks[block];
        let mut compressed = vec![0u8; (end - start) as usize];
        {
            let mut file = self.file.lock().unwrap_or_else(|e| e.into_inner());
            file.seek(SeekFrom::Start(start)).map_err(io(&self.path))?;
            file.read_exact(&mut compressed).map_err(io(&self.path))?;
        }
        let corrupt = |why: String| FileError::Corrupt {
            path: self.path.clone(),
            why,
        };
        if crc32fast::hash(&compressed) != crc {
            return Err(corrupt(format!("checksum mismatch in block {block}")));
        }
        let codes = lz4_flex::decompress(&compressed, self.block_len(block))
            .map_err(|e| corrupt(format!("block {block}: {e}")))?;
        if codes.len() != self.block_len(block) {
            return Err(corrupt(format!("block {block} has the wrong length")));
        }
        Ok(codes)
    }

    /// The code stored in one slot (reads one block).
    pub fn code(&self, slot: u64) -> Result<u8, FileError> {
        let block = (slot / u64::from(self.block_slots)) as usize;
        let codes = self.read_block(block)?;
        Ok(codes[(slot % u64::from(self.block_slots)) as usize])
    }

    /// Every slot's code, every block checked.
    pub fn read_all(&self) -> Result<Vec<u8>, FileError> {
        use rayon::prelude::*;
        let blocks: Result<Vec<Vec<u8>>, FileError> = (0..self.blocks.len())
            .into_par_iter()
            .map(|b| self.read_block(b))
            .collect();
        Ok(blocks?.concat())
    }
}
