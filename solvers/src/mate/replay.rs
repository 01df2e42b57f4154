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
pub(super) const MAX_REPLAYED: usize = 4;

/// Nodes kept at most: past them the replays start afresh.
const MAX_NODES: usize = 1 << 16;

/// Verdicts (and targets) a search's lists have room for from the start.
const RESERVED_VERDICTS: usize = 1 << 16;

/// A Black node as its Black moves' verdicts depend on it. (Kept small:
/// each page of memory a search first touches costs a page fault, the
/// time of tens of thousands of instructions.)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct NodeKey {
    /// Black's units' squares, king included; their roles in the
    /// squares' order, three bits each, and Black's castling rights
    /// (their rooks' files) above them.
    black: [u64; 2],
    /// The pictures alive: index, Black's moves for the blocks, the
    /// king's distance.
    alive: [(u16, u8, u8); MAX_REPLAYED],
    left: u8,
    n: u8,
}

impl NodeKey {
    /// The key of Black's node `pos` with `left` plies to go and the
    /// pictures `alive`; `None` with more than [`MAX_REPLAYED`] (or a
    /// picture index past 16 bits).
    pub(super) fn new(pos: &Chess, left: u8, alive: &[Costs]) -> Option<NodeKey> {
        if alive.len() > MAX_REPLAYED {
            return None;
        }
        let board = pos.board();
        let black = board.black();
        let mut roles = 0u64;
        for (i, sq) in black.into_iter().enumerate() {
            let role = board.role_at(sq).map_or(0, |r| r as u64);
            roles |= role << (3 * i);
        }
        let rights = pos.castles().castling_rights() & Bitboard::from_rank(shakmaty::Rank::Eighth);
        let mut key = NodeKey {
            black: [black.0, roles | (rights.0 >> 56) << 48],
            alive: [(0, 0, 0); MAX_REPLAYED],
            left,
            n: alive.len() as u8,
        };
        for (slot, c) in key.alive.iter_mut().zip(alive) {
            let (blocks, king) = c.black();
            *slot = (u16::try_from(c.index).ok()?, blocks, king);
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

/// One Black node's verdicts and targets: where they start in
/// [`Replays`]' lists, and how many verdicts.
#[derive(Debug, Clone, Copy)]
struct Node {
    verdicts: u32,
    n_verdicts: u16,
    /// Whether its moves were generated onto targets, one a Black unit
    /// (in its squares' order) from `targets` on.
    targeted: bool,
    targets: u32,
}

/// The Black nodes met, with their verdicts.
#[derive(Debug, Default)]
pub(crate) struct Replays {
    nodes: FxHashMap<NodeKey, Node>,
    verdicts: Vec<Verdict>,
    targets: Vec<Bitboard>,
}

impl Replays {
    /// Forgets every node (a new search's pictures are others).
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.verdicts.clear();
        self.targets.clear();
    }

    /// Whether node `key` (Black's node on `board`) was met before; if
    /// so its verdicts go into `verdicts` and its targets into `onto`, and
    /// `Some` tells whether its moves were generated onto them.
    pub(super) fn get(
        &self,
        key: &NodeKey,
        board: &Board,
        verdicts: &mut Vec<Verdict>,
        onto: &mut [Bitboard; 64],
    ) -> Option<bool> {
        let node = self.nodes.get(key)?;
        let start = node.verdicts as usize;
        verdicts.clear();
        verdicts.extend_from_slice(&self.verdicts[start..start + usize::from(node.n_verdicts)]);
        if node.targeted {
            *onto = [Bitboard::EMPTY; 64];
            let targets = &self.targets[node.targets as usize..];
            for (sq, &to) in board.black().into_iter().zip(targets) {
                onto[sq.to_usize()] = to;
            }
        }
        Some(node.targeted)
    }

    /// Keeps node `key`'s `verdicts` (Black's node on `board`), and its
    /// targets `onto` (see [`with_pawn_moves`]) when its moves were
    /// generated onto them.
    pub(super) fn put(
        &mut self,
        key: NodeKey,
        board: &Board,
        verdicts: &[Verdict],
        onto: Option<&[Bitboard; 64]>,
    ) {
        if self.nodes.len() >= MAX_NODES {
            self.clear();
        }
        // Room for all at once: pages untouched cost nothing, and a list
        // that grows by copies touches every page it had again.
        if self.verdicts.capacity() == 0 {
            self.verdicts.reserve(RESERVED_VERDICTS);
            self.targets.reserve(RESERVED_VERDICTS);
        }
        let node = Node {
            verdicts: self.verdicts.len() as u32,
            n_verdicts: verdicts.len().min(usize::from(u16::MAX)) as u16,
            targeted: onto.is_some(),
            targets: self.targets.len() as u32,
        };
        self.verdicts
            .extend_from_slice(&verdicts[..usize::from(node.n_verdicts)]);
        if let Some(onto) = onto {
            let black = board.black().into_iter();
            self.targets.extend(black.map(|sq| onto[sq.to_usize()]));
        }
        self.nodes.insert(key, node);
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
