//! A quality score for a sound direct mate, after Fainshtein's *Chess
//! Composer* (seed 003): the ICP heuristic of §3.2 (themes of Appendix C's
//! Table 13, bonuses of Table 10, penalties of Table 11, piece values of
//! Table 12) plus the k-move tree metric of §3.6 (Figure 6, computed as in
//! Figure 11). `docs/quality.md` lists every feature against the thesis.
//!
//! The score is the sum of the features' points. It only means something
//! for a sound problem (the thesis scores a cooked one 0, or −∞ in the
//! k-move metric): [`score`] is only ever called with a key's tree.
//!
//! The themes are read off the solution tree ([`super::tree`]): a theme's
//! *thematic variants* are the defences of a cluster whose only White
//! answer mates (duals and threats are not thematic, Appendix C notes 1
//! and 4); the first unique mate of a theme earns its full value, each
//! further one a fifth (note 2).

use std::collections::{BTreeSet, HashMap};

use serde::{Deserialize, Serialize};
use shakmaty::uci::UciMove;
use shakmaty::{attacks, Bitboard, Board, Chess, Color, Move, Position, Role, Square};

use super::tree::{DualKind, Play, Tree};

/// The score and the features it is the sum of.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Quality {
    pub score: f64,
    /// Only the features present (non-zero points), in the order of
    /// `docs/quality.md`.
    pub features: Vec<Feature>,
}

/// One feature: how many times it occurs (or its measure) and its points
/// (negative for a penalty).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct Feature {
    pub name: String,
    pub count: f64,
    pub points: f64,
}

/// Figure 6's controllable coefficients (the thesis gives no values).
const CLUSTER_COEF: f64 = 10.0;
const MAJOR_DUAL_COEF: f64 = 3.0;
const MINOR_DUAL_COEF: f64 = 1.0;

/// Shannon's values (Table 12); the king counts 0.
pub fn value(role: Role) -> f64 {
    match role {
        Role::Queen => 9.0,
        Role::Rook => 5.0,
        Role::Bishop | Role::Knight => 3.0,
        Role::Pawn => 1.0,
        Role::King => 0.0,
    }
}

/// White's material minus Black's, in Shannon's values.
pub fn material_balance(board: &Board) -> f64 {
    board
        .iter()
        .map(|(_, p)| value(p.role) * if p.color.is_white() { 1.0 } else { -1.0 })
        .sum()
}

