//! Black's move verdicts at a helpmate node, read back where the same
//! Black node comes again.
//!
//! In a king walk most of White's moves leave Black's side as it was, so
//! a Black node (its units and castling rights, the plies left, and the
//! pictures alive there with their Black costs) comes again under other
//! White positions: hm032 (h#6) met 1,456 Black nodes eight plies from
//! the end, of 465 kinds. What the move test and the distinct-blocker
//! test say of a Black move that takes nothing depends on that alone
//! (White's costs are copied through), and so do the targets Black's
//! moves are generated onto (but a pawn's, see [`Replays::put`]). So
//! they are worked out at the
//! first such node and read back at the others; a move the first node
//! did not judge (one that takes, castles or takes en passant, or was
//! not legal there) is judged where it comes.

use super::picture::Costs;
use crate::checking::pawn_steps;
use crate::fxhash::FxHashMap;
use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Role, Square};

/// Pictures a node may have for its verdicts to be kept (more are rare
/// where the distinct-blocker test runs, and make long keys).
pub(super) const MAX_REPLAYED: usize = 8;

/// Nodes kept at most: past them the replays start afresh.
const MAX_NODES: usize = 1 << 16;

/// A Black node as its Black moves' verdicts depend on it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct NodeKey {
    black: [u64; 6],
    castles: u64,
    left: u8,
    n: u8,
    /// The pictures alive: index, Black's moves for the blocks, the
    /// king's distance.
    alive: [(u32, u8, u8); MAX_REPLAYED],
}

impl NodeKey {
    /// The key of Black's node `pos` with `left` plies to go and the
    /// pictures `alive`; `None` with more than [`MAX_REPLAYED`].
    pub(super) fn new(pos: &Chess, left: u8, alive: &[Costs]) -> Option<NodeKey> {
        if alive.len() > MAX_REPLAYED {
            return None;
        }
        let board = pos.board();
        let mut key = NodeKey {
            black: Role::ALL.map(|r| (board.by_role(r) & board.black()).0),
            castles: pos.castles().castling_rights().0,
            left,
            n: alive.len() as u8,
            alive: [(0, 0, 0); MAX_REPLAYED],
        };
        for (slot, c) in key.alive.iter_mut().zip(alive) {
            let (blocks, king) = c.black();
            *slot = (c.index, blocks, king);
        }
        Some(key)
    }
}

/// What the two tests said of one Black move that takes nothing.
#[derive(Debug, Clone, Copy)]
pub(super) struct Verdict {
    from: Square,
    to: Square,
    promotion: Option<Role>,
    /// Whether the move test's pictures are exact (see
    /// [`super::picture::MoveTest::keep`]).
    pub(super) exact: bool,
    /// Whether the distinct-blocker test followed the move.
    pub(super) distinct: bool,
    /// The node's pictures (by place in its list) the move test kept,
    /// and of those the distinct-blocker test kept.
    kept: u8,
    distinct_kept: u8,
    /// Per place, Black's moves for the blocks and the king's distance
    /// after the move.
    costs: [(u8, u8); MAX_REPLAYED],
}

impl Verdict {
    /// The verdict on `m` (a normal move that takes nothing) at a node with
    /// pictures `alive`: the move test kept `kept`, and `distinct_kept`
    /// when `distinct`.
    pub(super) fn new(
        m: &Move,
        alive: &[Costs],
        (exact, kept): (bool, &[Costs]),
        (distinct, distinct_kept): (bool, &[Costs]),
    ) -> Option<Verdict> {
        let Move::Normal {
            from,
            to,
            promotion,
            capture: None,
            ..
        } = *m
        else {
            return None;
        };
        let mut v = Verdict {
            from,
            to,
            promotion,
            exact,
            distinct,
            kept: 0,
            distinct_kept: 0,
            costs: [(0, 0); MAX_REPLAYED],
        };
        // Both lists keep the node's order.
        let mut places = alive.iter().enumerate();
        for c in kept {
            let (i, _) = places.find(|(_, a)| a.index == c.index)?;
            v.kept |= 1 << i;
            v.costs[i] = c.black();
        }
        for c in distinct_kept.iter().filter(|_| distinct) {
            let i = alive.iter().position(|a| a.index == c.index)?;
            v.distinct_kept |= 1 << i;
        }
        Some(v)
    }

