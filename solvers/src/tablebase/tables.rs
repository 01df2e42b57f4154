//! cookd's own DTM tables in a folder: probing, best moves, and generating
//! missing tables (sub-tables first, recursively).

use std::collections::{BTreeSet, HashMap};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use shakmaty::{ByRole, Chess, EnPassantMode, Move, Position, Role};

use super::dtm::Dtm;
use super::file::{self, FileError, TableFile};
use super::generate::{self, GenerateError, Progress, SubTables};
use super::index::{Layout, MAX_UNITS};
use super::{Material, ProbeError, Wdl, WdlOracle};

const NAME: &str = "cookd DTM";

#[derive(Debug, thiserror::Error)]
pub enum TableError {
    #[error(transparent)]
    File(#[from] FileError),
    #[error(transparent)]
    Generate(#[from] GenerateError),
    #[error("{0}: tables hold at most {MAX_UNITS} units")]
    TooManyUnits(Material),
    #[error("cannot create the table folder {path}: {source}")]
    Folder {
        path: PathBuf,
        source: std::io::Error,
    },
}

/// The per-user folder small tables are generated into when the
/// configuration names none: `$XDG_CACHE_HOME/cookd/tables`, else
/// `$HOME/.cache/cookd/tables` (the XDG base directory rules: a relative
/// `XDG_CACHE_HOME` is ignored). `None` without either.
pub fn user_cache_dir(xdg_cache_home: Option<&Path>, home: Option<&Path>) -> Option<PathBuf> {
    xdg_cache_home
        .filter(|p| p.is_absolute())
        .map(Path::to_path_buf)
        .or_else(|| home.map(|h| h.join(".cache")))
        .map(|cache| cache.join("cookd").join("tables"))
}

/// What generating one table took.
#[derive(Debug, Clone)]
pub struct Generated {
    pub material: Material,
    pub slots: u64,
    pub file_bytes: u64,
    pub elapsed: Duration,
    /// The longest win in the table, in plies.
    pub longest_win: u16,
}

#[derive(Debug)]
struct Opened {
    layout: Layout,
    file: TableFile,
}

/// The DTM tables in one folder. Files are opened on first use and kept
/// open; each probe reads one block.
#[derive(Debug)]
pub struct DtmTables {
    dir: PathBuf,
    open: Mutex<HashMap<Material, Arc<Opened>>>,
}

impl DtmTables {
    pub fn new(dir: &Path) -> DtmTables {
        DtmTables {
            dir: dir.to_owned(),
            open: Mutex::new(HashMap::new()),
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn path(&self, material: &Material) -> PathBuf {
        self.dir.join(file::file_name(&material.normalized().0))
    }

    /// Whether the folder holds a table for this material (or its mirror);
    /// positions with kings alone need none.
    pub fn has(&self, material: &Material) -> bool {
        material.count() <= 2 || self.path(material).is_file()
    }

    fn table(&self, material: &Material) -> Result<Arc<Opened>, ProbeError> {
        let mut open = self.open.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(t) = open.get(material) {
            return Ok(Arc::clone(t));
        }
        let path = self.path(material);
        if !path.is_file() {
            return Err(ProbeError::MissingTable {
                source_name: NAME,
                material: *material,
            });
        }
        let file = TableFile::open(&path, material).map_err(|e| ProbeError::Failed {
            source_name: NAME,
            material: *material,
            error: e.to_string(),
        })?;
        let opened = Arc::new(Opened {
            layout: Layout::new(*material),
            file,
        });
        open.insert(*material, Arc::clone(&opened));
        Ok(opened)
    }

    /// The DTM of `pos`, `None` when no table here holds it.
    pub fn probe(&self, pos: &Chess) -> Option<Dtm> {
        self.try_probe(pos).ok()
    }

    /// The DTM of `pos`, or why there is none.
    pub fn try_probe(&self, pos: &Chess) -> Result<Dtm, ProbeError> {
        let material = Material::of(pos.board());
        check_supported(pos, &material)?;
        if pos.ep_square(EnPassantMode::Legal).is_some() {
            // The right to capture en passant is not in the index: value
            // the position from its moves.
            return Ok(self
                .move_values(pos)?
                .first()
                .map(|(_, v)| *v)
                .expect("an en-passant capture is legal"));
        }
        if material.count() <= 2 {
            return Ok(Dtm::Draw);
        }
        let (normal, mirrored) = material.normalized();
        let table = self.table(&normal)?;
        let p = table.layout.placement(pos.board(), pos.turn(), mirrored);
        let slot = table.layout.encode(&p);
        let code = table.file.code(slot).map_err(|e| ProbeError::Failed {
            source_name: NAME,
            material: normal,
            error: e.to_string(),
        })?;
        Ok(Dtm::from_code(code))
    }

    /// Every legal move with its value for the side to move, best first
    /// (fastest win, slowest loss).
    pub fn move_values(&self, pos: &Chess) -> Result<Vec<(Move, Dtm)>, ProbeError> {
        let mut values = pos
            .legal_moves()
            .iter()
            .map(|m| {
                let child = pos.clone().play(*m).expect("legal");
                Ok((*m, self.try_probe(&child)?.before_move()))
            })
            .collect::<Result<Vec<_>, ProbeError>>()?;
        values.sort_by_key(|&(_, v)| std::cmp::Reverse(v));
        Ok(values)
    }

    /// The moves that keep the best value of `pos`.
    pub fn best_moves(&self, pos: &Chess) -> Result<Vec<(Move, Dtm)>, ProbeError> {
        let values = self.move_values(pos)?;
        let best = values.first().map(|(_, v)| *v);
        Ok(values
            .into_iter()
            .take_while(|(_, v)| Some(*v) == best)
            .collect())
    }

    /// Makes sure the folder holds the table of `material` and of every
    /// material it can turn into, generating what is missing (smallest
    /// first). Returns what was generated.
    pub fn ensure(
        &self,
        material: &Material,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Vec<Generated>, TableError> {
        let mut done = Vec::new();
        for m in closure(material) {
            if !self.path(&m).is_file() {
                done.push(self.generate_one(&m, progress)?);
            }
        }
        Ok(done)
    }

    /// Generates one table whose sub-tables are present.
    fn generate_one(
        &self,
        material: &Material,
        progress: &(dyn Fn(Progress) + Sync),
    ) -> Result<Generated, TableError> {
        let material = material.normalized().0;
        if material.count() as usize > MAX_UNITS {
            return Err(TableError::TooManyUnits(material));
        }
        std::fs::create_dir_all(&self.dir).map_err(|source| TableError::Folder {
            path: self.dir.clone(),
            source,
        })?;
        let started = Instant::now();
        let layout = Layout::new(material);
        let written = generate::generate(
            &layout,
            &self.sub_tables(&material)?,
            &self.path(&material),
            progress,
        )?;
        Ok(Generated {
            material,
            slots: layout.size(),
            file_bytes: written.file_bytes,
            elapsed: started.elapsed(),
            longest_win: written.longest_win,
        })
    }

    /// The sub-tables of `material`, which must be present. Those of fewer
    /// units are small and held in memory; a promotion's table has as many
    /// units as `material` and is as large, so it stays on disk until a
    /// slice asks for its values (see [`generate`]).
    fn sub_tables(&self, material: &Material) -> Result<SubTables, FileError> {
        let mut subs = SubTables::new();
        for sub in sub_materials(material) {
            if sub.count() <= 2 {
                continue;
            }
            let file = TableFile::open(&self.path(&sub), &sub)?;
            if sub.count() < material.count() {
                subs.add_in_memory(sub, file.read_all()?);
            } else {
                subs.add_on_disk(file);
            }
        }
        Ok(subs)
    }
}

/// One table read whole into memory: probes without a lock or a block to
/// decompress, for passes over every position of a material such as
/// `cookd tb verify` (a five-unit table is hundreds of megabytes).
#[derive(Debug)]
pub struct LoadedTable {
    layout: Layout,
    codes: Vec<u8>,
}

impl DtmTables {
    /// The table of `material` (or of its mirror), read whole.
    pub fn load(&self, material: &Material) -> Result<LoadedTable, ProbeError> {
        let normal = material.normalized().0;
        let table = self.table(&normal)?;
        let codes = table.file.read_all().map_err(|e| ProbeError::Failed {
            source_name: NAME,
            material: normal,
            error: e.to_string(),
        })?;
        Ok(LoadedTable {
            layout: Layout::new(normal),
            codes,
        })
    }
}

impl LoadedTable {
    pub fn material(&self) -> Material {
        self.layout.material()
    }

    /// The DTM of `pos`, which must hold this table's material (either
    /// orientation), no castling rights and no en-passant capture (its
    /// value would need the sub-tables).
    pub fn try_probe(&self, pos: &Chess) -> Result<Dtm, ProbeError> {
        let material = Material::of(pos.board());
        check_supported(pos, &material)?;
        let (normal, mirrored) = material.normalized();
        if normal != self.layout.material() {
            return Err(ProbeError::MissingTable {
                source_name: NAME,
                material,
            });
        }
        if pos.ep_square(EnPassantMode::Legal).is_some() {
            return Err(ProbeError::Unsupported {
                material,
                why: "an en-passant capture needs the sub-tables: probe the folder".into(),
            });
        }
        let p = self.layout.placement(pos.board(), pos.turn(), mirrored);
        Ok(Dtm::from_code(self.codes[self.layout.encode(&p) as usize]))
    }
}

impl WdlOracle for LoadedTable {
    fn wdl(&self, pos: &Chess) -> Result<Wdl, ProbeError> {
        self.try_probe(pos).map(Dtm::wdl)
    }
}

impl WdlOracle for DtmTables {
    fn wdl(&self, pos: &Chess) -> Result<Wdl, ProbeError> {
        self.try_probe(pos).map(Dtm::wdl)
    }
}

fn check_supported(pos: &Chess, material: &Material) -> Result<(), ProbeError> {
    if pos.castles().any() {
        return Err(ProbeError::Unsupported {
            material: *material,
            why: "DTM tables hold no positions with castling rights".into(),
        });
    }
    if material.count() as usize > MAX_UNITS {
        return Err(ProbeError::Unsupported {
            material: *material,
            why: format!("more than {MAX_UNITS} units"),
        });
    }
    Ok(())
}

const PIECES: [Role; 5] = [
    Role::Queen,
    Role::Rook,
    Role::Bishop,
    Role::Knight,
    Role::Pawn,
];

/// The normalized materials one capture or promotion leads to.
pub fn sub_materials(material: &Material) -> BTreeSet<Material> {
    let mut subs = BTreeSet::new();
    for flip in [false, true] {
        let m = if flip { material.flipped() } else { *material };
        let (us, them) = (m.white, m.black);
        let with = |us: ByRole<u8>, them: ByRole<u8>| Material {
            white: us,
            black: them,
        };
        // We capture one of their units.
        for role in PIECES {
            if *them.get(role) > 0 {
                let mut t = them;
                *t.get_mut(role) -= 1;
                subs.insert(with(us, t).normalized().0);
            }
        }
        // We promote, possibly capturing a piece (not a pawn) as we do.
        if us.pawn > 0 {
            for promoted in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                let mut u = us;
                u.pawn -= 1;
                *u.get_mut(promoted) += 1;
                subs.insert(with(u, them).normalized().0);
                for captured in [Role::Queen, Role::Rook, Role::Bishop, Role::Knight] {
                    if *them.get(captured) > 0 {
                        let mut t = them;
                        *t.get_mut(captured) -= 1;
                        subs.insert(with(u, t).normalized().0);
                    }
                }
            }
        }
    }
    subs
}

/// `material` and everything it can turn into, smaller tables first (a
/// table's sub-tables always come before it); kings alone need no table.
pub fn closure(material: &Material) -> Vec<Material> {
    let mut seen = BTreeSet::new();
    let mut stack = vec![material.normalized().0];
    while let Some(m) = stack.pop() {
        if m.count() <= 2 || !seen.insert(m) {
            continue;
        }
        stack.extend(sub_materials(&m));
    }
    let mut order: Vec<Material> = seen.into_iter().collect();
    // Fewer units first; with equal units, fewer pawns first (promotions
    // lead from more pawns to fewer).
    order.sort_by_key(|m| (m.count(), m.white.pawn + m.black.pawn, m.to_string()));
    order
}

/// Every normalized material with exactly `units` units (kings included).
pub fn all_materials(units: usize) -> Vec<Material> {
    let mut found = BTreeSet::new();
    let extra = units.saturating_sub(2);
    let sides = multisets(extra);
    for white in &sides {
        for black in &sides {
            if white.len() + black.len() != extra {
                continue;
            }
            let side = |roles: &Vec<Role>| {
                let mut counts = ByRole::<u8> {
                    king: 1,
                    ..ByRole::default()
                };
                for &r in roles {
                    *counts.get_mut(r) += 1;
                }
                counts
            };
            found.insert(
                Material {
                    white: side(white),
                    black: side(black),
                }
                .normalized()
                .0,
            );
        }
    }
    let mut order: Vec<Material> = found.into_iter().collect();
    order.sort_by_key(|m| (m.white.pawn + m.black.pawn, m.to_string()));
    order
}

/// All multisets of pieces with at most `n` members.
fn multisets(n: usize) -> Vec<Vec<Role>> {
    let mut out = vec![Vec::new()];
    let mut frontier = vec![Vec::new()];
    for _ in 0..n {
        let mut next = Vec::new();
        for set in &frontier {
            let last = set
                .last()
                .map_or(0, |r| PIECES.iter().position(|p| p == r).unwrap());
            for &role in &PIECES[last..] {
                let mut s: Vec<Role> = set.clone();
                s.push(role);
                next.push(s);
            }
        }
        out.extend(next.iter().cloned());
        frontier = next;
    }
    out
}

impl PartialOrd for Material {
    fn partial_cmp(&self, other: &Material) -> Option<std::cmp::Ordering> {
        Some(self.cmp(other))
    }
}

/// By key text; only for ordered collections.
impl Ord for Material {
    fn cmp(&self, other: &Material) -> std::cmp::Ordering {
        self.to_string().cmp(&other.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_user_cache_follows_xdg() {
        let (xdg, home) = (Path::new("/x/cache"), Path::new("/home/u"));
        assert_eq!(
            user_cache_dir(Some(xdg), Some(home)).unwrap(),
            Path::new("/x/cache/cookd/tables")
        );
        assert_eq!(
            user_cache_dir(Some(Path::new("rel")), Some(home)).unwrap(),
            Path::new("/home/u/.cache/cookd/tables")
        );
        assert_eq!(user_cache_dir(None, None), None);
    }

    #[test]
    fn material_sets() {
        assert_eq!(all_materials(3).len(), 5);
        let four: Vec<String> = all_materials(4).iter().map(|m| m.to_string()).collect();
        assert!(four.contains(&"KQvKR".to_string()) && four.contains(&"KPvKP".to_string()));
        assert!(!four.contains(&"KRvKQ".to_string()));
        // 15 with two units on one side, 15 with one each.
        assert_eq!(four.len(), 30);
        let subs: Vec<String> = sub_materials(&"KPvK".parse().unwrap())
            .iter()
            .map(|m| m.to_string())
            .collect();
        assert_eq!(subs, ["KBvK", "KNvK", "KQvK", "KRvK", "KvK"]);
        let order = closure(&"KQvKP".parse().unwrap());
        let pos = |k: &str| order.iter().position(|m| m.to_string() == k).unwrap();
        assert!(pos("KQvKQ") < pos("KQvKP"));
        assert!(pos("KQvK") < pos("KQvKQ"));
    }
}
