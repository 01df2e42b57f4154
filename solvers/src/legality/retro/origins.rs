//! Tracing every unit back to an original one.
//!
//! Each of a side's sixteen original units ends the game in exactly one of
//! three ways: on the board (a pawn possibly as a promoted piece), captured
//! by one of the captures the enemy pawns provably made (on known squares),
//! or captured somewhere else. As many units were captured as the side has
//! lost. So the board units, the enemy's forced pawn captures and "one more
//! captured unit" slots (lost units minus forced captures) must be matched
//! one-to-one with original units that could have got there: a perfect
//! bipartite matching. When none exists, Hall's theorem gives a set of
//! needs with too few candidates, which is what the report names.

use std::cell::OnceCell;

use shakmaty::{Bitboard, Color, File, Rank, Role, Square};

use super::facts::{homes, Facts};
use super::pawns::{self, CaptureEvent, PawnInfo};
use super::reach::{self, Mover};
use crate::legality::{Flaw, Reason};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Orig {
    Piece(Role, Square),
    Pawn(u32),
}

/// One original unit and where it can have been.
#[derive(Debug)]
struct Left {
    orig: Orig,
    /// The board square it still stands on, when it provably never moved.
    fixed_at: Option<Square>,
    /// Worked out when a need first asks (most needs are settled by other
    /// units, and a pawn's ways are most of the test's cost).
    ways: OnceCell<Ways>,
}

/// Where an original unit can have been.
#[derive(Debug)]
struct Ways {
    /// Per phase, where it can have stood (as a pawn, for pawns).
    reach: Vec<Bitboard>,
    /// For pawns: per promoted role (queen, rook, bishop, knight), per phase.
    promoted: Vec<(Role, Vec<Bitboard>)>,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Need {
    Unit(Square),
    Event(usize),
    Slot,
}

const PROMOTED: [Role; 4] = [Role::Queen, Role::Rook, Role::Bishop, Role::Knight];

fn mover(role: Role, color: Color) -> Mover {
    match role {
        Role::King => Mover::King(color),
        Role::Queen => Mover::Queen,
        Role::Rook => Mover::Rook,
        Role::Bishop => Mover::Bishop,
        Role::Knight => Mover::Knight,
        Role::Pawn => Mover::Pawn(color),
    }
}

fn role_name(role: Role) -> &'static str {
    match role {
        Role::King => "king",
        Role::Queen => "queen",
        Role::Rook => "rook",
        Role::Bishop => "bishop",
        Role::Knight => "knight",
        Role::Pawn => "pawn",
    }
}

fn color_name(color: Color) -> &'static str {
    if color.is_white() {
        "white"
    } else {
        "black"
    }
}

fn piece_left(facts: &Facts, color: Color, role: Role, home: Square) -> Left {
    let at_home = facts.board.piece_at(home) == Some(role.of(color));
    let fixed_at = (at_home && facts.fixed.contains(home)).then_some(home);
    Left {
        orig: Orig::Piece(role, home),
        fixed_at,
        ways: OnceCell::new(),
    }
}

fn piece_ways(facts: &Facts, color: Color, role: Role, home: Square, fixed: bool) -> Ways {
    let reach = if fixed {
        vec![Bitboard::from_square(home); facts.phases()]
    } else {
        reach::by_phase(
            facts,
            mover(role, color),
            Bitboard::from_square(home),
            &|_| Bitboard::EMPTY,
        )
    };
    Ways {
        reach,
        promoted: Vec::new(),
    }
}

