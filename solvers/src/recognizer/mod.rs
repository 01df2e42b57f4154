//! Endgame recognizers: cheap rules that know the value of some positions of
//! a material (KPK, KBPK, ...) without a table, so a search can stop there.
//!
//! A recognizer may be partial (it answers `None`, "don't know", where its
//! rules do not reach), but every answer it gives must be exact. That is not
//! taken on trust: [`verify()`] runs a recognizer over every position of its
//! material and compares it with a
//! [`WdlOracle`](crate::tablebase::WdlOracle): Syzygy for up to four
//! units, cookd's own tables for five. A recognizer registered with
//! `verified: false` is not consulted by [`Registry::recognize`]: a new
//! rule stays that way until `cookd tb verify` reports 0 incorrect.

use std::fmt;
use std::sync::{Arc, OnceLock};

use shakmaty::{Chess, Color, Position, Square};

use crate::tablebase::tables::{DtmTables, LoadedTable};
use crate::tablebase::{Material, Wdl};

mod dead;
mod kbkp;
mod kbnkn;
pub mod kbnkn_buckets;
mod kbpk;
mod knnk;
pub mod kpk;
mod kpkp;
mod krpkr;
mod minors;
pub mod verify;

pub use verify::{enumerate, verify, Sample, Stats, VerifyError};

/// One recognizer: a name, the materials it answers for (each in both
/// colour orientations), and its rules.
#[derive(Debug)]
pub struct Recognizer {
    name: &'static str,
    materials: Vec<Material>,
    verified: bool,
    rule: Rule,
}

/// The rules behind each recognizer; the KPK bitbase is shared with the
/// rules that fall back on it after a capture.
#[derive(Debug)]
enum Rule {
    Dead,
    Minors,
    Kpk(Arc<kpk::Kpk>),
    Kbpk(Arc<kpk::Kpk>),
    Knnk,
    Kpkp(Arc<kpk::Kpk>),
    /// With cookd's KRvKR table when the registry was given a table
    /// folder holding it ([`Registry::with_tables`]).
    Krpkr(Option<Arc<SubTable>>),
    Kbnkn,
    Kbkp,
}

impl Recognizer {
    pub fn name(&self) -> &'static str {
        self.name
    }

    /// The materials this recognizer is registered for, one colour
    /// orientation each (the other is recognized too).
    pub fn materials(&self) -> &[Material] {
        &self.materials
    }

    /// Whether every answer has been checked against a tablebase over all
    /// positions of its materials. Unverified recognizers do not ship.
    pub fn verified(&self) -> bool {
        self.verified
    }

    pub fn applies_to(&self, material: &Material) -> bool {
        self.materials
            .iter()
            .any(|m| m == material || m.flipped() == *material)
    }

    /// The colour whose units match the first side of a registered
    /// material key ("strong"), or `None` when `material` is not one of
    /// this recognizer's. The keys are parsed once, in [`Registry::new`]:
    /// a verification calls this for every position.
    fn strong_color(&self, material: &Material) -> Option<Color> {
        self.materials.iter().find_map(|m| {
            if m == material {
                Some(Color::White)
            } else if m.flipped() == *material {
                Some(Color::Black)
            } else {
                None
            }
        })
    }

    /// The value for the side to move, or `None` where the rules do not
    /// reach (including positions of other materials).
    pub fn recognize(&self, pos: &Chess) -> Option<Wdl> {
        let strong = self.strong_color(&Material::of(pos.board()))?;
        match &self.rule {
            Rule::Dead => dead::recognize(pos),
            Rule::Minors => minors::recognize(pos),
            Rule::Kpk(kpk) => kpk.recognize(pos),
            Rule::Kbpk(kpk) => kbpk::recognize(pos, strong, kpk),
            Rule::Knnk => knnk::recognize(pos, strong),
            Rule::Kpkp(kpk) => kpkp::recognize(pos, kpk),
            Rule::Krpkr(rook_ending) => {
                krpkr::recognize(pos, strong, rook_ending.as_ref().and_then(|t| t.get()))
            }
            Rule::Kbnkn => kbnkn::recognize(pos, strong),
            Rule::Kbkp => kbkp::recognize(pos, strong),
        }
    }
}

/// A table of fewer units a recognizer reads, from a folder, read whole on
/// first use (most problems never ask: a one-shot solve does not pay for
/// it); absent from the folder then, it stays absent.
#[derive(Debug)]
struct SubTable {
    tables: Arc<DtmTables>,
    material: Material,
    loaded: OnceLock<Option<LoadedTable>>,
}

impl SubTable {
    fn get(&self) -> Option<&LoadedTable> {
        self.loaded
            .get_or_init(|| {
                self.tables
                    .has(&self.material)
                    .then(|| self.tables.load(&self.material).ok())
                    .flatten()
            })
            .as_ref()
    }
}

/// Every recognizer cookd has, by name and material key. The KPK bitbase
/// inside is built on first use and then only read.
#[derive(Debug)]
pub struct Registry {
    recognizers: Vec<Recognizer>,
}

