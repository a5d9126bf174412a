//! Two ways of doing the same work, and which is cheaper on this machine, now: each is timed
//! on the work itself (this thread's CPU time: what the work cost here, not how long a disk
//! or another process kept us waiting), and the cheaper goes on. Where a choice like this
//! was made once, on one machine, it was wrong on the next (see `regular_file` and cat's small
//! files): the order of the ways tells only which is tried first.
//!
//! The work comes in rounds (a window of a file, a batch of small files): a first round by
//! the `warm_up` way and a first round by the other, not timed (each pays for what a way's
//! first round pays: the kernel's and our first steps, first-touched buffers and page
//! tables, cold caches; `wc -m` of Japanese text, Intel Xeon: a first mapped window cost
//! 190-280 ps a byte, later ones 90-130, and timed it lost to reading, 170-240, in two of six
//! runs), then one timed round each way, then the cheaper, and every
//! [`RECHECK`] rounds the other once again, so a change part-way (a file half cached, half
//! read back) is followed; after the first choice the other way must be cheaper by
//! [`MARGIN`] to take over. A pure function of the costs it is told, tested without a clock.

/// After this many rounds the way not taken is timed again on one round.
pub const RECHECK: u32 = 16;
/// Once both ways are timed, the other takes over from the way going on only when it costs
/// less by more than this fraction: rounds of the same work differ from one to the next by
/// more than that (8 MiB of a cached file copied into ext4 by `copy_file_range`, Intel Xeon:
/// 2.5-3.4 ms of CPU time), and a choice that follows that noise pays for the dearer way's
/// rounds for nothing.
pub const MARGIN: f64 = 0.05;

/// The choice between `ways[0]` and `ways[1]`.
#[derive(Clone, Debug)]
pub struct Chooser<W> {
    ways: [W; 2],
    warm_up: W,
    /// Per way: its first round (not timed) is done.
    warm: [bool; 2],
    /// Per way: CPU nanoseconds per unit of work of its last round; None until timed.
    cost: [Option<f64>; 2],
    /// Rounds done the cheaper way since the other was last timed.
    since_check: u32,
    /// Index of the way going on, once both are timed.
    current: usize,
    /// A way forced, or the only one that works here.
    only: Option<W>,
}

impl<W: Copy + PartialEq> Chooser<W> {
    /// Chooses between `ways` (timed in that order), after a first round `warm_up` and one
    /// the other way, neither timed; `only` forces one.
    pub fn new(ways: [W; 2], warm_up: W, only: Option<W>) -> Chooser<W> {
        Chooser { ways, warm_up, warm: [false; 2], cost: [None, None], since_check: 0, current: 0, only }
    }

    /// The way for the next round.
    pub fn next(&self) -> W {
        if let Some(way) = self.only {
            return way;
        }
        let [first, second] = self.ways;
        match self.cost {
            _ if !self.warm.contains(&true) => self.warm_up,
            _ if !self.warm[0] => first,
            _ if !self.warm[1] => second,
            [None, _] => first,
            [_, None] => second,
            _ if self.since_check >= RECHECK => self.ways[1 - self.current],
            _ => self.ways[self.current],
        }
    }

    /// The round [`Chooser::next`] gave, done `way`, did `units` of work for `nanos` of CPU
    /// time.
    pub fn record(&mut self, way: W, units: u64, nanos: u64) {
        if units == 0 {
            return;
        }
        let index = usize::from(way == self.ways[1]);
        if !self.warm[index] {
            self.warm[index] = true;
            return;
        }
        let timed_both = self.timed_both();
        let checking = timed_both && self.since_check >= RECHECK;
        self.cost[index] = Some(nanos as f64 / units as f64);
        if let [Some(a), Some(b)] = self.cost {
            let cost = [a, b];
            let other = 1 - self.current;
            if !timed_both {
                self.current = usize::from(b < a);
            } else if cost[other] < cost[self.current] * (1.0 - MARGIN) {
                self.current = other;
            }
        }
        if checking {
            self.since_check = 0;
        } else if timed_both {
            self.since_check += 1;
        }
    }

    /// Whether `way` is the one timed cheaper, so that its next round is work, not a
    /// measurement (a way being measured may be given a shorter round: the cost is per unit).
    pub fn favours(&self, way: W) -> bool {
        if self.only.is_some() {
            return self.only == Some(way);
        }
        self.timed_both() && way == self.ways[self.current]
    }

    /// Whether each way has been timed at least once.
    fn timed_both(&self) -> bool {
        self.cost.iter().all(Option::is_some)
    }

    /// The way that goes on alone (forced, or the other failed here), if any.
    pub fn alone(&self) -> Option<W> {
        self.only
    }