/// Per phase, every square a pawn starting on `start` can have stood on
/// with at most `spare` captures. It steps straight ahead onto squares empty
/// in that phase, and diagonally ahead (a capture) onto squares not held in
/// that phase by a unit that is still on the board (that unit was never
/// taken); the one-move pawns move in between, but never onto its square.
/// So it cannot pass a pawn that never leaves its file. It makes no move
/// from its last rank (it promoted) nor from a square where it checks a
/// king that never moved (it was taken there).
fn pawn_reach(facts: &Facts, color: Color, start: Square, spare: u32) -> Vec<Bitboard> {
    let stuck = facts.pawn_dead_ends(color) | Bitboard::BACKRANKS;
    let held: Vec<Bitboard> = (0..facts.phases()).map(|p| facts.occupied(p)).collect();
    let ahead = |squares: Bitboard| -> Bitboard {
        let movable = squares & !stuck;
        if color.is_white() {
            movable.shift(8)
        } else {
            movable.shift(-8)
        }
    };
    let captures = |squares: Bitboard| -> Bitboard {
        (squares & !stuck)
            .into_iter()
            .fold(Bitboard::EMPTY, |acc, sq| {
                acc | shakmaty::attacks::pawn_attacks(color, sq)
            })
    };
    // reach[captures made][phase]. Every move leads to as many captures
    // or more, and to the same phase or a later one (a superset of bits,
    // so a larger number): one pass in that order is complete.
    let mut reach = vec![vec![Bitboard::EMPTY; facts.phases()]; spare as usize + 1];
    for used in 0..reach.len() {
        for phase in 0..facts.phases() {
            let mut layer = if used == 0 && phase == 0 {
                Bitboard::from_square(start)
            } else {
                Bitboard::EMPTY
            };
            if used > 0 {
                layer |= captures(reach[used - 1][phase]) & !held[phase];
            }
            // A one-move pawn moves meanwhile, never onto this pawn.
            for (i, pawn) in facts.phased.iter().enumerate() {
                if phase & (1 << i) != 0 {
                    layer |= reach[used][phase & !(1 << i)] & !Bitboard::from_square(pawn.dest);
                }
            }
            loop {
                let next = layer | (ahead(layer) & !held[phase]);
                if next == layer {
                    break;
                }
                layer = next;
            }
            reach[used][phase] = layer;
        }
    }
    (0..facts.phases())
        .map(|phase| {
            reach
                .iter()
                .fold(Bitboard::EMPTY, |acc, by| acc | by[phase])
        })
        .collect()
}

fn pawn_left(facts: &Facts, color: Color, file: u32) -> Left {
    let start = pawns::start_square(color, file);
    let fixed_at = (facts.fixed.contains(start)
        && facts.board.piece_at(start) == Some(color.pawn()))
    .then_some(start);
    Left {
        orig: Orig::Pawn(file),
        fixed_at,
        ways: OnceCell::new(),
    }
}

/// `spare`: captures this side's missing pawns can still make.
fn pawn_ways(facts: &Facts, color: Color, file: u32, spare: u32, fixed: bool) -> Ways {
    let start = pawns::start_square(color, file);
    let last = Bitboard::from_rank(if color.is_white() {
        Rank::Eighth
    } else {
        Rank::First
    });
    let reach = if fixed {
        vec![Bitboard::from_square(start); facts.phases()]
    } else {
        pawn_reach(facts, color, start, spare)
    };
    let promo: Vec<Bitboard> = reach.iter().map(|&bb| bb & last).collect();
    let promoted = if fixed || promo.iter().all(|bb| bb.is_empty()) {
        // No promotion square in any phase: it can never be a piece.
        Vec::new()
    } else {
        PROMOTED
            .iter()
            .map(|&role| {
                let r = reach::by_phase(facts, mover(role, color), Bitboard::EMPTY, &|phase| {
                    promo[phase]
                });
                (role, r)
            })
            .collect()
    };
    Ways { reach, promoted }
}

impl Left {
    fn name(&self) -> String {
        match self.orig {
            Orig::Piece(Role::King, _) => "the king".into(),
            Orig::Piece(Role::Queen, _) => "the queen".into(),
            Orig::Piece(role, home) => format!("the {} from {home}", role_name(role)),
            Orig::Pawn(f) => format!("the {}-pawn", File::new(f).char()),
        }
    }

    fn is_king(&self) -> bool {
        matches!(self.orig, Orig::Piece(Role::King, _))
    }

    /// Its [`Ways`], worked out on the first call.
    fn ways(&self, ctx: &Ctx) -> &Ways {
        self.ways.get_or_init(|| {
            let fixed = self.fixed_at.is_some();
            match self.orig {
                Orig::Piece(role, home) => piece_ways(ctx.facts, ctx.color, role, home, fixed),
                Orig::Pawn(file) => pawn_ways(ctx.facts, ctx.color, file, ctx.spare, fixed),
            }
        })
    }

