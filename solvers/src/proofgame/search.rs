//! The proof-game search: depth-first over the exact number of plies left,
//! pruned by the static bound, counting solutions with a transposition table
//! of (position, plies left) → number of ways to reach the diagram.
//!
//! Parallel search follows Stelvio: every worker walks the top of the tree
//! (down to the synchronisation depth) in the same order, without the table
//! so that the order is the same for all; each node at the synchronisation
//! depth gets the same number in every worker, and a worker searches it only
//! if that number is larger than the largest claimed so far (one atomic
//! maximum). Each such node is searched by exactly one worker, no locks.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use shakmaty::{Bitboard, Board, Chess, Color, Move, Position};

use super::analysis::{Analysis, MoveBound, Need, Victims};
use super::hash::{self, mix, side_key, BoardHash};
use super::memo::{Answers, Memo, SideCache};
use super::solo::Solo;
use super::{Progress, Rights};
use crate::transposition::{payload, Table};

/// What a search aims at: the diagram, or (last-move retraction) a
/// position before it from which a last move must lead to the diagram.
#[derive(Clone, Copy)]
pub(crate) struct Goal<'g> {
    pub analysis: &'g Analysis,
    /// The diagram, when the analysis is of a retracted position.
    pub last: Option<&'g Board>,
    /// Mixed into table keys: a key means the same fact for every search
    /// towards the same goal, so goals, and searches, can share one table.
    salt: u64,
    /// The castling rights and en-passant square the final position must
    /// have, where the problem states them.
    pub rights: Rights,
}

impl<'g> Goal<'g> {
    pub fn new(analysis: &'g Analysis, last: Option<&'g Board>, rights: Rights) -> Goal<'g> {
        let board = |b: &Board| BoardHash::new(b).board();
        // Distinct constants for "no diagram after" and "any rights", so
        // that they differ from every board and every set of rights.
        let last_key = last.map_or(0x6A09_E667_F3BC_C908, board);
        let castling_key = rights.castling.map_or(0xBB67_AE85_84CA_A73B, |r| r.0);
        let ep_key = rights
            .en_passant
            .map_or(0xA54F_F53A_5F1D_36F1, |ep| ep.map_or(64, |sq| sq as u64));
        Goal {
            analysis,
            last,
            rights,
            salt: mix(mix(mix(mix(board(analysis.target())) ^ last_key) ^ castling_key) ^ ep_key),
        }
    }

    /// Whether `pos` is the goal position (for a retracted goal, the
    /// rights are those after the last move: see
    /// [`Goal::finishing_moves`]).
    fn reached(&self, pos: &Chess) -> bool {
        pos.board() == self.analysis.target() && (self.last.is_some() || self.rights.met_by(pos))
    }

    /// The moves from `pos` (on the goal's board) that end the game.
    fn finishing_moves(&self, pos: &Chess) -> Vec<Move> {
        match self.last {
            None => Vec::new(),
            Some(last) => pos
                .legal_moves()
                .into_iter()
                .filter(|m| {
                    let mut child = pos.clone();
                    child.play_unchecked(*m);
                    child.board() == last && self.rights.met_by(&child)
                })
                .collect(),
        }
    }
}

/// What [`Worker::feasible_keys`] found out that the move bounds use.
struct Feasible {
    /// Both sides' [`side_key`]s, by `Color as usize`.
    sides: [u64; 2],
    /// The units of the side to move that the opponent's pawns must take,
    /// with their cache key.
    turn_victims: Option<(Victims, u64)>,
}

/// State every worker of one search shares.
pub(crate) struct Shared<'a> {
    pub table: &'a Table,
    pub deadline: Option<Instant>,
    pub started: Instant,
    pub progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
    pub sync_depth: u32,
    pub abort: AtomicBool,
    claimed: AtomicU64,
    pub nodes: AtomicU64,
    pub solutions: AtomicU64,
    last_report_ms: AtomicU64,
    /// The length being searched (for progress reports).
    pub plies: AtomicU64,
}