    /// From now on only `way` (the other failed here, or is not worth timing).
    pub fn only(&mut self, way: W) {
        self.only = Some(way);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One round of 1000 units at `cost` nanoseconds each; returns the way taken.
    fn round(chooser: &mut Chooser<char>, cost: f64) -> char {
        let way = chooser.next();
        chooser.record(way, 1000, (cost * 1000.0) as u64);
        way
    }

    /// The two untimed first rounds, dear as first rounds are: the warm-up way's, the other's.
    fn warm_up(chooser: &mut Chooser<char>) {
        let first = round(chooser, 9.0);
        assert_ne!(round(chooser, 9.0), first);
    }

    #[test]
    fn both_ways_are_timed_then_the_cheaper_goes_on_and_the_other_is_rechecked() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        // Each way's first round is not timed: however dear, it decides nothing.
        assert_eq!(round(&mut chooser, 9.0), 'b');
        assert_eq!(round(&mut chooser, 9.0), 'a');
        assert_eq!(round(&mut chooser, 0.2), 'a');
        assert_eq!(round(&mut chooser, 0.1), 'b');
        for _ in 0..RECHECK {
            assert_eq!(round(&mut chooser, 0.1), 'b');
        }
        // The recheck: 'a' is now the cheaper (the work changed), and goes on.
        assert_eq!(round(&mut chooser, 0.05), 'a');
        for _ in 0..RECHECK {
            assert_eq!(round(&mut chooser, 0.05), 'a');
        }
        assert_eq!(round(&mut chooser, 0.5), 'b');
        assert_eq!(chooser.next(), 'a');
    }

    #[test]
    fn the_cheaper_way_keeps_its_cost_up_to_date() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        warm_up(&mut chooser);
        round(&mut chooser, 0.1);
        round(&mut chooser, 0.2);
        assert_eq!(round(&mut chooser, 0.3), 'a');
        // 'a' got dearer than 'b' was: 'b' takes over before any recheck.
        assert_eq!(chooser.next(), 'b');
    }

    #[test]
    fn a_forced_or_the_only_way_is_always_taken() {
        for way in ['a', 'b'] {
            let mut chooser = Chooser::new(['a', 'b'], 'a', Some(way));
            for cost in [0.1, 9.0, 0.01, 5.0] {
                assert_eq!(round(&mut chooser, cost), way);
            }
        }
        let mut chooser = Chooser::new(['a', 'b'], 'a', None);
        round(&mut chooser, 1.0);
        chooser.only('b');
        assert_eq!(round(&mut chooser, 1.0), 'b');
        assert_eq!(round(&mut chooser, 9.0), 'b');
    }

    #[test]
    fn only_the_way_timed_cheaper_or_forced_is_favoured() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        // Not yet timed both: neither.
        for cost in [9.0, 9.0, 0.2] {
            assert!(!chooser.favours('a') && !chooser.favours('b'));
            round(&mut chooser, cost);
        }
        assert!(!chooser.favours('a') && !chooser.favours('b'));
        round(&mut chooser, 0.1);
        assert!(chooser.favours('b') && !chooser.favours('a'));
        // Rechecked and found cheaper: the other is favoured.
        for _ in 0..RECHECK {
            round(&mut chooser, 0.1);
        }
        assert_eq!(round(&mut chooser, 0.05), 'a');
        assert!(chooser.favours('a') && !chooser.favours('b'));
        let forced = Chooser::new(['a', 'b'], 'a', Some('b'));
        assert!(forced.favours('b') && !forced.favours('a'));
    }

    #[test]
    fn a_way_cheaper_by_no_more_than_the_margin_does_not_take_over() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        warm_up(&mut chooser);
        round(&mut chooser, 1.0);
        // Cheaper at once: the first two timings decide without a margin.
        assert_eq!(round(&mut chooser, 0.99), 'b');
        // Each way within the margin of the other: what goes on stays, also at a recheck.
        for _ in 0..3 * RECHECK {
            let way = chooser.next();
            round(&mut chooser, if way == 'a' { 0.97 } else { 1.0 });
            assert!(chooser.favours('b'));
        }
        // Cheaper by more at its next recheck: it takes over.
        for _ in 0..=RECHECK {
            if chooser.next() == 'a' {
                break;
            }
            round(&mut chooser, 1.0);
        }
        assert_eq!(round(&mut chooser, 0.9), 'a');
        assert!(chooser.favours('a'));
        // A tie then keeps it.
        assert_eq!(round(&mut chooser, 1.0), 'a');
        assert!(chooser.favours('a'));
    }

    #[test]
    fn an_empty_round_changes_nothing() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        chooser.record('b', 0, 100);
        assert_eq!(chooser.next(), 'b');
        warm_up(&mut chooser);
        chooser.record('a', 0, 100);
        assert_eq!(chooser.next(), 'a');
    }
}