    /// Everywhere it can have stood (also as a promoted piece), restricted
    /// to the phases selected by `pick`.
    fn anywhere(&self, pawn: Option<usize>, ctx: &Ctx) -> Bitboard {
        let ways = self.ways(ctx);
        ways.promoted
            .iter()
            .fold(reach::before(&ways.reach, pawn), |acc, (_, r)| {
                acc | reach::before(r, pawn)
            })
    }
}

/// Needs and original units; an edge (whether the unit can be the need)
/// is worked out when the matching first asks for it, in the order a
/// full adjacency list would give.
struct Graph<'a> {
    ctx: Ctx<'a>,
    needs: Vec<Need>,
    lefts: Vec<Left>,
    /// Per need, per original unit (a side has sixteen): the edge once
    /// known.
    edges: Vec<[Option<bool>; 16]>,
}

impl Graph<'_> {
    fn edge(&mut self, need: usize, left: usize) -> bool {
        if let Some(known) = self.edges[need][left] {
            return known;
        }
        let edge = can_be(&self.lefts[left], self.needs[need], &self.ctx);
        self.edges[need][left] = Some(edge);
        edge
    }
}

fn can_be(left: &Left, need: Need, ctx: &Ctx) -> bool {
    match need {
        Need::Unit(sq) => can_be_unit(left, sq, ctx),
        _ if left.is_king() || left.fixed_at.is_some() => false,
        Need::Slot => true,
        Need::Event(e) => {
            let event = &ctx.events[e];
            let pawn = ctx.facts.phased.iter().position(|p| p.dest == event.pawn);
            left.anywhere(pawn, ctx).intersects(event.squares)
        }
    }
}

fn can_be_unit(left: &Left, sq: Square, ctx: &Ctx) -> bool {
    let Some(role) = ctx.facts.board.role_at(sq) else {
        return false;
    };
    let last = ctx.facts.last_phase();
    if let Some(at) = left.fixed_at {
        return at == sq;
    }
    match left.orig {
        Orig::Piece(r, _) => r == role && left.ways(ctx).reach[last].contains(sq),
        Orig::Pawn(file) if role == Role::Pawn => {
            let i = ctx.own.squares.iter().position(|&s| s == sq);
            i.is_some_and(|i| ctx.own.feasible[i] & (1 << file) != 0)
        }
        Orig::Pawn(_) => left
            .ways(ctx)
            .promoted
            .iter()
            .any(|(r, bb)| *r == role && bb[last].contains(sq)),
    }
}

struct Ctx<'a> {
    facts: &'a Facts,
    color: Color,
    own: &'a PawnInfo,
    events: Vec<CaptureEvent>,
    /// Captures this side's missing pawns can still make.
    spare: u32,
}

fn build(ctx: Ctx) -> Option<Graph> {
    let (facts, color) = (ctx.facts, ctx.color);
    let units = facts.board.by_color(color);
    let lost = 16usize.checked_sub(units.count())?;
    let slots = lost.checked_sub(ctx.events.len())?;
    let mut lefts: Vec<Left> = homes(color)
        .into_iter()
        .map(|(role, home)| piece_left(facts, color, role, home))
        .collect();
    lefts.extend((0..8).map(|f| pawn_left(facts, color, f)));
    let mut needs: Vec<Need> = units.into_iter().map(Need::Unit).collect();
    needs.extend((0..ctx.events.len()).map(Need::Event));
    needs.extend(std::iter::repeat_n(Need::Slot, slots));
    let edges = vec![[None; 16]; needs.len()];
    Some(Graph {
        ctx,
        needs,
        lefts,
        edges,
    })
}