impl<'a> Shared<'a> {
    pub fn new(
        table: &'a Table,
        deadline: Option<Instant>,
        progress: Option<&'a (dyn Fn(&Progress) + Sync)>,
        sync_depth: u32,
    ) -> Shared<'a> {
        Shared {
            table,
            deadline,
            started: Instant::now(),
            progress,
            sync_depth,
            abort: AtomicBool::new(false),
            claimed: AtomicU64::new(0),
            nodes: AtomicU64::new(0),
            solutions: AtomicU64::new(0),
            last_report_ms: AtomicU64::new(0),
            plies: AtomicU64::new(0),
        }
    }

    /// Starts a new count over `plies` (the claim numbering restarts).
    pub fn begin(&self, plies: u32) {
        self.claimed.store(0, Ordering::SeqCst);
        self.plies.store(u64::from(plies), Ordering::Relaxed);
    }

    pub fn aborted(&self) -> bool {
        self.abort.load(Ordering::Relaxed)
    }

    /// Claims node `n` of the synchronisation depth: true for exactly one
    /// worker, the first to get there.
    fn claim(&self, n: u64) -> bool {
        self.claimed.fetch_max(n, Ordering::AcqRel) < n
    }
}

/// Cache sizes (log2 slots) of a searching worker: needs, squares (capture
/// and victim squares, frozen units), capture tests, and move bounds (the
/// matchings too).
const SEARCH_CACHE_BITS: [u32; 4] = [16, 12, 14, 12];
/// Cache sizes of a worker that only tests a few positions.
const PROBE_CACHE_BITS: [u32; 4] = [4; 4];
/// The frozen-unit test runs only for a side with at most this many moves
/// to spare: with more, almost nothing is frozen (on spg170, spg171 and
/// spg200 a limit of 2 prunes the same nodes as none).
const FROZEN_TEST_SLACK: i32 = 2;
/// The own-side test (see [`Solo`]) runs for a side with at most this many
/// moves to spare (itself exact only with none: with some, it is a
/// cheaper bound of the same kind, the side's units still barring each
/// other). On the benchmark to 24 plies, 1, 2 and 3 take 2.2-2.4, 2.1-2.3
/// and 2.1-2.2 s of CPU time against 5.1-5.3 s without the test.
const SOLO_TEST_SLACK: i32 = 2;
/// Log2 of the own-side test's answers a worker keeps, for a search of
/// `plies` half-moves. Each test may leave a few thousand answers, and
/// long searches meet far more states than short ones: on spg252 (39
/// plies) 16 bits thrashed, with the count after 1.a3 Na6 2.a4 Nb4
/// 3.Ra3 taking over 40 s against 25 s with 22. The slots are zero pages
/// until used, but the pages a short search touches still cost (on the
/// benchmark to 24 plies, 22 bits took 5.5 s against 4.9 s for 16).
fn solo_bits(plies: u32) -> u32 {
    (16 + plies.saturating_sub(24) / 2).min(22)
}
/// Log2 of the analyses around frozen units a searching worker keeps.
const AROUND_BITS: u32 = 10;
const FROZEN_SALT: u64 = 0x9FB2_1C65_1E98_DF25;
const VICTIM_SALT: u64 = 0x5DEE_CE66_D1CE_4E5B;
const VICTIM_BOUND_SALT: u64 = 0x2545_F491_4F6C_DD1D;
const SLACK_SALT: u64 = 0xA409_3822_299F_31D0;
/// The capture test runs only for a side with at most this many moves to
/// spare.
const CAPTURE_TEST_SLACK: i32 = 6;

