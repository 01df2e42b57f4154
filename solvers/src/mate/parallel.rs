//! The parallel drivers: first moves (and, near the root, Black's
//! replies) shared out over the pool (`split`), or every thread solving it
//! all with the table shared (`race`, lazy SMP).

use super::*;

impl Solver {
    /// Runs `work` on every first move in parallel, each on a helper solver,
    /// and gathers the results in move order with the statistics.
    pub(super) fn split<T: Send>(
        &mut self,
        moves: &[Move],
        work: impl Fn(&mut Solver, &Move) -> T + Sync,
    ) -> (Vec<T>, bool) {
        if self.parallelism == Parallelism::Lazy && rayon::current_num_threads() > 1 {
            return self.race(moves, work);
        }
        let results: Vec<(T, Stats, bool)> = moves
            .par_iter()
            .map(|m| {
                let mut solver = self.helper();
                let result = work(&mut solver, m);
                solver.retire();
                (result, solver.stats, solver.out_of_time)
            })
            .collect();
        let mut stopped = false;
        let mut out = Vec::with_capacity(results.len());
        for (result, stats, out_of_time) in results {
            self.stats.add(stats);
            stopped |= out_of_time;
            out.push(result);
        }
        self.out_of_time |= stopped;
        (out, stopped)
    }

    /// Lazy SMP: every thread does all the work, one thread alone each,
    /// starting at a different first move, all sharing the table; the first
    /// to finish stops the others.
    pub(super) fn race<T: Send>(
        &mut self,
        moves: &[Move],
        work: impl Fn(&mut Solver, &Move) -> T + Sync,
    ) -> (Vec<T>, bool) {
        let threads = rayon::current_num_threads();
        let this = &*self;
        let runs: Vec<(Vec<Option<T>>, Stats, bool)> = (0..threads)
            .into_par_iter()
            .map(|i| {
                let mut solver = this.helper();
                solver.parallelism = Parallelism::Sequential;
                let mut out: Vec<Option<T>> = moves.iter().map(|_| None).collect();
                let start = i * moves.len() / threads;
                for j in 0..moves.len() {
                    let at = (start + j) % moves.len();
                    let result = work(&mut solver, &moves[at]);
                    if solver.out_of_time {
                        return (out, solver.stats, false);
                    }
                    out[at] = Some(result);
                }
                solver.retire();
                // Done: the others may stop.
                this.shared.stop.store(true, Ordering::Relaxed);
                (out, solver.stats, true)
            })
            .collect();
        let deadline_passed = self.shared.deadline.is_some_and(|d| Instant::now() >= d);
        if !deadline_passed {
            // The stop was only the race's end; the solver is used again
            // (e.g. for the solution tree).
            self.shared.stop.store(false, Ordering::Relaxed);
        }
        let mut best: Option<(Vec<Option<T>>, bool)> = None;
        for (out, stats, finished) in runs {
            self.stats.add(stats);
            let done = |o: &Vec<Option<T>>| o.iter().filter(|r| r.is_some()).count();
            if best
                .as_ref()
                .is_none_or(|(b, f)| (finished && !*f) || (!f && done(&out) > done(b)))
            {
                best = Some((out, finished));
            }
        }
        let (out, finished) = best.unwrap_or_default();
        let stopped = !finished;
        self.out_of_time |= stopped;
        // An unfinished run's missing moves get the work's answer under a
        // stopped clock, which every caller reads as "not examined".
        let out = out
            .into_iter()
            .zip(moves)
            .map(|(r, m)| {
                r.unwrap_or_else(|| {
                    let mut stopped = self.helper();
                    stopped.out_of_time = true;
                    work(&mut stopped, m)
                })
            })
            .collect();
        (out, stopped)
    }

    /// [`Solver::defence_fails`] with Black's replies shared out over the
    /// thread pool (young brothers wait). Worth it near the root of deep
    /// problems: proving a key needs every reply refuted, and each
    /// refutation is a big search.
    pub(super) fn defence_fails_split(&mut self, pos: &Chess, k: u8, genre: Genre) -> bool {
        if k < SPLIT_MIN_LENGTH
            || self.parallelism != Parallelism::Split
            || rayon::current_num_threads() < 2
        {
            return self.defence_fails(pos, k, genre);
        }
        let (replies, info) = match self.defence(pos, k, genre) {
            ControlFlow::Break(fails) => return fails,
            ControlFlow::Continue((replies, info)) => (replies, info),
        };
        // Young brothers wait: the first reply alone often refutes (most
        // first moves are not keys); only when it does not is the rest
        // worth sharing out.
        let Some((first, rest)) = replies.split_first() else {
            return true;
        };
        if !self.reply_loses(pos, info.as_ref(), first, k, genre) {
            return false;
        }
        let refuted = Arc::new(AtomicBool::new(false));
        let this = &*self;
        // Per reply: `None` when not searched to the end.
        let results: Vec<(Option<bool>, Stats)> = rest
            .par_iter()
            .map(|b| {
                if refuted.load(Ordering::Relaxed) {
                    return (None, Stats::default());
                }
                let mut solver = this.helper();
                solver.cancels.push(Arc::clone(&refuted));
                let loses = solver.reply_loses(pos, info.as_ref(), b, k, genre);
                let loses = (!solver.out_of_time).then_some(loses);
                if loses == Some(false) {
                    refuted.store(true, Ordering::Relaxed);
                }
                (loses, solver.stats)
            })
            .collect();
        for (_, stats) in &results {
            self.stats.add(*stats);
        }
        // One refutation decides, whatever the others did.
        if refuted.load(Ordering::Relaxed) {
            return false;
        }
        // Unfinished without a refutation: the clock (or an enclosing
        // split's cancel) stopped them.
        if results.iter().any(|(loses, _)| loses.is_none()) {
            self.out_of_time = true;
            return false;
        }
        true
    }
}