/// Kuhn's augmenting path; on failure `seen_needs` and `seen_lefts` hold a
/// Hall violator (needs whose candidates are all in `seen_lefts`). A free
/// candidate is taken before any taken one is moved: the matching found
/// may differ, but not whether one exists, nor the needs and units an
/// augmenting path that fails can reach (they make the Hall violator that
/// every maximum matching leaves).
fn augment(
    g: &mut Graph,
    need: usize,
    owner: &mut [Option<usize>],
    seen_lefts: &mut [bool],
    seen_needs: &mut Vec<usize>,
) -> bool {
    seen_needs.push(need);
    for l in 0..g.lefts.len() {
        if owner[l].is_none() && !seen_lefts[l] && g.edge(need, l) {
            seen_lefts[l] = true;
            owner[l] = Some(need);
            return true;
        }
    }
    for l in 0..g.lefts.len() {
        if seen_lefts[l] || !g.edge(need, l) {
            continue;
        }
        seen_lefts[l] = true;
        let free = match owner[l] {
            None => true,
            Some(other) => augment(g, other, owner, seen_lefts, seen_needs),
        };
        if free {
            owner[l] = Some(need);
            return true;
        }
    }
    false
}

/// One augmenting step: `need`, with the owners so far, into the units
/// and needs it reached (see [`augment`]).
type Augment = fn(&mut Graph, usize, &mut [Option<usize>], &mut [bool], &mut Vec<usize>) -> bool;

/// The first set of needs with too few candidates, if any.
fn violator(g: &mut Graph) -> Option<(Vec<usize>, Vec<usize>)> {
    violator_with(g, augment)
}

/// [`violator`] by the augmenting step given (the tests' plain one too).
fn violator_with(g: &mut Graph, augment: Augment) -> Option<(Vec<usize>, Vec<usize>)> {
    let mut owner = vec![None; g.lefts.len()];
    for need in 0..g.needs.len() {
        let mut seen_lefts = vec![false; g.lefts.len()];
        let mut seen_needs = Vec::new();
        if !augment(g, need, &mut owner, &mut seen_lefts, &mut seen_needs) {
            let lefts = (0..g.lefts.len()).filter(|&l| seen_lefts[l]).collect();
            seen_needs.sort_unstable();
            seen_needs.dedup();
            return Some((seen_needs, lefts));
        }
    }
    None
}

fn need_name(ctx: &Ctx, need: Need, color: Color) -> String {
    match need {
        Need::Unit(sq) => {
            let role = ctx.facts.board.role_at(sq).map_or("unit", role_name);
            format!("the {role} on {sq}")
        }
        Need::Event(e) => {
            let ev = &ctx.events[e];
            let squares: Vec<String> = ev.squares.into_iter().map(|s| s.to_string()).collect();
            format!(
                "the unit captured on {} by the {} pawn now on {}",
                squares.join(" or "),
                color_name(!color),
                ev.pawn
            )
        }
        Need::Slot => "a further captured unit".into(),
    }
}

fn report(ctx: &Ctx, g: &Graph, color: Color, needs: &[usize], lefts: &[usize]) -> Reason {
    let kinds: Vec<Need> = needs.iter().map(|&n| g.needs[n]).collect();
    let has_pawn = lefts
        .iter()
        .any(|&l| matches!(g.lefts[l].orig, Orig::Pawn(_)));
    let flaw = if kinds.iter().any(|k| matches!(k, Need::Event(_))) {
        Flaw::UnreachableSquare
    } else if kinds.contains(&Need::Slot) {
        Flaw::TooManyCaptures
    } else if has_pawn {
        Flaw::TooManyPromotions
    } else {
        Flaw::UnreachableSquare
    };
    let listed: Vec<String> = kinds.iter().map(|&k| need_name(ctx, k, color)).collect();
    let candidates: Vec<String> = lefts.iter().map(|&l| g.lefts[l].name()).collect();
    let side = color_name(color);
    let detail = if let [one] = listed.as_slice() {
        format!(
            "{one} must be an original {side} unit that could have got there, but no original \
             {side} unit could (units that never moved and one-move pawns block the way)"
        )
    } else {
        let who = if candidates.is_empty() {
            format!("no original {side} unit could be any of them")
        } else {
            format!("only {} could be any of them", candidates.join(", "))
        };
        format!(
            "{} must each be a different original {side} unit that could have got there, but \
             {who} (units that never moved and one-move pawns block the way)",
            listed.join(", ")
        )
    };
    let mut squares = Bitboard::EMPTY;
    for k in &kinds {
        match *k {
            Need::Unit(sq) => squares.add(sq),
            Need::Event(e) => squares |= ctx.events[e].squares,
            Need::Slot => {}
        }
    }
    Reason::new(flaw, Some(color), detail).at(squares)
}

