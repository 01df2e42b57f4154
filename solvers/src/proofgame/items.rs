//! Work items: the nodes at the synchronisation depth (and any game that
//! ends above it), each counted on its own with nothing shared but the
//! table. They are the unit a long search is measured, checkpointed and
//! spread over machines by:
//!
//! - [`count_items`] counts one length item by item, asking a [`Ledger`]
//!   for the items already done (by an earlier run cut short, or by other
//!   machines) and telling it of each one finished; the sum and the games
//!   listed equal those of [`super::solve`] without a ledger.
//! - [`estimate_items`] draws random descents below the items (Knuth's
//!   estimator) to size the search before it is run, and counts the items
//!   by their free moves as Stelvio's histogram mode does.

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::Instant;

use shakmaty::uci::UciMove;
use shakmaty::{Chess, Move, Position};

use super::search::{add_games, Goal, Shared, Worker, MAX_GAMES};

/// Names one work item of a search: which goal (the diagram, or one
/// position before it when the last move is retracted), which length, and
/// its place in the order the search meets the items in. The same problem
/// searched with the same options names the same items the same way on
/// every run and every machine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ItemKey {
    /// Index of the goal (0 but for a retracted last move).
    pub goal: usize,
    /// The length (half-moves from the initial array to the diagram) being
    /// counted.
    pub plies: u32,
    /// The item's place among the items of this goal and length.
    pub index: usize,
    /// How many items this goal and length has.
    pub of: usize,
}

/// What a finished item found: its exact number of games (at most
/// 2^56 - 2) and its first games, each as the moves from the initial
/// array in UCI, space-separated.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ItemResult {
    pub count: u64,
    /// Whether the games were listed (up to the search's cap). They are
    /// not when the items before this one were known to hold enough
    /// games for the list already.
    pub listed: bool,
    pub games: Vec<String>,
}

/// Where finished items are kept. The search calls it from several threads.
pub trait Ledger: Sync {
    /// The result of `item`, when it was recorded before.
    fn known(&self, item: &ItemKey) -> Option<ItemResult>;
    /// Whether this process searches `item` when it is not known (a task
    /// of a job array searches only its share).
    fn mine(&self, item: &ItemKey) -> bool {
        let _ = item;
        true
    }
    /// `item` was searched to the end.
    fn record(&self, item: &ItemKey, result: &ItemResult);
}

/// One length of one goal, as [`super::solve`] counts it.
#[derive(Clone, Copy)]
pub(super) struct Work<'g> {
    pub goal: Goal<'g>,
    pub goal_index: usize,
    /// The length counted (to the diagram).
    pub plies: u32,
    /// Plies from the initial array to the goal (`plies` less the
    /// retracted move).
    pub left: u32,
    /// Games to list.
    pub cap: usize,
}

/// The items of `work`, each as the moves from `start` to its node.
pub(super) fn items(shared: &Shared, work: &Work, start: &Chess) -> Vec<Vec<Move>> {
    let mut worker = Worker::new(shared, work.goal, false, work.left, 0);
    let mut out = Vec::new();
    worker.frontier(start, (work.left, 0), &mut Vec::new(), &mut out);
    worker.finish();
    out
}