/// One thread's view of a search: its own bound cache and counters.
pub(crate) struct Worker<'s, 'a> {
    shared: &'s Shared<'a>,
    goal: Goal<'s>,
    /// Needs ([`Analysis::need`] or [`Analysis::need_with`]), matchings
    /// and [`Worker::move_bound`]s by key.
    side: SideCache,
    /// Capture squares by (side, its moves left).
    squares: Memo<Bitboard>,
    /// [`Analysis::capture_fits`] by key.
    captures: Answers,
    /// The goal's analysis with frozen units, by their squares (mixed).
    around: Memo<Analysis>,
    /// Each side's solitary games, by `Color as usize`.
    solo: [Solo<'s>; 2],
    /// The moves from the root of the current count to the node searched.
    path: Vec<Move>,
    /// The first games met while counting (at most `keep`): those whose
    /// last position the count reached, rather than taking its subtree's
    /// number from the table.
    pub games: Vec<Vec<Move>>,
    keep: usize,
    nodes: u64,
    /// Nodes met at the synchronisation depth so far (`None`: not parallel).
    sync_seen: Option<u64>,
    /// The node count past which [`Worker::count_within`] stops.
    node_limit: Option<u64>,
    /// Moves each side is denied (by `Color as usize`), and the table salt
    /// that keeps such a search's counts apart (see [`Worker::set_slack`]).
    slack: [i32; 2],
    slack_salt: u64,
}

/// The most games a count holds: the table keeps 56 bits of data (the
/// count plus one), and spg252 has more games of 39 plies than that. A
/// count that reaches it stands for at least that many.
pub(crate) const MAX_GAMES: u64 = (1 << 56) - 2;

/// `a + b` games, at most [`MAX_GAMES`].
pub(crate) fn add_games(a: u64, b: u64) -> u64 {
    a.saturating_add(b).min(MAX_GAMES)
}

fn tt_key(hash: u64, left: u32) -> u64 {
    hash ^ u64::from(left).wrapping_mul(0xD6E8_FEB8_6659_FD93)
}

impl<'s, 'a> Worker<'s, 'a> {
    /// A worker for a search of `plies` half-moves (`parallel`: one of
    /// several) that keeps the first `keep` games it meets.
    pub fn new(
        shared: &'s Shared<'a>,
        goal: Goal<'s>,
        parallel: bool,
        plies: u32,
        keep: usize,
    ) -> Worker<'s, 'a> {
        let mut worker = Worker::sized(shared, goal, parallel, SEARCH_CACHE_BITS, solo_bits(plies));
        worker.keep = keep;
        worker
    }

    /// A worker for [`Worker::feasible`] tests only, with small caches: a
    /// problem may have over a hundred goals to test.
    pub fn probe(shared: &'s Shared<'a>, goal: Goal<'s>) -> Worker<'s, 'a> {
        Worker::sized(shared, goal, false, PROBE_CACHE_BITS, PROBE_CACHE_BITS[0])
    }

    fn sized(
        shared: &'s Shared<'a>,
        goal: Goal<'s>,
        parallel: bool,
        [needs, squares, captures, bounds]: [u32; 4],
        solo: u32,
    ) -> Worker<'s, 'a> {
        Worker {
            shared,
            goal,
            side: SideCache::new(needs, bounds),
            squares: Memo::new(squares),
            captures: Answers::new(captures),
            around: Memo::new(AROUND_BITS.min(bounds)),
            solo: Color::ALL.map(|c| Solo::new(goal.analysis, c, solo)),
            path: Vec::new(),
            games: Vec::new(),
            keep: 0,
            nodes: 0,
            sync_seen: parallel.then_some(0),
            node_limit: None,
            slack: [0; 2],
            slack_salt: 0,
        }
    }

    /// [`Analysis::need`]; `key` is the side's [`side_key`].
    fn need(&mut self, pos: &Chess, color: Color, key: u64) -> Option<Need> {
        let a = self.goal.analysis;
        self.side.need(a, (pos.board(), pos.castles()), color, key)
    }

    /// [`Analysis::move_bound`] of the side to move, by `key`: its
    /// [`side_key`], or with `victims` their key. All the moves
    /// of the other side from one position share it.
    fn move_bound(&mut self, pos: &Chess, key: u64, victims: Option<Victims>) -> Option<MoveBound> {
        let a = self.goal.analysis;
        let (units, turn) = ((pos.board(), pos.castles()), pos.turn());
        match victims {
            None => self.side.bound(a, units, turn, key),
            Some(_) => self.side.bounds.get(key, || {
                a.matching_with(units.0, units.1, turn, victims)
                    .map(|m| a.move_bound(units.0, &m, victims))
            }),
        }
    }

    /// The units of `victim` the opponent's pawns must take: `count` of
    /// them, on the squares those pawns can capture on given the
    /// opponent's `budget` of moves; with a key for caching what follows
    /// from them. `keys` are both sides' [`side_key`]s, by
    /// `Color as usize`.
    fn victims(
        &mut self,
        pos: &Chess,
        (victim, count): (Color, i32),
        budget: i32,
        keys: [u64; 2],
    ) -> (Victims, u64) {
        let a = self.goal.analysis;
        let capturer = (!victim) as usize;
        let capturer_key = mix(keys[capturer] ^ budget as u64);
        let squares = self.squares.get(capturer_key, || {
            let m = self
                .side
                .matching(a, (pos.board(), pos.castles()), !victim, keys[capturer]);
            a.capture_squares(m, budget)
        });
        let key = mix(mix(keys[victim as usize] ^ squares.0) ^ count as u64);
        (Victims { squares, count }, key)
    }

