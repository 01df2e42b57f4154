//! Helpmates: every solution, searched with the move-count test and, for
//! longer ones, mate pictures ([`super::picture`]).

use super::immobile::Immobility;
use super::replay::{self, NodeKey, Verdict};
use super::*;
use shakmaty::zobrist::ZobristValue;
use shakmaty::{Bitboard, Role};

/// Table size (log2 of slots) for a helpmate: in proportion to the work,
/// estimated from both sides' mobility in the diagram. Fitted on corpus
/// problems (h#3 with 16 and 55 moves, h#4 with 30): the tree grows as
/// (moves of both sides)^(moves), the proof visits about that to the power
/// 0.85, and a slot per two to four nodes is plenty. A big table costs
/// its zeroing and cache misses, a small one lost transpositions.
pub(super) fn help_table_log2(pos: &Chess, plies: u32) -> u32 {
    let ours = pos.legal_moves().len().max(2) as f64;
    let theirs = pos
        .clone()
        .swap_turn()
        .map_or(ours, |p| p.legal_moves().len().max(2) as f64);
    let tree_log2 = f64::from(plies) / 2.0 * (ours * theirs).log2();
    (0.85 * tree_log2 - 3.0).clamp(16.0, 30.0) as u32
}

/// Mixes the plies left into a position's key for helpmate entries, so the
/// same position at another depth is another entry.
pub(super) fn help_key(hash: u64, left: u8) -> u64 {
    hash ^ (u64::from(left) + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
}

/// The hash of the position after `m` from `pos`, whose hash is `hash`,
/// where it follows from the move alone: shakmaty's update, and a king's
/// move where neither side's castling rights change (shakmaty leaves out
/// every king move, as a king with rights loses them). Helpmates are king
/// walks as often as not: their children would be played and hashed
/// afresh before the table could tell them.
pub(crate) fn hash_after(pos: &Chess, hash: u64, m: &Move) -> Option<u64> {
    if let Some(h) = pos.update_zobrist_hash(Zobrist64(hash), *m, EnPassantMode::Legal) {
        return Some(h.0);
    }
    let Move::Normal {
        role: Role::King,
        from,
        capture,
        to,
        promotion: None,
    } = *m
    else {
        return None;
    };
    let rights = pos.castles().castling_rights();
    let turn = pos.turn();
    if pos.maybe_ep_square().is_some()
        || !(rights & Bitboard::from_rank(turn.backrank())).is_empty()
        || rights.contains(to)
    {
        return None;
    }
    let mut h = Zobrist64(hash);
    h ^= Zobrist64::zobrist_for_white_turn();
    h ^= Zobrist64::zobrist_for_piece(from, Role::King.of(turn));
    h ^= Zobrist64::zobrist_for_piece(to, Role::King.of(turn));
    if let Some(taken) = capture {
        h ^= Zobrist64::zobrist_for_piece(to, taken.of(!turn));
    }
    Some(h.0)
}

/// The move-count test is dropped once this many calls pruned less than
/// one node in [`BOUND_MIN_RATE`]. Dropping it loses no solution.
pub(super) const BOUND_TRIAL: u64 = 20_000;

/// Table size (log2 of slots) at most for a helpmate searched with pictures.
pub(super) const PICTURES_TABLE_LOG2: u32 = 20;

/// Helpmates shorter than this many plies are searched without pictures.
/// From h#2 they pay: the 17 corpus h#2 rows took 408 M instructions
/// without them and 107 M with them (hm134 109 M -> 13 M); below, h#1.5
/// and h#1 cost the same either way (21 M and 22 M over 8 rows), the
/// process's own start most of it.
pub(super) const PICTURES_MIN_PLIES: u8 = 4;

/// Plies left from which a helpstalemate node is tested with
/// [`immobile::immobility`]. hpint 74 (h=6, one thread): 62 s without
/// the test, 17.4 s from two plies, 18.6 s from one; from three, an
/// earlier version of the test took 37 s where two plies took 32 s.
/// With the joint counts and the flights in the reply test, hpint 64
/// took 46.7 s from two plies and 53.8 s from three.
pub(super) const IMMOBILE_MIN_PLIES: u8 = 2;

pub(super) const BOUND_MIN_RATE: u64 = 50;

/// Plies left from which a node's pictures are also tested with each block
/// given its own unit ([`DistinctTest`]), and from which (exclusive)
/// Black's moves are tested so before they are played. On the helpmate
/// rows (one thread, nodes): hm032 114,731 -> 63,186, hm034 92,032 ->
/// 60,256, hm060 267,314 -> 160,483 with the first test (the cheapest
/// unit per block, shared ones counted at their second cheapest); with the
/// least assignment and the test before Black's moves, hm032 21,345,
/// hm034 11,784, hm060 155,132. From 2 plies, the h#3
/// rows with thousands of pictures (hm075, hm113) took 10-30 % longer for
/// the same nodes with the first test; with the present one, 3 and 5 to 7
/// plies made no difference past the noise.
pub(super) const DISTINCT_MIN_PLIES: u8 = 4;

/// The distinct-blocker test of Black's moves before they are played is
/// dropped once it has looked at this many pictures and dropped fewer
/// than one move per [`DISTINCT_PICTURES_PER_DROP`] of them (a picture
/// costs it about a tenth of what playing and searching a move costs).
pub(super) const DISTINCT_TRIAL: u64 = 20_000;

pub(super) const DISTINCT_PICTURES_PER_DROP: u64 = 10;

/// What a solver learns, as it searches, of where the helpmate tests pay.
#[derive(Debug, Default)]
pub(super) struct Worth {
    /// Calls of the move-count test without pictures, and how many pruned:
    /// where it never prunes it is not worth its cost.
    bound_calls: u64,
    bound_prunes: u64,
    /// Where the king's part of the helpstalemate immobility test pays.
    king_tally: immobile::KingTally,
}

impl Solver {
    /// Is the move-count test still worth calling (see [`BOUND_TRIAL`])?
    pub(super) fn bound_pays(&self) -> bool {
        let w = &self.worth;
        w.bound_calls < BOUND_TRIAL || w.bound_prunes * BOUND_MIN_RATE >= w.bound_calls
    }

    /// Is the distinct-blocker test of Black's moves still worth its cost
    /// (see [`DISTINCT_TRIAL`])?
    fn distinct_pays(&self) -> bool {
        let tested = self.shared.distinct_tested.load(Ordering::Relaxed);
        let dropped = self.shared.distinct_dropped.load(Ordering::Relaxed);
        tested < DISTINCT_TRIAL || dropped * DISTINCT_PICTURES_PER_DROP >= tested
    }

    /// Every helpmate solution of `plies` half-moves, and every shorter one
    /// with the same side starting (a short solution is a flaw too).
    pub(super) fn help(&mut self, pos: &Chess, plies: u32, salt: u64) -> Result<Found, Unfinished> {
        let plies = plies.min(u32::from(u8::MAX)) as u8;
        let first = pos.legal_moves();
        // What the tests said is of this search's pictures.
        self.replays.clear();
        self.distinct_memo = DistinctMemo::default();
        // Below h#2 the whole search costs no more than filtering
        // pictures; pictures are of mates.
        let pictures = (plies >= PICTURES_MIN_PLIES && self.mates())
            .then(|| Pictures::enumerate(pos, plies))
            .flatten();
        // With pictures the search visits a small part of the tree the
        // mobility estimate assumes; a table that size costs its zeroing.
        let estimate = help_table_log2(pos, u32::from(plies));
        self.resize(
            match pictures {
                Some(_) => estimate.min(PICTURES_TABLE_LOG2),
                None => estimate,
            },
            salt,
        );
        let units = match pictures {
            Some((pictures, units)) => {
                self.stats.pictures = pictures.len() as u64;
                self.pictures = Some(Arc::new(pictures));
                Some(units)
            }
            None => {
                self.pictures = None;
                None
            }
        };
        // The pictures the diagram reaches, by length: each first move's
        // test starts from those. A first move that is the last ply is
        // judged by mate, not pictures.
        let lengths: Vec<u8> = (1..=plies).rev().step_by(2).collect();
        let root_alive: Vec<Option<Vec<Costs>>> = match (&self.pictures, &units) {
            (Some(pictures), Some(units)) => lengths
                .iter()
                .map(|&length| {
                    (length >= 2).then(|| {
                        let mut alive = Vec::new();
                        pictures.filter(pos, units, length, None, &mut alive);
                        alive
                    })
                })
                .collect(),
            _ => Vec::new(),
        };
        let (per_move, stopped) = self.split(&first, |solver, m| {
            let mut next = pos.clone();
            next.play_unchecked(*m);
            let next_units = units.clone().map(|mut u| {
                u.play(pos.turn(), m);
                u
            });
            let mut path = vec![*m];
            let mut lines = Vec::new();
            let mut kept = Vec::new();
            let mut scratch = Scratch::default();
            for (l, &length) in lengths.iter().enumerate() {
                let mut node = Node {
                    units: next_units.as_ref(),
                    alive: None,
                    exact: false,
                    distinct: false,
                    hash: None,
                };
                let alive = root_alive.get(l).and_then(Option::as_ref);
                if let (Some(pictures), Some(units), Some(alive)) =
                    (&solver.pictures, &units, alive)
                {
                    let mut test = pictures.move_test(pos, units, length, alive, &mut scratch);
                    node.exact = test.keep(m, &mut kept);
                    if kept.is_empty() {
                        continue;
                    }
                    node.alive = Some(&kept);
                }
                solver.help_lines(&next, length - 1, node, &mut path, &mut lines);
            }
            (lines, !solver.out_of_time)
        });
        let examined = per_move.iter().filter(|(_, done)| *done).count();
        let lines: Vec<Vec<Move>> = per_move.into_iter().flat_map(|(l, _)| l).collect();
        let found = Found::Lines(render_lines(pos, &lines));
        if stopped {
            return Err(Unfinished {
                found,
                examined,
                total: first.len(),
            });
        }
        Ok(found)
    }

    /// Appends every continuation of `path` that mates Black after exactly
    /// `left` more plies; returns whether there was one.
    pub(super) fn help_lines(
        &mut self,
        pos: &Chess,
        left: u8,
        node: Node<'_>,
        path: &mut Vec<Move>,
        lines: &mut Vec<Vec<Move>>,
    ) -> bool {
        if left == 0 {
            let mated = pos.turn().is_black() && self.goal.reached(pos);
            if mated {
                lines.push(path.clone());
            }
            return mated;
        }
        if self.tick() || (self.mates() && pos.has_insufficient_material(Color::White)) {
            return false;
        }
        let pictures = self.pictures.clone().zip(node.units);
        // At the last ply the checking moves are found as fast as the test
        // would run. A helpstalemate's king is tested with its other units
        // (see `immobile::immobility` below): its flights' blockers must
        // end there without a move, which this test does not ask.
        if pictures.is_none() && left >= 2 && self.mates() && self.bound_pays() {
            self.worth.bound_calls += 1;
            if !help_bound::may_mate(pos, left) {
                self.worth.bound_prunes += 1;
                return false;
            }
        }
        // The pictures first: cheaper than the table probe's cache miss.
        let mut buffers = Buffers::default();
        // The pictures reachable here, with their costs.
        let mut alive: &[Costs] = &[];
        // The distinct-blocker test, at nodes a few plies up (nearer the
        // end it cost more than it saved): of the node's own pictures
        // unless the parent ran it, and of each Black move's.
        let mut distinct_test = None;
        // Whether every picture of `alive` passed that test with the
        // node's Black units and budget.
        let mut alive_distinct = node.distinct;
        // Whether it tests Black's moves here (made once the table has
        // not answered, unless the node's own test made it).
        let mut black_moves = false;
        if let Some((pictures, units)) = &pictures {
            if self.buffers.len() <= usize::from(left) {
                self.buffers
                    .resize_with(usize::from(left) + 1, Buffers::default);
            }
            buffers = std::mem::take(&mut self.buffers[usize::from(left)]);
            if self.verdicts.len() <= usize::from(left) {
                self.verdicts.resize_with(usize::from(left) + 1, Vec::new);
            }
            // The parent's move test may have found the pictures and their
            // costs; else the filter finds them.
            let mut exact = node.alive.filter(|_| node.exact);
            if exact.is_none() {
                pictures.filter(pos, units, left, node.alive, &mut buffers.alive);
            }
            // A pawn a Black pawn blocks costs more than its distance.
            if let Some(blocked) = BlockedPawn::of(pictures, pos, units) {
                let keeps = blocked.keeper(pictures, left);
                match exact {
                    Some(found) if !found.iter().all(&keeps) => {
                        buffers.alive.clear();
                        buffers.alive.extend(found.iter().filter(|c| keeps(c)));
                        exact = None;
                    }
                    Some(_) => {}
                    None => buffers.alive.retain(&keeps),
                }
            }
            alive = exact.unwrap_or(&buffers.alive);
            if alive.is_empty() {
                self.buffers[usize::from(left)] = buffers;
                return false;
            }
            black_moves =
                pos.turn().is_black() && left > DISTINCT_MIN_PLIES && self.distinct_pays();
            if !node.distinct && left >= DISTINCT_MIN_PLIES {
                let test =
                    distinct_test.insert(DistinctTest::new(pictures, pos, &mut buffers.kind_costs));
                test.keep(left, alive, &mut buffers.distinct, &mut self.distinct_memo);
                if buffers.distinct.is_empty() {
                    self.buffers[usize::from(left)] = buffers;
                    return false;
                }
                alive = &buffers.distinct;
                alive_distinct = true;
                if !black_moves {
                    distinct_test = None;
                }
            }
        }
        // White's last move is found faster than the table's cache miss,
        // and those entries would crowd out the costlier ones.
        // A hash from the parent was probed there already.
        let hash = (left >= 2).then(|| {
            node.hash
                .unwrap_or_else(|| pos.zobrist_hash::<Zobrist64>(EnPassantMode::Legal).0)
        });
        let probed = node.hash.is_some();
        let salt = self.shared.salt;
        if !probed
            && hash.is_some_and(|h| self.shared.table.get(help_key(h ^ salt, left)).is_some())
        {
            self.stats.tt_hits += 1;
            if pictures.is_some() {
                self.buffers[usize::from(left)] = buffers;
            }
            return false;
        }
        if let (true, None, Some((pictures, _))) = (black_moves, &distinct_test, &pictures) {
            distinct_test = Some(DistinctTest::new(pictures, pos, &mut buffers.kind_costs));
        }
        // Stalemate nodes that fail the immobility test go into the table:
        // the same position comes again by other move orders, and the
        // parent's probe then skips it before playing the move.
        let mut must_take = None;
        if self.goal == Goal::Stalemate && left >= IMMOBILE_MIN_PLIES {
            match immobile::immobility(pos, left, &mut self.worth.king_tally) {
                Immobility::Hopeless => {
                    if let Some(hash) = hash {
                        self.shared.table.put(help_key(hash ^ salt, left), 1, left);
                    }
                    return false;
                }
                Immobility::MustTake(units) => must_take = Some(units),
                Immobility::Open => {}
            }
        }
        // White's mating move takes a named unit of an alive picture onto
        // its square, or a unit off its checker's line.
        let last = match (left, &pictures) {
            (1, Some((pictures, units))) => Some(pictures.last_moves(units, alive)),
            _ => None,
        };
        // Most moves lose every picture; finding that out before playing
        // them saves the copies, and the child filters only the pictures
        // the move may keep. The last ply's children are judged by mate.
        let mut test = pictures
            .as_ref()
            .filter(|_| left >= 2)
            .map(|(pictures, units)| {
                let scratch = buffers.scratch.get_or_insert_with(Box::default);
                pictures.move_test(pos, units, left, alive, scratch)
            });
        // Black's last move completes a picture: only a few moves are
        // worth making, and only those are generated. So are the moves of
        // a side no picture has a move to spare for.
        let mut onto = [shakmaty::Bitboard::EMPTY; 64];
        // A Black node met before (where the distinct-blocker test runs)
        // has its targets and verdicts read back (see `replay`); a new
        // one's are kept for the next.
        let replay_key = distinct_test
            .as_ref()
            .filter(|_| self.replays.pay())
            .and_then(|_| NodeKey::new(pos, left, alive));
        // Its verdicts, as read back or as found (kept apart from
        // `buffers`, which move in and out of their place at every node).
        let mut verdicts = match replay_key {
            Some(_) => std::mem::take(&mut self.verdicts[usize::from(left)]),
            None => Vec::new(),
        };
        verdicts.clear();
        let replayed = replay_key.as_ref().and_then(|key| {
            let board = pos.board();
            self.replays
                .get(key, alive, board, &mut verdicts, &mut onto)
        });
        let recording = replay_key.is_some() && replayed.is_none();
        let mut targeted = match (left, pos.turn(), &pictures, replayed) {
            (_, _, _, Some((targeted, _))) => targeted,
            (2, Color::Black, Some((pictures, _)), _) => {
                pictures.last_black_targets(pos, alive, &mut onto)
            }
            _ => test
                .as_mut()
                .is_some_and(|t| t.targets(pos.board(), &mut onto)),
        };
        // Where Black has moves to spare only as long as two blocks may
        // share a unit, the distinct-blocker test leaves it none: its
        // moves are then those that bring a unit nearer a block.
        if let Some(d) = distinct_test
            .as_mut()
            .filter(|_| !targeted && replayed.is_none())
        {
            targeted = d.targets(pos.board(), left, alive, &mut self.distinct_memo, &mut onto);
        }
        if recording && targeted {
            replay::with_pawn_moves(pos.board(), &mut onto);
        }
        // White's mating move must give check; few moves can stalemate.
        // (The list is built where it stays: it is kilobytes.)
        let mut moves = if targeted {
            MoveList::new()
        } else {
            candidate_moves(pos, (left == 1).then_some(self.goal))
        };
        if targeted {
            moves_onto(pos, |from| onto[from.to_usize()], &mut moves);
        }
        if let Some(last) = last {
            moves.retain(|m| last.may_be(m));
        }
        if let Some(units) = must_take {
            moves.retain(|m| immobile::takes(m).is_some_and(|sq| units.contains(sq)));
        }
        // At Black's last move, most moves leave White's last one nothing
        // that stalemates: told before playing them, they cost no copy
        // and no stalemate test at the child.
        if left == 2 && self.goal == Goal::Stalemate {
            if let Some(test) = ReplyTest::new(pos) {
                moves.retain(|m| test.may_stalemate(pos, m));
            }
        }
        let mut any = false;
        for m in &moves {
            let mut exact = false;
            let mut distinct = false;
            let replay = replayed.and_then(|(_, places)| {
                let v = verdicts.iter().find(|v| v.is(m))?;
                Some((*v, places))
            });
            if let Some((v, places)) = replay {
                (exact, distinct) = (v.exact, v.distinct);
                v.pictures(alive, &places, false, &mut buffers.kept);
                if distinct {
                    v.pictures(alive, &places, true, &mut buffers.distinct_kept);
                }
            } else {
                if let Some(test) = &mut test {
                    exact = test.keep(m, &mut buffers.kept);
                }
                // Black's moves that leave no picture's blocks to distinct
                // units (most, at a node with little to spare) are told
                // before they are played.
                if let Some(d) = distinct_test.as_mut().filter(|_| !buffers.kept.is_empty()) {
                    distinct = d.keep_after(
                        m,
                        left - 1,
                        &buffers.kept,
                        &mut buffers.distinct_kept,
                        &mut self.distinct_memo,
                    );
                    // Only the moves the test follows count for its switch.
                    if distinct {
                        let tested = buffers.kept.len() as u64;
                        self.shared
                            .distinct_tested
                            .fetch_add(tested, Ordering::Relaxed);
                        if buffers.distinct_kept.is_empty() {
                            self.shared.distinct_dropped.fetch_add(1, Ordering::Relaxed);
                        }
                    }
                }
                if recording {
                    verdicts.extend(Verdict::new(
                        m,
                        alive,
                        (exact, &buffers.kept),
                        (distinct, &buffers.distinct_kept),
                    ));
                }
            }
            if test.is_some() && buffers.kept.is_empty()
                || distinct && buffers.distinct_kept.is_empty()
            {
                continue;
            }
            // A child the table knows fails is not even played: its hash
            // follows from the move (when shakmaty can tell it cheaply).
            let child_hash = hash
                .filter(|_| left >= 3)
                .and_then(|h| hash_after(pos, h, m));
            if let Some(h) = child_hash {
                if self
                    .shared
                    .table
                    .get(help_key(h ^ salt, left - 1))
                    .is_some()
                {
                    self.stats.tt_hits += 1;
                    continue;
                }
            }
            let mut next = pos.clone();
            next.play_unchecked(*m);
            let next_units = pictures.as_ref().map(|(_, units)| {
                let mut u = (*units).clone();
                u.play(pos.turn(), m);
                u
            });
            let kept = if distinct {
                &buffers.distinct_kept
            } else {
                &buffers.kept
            };
            // A White move that takes nothing leaves Black's units and
            // Black's moves left as they were: the pictures that passed
            // the distinct-blocker test here pass it there.
            let white_keeps = pos.turn().is_white() && alive_distinct && !m.is_capture();
            let child = Node {
                units: next_units.as_ref(),
                alive: test.as_ref().map(|_| kept.as_slice()),
                exact,
                distinct: distinct || white_keeps,
                hash: child_hash,
            };
            path.push(*m);
            any |= self.help_lines(&next, left - 1, child, path, lines);
            path.pop();
            if self.out_of_time {
                break;
            }
        }
        if let Some(key) = replay_key {
            if recording && !self.out_of_time {
                let onto = targeted.then_some(&onto);
                self.replays.put(key, alive, pos.board(), &verdicts, onto);
            }
            self.verdicts[usize::from(left)] = verdicts;
        }
        if pictures.is_some() {
            self.buffers[usize::from(left)] = buffers;
        }
        if self.out_of_time {
            return any;
        }
        if let (false, Some(hash)) = (any, hash) {
            self.shared.table.put(help_key(hash ^ salt, left), 1, left);
        }
        any
    }
}

/// A helpmate node's picture lists, kept per plies left for reuse.
#[derive(Debug, Default)]
pub(super) struct Buffers {
    /// The pictures reachable at the node, with their costs, when the
    /// parent's move test could not tell them (or a blocked pawn drops
    /// some of those it told).
    pub(super) alive: Vec<Costs>,
    /// Those a move may keep, with their costs after it.
    pub(super) kept: Vec<Costs>,
    /// Those of `alive` whose blocks distinct units can fill.
    pub(super) distinct: Vec<Costs>,
    /// Those of `kept` whose blocks distinct units can fill after the
    /// move.
    pub(super) distinct_kept: Vec<Costs>,
    /// The distinct-blocker test's costs (see [`DistinctTest::new`]).
    pub(super) kind_costs: Vec<KindCosts>,
    /// The move test's working tables (boxed: the buffers move in and
    /// out of their place at every node).
    pub(super) scratch: Option<Box<Scratch>>,
}

/// What a helpmate node inherits from its parent for the picture test.
#[derive(Debug, Clone, Copy)]
pub(super) struct Node<'a> {
    /// The diagram's units where they stand now (with pictures only).
    pub(super) units: Option<&'a Units>,
    /// The pictures the parent's move may have kept; `None` at the first
    /// level.
    pub(super) alive: Option<&'a [Costs]>,
    /// Whether `alive` is exactly what the filter would find here, costs
    /// included (see [`picture::movetest::MoveTest::keep`]).
    pub(super) exact: bool,
    /// Whether the parent's distinct-blocker test chose `alive` (see
    /// [`DistinctTest`]).
    pub(super) distinct: bool,
    /// The position's hash, when the parent worked it out (and found it
    /// missing from the table).
    pub(super) hash: Option<u64>,
}