/// The quality of the problem `pos` (White to move) whose solution is
/// `tree` (a sound `#n`: one key, no short solution). `original`, when the
/// problem is a change of another, adds Figure 6's `change_in_pieces`.
pub fn score(pos: &Chess, tree: &Tree, original: Option<&Board>) -> Quality {
    let mut q = Scorer::default();
    let board = pos.board();
    let Some(bk) = board.king_of(Color::Black) else {
        return q.finish();
    };
    let units = board.occupied().count();
    let key = parse(pos, &tree.key.uci);
    let mut after = pos.clone();
    if let Some(m) = key {
        after.play_unchecked(m);
    }

    // Themes without variants (Appendix C, note 5).
    q.add("tempo", f64::from(u8::from(tree.key.zugzwang)), 10.0);
    let lonely = board.by_color(Color::Black).count() == 1;
    q.add("lonely_king", f64::from(u8::from(lonely)), 2.0);
    let flights_before = flights(pos);
    let flights_after = flights(&after);
    let given = flights_after.saturating_sub(flights_before) as f64;
    let taken = flights_before.saturating_sub(flights_after) as f64;
    q.add("king_flights", f64::from(u8::from(given > 0.0)), 15.0);

    // Themes with variants.
    let mut themes = Themes::default();
    themes.walk(pos, &tree.key);
    for (name, per_first, mates) in [
        ("direct_battery", 15.0, &themes.direct_battery),
        ("indirect_battery", 25.0, &themes.indirect_battery),
        ("half_pin", 25.0, &themes.half_pin),
        ("self_pin", 15.0, &themes.self_pin),
        ("unpin", 20.0, &themes.unpin),
        ("self_block", 25.0, &themes.self_block),
        ("grimshaw", 45.0, &themes.grimshaw),
        ("pickaniny", 25.0, &themes.pickaniny),
    ] {
        let n = mates.len() as f64;
        if n > 0.0 {
            q.push(name, n, per_first * (1.0 + (n - 1.0) / 5.0));
        }
    }

    // Bonuses (Table 10).
    q.add("miniature", f64::from(u8::from(units <= 7)), 10.0);
    q.add(
        "meredith",
        f64::from(u8::from((8..=12).contains(&units))),
        5.0,
    );
    let centre = (2..=5).contains(&bk.file().to_u32()) && (2..=5).contains(&bk.rank().to_u32());
    q.add("king_in_centre", f64::from(u8::from(centre)), 10.0);
    q.push("units", units as f64, 3.0 * (18.0 - units as f64));
    if let Some(m) = key {
        q.add(
            "key_by_king",
            f64::from(u8::from(m.role() == Role::King)),
            15.0,
        );
    }
    let king_mates = themes.king_mates.len() as f64;
    if king_mates > 0.0 {
        q.push("mate_by_king", king_mates, 20.0 + 4.0 * (king_mates - 1.0));
    }
    q.add("key_gives_flights", given, 15.0);
    let checks = black_checks(&after).saturating_sub(black_checks(pos)) as f64;
    if checks > 0.0 {
        q.push("key_allows_checks", checks, 30.0 + 6.0 * (checks - 1.0));
    }
    let (w_before, b_before) = (pinned(board, Color::White), pinned(board, Color::Black));
    let (w_after, b_after) = (
        pinned(after.board(), Color::White),
        pinned(after.board(), Color::Black),
    );
    let worth = |squares: Bitboard, b: &Board| -> f64 {
        squares
            .into_iter()
            .filter_map(|s| b.role_at(s))
            .map(value)
            .sum()
    };
    q.add(
        "key_pins_white",
        worth(w_after & !w_before, after.board()),
        3.0,
    );
    q.add("key_unpins_black", worth(b_before & !b_after, board), 5.0);
    if let Some(m) = key {
        let attacked = after
            .board()
            .attacks_to(m.to(), Color::Black, after.board().occupied())
            .any();
        let sacrifice = if attacked { value(m.role()) } else { 0.0 };
        q.add("key_sacrifice", sacrifice, 5.0);
        let distinct = themes.mates.len() as f64;
        let variants = themes.variants.max(1) as f64;
        q.push(
            "mates_value",
            distinct,
            10.0 * distinct * distinct / variants,
        );
        let from = m.from().unwrap_or(m.to());
        let (dx, dy) = (
            from.file().to_u32().abs_diff(m.to().file().to_u32()),
            from.rank().to_u32().abs_diff(m.to().rank().to_u32()),
        );
        let diagonal = dx.min(dy);
        let straight = dx.max(dy) - diagonal;
        q.add("key_distance", f64::from(3 * diagonal + 2 * straight), 1.0);
        if let Some(from) = m.from() {
            let away = f64::from(manhattan(m.to(), bk)) - f64::from(manhattan(from, bk));
            q.add("key_away_from_king", away, 1.0);
        }
    }

    // Penalties (Table 11).
    let corner = (bk.file().to_u32() % 7 == 0) && (bk.rank().to_u32() % 7 == 0);
    let edge = !corner && (bk.file().to_u32() % 7 == 0 || bk.rank().to_u32() % 7 == 0);
    q.add("king_in_corner", f64::from(u8::from(corner)), -20.0);
    q.add("king_on_edge", f64::from(u8::from(edge)), -10.0);
    for (name, points, n) in [
        ("minor_duals", -1.0, themes.minor[0]),
        ("minor_triples", -2.0, themes.minor[1]),
        ("minor_multiples", -3.0, themes.minor[2]),
    ] {
        q.add(name, n as f64, points);
    }
    if let Some(m) = key {
        let checkers = after.checkers().count();
        q.add("key_checks", f64::from(u8::from(checkers == 1)), -50.0);
        q.add(
            "key_double_checks",
            f64::from(u8::from(checkers > 1)),
            -70.0,
        );
        q.add("key_captures", m.capture().map_or(0.0, value), -10.0);
        q.add("key_promotes", m.promotion().map_or(0.0, value), -5.0);
    }
    q.add("key_takes_flights", taken, -15.0);
    q.add(
        "key_pins_black",
        worth(b_after & !b_before, after.board()),
        -5.0,
    );
    q.add("key_unpins_white", worth(w_before & !w_after, board), -3.0);
    let excess = material_balance(board);
    if excess > 0.0 {
        q.push("white_material_excess", excess, -2.0 * excess);
    }

    // The k-move metric (Figure 6).
    let n = tree.key.length;
    let mut metric = 0.0;
    let mut dual_penalty = 0.0;
    k_move_metric(&tree.key, 1, n, &mut metric, &mut dual_penalty);
    q.push("cluster_score", metric, metric);
    q.push("duals_penalty", dual_penalty, -dual_penalty);
    if let Some(original) = original {
        let change = material_balance(original) - material_balance(board);
        q.push("change_in_pieces", change, change);
    }
    q.finish()
}