/// The games of `work`, counted item by item on the current rayon pool,
/// those `ledger` knows taken from it and those found told to it. The
/// count is complete when every item is known or searched; the games listed
/// are the first `work.cap` in the search's order, as without a ledger.
pub(super) fn count_items(
    shared: &Shared,
    work: &Work,
    start: &Chess,
    ledger: &dyn Ledger,
) -> (u64, bool, Vec<Vec<Move>>) {
    shared.begin(work.left);
    let paths = items(shared, work, start);
    let results = Mutex::new(Results::new(paths.len(), work.cap));
    let key = |index| ItemKey {
        goal: work.goal_index,
        plies: work.plies,
        index,
        of: paths.len(),
    };
    // Items are taken in order, so that those before one are done or
    // under way, and whether its games will be listed is mostly known.
    let next = AtomicUsize::new(0);
    rayon::broadcast(|_| {
        let mut worker = Worker::new(shared, work.goal, false, work.left, 0);
        loop {
            let index = next.fetch_add(1, Ordering::Relaxed);
            if index >= paths.len() || shared.aborted() {
                break;
            }
            let key = key(index);
            let known = ledger
                .known(&key)
                .filter(|r| r.games.iter().all(|g| parse_game(start, g).is_some()));
            let result = match known {
                Some(result) => Some(result),
                None if ledger.mine(&key) => {
                    let list = lock(&results).may_list(index);
                    let found = search_item(&mut worker, start, &paths[index], work, list);
                    if let Some(result) = &found {
                        ledger.record(&key, result);
                    }
                    found
                }
                None => None,
            };
            if let Some(result) = result {
                lock(&results).done(index, result);
            }
        }
        worker.finish();
    });
    let mut results = results.into_inner().unwrap_or_else(|e| e.into_inner());
    let complete = !shared.aborted() && results.items.iter().all(Option::is_some);
    let mut count = 0;
    let mut games = Vec::new();
    let mut worker = Worker::new(shared, work.goal, false, work.left, 0);
    for (index, result) in results.items.iter_mut().enumerate() {
        let Some(result) = result else {
            continue;
        };
        count = add_games(count, result.count);
        if games.len() >= work.cap || result.count == 0 {
            continue;
        }
        // Not listed when recorded, yet needed (an item before it was
        // dropped from the ledger): listed now.
        if !result.listed && complete {
            if let Some(found) = search_item(&mut worker, start, &paths[index], work, true) {
                ledger.record(&key(index), &found);
                *result = found;
            }
        }
        for game in &result.games {
            if games.len() < work.cap {
                games.extend(parse_game(start, game));
            }
        }
    }
    worker.finish();
    (count, complete && count < MAX_GAMES, games)
}

/// The items' results so far, in the search's order.
struct Results {
    items: Vec<Option<ItemResult>>,
    cap: usize,
    /// Items from the first on that are all done, and their games.
    prefix: usize,
    prefix_games: u64,
}

impl Results {
    fn new(items: usize, cap: usize) -> Results {
        Results {
            items: vec![None; items],
            cap,
            prefix: 0,
            prefix_games: 0,
        }
    }

    /// Whether the games of item `index` may be among those listed: unless
    /// the items done before it hold enough.
    fn may_list(&self, index: usize) -> bool {
        !(self.prefix <= index && self.prefix_games >= self.cap as u64)
    }

    fn done(&mut self, index: usize, result: ItemResult) {
        self.items[index] = Some(result);
        while let Some(Some(r)) = self.items.get(self.prefix) {
            self.prefix_games = add_games(self.prefix_games, r.count);
            self.prefix += 1;
        }
    }
}

fn lock<T>(mutex: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(|e| e.into_inner())
}

/// Counts the games through the item reached by `path` and, if `list`,
/// lists the first `work.cap` of them; `None` when the budget ran out
/// first.
fn search_item(
    worker: &mut Worker,
    start: &Chess,
    path: &[Move],
    work: &Work,
    list: bool,
) -> Option<ItemResult> {
    let mut node = start.clone();
    for m in path {
        node.play_unchecked(*m);
    }
    let (left, depth) = (work.left - path.len() as u32, path.len() as u32);
    let count = worker.count(&node, left, depth);
    let mut games = Vec::new();
    if count > 0 && list {
        worker.lines(&node, left, &mut path.to_vec(), &mut games, work.cap);
    }
    if worker.aborted() {
        return None;
    }
    Some(ItemResult {
        count,
        listed: list,
        games: games.iter().map(|g| uci_game(g)).collect(),
    })
}

/// A game as UCI moves, space-separated.
fn uci_game(game: &[Move]) -> String {
    let moves: Vec<String> = game
        .iter()
        .map(|m| m.to_uci(shakmaty::CastlingMode::Standard).to_string())
        .collect();
    moves.join(" ")
}

/// The moves of a game written by [`uci_game`], when each is legal in turn.
fn parse_game(start: &Chess, game: &str) -> Option<Vec<Move>> {
    let mut pos = start.clone();
    let mut moves = Vec::new();
    for token in game.split_whitespace() {
        let m = token.parse::<UciMove>().ok()?.to_move(&pos).ok()?;
        pos.play_unchecked(m);
        moves.push(m);
    }
    Some(moves)
}

/// The size of a search, estimated before it is run (see
/// [`super::estimate`]).
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// Work items, over all goals and lengths.
    pub items: u64,
    /// Items by each side's free moves at the item (white, black), most
    /// free first.
    pub histogram: Vec<([i32; 2], u64)>,
    /// Estimated nodes of the whole search, and its range.
    pub nodes: f64,
    pub low_nodes: f64,
    pub high_nodes: f64,
    /// Whether some length was too large to count and its size was
    /// extrapolated (otherwise the nodes are the search's own).
    pub extrapolated: bool,
    /// Nodes the estimate's searches visited, and the seconds they took:
    /// the search's own rate on this machine, one thread.
    pub visited: u64,
    pub seconds: f64,
}