/// Can `color`'s units on the board, and the units the enemy pawns
/// provably captured, be traced back to distinct original units?
pub fn check(
    facts: &Facts,
    color: Color,
    own: &PawnInfo,
    enemy: Option<&PawnInfo>,
) -> Option<Reason> {
    let events = enemy.map(pawns::capture_events).unwrap_or_default();
    let spare = own.budget.checked_sub(own.min_captures?)?;
    let ctx = Ctx {
        facts,
        color,
        own,
        events,
        spare,
    };
    let mut graph = build(ctx)?;
    let (needs, lefts) = violator(&mut graph)?;
    Some(report(&graph.ctx, &graph, color, &needs, &lefts))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::legality::retro::{corpus_positions, pawn_infos, static_flaws};
    use crate::legality::Flaw;
    use shakmaty::fen::Fen;

    /// The plain matching: every edge worked out first, each need's
    /// candidates tried in order, taken ones moved as soon as met.
    fn plain_violator(g: &mut Graph) -> Option<(Vec<usize>, Vec<usize>)> {
        for need in 0..g.needs.len() {
            for left in 0..g.lefts.len() {
                g.edge(need, left);
            }
        }
        fn plain(
            g: &mut Graph,
            need: usize,
            owner: &mut [Option<usize>],
            seen_lefts: &mut [bool],
            seen_needs: &mut Vec<usize>,
        ) -> bool {
            seen_needs.push(need);
            for l in 0..g.lefts.len() {
                if seen_lefts[l] || !g.edge(need, l) {
                    continue;
                }
                seen_lefts[l] = true;
                if owner[l].is_none_or(|o| plain(g, o, owner, seen_lefts, seen_needs)) {
                    owner[l] = Some(need);
                    return true;
                }
            }
            false
        }
        violator_with(g, plain)
    }

    /// The matching that works edges out as it asks and takes free
    /// candidates first finds the Hall violator the plain one finds, over
    /// the corpus diagrams and every position one retraction back.
    #[test]
    fn lazy_matching_finds_the_plain_violator() {
        let (mut judged, mut violated) = (0, 0);
        for (fen, setups) in corpus_positions() {
            for s in &setups {
                let infos = pawn_infos(s);
                let facts = Facts::new(s, &infos);
                for (own, enemy) in [(&infos[0], &infos[1]), (&infos[1], &infos[0])] {
                    let Some(own) = own else { continue };
                    let Some(spare) = own.min_captures.and_then(|m| own.budget.checked_sub(m))
                    else {
                        continue;
                    };
                    let ctx = || Ctx {
                        facts: &facts,
                        color: own.color,
                        own,
                        events: enemy
                            .as_ref()
                            .map(pawns::capture_events)
                            .unwrap_or_default(),
                        spare,
                    };
                    let (Some(mut lazy), Some(mut plain)) = (build(ctx()), build(ctx())) else {
                        continue;
                    };
                    let found = violator(&mut lazy);
                    assert_eq!(found, plain_violator(&mut plain), "{fen}");
                    judged += 1;
                    violated += usize::from(found.is_some());
                }
            }
        }
        assert!(
            judged >= 20_000 && violated >= 500,
            "{judged} judged, {violated} violated"
        );
    }

    fn flaws(fen: &str) -> Vec<Flaw> {
        let setup = fen.parse::<Fen>().unwrap().into_setup();
        static_flaws(&setup).into_iter().map(|r| r.flaw).collect()
    }

    #[test]
    fn initial_array_is_traced() {
        assert!(flaws("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1").is_empty());
    }

    #[test]
    fn captured_unit_must_reach_the_capture_square() {
        // b7xa6 took the c1 bishop (the only white unit missing): a dark
        // bishop on a light square.
        let fen = "rnbqkbnr/p1pppppp/p7/8/8/3P4/PPP1PPPP/RN1QKBNR w KQkq - 0 1";
        assert_eq!(flaws(fen), vec![Flaw::UnreachableSquare]);
        // With the f1 bishop missing instead it is fine.
        assert!(flaws("rnbqkbnr/p1pppppp/p7/8/8/6P1/PPPPPP1P/RNBQK1NR w KQkq - 0 1").is_empty());
    }

    #[test]
    fn bishops_behind_unmoved_pawns_must_be_promoted() {
        // a8 and h8 can only be entered from b7/g7, where black pawns never moved.
        let fen = "B3k2B/1pppppp1/8/8/8/8/PPPP1PPP/RN1QK1NR w KQ - 0 1";
        assert_eq!(flaws(fen), vec![Flaw::TooManyPromotions]);
        // One promoted bishop is fine: the e-pawn is missing.
        assert!(flaws("4k2B/1pppppp1/8/8/8/8/PPPP1PPP/RN1QK1NR w KQ - 0 1").is_empty());
    }

    #[test]
    fn king_cannot_enter_a_closed_region() {
        let fen = "8/8/8/8/8/P3P2P/1PPP1PP1/2k2K2 w - - 0 1";
        assert_eq!(flaws(fen), vec![Flaw::UnreachableSquare]);
        // Pawn attacks alone close the first rank (b3, d3, e3, f3, g3, h3)...
        assert_eq!(
            flaws("8/8/8/8/8/8/1PPP1PP1/2k2K2 w - - 0 1"),
            vec![Flaw::UnreachableSquare]
        );
        // ...until the b-pawn is gone: in through a3 and a2.
        assert!(flaws("8/8/8/8/8/8/2PP1PP1/2k2K2 w - - 0 1").is_empty());
    }

    #[test]
    fn one_move_pawn_closes_the_door_behind_it() {
        // h7xg6 left h7 free only once g6 was taken: g8 is unreachable.
        assert_eq!(
            flaws("4k1b1/5pp1/6p1/8/8/8/8/4K3 b - - 0 1"),
            vec![Flaw::UnreachableSquare]
        );
        // Without the g7 pawn the bishop comes in through g7.
        assert!(flaws("4k1b1/5p2/6p1/8/8/8/8/4K3 b - - 0 1").is_empty());
    }

    #[test]
    fn missing_pawn_with_spare_captures_reaches_only_nearby_files() {
        // b3 and c3 (a2xb3, d2xc3) took black units: only knights can have
        // got there (the queen and f8 bishop are shut in, the h-pawn with its
        // one spare capture reaches the g- and h-files only), but one knight
        // is on b1.
        let fen = "r1b1k2r/ppppppp1/7B/8/1N6/1PP5/NPP1PPPP/Kn1R1B1R w kq - 0 1";
        assert_eq!(flaws(fen), vec![Flaw::UnreachableSquare]);
        // leg061 and its twins pass these tests.
        for fen in [
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R w kq - 0 1",
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1BR1 w kq - 0 1",
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R b kq - 0 1",
            "r1b1k2r/1pppppp1/7B/p7/1N6/1PP5/NPP1PPPP/2KR1B1R w - - 0 1",
        ] {
            assert!(flaws(fen).is_empty(), "{fen}");
        }
    }

    #[test]
    fn promoted_knight_stuck_in_the_corner() {
        // The a-pawn can only promote on a8 after a7xb6, and a knight there
        // can never leave; the unit taken on b6 must have been a knight.
        let fen = "1nbqkbnr/1ppppppp/1p6/3rN3/8/8/1PPPPPPP/R1BQKBNR b Q - 0 1";
        assert_eq!(flaws(fen), vec![Flaw::UnreachableSquare]);
        // Without the castling right the a1 rook may have been taken on b6.
        assert!(flaws("1nbqkbnr/1ppppppp/1p6/3rN3/8/8/1PPPPPPP/R1BQKBNR b - - 0 1").is_empty());
    }
}