#[derive(Default)]
struct Scorer {
    features: Vec<Feature>,
}

impl Scorer {
    /// `count` times `points` each.
    fn add(&mut self, name: &'static str, count: f64, points: f64) {
        self.push(name, count, count * points);
    }

    fn push(&mut self, name: &'static str, count: f64, points: f64) {
        if points != 0.0 {
            self.features.push(Feature {
                name: name.to_owned(),
                count,
                points,
            });
        }
    }

    fn finish(self) -> Quality {
        Quality {
            score: self.features.iter().map(|f| f.points).sum(),
            features: self.features,
        }
    }
}

/// Figure 6 over the tree below `play` (a White move whose defences form
/// one cluster at mate level `level`): a dual's subtree costs 0, and a
/// dual is penalised the more the nearer it is to the key.
fn k_move_metric(play: &Play, level: u32, n: u32, score: &mut f64, duals: &mut f64) {
    let mut answers = BTreeSet::new();
    let mut non_dual = 0u32;
    let (mut major, mut minor) = (0u32, 0u32);
    for v in &play.variations {
        match (v.dual, v.continuations.as_slice()) {
            (Some(DualKind::Major), _) => major += 1,
            (Some(DualKind::Minor), _) => minor += 1,
            (None, [only]) => {
                non_dual += 1;
                answers.insert(only.uci.as_str());
                k_move_metric(only, level + 1, n, score, duals);
            }
            // A selfmate's defence that mates, or a truncated tree.
            (None, _) => {}
        }
    }
    if non_dual > 0 {
        let unique = answers.len() as f64;
        *score += CLUSTER_COEF * f64::from(level) * unique * unique / f64::from(non_dual);
    }
    let dual_level = f64::from(n.saturating_sub(level) + 1);
    *duals +=
        (MAJOR_DUAL_COEF * f64::from(major) + MINOR_DUAL_COEF * f64::from(minor)) * dual_level;
}

/// The thematic mates found, per theme (a set of mating moves: only unique
/// mates count).
#[derive(Default)]
struct Themes {
    direct_battery: BTreeSet<String>,
    indirect_battery: BTreeSet<String>,
    half_pin: BTreeSet<String>,
    self_pin: BTreeSet<String>,
    unpin: BTreeSet<String>,
    self_block: BTreeSet<String>,
    grimshaw: BTreeSet<String>,
    pickaniny: BTreeSet<String>,
    king_mates: BTreeSet<String>,
    /// Every distinct mate of a non-dual variation, and how many such
    /// variations there are.
    mates: BTreeSet<String>,
    variants: u32,
    /// Minor duals of 2, 3 and more continuations.
    minor: [u32; 3],
}

/// One thematic variant: the defence and its only (mating) answer.
struct Variant {
    defence: Move,
    mate: Move,
    mate_uci: String,
}