    /// [`Analysis::capture_fits`] of `capturer` within `budget`, the
    /// squares being the opponent's [`Analysis::victim_squares`] within its
    /// `victim_budget`. `keys` are both sides' [`side_key`]s, by
    /// `Color as usize`.
    fn capture_fits(
        &mut self,
        pos: &Chess,
        (capturer, budget): (Color, i32),
        victim_budget: i32,
        keys: [u64; 2],
    ) -> bool {
        let a = self.goal.analysis;
        let victim = (!capturer) as usize;
        // Salted apart from the pawn capture squares sharing the cache.
        let victim_key = mix(keys[victim] ^ victim_budget as u64 ^ VICTIM_SALT);
        let squares = self.squares.get(victim_key, || {
            let m = self
                .side
                .matching(a, (pos.board(), pos.castles()), !capturer, keys[victim]);
            a.victim_squares(m, victim_budget)
        });
        let key = mix(mix(keys[capturer as usize] ^ squares.0) ^ budget as u64);
        self.captures.get(key, || {
            let m = self.side.matching(
                a,
                (pos.board(), pos.castles()),
                capturer,
                keys[capturer as usize],
            );
            a.capture_fits(m, squares, budget)
        })
    }

    /// Whether the diagram may still be reached in exactly `left` plies.
    pub fn feasible(&mut self, pos: &Chess, left: u32) -> bool {
        self.feasible_keys(pos, BoardHash::new(pos.board()), left)
            .is_some()
    }

    /// [`Worker::feasible`], with what the move bounds need when it is;
    /// `hash` is the board's.
    fn feasible_keys(&mut self, pos: &Chess, hash: BoardHash, left: u32) -> Option<Feasible> {
        let board = pos.board();
        // Units each side has more than the diagram, by `Color as usize`.
        let mut surpluses = [0; 2];
        for c in Color::ALL {
            let target = self.goal.analysis.target().by_color(c).count() as i32;
            surpluses[c as usize] = board.by_color(c).count() as i32 - target;
        }
        let surplus = |c: Color| surpluses[c as usize];
        let slack = self.slack;
        let moves_left = |color: Color| {
            let moves = if color == pos.turn() {
                left.div_ceil(2)
            } else {
                left / 2
            };
            moves as i32 - slack[color as usize]
        };
        let a = self.goal.analysis;
        // Indexed by `Color as usize`.
        let mut keys = [0; 2];
        for c in Color::ALL {
            keys[c as usize] = side_key(hash, board, pos.castles(), c);
        }
        // Whether `need` is within what `color` has left.
        let fits = |need: Need, color: Color| {
            let to_capture = surplus(!color);
            need.moves.max(to_capture + need.straight) <= moves_left(color)
                && need.captures <= to_capture
        };
        let mut needs = [None; 2];
        for (i, color) in Color::ALL.into_iter().enumerate() {
            let need = self.need(pos, color, keys[color as usize])?;
            if !fits(need, color) {
                return None;
            }
            needs[i] = Some(need);
        }
        // A side with few moves to spare must find an order of its moves
        // in which its units do not bar each other's ways.
        for (i, color) in Color::ALL.into_iter().enumerate() {
            let budget = (moves_left(color), surplus(!color));
            if needs[i].is_some_and(|n| budget.0 - n.moves <= SOLO_TEST_SLACK)
                && !self.solo[i].feasible(
                    (board, pos.castles(), hash.side(color)),
                    budget,
                    &mut self.side,
                )
            {
                return None;
            }
        }
        // Units that must stay where they are for the rest of the game
        // block the others' ways: the same test around them.
        let mut frozen = Bitboard::EMPTY;
        for (i, color) in Color::ALL.into_iter().enumerate() {
            let budget = moves_left(color);
            if budget - needs[i].map_or(0, |n| n.moves) > FROZEN_TEST_SLACK {
                continue;
            }
            let key = mix(keys[color as usize] ^ budget as u64 ^ FROZEN_SALT);
            frozen |= self.squares.get(key, || {
                let m = self.side.matching(
                    a,
                    (pos.board(), pos.castles()),
                    color,
                    keys[color as usize],
                );
                m.map_or(Bitboard::EMPTY, |m| a.frozen(m, budget))
            });
        }
        if frozen.any() {
            // A search may meet thousands of frozen sets; an analysis
            // takes 20 KB and grows with its lookups, so a bounded cache
            // keeps them, and a dropped one is rebuilt lazily.
            let around = self.around.get_ref(mix(frozen.0), || a.with_frozen(frozen));
            for color in Color::ALL {
                let key = mix(keys[color as usize] ^ frozen.0 ^ FROZEN_SALT);
                let need = self
                    .side
                    .needs
                    .get(key, || around.need(board, pos.castles(), color))?;
                if !fits(need, color) {
                    return None;
                }
            }
        }
        // A side that must still capture needs a unit where the
        // opponent's units can be taken. Detours are short, so the test
        // runs only for a side with few moves to spare.
        for (i, color) in Color::ALL.into_iter().enumerate() {
            let slack = moves_left(color) - needs[i].map_or(0, |n| n.moves);
            if surplus(!color) > 0
                && slack <= CAPTURE_TEST_SLACK
                && !self.capture_fits(pos, (color, moves_left(color)), moves_left(!color), keys)
            {
                return None;
            }
        }
        // Each capture an opponent's pawn must make takes one of this
        // side's units, which must first walk to where it is taken.
        let mut turn_victims = None;
        for (i, color) in Color::ALL.into_iter().enumerate() {
            let Some(capturer) = needs[1 - i] else {
                continue;
            };
            if capturer.captures == 0 {
                continue;
            }
            let (victims, key) =
                self.victims(pos, (color, capturer.captures), moves_left(!color), keys);
            let need = self.side.needs.get(key, || {
                a.need_with(pos.board(), pos.castles(), color, Some(victims))
            })?;
            if !fits(need, color) {
                return None;
            }
            if color == pos.turn() {
                turn_victims = Some((victims, key));
            }
        }
        Some(Feasible {
            sides: keys,
            turn_victims,
        })
    }

