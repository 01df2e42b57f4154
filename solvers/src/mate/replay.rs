//! Black's move verdicts at a helpmate node, read back where the same
//! Black side comes again.
//!
//! In a king walk most of White's moves leave Black's side as it was, so
//! a Black node (its units and castling rights, the plies left, and the
//! pictures alive there with their Black costs) comes again under other
//! White positions: hm032 (h#6) looked up 4,000 Black nodes, of which
//! 3,014 had been met with the same pictures or more. What the move test
//! and the distinct-blocker test say of a Black move that takes nothing
//! depends on that alone, picture by picture (White's costs are copied
//! through), and so do the targets Black's moves are generated onto (but
//! a pawn's, see [`with_pawn_moves`]). So they are worked out at the
//! first such node and read back at the others; a move the first node
//! did not judge (one that takes, castles or takes en passant, or was
//! not legal there) is judged where it comes. Where few nodes come again
//! they cost more than they save, and stop (see [`Replays::pay`]).

use super::picture::{black_planes, black_rights, Costs};
use crate::checking::pawn_steps;
use crate::fxhash::FxHashMap;
use shakmaty::{Bitboard, Board, Chess, Color, Move, Position, Role, Square};

/// Pictures a node may have for its verdicts to be kept (more are rare
/// where the distinct-blocker test runs, and make long keys).
pub(super) const MAX_REPLAYED: usize = 4;

/// Nodes and verdicts kept at most (about 16 MB): past them the replays
/// start afresh.
const MAX_NODES: usize = 1 << 16;
const MAX_VERDICTS: usize = 1 << 20;

/// Verdicts (and targets) a search's lists have room for from the start.
const RESERVED_VERDICTS: usize = 1 << 16;

/// A Black node as its Black moves' verdicts depend on it, but for its
/// pictures: Black's side (see [`black_planes`]) and castling rights,
/// and the plies left. (A node with the same side and fewer pictures
/// reads its verdicts too, see [`Replays::get`].)
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub(super) struct NodeKey {
    planes: [u64; 3],
    /// The files of the rooks Black may castle with.
    rights: u8,
    left: u8,
}

impl NodeKey {
    /// The key of Black's node `pos` with `left` plies to go and the
    /// pictures `alive`; `None` with more than [`MAX_REPLAYED`] pictures
    /// (or a picture index past 16 bits), whose verdicts are not kept.
    pub(super) fn new(pos: &Chess, left: u8, alive: &[Costs]) -> Option<NodeKey> {
        let small = alive.len() <= MAX_REPLAYED && alive.iter().all(|c| c.index <= 0xffff);
        small.then(|| NodeKey {
            planes: black_planes(pos.board()),
            rights: black_rights(pos),
            left,
        })
    }
}

/// A node's pictures as kept: index, Black's moves for the blocks, the
/// king's distance.
fn picture(c: &Costs) -> (u16, u8, u8) {
    let (blocks, king) = c.black();
    (c.index as u16, blocks, king)
}

/// Where a node's pictures stand among those of the node met before
/// whose verdicts it reads.
pub(super) type Places = [u8; MAX_REPLAYED];

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

    /// Of the pictures `alive` (standing at `places` among the judged
    /// node's), those the move test kept (`distinct` false) or the
    /// distinct-blocker test kept, with their costs after the move, into
    /// `into`.
    pub(super) fn pictures(
        &self,
        alive: &[Costs],
        places: &Places,
        distinct: bool,
        into: &mut Vec<Costs>,
    ) {
        into.clear();
        let kept = if distinct {
            self.distinct_kept
        } else {
            self.kept
        };
        for (c, &place) in alive.iter().zip(places) {
            if kept & 1 << place != 0 {
                into.push(c.with_black(self.costs[usize::from(place)]));
            }
        }
    }
}

/// One Black node's pictures, and its verdicts and targets: where they
/// start in [`Replays`]' lists, and how many verdicts.
#[derive(Debug, Clone, Copy)]
struct Node {
    pictures: [(u16, u8, u8); MAX_REPLAYED],
    n_pictures: u8,
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
    /// Nodes looked up, and found: where few are found, keeping them
    /// costs more than it saves (see [`Replays::pay`]).
    asked: u64,
    found: u64,
}

/// Nodes looked up before the replays may stop for finding too few.
const TRIAL: u64 = 1_000;

/// The replays stop where fewer than one node in this many is found
/// (hm028, h#6: one in five; its instructions went up 4 % with them).
const FOUND_SHARE: u64 = 4;

impl Replays {
    /// Forgets every node (a new search's pictures are others).
    pub(super) fn clear(&mut self) {
        self.nodes.clear();
        self.verdicts.clear();
        self.targets.clear();
        (self.asked, self.found) = (0, 0);
    }

    /// Whether the replays are still worth keeping (see [`FOUND_SHARE`]).
    pub(super) fn pay(&self) -> bool {
        self.asked < TRIAL || self.found * FOUND_SHARE >= self.asked
    }

    /// Whether a node with key `key` (Black's node on `board`) and the
    /// pictures `alive` or more was met before; if so its verdicts go into
    /// `verdicts` and its targets into `onto`, and `Some` tells whether
    /// its moves were generated onto them, and where `alive` stand among
    /// its pictures. (A move that keeps one of `alive` keeps it there too,
    /// each picture's verdict its own: so it is on those targets.)
    pub(super) fn get(
        &mut self,
        key: &NodeKey,
        alive: &[Costs],
        board: &Board,
        verdicts: &mut Vec<Verdict>,
        onto: &mut [Bitboard; 64],
    ) -> Option<(bool, Places)> {
        self.asked += 1;
        let node = self.nodes.get(key)?;
        let judged = &node.pictures[..usize::from(node.n_pictures)];
        let mut places = [0; MAX_REPLAYED];
        for (place, c) in places.iter_mut().zip(alive) {
            *place = judged.iter().position(|&p| p == picture(c))? as u8;
        }
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
        self.found += 1;
        Some((node.targeted, places))
    }

    /// Keeps the `verdicts` of node `key` with pictures `alive` (Black's
    /// node on `board`), and its targets `onto` (see [`with_pawn_moves`])
    /// when its moves were generated onto them, in place of any node kept
    /// with that key.
    pub(super) fn put(
        &mut self,
        key: NodeKey,
        alive: &[Costs],
        board: &Board,
        verdicts: &[Verdict],
        onto: Option<&[Bitboard; 64]>,
    ) {
        if self.nodes.len() >= MAX_NODES || self.verdicts.len() >= MAX_VERDICTS {
            self.clear();
        }
        // Room for all at once: pages untouched cost nothing, and a list
        // that grows by copies touches every page it had again.
        if self.verdicts.capacity() == 0 {
            self.verdicts.reserve(RESERVED_VERDICTS);
            self.targets.reserve(RESERVED_VERDICTS);
        }
        let mut node = Node {
            pictures: [(0, 0, 0); MAX_REPLAYED],
            n_pictures: alive.len() as u8,
            verdicts: self.verdicts.len() as u32,
            n_verdicts: verdicts.len().min(usize::from(u16::MAX)) as u16,
            targeted: onto.is_some(),
            targets: self.targets.len() as u32,
        };
        for (slot, c) in node.pictures.iter_mut().zip(alive) {
            *slot = picture(c);
        }
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