impl Themes {
    /// `pos` is White to move; `play` is White's move there.
    fn walk(&mut self, pos: &Chess, play: &Play) {
        let Some(m) = parse(pos, &play.uci) else {
            return;
        };
        let mut after = pos.clone();
        after.play_unchecked(m);
        let mut variants = Vec::new();
        for v in &play.variations {
            if v.dual == Some(DualKind::Minor) {
                self.minor[(v.continuations.len().max(2) - 2).min(2)] += 1;
            }
            let (Some(b), [only]) = (parse(&after, &v.uci), v.continuations.as_slice()) else {
                continue;
            };
            let mut next = after.clone();
            next.play_unchecked(b);
            if only.length > 1 {
                self.walk(&next, only);
                continue;
            }
            let Some(w) = parse(&next, &only.uci) else {
                continue;
            };
            self.variants += 1;
            self.mates.insert(only.uci.clone());
            let variant = Variant {
                defence: b,
                mate: w,
                mate_uci: only.uci.clone(),
            };
            self.single(&after, &next, &variant);
            variants.push(variant);
        }
        self.pairs(&after, &variants);
    }

    /// Themes of one variant: `before` is Black to move, `next` the
    /// position after the defence (White to mate).
    fn single(&mut self, before: &Chess, next: &Chess, v: &Variant) {
        let mut mated = next.clone();
        mated.play_unchecked(v.mate);
        let board = mated.board();
        let Some(bk) = board.king_of(Color::Black) else {
            return;
        };
        let key = || v.mate_uci.clone();
        // Castling moves the rook too: its checks are the rook's, not a
        // battery's, and it is not a mate by the king.
        let arrived = match v.mate.castling_side() {
            Some(side) => Bitboard::from(side.king_to(Color::White)) | side.rook_to(Color::White),
            None => Bitboard::from(v.mate.to()),
        };
        if v.mate.role() == Role::King && v.mate.castling_side().is_none() {
            self.king_mates.insert(key());
        }
        // Direct battery: the mate checks with a unit it unmasked.
        let from = v.mate.from().unwrap_or(v.mate.to());
        if (mated.checkers() & !arrived).any() {
            self.direct_battery.insert(key());
        }
        // Indirect battery: a slider unmasked by the mate now covers a
        // square next to the king that no other White unit covers.
        let before_mate = next.board();
        for s in board.by_color(Color::White) & board.sliders() & !arrived {
            let was = before_mate.attacks_from(s);
            let now = board.attacks_from(s);
            let fired = now & !was & attacks::king_attacks(bk) & !board.by_color(Color::Black);
            if !attacks::between(s, fired.first().unwrap_or(s)).contains(from) {
                continue;
            }
            let alone = fired.into_iter().any(|q| {
                board
                    .attacks_to(q, Color::White, board.occupied())
                    .without(s)
                    .is_empty()
            });
            if alone {
                self.indirect_battery.insert(key());
            }
        }
        // Self-pin: the defence pins its own unit.
        let newly = pinned(next.board(), Color::Black) & !pinned(before.board(), Color::Black);
        if newly.any() {
            self.self_pin.insert(key());
        }
        // Unpin: the defence unpins a White unit, which then mates.
        let unpinned = pinned(before.board(), Color::White) & !pinned(next.board(), Color::White);
        if unpinned.contains(from) {
            self.unpin.insert(key());
        }
        // Self-block: the defence lands next to the king on a square the
        // king could flee to without the blocker.
        let to = v.defence.to();
        if attacks::king_attacks(bk).contains(to) && board.color_at(to) == Some(Color::Black) {
            let without = board.occupied().without(to);
            if board.attacks_to(to, Color::White, without).is_empty() {
                self.self_block.insert(key());
            }
        }
    }