impl Default for Registry {
    fn default() -> Self {
        Registry::new()
    }
}

/// The square of the one unit on `bb`; `None` with none or several.
fn single(bb: shakmaty::Bitboard) -> Option<Square> {
    if bb.count() == 1 {
        bb.first()
    } else {
        None
    }
}

/// Steps from `sq` to the nearest edge of the board.
fn edge_distance(sq: Square) -> u32 {
    let file = sq.file().to_u32();
    let rank = sq.rank().to_u32();
    file.min(7 - file).min(rank).min(7 - rank)
}

fn keys(list: &[&str]) -> Vec<Material> {
    list.iter()
        .map(|key| key.parse().expect("recognizer material keys are valid"))
        .collect()
}

impl Registry {
    /// The recognizers, those that read exact tables of fewer units
    /// taking them from `tables` where it holds them (KRPKR reads KRvKR, a
    /// few megabytes, on its first question): a recognizer verified with a
    /// table at hand answers the same wherever the same table is.
    pub fn with_tables(tables: Arc<DtmTables>) -> Registry {
        let rook_ending = Arc::new(SubTable {
            tables,
            material: "KRvKR".parse().expect("a valid material key"),
            loaded: OnceLock::new(),
        });
        let mut registry = Registry::new();
        for r in &mut registry.recognizers {
            if let Rule::Krpkr(table) = &mut r.rule {
                *table = Some(Arc::clone(&rook_ending));
            }
        }
        registry
    }

    pub fn new() -> Registry {
        let kpk = Arc::new(kpk::Kpk::default());
        let recognizer = |name, materials: &[&str], verified, rule| Recognizer {
            name,
            materials: keys(materials),
            verified,
            rule,
        };
        Registry {
            recognizers: vec![
                recognizer("dead", &["KvK", "KNvK", "KBvK", "KBBvK"], true, Rule::Dead),
                recognizer("minors", &["KBvKB", "KBvKN", "KNvKN"], true, Rule::Minors),
                recognizer("kpk", &["KPvK"], true, Rule::Kpk(kpk.clone())),
                recognizer("kbpk", &["KBPvK"], true, Rule::Kbpk(kpk.clone())),
                recognizer("knnk", &["KNNvK"], true, Rule::Knnk),
                recognizer("kpkp", &["KPvKP"], true, Rule::Kpkp(kpk)),
                recognizer("kbkp", &["KBvKP"], true, Rule::Kbkp),
                // Five units: verified against cookd's own tables.
                recognizer("krpkr", &["KRPvKR"], true, Rule::Krpkr(None)),
                recognizer("kbnkn", &["KBNvKN"], true, Rule::Kbnkn),
            ],
        }
    }

    pub fn all(&self) -> &[Recognizer] {
        &self.recognizers
    }

    pub fn by_name(&self, name: &str) -> Option<&Recognizer> {
        self.recognizers
            .iter()
            .find(|r| r.name.eq_ignore_ascii_case(name))
    }

    /// The recognizer registered for this material (either orientation),
    /// verified or not.
    pub fn by_material(&self, material: &Material) -> Option<&Recognizer> {
        self.recognizers.iter().find(|r| r.applies_to(material))
    }

    /// The value of `pos` from the verified recognizer for its material,
    /// if there is one and it knows.
    pub fn recognize(&self, pos: &Chess) -> Option<Wdl> {
        self.by_material(&Material::of(pos.board()))
            .filter(|r| r.verified)
            .and_then(|r| r.recognize(pos))
    }
}

impl fmt::Display for Recognizer {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name)
    }
}

/// A position seen from one side ("strong", the side the material key puts
/// first), with the board flipped when that side is Black so that its pawns
/// always run up the board. Squares are relative; `strong_to_move` replaces
/// the turn.
#[derive(Debug, Clone, Copy)]
struct View {
    strong: Color,
    strong_to_move: bool,
}

impl View {
    fn new(pos: &Chess, strong: Color) -> View {
        View {
            strong,
            strong_to_move: pos.turn() == strong,
        }
    }

    /// A square of the real board as the strong side sees it.
    fn rel(&self, sq: Square) -> Square {
        match self.strong {
            Color::White => sq,
            Color::Black => sq.flip_vertical(),
        }
    }

    /// The one square holding a unit of `color` (relative to the strong
    /// side) and `role`, when there is exactly one.
    fn single(&self, pos: &Chess, strong_side: bool, role: shakmaty::Role) -> Option<Square> {
        let color = if strong_side {
            self.strong
        } else {
            !self.strong
        };
        let bb = pos.board().by_piece(role.of(color));
        if bb.count() == 1 {
            bb.first().map(|sq| self.rel(sq))
        } else {
            None
        }
    }

    /// A value for the strong side turned into one for the side to move.
    fn for_side_to_move(&self, strong_value: Wdl) -> Wdl {
        if self.strong_to_move {
            strong_value
        } else {
            strong_value.flip()
        }
    }
}