impl Sample {
    /// Nodes per second of one thread searching, as the estimate measured.
    pub fn rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.visited as f64 / self.seconds
        } else {
            0.0
        }
    }
}

/// An extrapolated estimate's range: this factor either side of it. The
/// product of [`super::estimate`] takes each side's last free move to
/// multiply the tree as it multiplies the smaller one, which it need not;
/// on the corpus the searches came to 0.69 to 1.3 times the estimate
/// (solvers/tests/proofgame_estimate.rs and the unit tests here).
pub const SPREAD: f64 = 3.0;

/// Adds to `sample` the items of `work` and the size of its search, as
/// [`super::estimate`] tells.
pub(super) fn estimate_items(
    shared: &Shared,
    work: &Work,
    start: &Chess,
    count_nodes: u64,
    sample: &mut Sample,
) {
    let paths = items(shared, work, start);
    sample.items += paths.len() as u64;
    if paths.is_empty() {
        return;
    }
    let mut worker = Worker::new(shared, work.goal, false, work.left, 0);
    let nodes: Vec<(Chess, u32, u32)> = paths
        .iter()
        .map(|path| {
            let mut node = start.clone();
            for m in path {
                node.play_unchecked(*m);
            }
            let depth = path.len() as u32;
            (node, work.left - depth, depth)
        })
        .collect();
    for (node, left, _) in &nodes {
        let Some(free) = worker.free_moves(node, *left) else {
            continue;
        };
        match sample.histogram.iter_mut().find(|(f, _)| *f == free) {
            Some((_, n)) => *n += 1,
            None => sample.histogram.push((free, 1)),
        }
    }
    sample
        .histogram
        .sort_by_key(|&(free, _)| std::cmp::Reverse(free));
    let started = Instant::now();
    // Nodes with `white` and `black` moves fewer for each side.
    let mut size = |white: i32, black: i32| {
        shared.table.new_search();
        worker.set_slack(white, black);
        let before = worker.visited();
        for (node, left, depth) in &nodes {
            worker.count(node, *left, *depth);
        }
        (worker.visited() - before) as f64
    };
    let both = size(1, 1);
    let extrapolated = size(0, 1) * size(1, 0) / both;
    worker.set_slack(0, 0);
    // The search itself, counted when the product is small enough.
    let small = extrapolated < count_nodes as f64;
    let counted = if small {
        shared.table.new_search();
        let until = worker.visited().saturating_add(count_nodes);
        let before = worker.visited();
        let whole = nodes
            .iter()
            .all(|(node, left, depth)| worker.count_within(node, *left, *depth, until).is_some());
        whole.then(|| (worker.visited() - before) as f64)
    } else {
        None
    };
    let (n, low, high) = match counted {
        Some(n) => (n, n, n),
        None if small => {
            // The count stopped at its limit: that many at least.
            let n = count_nodes as f64;
            (n, n, n * SPREAD)
        }
        None => (extrapolated, extrapolated / SPREAD, extrapolated * SPREAD),
    };
    sample.nodes += n;
    sample.low_nodes += low;
    sample.high_nodes += high;
    sample.extrapolated |= counted.is_none();
    sample.visited += worker.visited();
    sample.seconds += started.elapsed().as_secs_f64();
    worker.finish();
}

#[cfg(test)]
mod tests {
    use std::collections::HashMap;

    use shakmaty::fen::Fen;

    use super::*;
    use crate::proofgame::{solve, Options};

    type Store = Mutex<HashMap<ItemKey, ItemResult>>;