    /// Whether this is the verdict on `m`.
    pub(super) fn is(&self, m: &Move) -> bool {
        matches!(*m, Move::Normal { from, to, promotion, capture: None, .. }
            if from == self.from && to == self.to && promotion == self.promotion)
    }

    /// The move test's pictures (`distinct` false) or the distinct-blocker
    /// test's, with their costs after the move, into `into`.
    pub(super) fn pictures(&self, alive: &[Costs], distinct: bool, into: &mut Vec<Costs>) {
        into.clear();
        let places = if distinct {
            self.distinct_kept
        } else {
            self.kept
        };
        for (i, c) in alive.iter().enumerate() {
            if places & 1 << i != 0 {
                into.push(c.with_black(self.costs[i]));
            }
        }
    }
}

/// One Black node's verdicts and targets.
#[derive(Debug, Clone, Copy)]
struct Node {
    /// Where its verdicts and targets start in [`Replays`]' lists, and
    /// how many.
    verdicts: (u32, u32),
    targets: Option<(u32, u32)>,
}

/// The Black nodes met, with their verdicts.
#[derive(Debug, Default)]
pub(crate) struct Replays {
    nodes: FxHashMap<NodeKey, Node>,
    verdicts: Vec<Verdict>,
    targets: Vec<(Square, Bitboard)>,
}

impl Replays {
    /// Forgets every node (a new search's pictures are others).
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.verdicts.clear();
        self.targets.clear();
    }

    /// Whether node `key` was met before; if so its verdicts go into
    /// `verdicts` and its targets into `onto`, and `Some` tells whether
    /// its moves were generated onto them.
    pub(super) fn get(
        &self,
        key: &NodeKey,
        verdicts: &mut Vec<Verdict>,
        onto: &mut [Bitboard; 64],
    ) -> Option<bool> {
        let node = self.nodes.get(key)?;
        let range = |(start, len): (u32, u32)| start as usize..(start + len) as usize;
        verdicts.clear();
        verdicts.extend_from_slice(&self.verdicts[range(node.verdicts)]);
        if let Some(targets) = node.targets {
            *onto = [Bitboard::EMPTY; 64];
            for &(sq, to) in &self.targets[range(targets)] {
                onto[sq.to_usize()] = to;
            }
        }
        Some(node.targets.is_some())
    }

    /// Keeps node `key`'s `verdicts`, and its targets `onto` (see
    /// [`with_pawn_moves`]) by the squares of Black's units `black` when
    /// its moves were generated onto them.
    pub(super) fn put(
        &mut self,
        key: NodeKey,
        verdicts: &[Verdict],
        black: Bitboard,
        onto: Option<&[Bitboard; 64]>,
    ) {
        if self.nodes.len() >= MAX_NODES {
            self.clear();
        }
        let start = self.verdicts.len() as u32;
        self.verdicts.extend_from_slice(verdicts);
        let targets = onto.map(|onto| {
            let start = self.targets.len() as u32;
            self.targets
                .extend(black.into_iter().map(|sq| (sq, onto[sq.to_usize()])));
            (start, black.count() as u32)
        });
        self.nodes.insert(
            key,
            Node {
                verdicts: (start, verdicts.len() as u32),
                targets,
            },
        );
    }
}

/// Adds every move of Black's pawns on `board` to the targets `onto` of a
/// node whose verdicts are kept: a pawn's targets are judged where it
/// stands among White's units, and another node with these Black units
/// may have others. (Its moves there are judged here, so read back.)
pub(super) fn with_pawn_moves(board: &Board, onto: &mut [Bitboard; 64]) {
    let black = board.black();
    for sq in black & board.pawns() {
        onto[sq.to_usize()] |= pawn_steps(Color::Black, sq, black, !black);
    }
}