    fn tick(&mut self) {
        self.nodes += 1;
        if self.nodes & 0xFFF != 0 {
            return;
        }
        let shared = self.shared;
        let total = shared.nodes.fetch_add(0x1000, Ordering::Relaxed) + 0x1000;
        let now = Instant::now();
        if shared.deadline.is_some_and(|d| now >= d) {
            shared.abort.store(true, Ordering::Relaxed);
        }
        if let Some(report) = shared.progress {
            let ms = now.duration_since(shared.started).as_millis() as u64;
            let last = shared.last_report_ms.load(Ordering::Relaxed);
            if ms >= last + 1000
                && shared
                    .last_report_ms
                    .compare_exchange(last, ms, Ordering::Relaxed, Ordering::Relaxed)
                    .is_ok()
            {
                report(&Progress {
                    plies: shared.plies.load(Ordering::Relaxed) as u32,
                    nodes: total,
                    solutions: shared.solutions.load(Ordering::Relaxed),
                    elapsed: Duration::from_millis(ms),
                });
            }
        }
    }

    /// From now on, counts as if White had `white` moves fewer than it has
    /// and Black `black`: the search a game with that many moves less to
    /// spare would make. The estimate measures how the tree
    /// grows with the moves to spare; these counts are stored in the table
    /// under a salt of their own.
    pub fn set_slack(&mut self, white: i32, black: i32) {
        self.slack[Color::White as usize] = white;
        self.slack[Color::Black as usize] = black;
        self.slack_salt = if (white, black) == (0, 0) {
            0
        } else {
            mix(SLACK_SALT ^ (white as u64) << 8 ^ black as u64)
        };
    }

    /// [`Worker::count`], stopped once this worker has visited `until`
    /// nodes in all: `None` then (and its partial counts are not stored).
    pub fn count_within(&mut self, pos: &Chess, left: u32, depth: u32, until: u64) -> Option<u64> {
        self.node_limit = Some(until);
        let count = self.count(pos, left, depth);
        self.node_limit = None;
        (self.nodes <= until).then_some(count)
    }