    /// Items in memory; with a share `(task, tasks)`, only every `tasks`th
    /// item is searched, as one task of a job array does.
    struct Memory<'a> {
        store: &'a Store,
        share: Option<(usize, usize)>,
        searched: AtomicUsize,
    }

    impl Ledger for Memory<'_> {
        fn known(&self, item: &ItemKey) -> Option<ItemResult> {
            lock(self.store).get(item).cloned()
        }
        fn mine(&self, item: &ItemKey) -> bool {
            self.share
                .is_none_or(|(task, tasks)| item.index % tasks == task)
        }
        fn record(&self, item: &ItemKey, result: &ItemResult) {
            self.searched.fetch_add(1, Ordering::Relaxed);
            lock(self.store).insert(*item, result.clone());
        }
    }

    /// spg189 of the corpus (cooked: two games of 22 plies) counted in
    /// three shares, then merged from what they recorded, gives the
    /// search's own count, games and verdict, searching nothing more.
    #[test]
    fn items_counted_in_shares_and_merged_equal_one_search() {
        let board = "rn1qkbnr/pp2pppp/1N6/8/1KP5/RQ6/q2PPPPP/1bB2B1R"
            .parse::<Fen>()
            .unwrap()
            .into_setup()
            .board;
        let plain = solve(&board, 22, &Options::default()).unwrap();
        assert_eq!(plain.exact.count, 2);
        let store = Store::default();
        for task in 0..3 {
            let share = Memory {
                store: &store,
                share: Some((task, 3)),
                searched: AtomicUsize::new(0),
            };
            let options = Options {
                ledger: Some(&share),
                ..Options::default()
            };
            let part = solve(&board, 22, &options).unwrap();
            // The last share finds the others' items recorded.
            assert_eq!(part.exact.complete, task == 2);
            assert!(share.searched.load(Ordering::Relaxed) > 0);
        }
        let all = Memory {
            store: &store,
            share: None,
            searched: AtomicUsize::new(0),
        };
        let options = Options {
            ledger: Some(&all),
            ..Options::default()
        };
        let merged = solve(&board, 22, &options).unwrap();
        assert_eq!(all.searched.load(Ordering::Relaxed), 0);
        assert_eq!(merged.judgement, plain.judgement);
        assert_eq!(merged.exact, plain.exact);
        assert_eq!(merged.short, plain.short);
    }

    /// Counted, the estimate is the search's size; extrapolated, it is
    /// within 3x of it (spg189: 0.77).
    #[test]
    fn an_estimate_counts_small_searches_and_extrapolates_large_ones() {
        let board = "rn1qkbnr/pp2pppp/1N6/8/1KP5/RQ6/q2PPPPP/1bB2B1R"
            .parse::<Fen>()
            .unwrap()
            .into_setup()
            .board;
        let options = Options::default();
        let estimate = |count_nodes| {
            super::super::estimate(&board, 22, &options, count_nodes)
                .unwrap()
                .sample
        };
        let counted = estimate(u64::MAX);
        assert!(!counted.extrapolated);
        assert_eq!(
            (counted.low_nodes, counted.high_nodes),
            (counted.nodes, counted.nodes)
        );
        assert!(counted.nodes as u64 > counted.items);
        let guess = estimate(1);
        assert!(guess.extrapolated);
        assert_eq!(guess.histogram, counted.histogram);
        assert_eq!(
            (guess.low_nodes, guess.high_nodes),
            (guess.nodes / SPREAD, guess.nodes * SPREAD)
        );
        let search = solve(&board, 22, &options).unwrap();
        let ratio = guess.nodes / search.nodes as f64;
        assert!(
            (1.0 / 3.0..=3.0).contains(&ratio),
            "{guess:?} against {}",
            search.nodes
        );
    }

    /// spg187 has no move to spare: its extrapolation is 16 nodes and its
    /// count 651, so the estimate counts, and stops at its limit. The
    /// stopped count
    /// stores nothing partial: the search after it, in the same table,
    /// finds the same games.
    #[test]
    fn a_count_stopped_at_its_limit_stores_nothing_partial() {
        let board = "1Qqk1bnr/Rp2pppp/2rp4/nbpP4/8/8/1PP1PPPP/RNB1KBNR"
            .parse::<Fen>()
            .unwrap()
            .into_setup()
            .board;
        let table = crate::transposition::Table::with_log2_slots(20);
        let options = Options {
            table: Some(&table),
            shorter: false,
            ..Options::default()
        };
        let limit = 100;
        let stopped = super::super::estimate(&board, 21, &options, limit)
            .unwrap()
            .sample;
        assert!(stopped.extrapolated, "{stopped:?}");
        assert_eq!(stopped.nodes, limit as f64);
        assert_eq!(stopped.low_nodes, limit as f64);
        let after = solve(&board, 21, &options).unwrap();
        assert!(after.nodes > 10 * limit);
        table.clear();
        let fresh = solve(&board, 21, &options).unwrap();
        assert_eq!(after.exact, fresh.exact);
        assert_eq!(fresh.exact.count, 89);
    }
}
