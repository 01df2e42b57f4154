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

use super::hash::mix;
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

/// The size of a search, sampled before it is run.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Sample {
    /// Work items, over all goals and lengths.
    pub items: u64,
    /// Items by each side's free moves at the item (white, black), most
    /// free first.
    pub histogram: Vec<([i32; 2], u64)>,
    /// Items searched for the estimate.
    pub searched: u64,
    /// Estimated nodes of the whole search: per length, the nodes of the
    /// items searched times the items there are per item searched.
    pub nodes: f64,
    /// The estimate's variance (summed over lengths).
    pub variance: f64,
    /// Nodes the sampled searches visited, and the seconds they took: the
    /// search's own rate on this machine, one thread.
    pub visited: u64,
    pub seconds: f64,
}

impl Sample {
    /// Nodes per second of one thread searching, as the sample measured.
    pub fn rate(&self) -> f64 {
        if self.seconds > 0.0 {
            self.visited as f64 / self.seconds
        } else {
            0.0
        }
    }

    /// The estimate's range, two standard deviations either side (and
    /// never below the nodes the sample visited). A few items may hold
    /// most of the nodes, which a sample can miss: the range is the
    /// sample's, not a bound.
    pub fn range(&self) -> (f64, f64) {
        let sigma = self.variance.sqrt();
        let low = (self.nodes - 2.0 * sigma).max(self.visited as f64);
        (low.min(self.nodes), self.nodes + 2.0 * sigma)
    }
}

/// Adds to `sample` the items of `work`, and the sizes of `fraction` of
/// them (at least `least`), drawn at random and each searched to the end
/// with the table, which keeps the transpositions inside an item (those
/// between items, which make the whole search smaller still, it sees
/// less of).
pub(super) fn estimate_items(
    shared: &Shared,
    work: &Work,
    start: &Chess,
    (fraction, least): (f64, usize),
    sample: &mut Sample,
) {
    let paths = items(shared, work, start);
    if paths.is_empty() {
        return;
    }
    let mut worker = Worker::new(shared, work.goal, false, work.left, 0);
    let nodes: Vec<Chess> = paths
        .iter()
        .map(|path| {
            let mut node = start.clone();
            for m in path {
                node.play_unchecked(*m);
            }
            node
        })
        .collect();
    // Items by free moves, each class sampled on its own (strata): the
    // more moves to spare, the larger the item, by orders of magnitude.
    // An item whose position another one reached first costs the search
    // one look in the table, and is left out.
    let mut classes: Vec<([i32; 2], Vec<usize>)> = Vec::new();
    let mut seen = std::collections::HashSet::new();
    for (index, (node, path)) in nodes.iter().zip(&paths).enumerate() {
        let left = work.left - path.len() as u32;
        let Some(free) = worker.free_moves(node, left) else {
            continue;
        };
        match sample.histogram.iter_mut().find(|(f, _)| *f == free) {
            Some((_, n)) => *n += 1,
            None => sample.histogram.push((free, 1)),
        }
        if !seen.insert(node.to_setup(shakmaty::EnPassantMode::Legal)) {
            continue;
        }
        match classes.iter_mut().find(|(f, _)| *f == free) {
            Some((_, items)) => items.push(index),
            None => classes.push((free, vec![index])),
        }
    }
    sample
        .histogram
        .sort_by_key(|&(free, _)| std::cmp::Reverse(free));
    // A fixed seed per length: the same problem gets the same estimate.
    let mut rng = mix(u64::from(work.plies) << 8 | work.goal_index as u64);
    let started = Instant::now();
    for (_, class) in &mut classes {
        for i in (1..class.len()).rev() {
            rng = rng.wrapping_add(0x9E37_79B9_7F4A_7C15);
            class.swap(i, (mix(rng) % (i as u64 + 1)) as usize);
        }
        let n = class.len();
        let k = ((n as f64 * fraction).ceil() as usize).max(least).min(n);
        let (mut sum, mut squares) = (0.0, 0.0);
        for &index in &class[..k] {
            let before = worker.visited();
            let left = work.left - paths[index].len() as u32;
            worker.count(&nodes[index], left, paths[index].len() as u32);
            let visited = (worker.visited() - before) as f64;
            sum += visited;
            squares += visited * visited;
        }
        let mean = sum / k as f64;
        let spread = (squares / k as f64 - mean * mean).max(0.0);
        // The variance of the class's sum, drawn without replacement.
        sample.variance += (n * n) as f64 * spread / k as f64 * (1.0 - k as f64 / n as f64);
        sample.nodes += mean * n as f64;
        sample.searched += k as u64;
    }
    sample.items += paths.len() as u64;
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
}