    fn past_limit(&self) -> bool {
        self.node_limit.is_some_and(|limit| self.nodes > limit)
    }

    /// Whether the search ran out of budget.
    pub fn aborted(&self) -> bool {
        self.shared.aborted()
    }

    /// Flushes this worker's node count into the shared total.
    pub fn finish(&mut self) {
        self.shared
            .nodes
            .fetch_add(self.nodes & 0xFFF, Ordering::Relaxed);
        self.nodes &= !0xFFF;
    }

    /// Keeps the game that reached the goal at the node searched (and
    /// ends with `last`), while fewer than `keep` are kept.
    fn keep_game(&mut self, last: Option<Move>) {
        if self.games.len() < self.keep {
            self.games
                .push(self.path.iter().copied().chain(last).collect());
        }
    }

    /// Number of games of exactly `left` plies from `pos` to the diagram.
    /// `depth` is the ply count from the root of this search. Counts made
    /// after an abort are partial and never stored.
    pub fn count(&mut self, pos: &Chess, left: u32, depth: u32) -> u64 {
        self.count_keyed(pos, BoardHash::new(pos.board()), left, depth)
    }

    /// [`Worker::count`], `hash` being the key of `pos`'s board.
    fn count_keyed(&mut self, pos: &Chess, hash: BoardHash, left: u32, depth: u32) -> u64 {
        self.tick();
        if self.shared.aborted() || self.past_limit() {
            return 0;
        }
        if left == 0 {
            if !self.goal.reached(pos) {
                return 0;
            }
            let found = match self.goal.last {
                None => {
                    self.keep_game(None);
                    1
                }
                Some(_) => {
                    let finishing = self.goal.finishing_moves(pos);
                    for m in &finishing {
                        self.keep_game(Some(*m));
                    }
                    finishing.len() as u64
                }
            };
            self.shared.solutions.fetch_add(found, Ordering::Relaxed);
            return found;
        }
        let Some(found) = self.expandable(pos, hash, left) else {
            return 0;
        };
        let shared = self.shared;
        let mut above_sync = false;
        if let Some(seen) = self.sync_seen.as_mut() {
            if depth == shared.sync_depth {
                *seen += 1;
                if !shared.claim(*seen) {
                    return 0;
                }
            }
            above_sync = depth < shared.sync_depth;
        }
        // Above the synchronisation depth every worker must see the same
        // tree, so the table (filled in racy order) is not consulted there.
        let key =
            tt_key(hash::position_hash(pos, hash.board()), left) ^ self.goal.salt ^ self.slack_salt;
        if !above_sync {
            if let Some(data) = shared.table.get(key) {
                return payload(data) - 1;
            }
        }
        let mut total = 0;
        for m in self.moves(pos, &found, left) {
            let child_hash = hash.after(pos.turn(), &m);
            let mut child = pos.clone();
            child.play_unchecked(m);
            self.path.push(m);
            total = add_games(
                total,
                self.count_keyed(&child, child_hash, left - 1, depth.saturating_add(1)),
            );
            self.path.pop();
        }
        if !shared.aborted() && !above_sync && !self.past_limit() {
            shared.table.put(key, total + 1, left.min(255) as u8);
        }
        total
    }

    /// The feasibility test of [`Worker::count`] at a node with `left > 0`
    /// plies to go: `None` when no game from `pos` can reach the goal.
    fn expandable(&mut self, pos: &Chess, hash: BoardHash, left: u32) -> Option<Feasible> {
        // Stated castling rights are lost, never gained.
        if self.goal.rights.castling.is_some()
            && !self
                .goal
                .rights
                .still_possible(pos.castles().castling_rights())
        {
            return None;
        }
        self.feasible_keys(pos, hash, left)
    }