    /// Themes of several variants of one cluster (`after`: Black to move).
    fn pairs(&mut self, after: &Chess, variants: &[Variant]) {
        // Grimshaw: two Black units (sliders, or a pawn) interfering on one
        // empty square, answered by different mates.
        let board = after.board();
        for (i, a) in variants.iter().enumerate() {
            for b in &variants[i + 1..] {
                let same_square = a.defence.to() == b.defence.to()
                    && !a.defence.is_capture()
                    && !b.defence.is_capture()
                    && a.defence.from() != b.defence.from()
                    && a.defence.role() != b.defence.role()
                    && a.mate_uci != b.mate_uci;
                let line = |r: Role| matches!(r, Role::Rook | Role::Bishop | Role::Pawn);
                if same_square && line(a.defence.role()) && line(b.defence.role()) {
                    self.grimshaw.insert(a.mate_uci.clone());
                    self.grimshaw.insert(b.mate_uci.clone());
                }
            }
        }
        // Pickaniny: one Black pawn's four moves, four different mates.
        let mut by_pawn: HashMap<Square, BTreeSet<&str>> = HashMap::new();
        for v in variants {
            if v.defence.role() == Role::Pawn {
                if let Some(from) = v.defence.from() {
                    by_pawn.entry(from).or_default().insert(&v.mate_uci);
                }
            }
        }
        for mates in by_pawn.values().filter(|m| m.len() >= 4) {
            self.pickaniny.extend(mates.iter().map(|m| m.to_string()));
        }
        // Half-pin: two Black units between a White slider and the king,
        // each moving off the line with its own mate.
        let Some(bk) = board.king_of(Color::Black) else {
            return;
        };
        for s in snipers(board, Color::Black, bk) {
            let between = attacks::between(bk, s) & board.occupied();
            if between.count() != 2 || (between & board.by_color(Color::White)).any() {
                continue;
            }
            let mates: Vec<BTreeSet<&str>> = between
                .into_iter()
                .map(|sq| {
                    variants
                        .iter()
                        .filter(|v| v.defence.from() == Some(sq))
                        .map(|v| v.mate_uci.as_str())
                        .collect()
                })
                .collect();
            if mates.iter().all(|m| !m.is_empty()) && mates[0] != mates[1] {
                for m in mates.iter().flatten() {
                    self.half_pin.insert(m.to_string());
                }
            }
        }
    }
}

fn parse(pos: &Chess, uci: &str) -> Option<Move> {
    uci.parse::<UciMove>().ok()?.to_move(pos).ok()
}

/// The position with Black to move: as it is, or with the turn passed
/// when White is to move (`None` where passing is illegal: Black in check).
fn black_to_move(pos: &Chess) -> Option<Chess> {
    if pos.turn().is_black() {
        Some(pos.clone())
    } else {
        pos.clone().swap_turn().ok()
    }
}

/// The Black king's moves with Black to move (see [`black_to_move`]).
fn flights(pos: &Chess) -> usize {
    black_to_move(pos).map_or(0, |p| {
        p.legal_moves()
            .iter()
            .filter(|m| m.role() == Role::King)
            .count()
    })
}

/// Black's checking moves with Black to move (as in [`flights`]).
fn black_checks(pos: &Chess) -> usize {
    black_to_move(pos).map_or(0, |p| {
        p.legal_moves()
            .iter()
            .filter(|m| {
                let mut next = p.clone();
                next.play_unchecked(**m);
                next.is_check()
            })
            .count()
    })
}

/// The enemy sliders on a line with `king` of `color`.
fn snipers(board: &Board, color: Color, king: Square) -> Bitboard {
    let enemy = board.by_color(!color);
    (attacks::rook_attacks(king, Bitboard::EMPTY) & board.rooks_and_queens() & enemy)
        | (attacks::bishop_attacks(king, Bitboard::EMPTY) & board.bishops_and_queens() & enemy)
}

/// The units of `color` pinned to their king.
pub fn pinned(board: &Board, color: Color) -> Bitboard {
    let Some(king) = board.king_of(color) else {
        return Bitboard::EMPTY;
    };
    let mut pinned = Bitboard::EMPTY;
    for s in snipers(board, color, king) {
        let between = attacks::between(king, s) & board.occupied();
        if between.count() == 1 && (between & board.by_color(color)).any() {
            pinned |= between;
        }
    }
    pinned
}

fn manhattan(a: Square, b: Square) -> u32 {
    a.file().to_u32().abs_diff(b.file().to_u32()) + a.rank().to_u32().abs_diff(b.rank().to_u32())
}