    /// The moves [`Worker::count`] plays from `pos` (found expandable with
    /// `left` plies to go): the legal moves less those that the mover's
    /// bound rejects before they are played.
    fn moves(&mut self, pos: &Chess, found: &Feasible, left: u32) -> shakmaty::MoveList {
        // Moves after which the mover's matching alone is out of reach are
        // left out before they are played (the child's test would reject
        // them all the same, so the tree each worker walks is unchanged).
        // While the opponent's units stay, so do the units its pawns must
        // take: a move that captures nothing keeps to that bound too.
        let a = self.goal.analysis;
        let bound = self.move_bound(pos, found.sides[pos.turn() as usize], None);
        let with_victims = found.turn_victims.and_then(|(victims, key)| {
            self.move_bound(pos, mix(key ^ VICTIM_BOUND_SALT), Some(victims))
        });
        let limit = left.div_ceil(2) as i32 - 1 - self.slack[pos.turn() as usize];
        // Units are never gained, so an opponent with no unit to spare
        // cannot lose one.
        let opponent = !pos.turn();
        let spare = pos.board().by_color(opponent).count() > a.target().by_color(opponent).count();
        let mut moves = pos.legal_moves();
        moves.retain(|m| {
            if m.is_capture() && !spare {
                return false;
            }
            let bound = match with_victims {
                Some(_) if !m.is_capture() => &with_victims,
                _ => &bound,
            };
            match (bound, m.from(), m.is_castle()) {
                (Some(bound), Some(from), false) => {
                    a.fits_after(bound, (from, m.to()), (m.role(), m.promotion()), limit)
                }
                _ => true,
            }
        });
        moves
    }

    /// Appends to `out` the work items below `pos` (reached by `path`,
    /// `depth` plies from the root, `left` to go): the nodes at the
    /// synchronisation depth that [`Worker::count`] would search, in the
    /// order in which it numbers them, and any game that ends above that
    /// depth. Each item's games are counted on their own and their sum is
    /// the root's count.
    pub fn frontier(
        &mut self,
        pos: &Chess,
        (left, depth): (u32, u32),
        path: &mut Vec<Move>,
        out: &mut Vec<Vec<Move>>,
    ) {
        if left == 0 {
            if self.goal.reached(pos) {
                out.push(path.clone());
            }
            return;
        }
        let Some(found) = self.expandable(pos, BoardHash::new(pos.board()), left) else {
            return;
        };
        if depth >= self.shared.sync_depth {
            out.push(path.clone());
            return;
        }
        for m in self.moves(pos, &found, left) {
            let mut child = pos.clone();
            child.play_unchecked(m);
            path.push(m);
            self.frontier(&child, (left - 1, depth + 1), path, out);
            path.pop();
        }
    }

    /// Each side's moves to spare at `pos` with `left` plies to go (its
    /// moves left less the least it needs), White's first as in Stelvio's
    /// histogram: its free moves. `None` when the goal is out of reach.
    pub fn free_moves(&mut self, pos: &Chess, left: u32) -> Option<[i32; 2]> {
        let hash = BoardHash::new(pos.board());
        let mut free = [0; 2];
        for (i, color) in [Color::White, Color::Black].into_iter().enumerate() {
            let key = side_key(hash, pos.board(), pos.castles(), color);
            let need = self.need(pos, color, key)?;
            let moves = if color == pos.turn() {
                left.div_ceil(2)
            } else {
                left / 2
            };
            free[i] = moves as i32 - need.moves;
        }
        Some(free)
    }

    /// Nodes this worker has visited (until [`Worker::finish`]).
    pub fn visited(&self) -> u64 {
        self.nodes
    }

    /// Up to `cap` games of exactly `left` plies from `pos`, appended to
    /// `out` (`prefix` is the game so far).
    pub fn lines(
        &mut self,
        pos: &Chess,
        left: u32,
        prefix: &mut Vec<Move>,
        out: &mut Vec<Vec<Move>>,
        cap: usize,
    ) {
        if out.len() >= cap || self.shared.aborted() {
            return;
        }
        if left == 0 {
            if !self.goal.reached(pos) {
                return;
            }
            if self.goal.last.is_none() {
                out.push(prefix.clone());
            }
            for m in self.goal.finishing_moves(pos) {
                if out.len() < cap {
                    let mut game = prefix.clone();
                    game.push(m);
                    out.push(game);
                }
            }
            return;
        }
        for m in pos.legal_moves() {
            let mut child = pos.clone();
            child.play_unchecked(m);
            if self.count(&child, left - 1, u32::MAX) > 0 {
                prefix.push(m);
                self.lines(&child, left - 1, prefix, out, cap);
                prefix.pop();
            }
        }
    }
}
