//! A chooser between two ways of doing the same work, timed on rounds of the work itself (this thread's CPU time):
//! the cheaper goes on. Each way's first round is not timed (cold caches), then one each is. The other way is timed
//! again after [`FIRST_RECHECK`] rounds, the interval doubling up to [`RECHECK`]. A pure function of the costs it is
//! told, tested without a clock. Runs behind the constants: benches/RESULTS.md, "The chooser's constants".

/// After this many rounds the way not taken is timed again on one round (at the most).
pub const RECHECK: u32 = 16;
/// The first recheck comes after this many rounds: first rounds cost more, unalike per way.
pub const FIRST_RECHECK: u32 = 2;
/// A way not taken that costs this many times as much in each of its last rounds is rechecked
/// as [`BUDGET`] allows, not sooner than [`RECHECK`].
pub const FAR: f64 = 1.5;
/// A far costlier way's recheck costs `ratio - 1` rounds more: the next comes after
/// `(ratio - 1) / BUDGET` rounds, from [`RECHECK`] to [`RECHECK_FAR`].
pub const BUDGET: f64 = 0.02;
/// The most rounds between rechecks of a far costlier way: 512 MiB of 4 MiB stretches, so that a
/// file whose state changes part-way is still followed within a file of a few GiB.
pub const RECHECK_FAR: u32 = 128;
/// Once both ways are timed, the other takes over only when it costs less by more than this
/// fraction: rounds of the same work differ by more than that from one to the next.
pub const MARGIN: f64 = 0.05;
/// A way's cost is the least of its last this many rounds: on a shared VM a single round now
/// and then costs much more (benches/RESULTS.md, "Figures behind code comments").
pub const SPAN: usize = 3;

/// The costs of a way's last [`SPAN`] timed rounds.
#[derive(Clone, Copy, Debug, Default)]
struct Recent {
    costs: [f64; SPAN],
    /// How many of `costs` hold a round (at most SPAN), and where the next goes.
    len: usize,
    next: usize,
}

impl Recent {
    fn push(&mut self, cost: f64) {
        self.costs[self.next] = cost;
        self.next = (self.next + 1) % SPAN;
        self.len = (self.len + 1).min(SPAN);
    }

    /// The least of the recent rounds, None before the first.
    fn cost(&self) -> Option<f64> {
        self.costs[..self.len].iter().copied().reduce(f64::min)
    }
}

/// The choice between `ways[0]` and `ways[1]`.
#[derive(Clone, Debug)]
pub struct Chooser<W> {
    ways: [W; 2],
    warm_up: W,
    /// Per way: its first round (not timed) is done.
    warm: [bool; 2],
    /// Per way: CPU nanoseconds per unit of work of its last timed rounds.
    recent: [Recent; 2],
    /// Rounds done the cheaper way since the other was last timed.
    since_check: u32,
    /// Rounds between rechecks now: FIRST_RECHECK, doubled at each recheck up to RECHECK.
    interval: u32,
    /// Index of the way going on, once both are timed.
    current: usize,
    /// A way forced, or the only one that works here.
    only: Option<W>,
}

impl<W: Copy + PartialEq> Chooser<W> {
    /// Chooses between `ways`, timed in order, after untimed rounds of `warm_up` then the other; `only` forces one.
    pub fn new(ways: [W; 2], warm_up: W, only: Option<W>) -> Chooser<W> {
        Chooser {
            ways,
            warm_up,
            warm: [false; 2],
            recent: [Recent::default(); 2],
            since_check: 0,
            interval: FIRST_RECHECK,
            current: 0,
            only,
        }
    }

    pub fn next(&self) -> W {
        if let Some(way) = self.only {
            return way;
        }
        let [first, second] = self.ways;
        match self.recent.map(|r| r.cost()) {
            _ if !self.warm.contains(&true) => self.warm_up,
            _ if !self.warm[0] => first,
            _ if !self.warm[1] => second,
            [None, _] => first,
            [_, None] => second,
            _ if self.since_check >= self.interval => self.ways[1 - self.current],
            _ => self.ways[self.current],
        }
    }

    /// The round [`Chooser::next`] gave, done `way`, did `units` of work in `nanos` of CPU.
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
        let checking = timed_both && self.since_check >= self.interval;
        self.recent[index].push(nanos as f64 / units as f64);
        // How many times as much the way not taken costs as the one going on, by the least of
        // its last rounds (at a recheck two at least: the first timed round alone does not count).
        let mut dearer = 1.0;
        if let [Some(a), Some(b)] = self.recent.map(|r| r.cost()) {
            let cost = [a, b];
            let other = 1 - self.current;
            if !timed_both {
                self.current = usize::from(b < a);
            } else if cost[other] < cost[self.current] * (1.0 - MARGIN) {
                self.current = other;
            }
            dearer = cost[1 - self.current] / cost[self.current];
        }
        if checking {
            self.since_check = 0;
            self.interval = if dearer > FAR { far_interval(dearer) } else { (self.interval * 2).min(RECHECK) };
        } else if timed_both {
            self.since_check += 1;
        }
    }

    /// Whether `way` is chosen (timed cheaper or forced): its rounds are work, not (shorter) measurements.
    pub fn is_chosen(&self, way: W) -> bool {
        if self.only.is_some() {
            return self.only == Some(way);
        }
        self.timed_both() && way == self.ways[self.current]
    }

    pub fn timed_both(&self) -> bool {
        self.recent.iter().all(|r| r.len > 0)
    }

    /// The way forced (or the only one that works here), if any.
    pub fn forced(&self) -> Option<W> {
        self.only
    }

    /// Forces `way` from now on (the other failed here, or is not worth timing).
    pub fn force(&mut self, way: W) {
        self.only = Some(way);
    }
}

/// Rounds until the next recheck of a way `dearer` times as costly (> [`FAR`]): see [`BUDGET`].
fn far_interval(dearer: f64) -> u32 {
    // (An infinite ratio, of a way going on at no cost, is as far as any.)
    ((dearer - 1.0) / BUDGET).ceil().clamp(f64::from(RECHECK), f64::from(RECHECK_FAR)) as u32
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

    /// The two untimed first rounds, costly as first rounds are: the warm-up way's, the other's.
    fn warm_up(chooser: &mut Chooser<char>) {
        let first = round(chooser, 9.0);
        assert_ne!(round(chooser, 9.0), first);
    }

    /// A chooser past its untimed first rounds and one timed round each: 'a' at `a`, 'b' at `b`.
    fn timed_once(a: f64, b: f64) -> Chooser<char> {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        warm_up(&mut chooser);
        assert_eq!(round(&mut chooser, a), 'a');
        assert_eq!(round(&mut chooser, b), 'b');
        chooser
    }

    /// Rounds of the way going on at `cost` until the chooser rechecks the other; returns how many.
    fn until_recheck(chooser: &mut Chooser<char>, cost: f64) -> u32 {
        let way = chooser.next();
        let mut rounds = 0;
        while chooser.next() == way {
            round(chooser, cost);
            rounds += 1;
            assert!(rounds <= RECHECK_FAR, "no recheck after {rounds} rounds");
        }
        rounds
    }

    #[test]
    fn both_ways_are_timed_then_the_cheaper_goes_on_and_the_other_is_rechecked() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        // Each way's first round is not timed: however costly, it decides nothing.
        assert_eq!(round(&mut chooser, 9.0), 'b');
        assert_eq!(round(&mut chooser, 9.0), 'a');
        assert_eq!(round(&mut chooser, 0.14), 'a');
        assert_eq!(round(&mut chooser, 0.1), 'b');
        // Rechecks soon at first, then less and less often, up to every RECHECK rounds.
        for interval in [FIRST_RECHECK, 2 * FIRST_RECHECK, 4 * FIRST_RECHECK, RECHECK, RECHECK] {
            assert_eq!(until_recheck(&mut chooser, 0.1), interval.min(RECHECK));
            assert_eq!(round(&mut chooser, 0.14), 'a');
        }
        // A recheck finds 'a' now the cheaper (the work changed): it goes on. 'b', now costing
        // twice as much, is rechecked after as many rounds as the budget allows.
        assert_eq!(until_recheck(&mut chooser, 0.1), RECHECK);
        assert_eq!(round(&mut chooser, 0.05), 'a');
        assert_eq!(until_recheck(&mut chooser, 0.05), far_interval(2.0));
        assert_eq!(round(&mut chooser, 0.5), 'b');
        assert_eq!(chooser.next(), 'a');
    }

    #[test]
    fn a_way_far_dearer_is_rechecked_less_often() {
        // Each case: (a's first timed round, a's round at the first recheck, the next interval).
        // Far costlier in both: as many rounds as keep the rechecks within the budget, at least
        // RECHECK. Costlier, not far: twice the last interval. Far in one round only: not far.
        for (first, again, next) in [
            (0.25, 0.3, (1.5 / BUDGET).ceil() as u32),
            (0.16, 0.16, RECHECK.max((0.6 / BUDGET).ceil() as u32)),
            (0.14, 0.14, 2 * FIRST_RECHECK),
            (0.12, 0.5, 2 * FIRST_RECHECK),
        ] {
            let mut chooser = timed_once(first, 0.1);
            // One round alone may be the machine's: the first recheck comes early.
            assert_eq!(until_recheck(&mut chooser, 0.1), FIRST_RECHECK);
            assert_eq!(round(&mut chooser, again), 'a');
            assert_eq!(until_recheck(&mut chooser, 0.1), next, "a at {first}, then {again}");
        }
    }

    #[test]
    fn rechecks_of_a_far_dearer_way_cost_at_most_the_budget() {
        // Just far: 0.5 rounds' more a recheck, one every 26 rounds (RECHECK is the floor
        // should FAR or BUDGET change).
        assert_eq!(far_interval(1.5 + 1e-9), 26);
        assert_eq!(far_interval(2.0), 50);
        assert_eq!(far_interval(5.0), RECHECK_FAR);
        assert_eq!(far_interval(f64::INFINITY), RECHECK_FAR);
        for dearer in [1.6, 2.0, 3.0, 3.5] {
            let rounds = far_interval(dearer);
            assert!((dearer - 1.0) <= BUDGET * f64::from(rounds) + 1e-9, "{dearer}: {rounds}");
        }
        // A way five times as costly, rechecked again and again: RECHECK_FAR rounds apart.
        let mut chooser = timed_once(0.5, 0.1);
        assert_eq!(until_recheck(&mut chooser, 0.1), FIRST_RECHECK);
        for _ in 0..3 {
            assert_eq!(round(&mut chooser, 0.5), 'a');
            assert_eq!(until_recheck(&mut chooser, 0.1), RECHECK_FAR);
        }
        // Found cheaper at a recheck, it takes over.
        assert_eq!(round(&mut chooser, 0.05), 'a');
        assert!(chooser.is_chosen('a'));
    }

    #[test]
    fn a_first_choice_made_on_dear_first_rounds_is_undone_soon() {
        // 'a' is the cheaper, but its first timed round came while the machine warmed up.
        let mut chooser = timed_once(0.9, 0.6);
        assert_eq!(until_recheck(&mut chooser, 0.6), FIRST_RECHECK);
        assert_eq!(round(&mut chooser, 0.4), 'a');
        assert!(chooser.is_chosen('a'));
    }

    #[test]
    fn the_cheaper_way_keeps_its_cost_up_to_date() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        warm_up(&mut chooser);
        round(&mut chooser, 0.1);
        round(&mut chooser, 0.2);
        // 'a' came to cost more than 'b', round after round: 'b' takes over as soon as the cheap
        // round is not among a's last SPAN (a recheck of 'b' may come between).
        let mut dear = 0;
        while chooser.is_chosen('a') {
            let way = chooser.next();
            round(&mut chooser, if way == 'a' { 0.3 } else { 0.2 });
            dear += u32::from(way == 'a');
            assert!(dear <= SPAN as u32, "'a' went on after {dear} dear rounds");
        }
        assert_eq!(dear, SPAN as u32);
        assert_eq!(chooser.next(), 'b');
    }

    #[test]
    fn a_round_made_dear_by_the_machine_hands_nothing_over() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        warm_up(&mut chooser);
        round(&mut chooser, 0.9);
        round(&mut chooser, 1.0);
        // 'a' goes on; single rounds costing twice as much, between ordinary ones, are noise.
        let spiky = [0.9, 2.0, 0.9, 0.9, 2.0, 0.9, 2.0];
        let mut n = 0;
        for _ in 0..4 * RECHECK {
            let way = chooser.next();
            round(&mut chooser, if way == 'a' { spiky[n % spiky.len()] } else { 1.0 });
            n += usize::from(way == 'a');
            assert!(chooser.is_chosen('a'));
        }
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
        chooser.force('b');
        assert_eq!(round(&mut chooser, 1.0), 'b');
        assert_eq!(round(&mut chooser, 9.0), 'b');
    }

    #[test]
    fn only_the_way_timed_cheaper_or_forced_is_favoured() {
        let mut chooser = Chooser::new(['a', 'b'], 'b', None);
        // Not yet timed both: neither.
        for cost in [9.0, 9.0, 0.2] {
            assert!(!chooser.is_chosen('a') && !chooser.is_chosen('b'));
            round(&mut chooser, cost);
        }
        assert!(!chooser.is_chosen('a') && !chooser.is_chosen('b'));
        round(&mut chooser, 0.1);
        assert!(chooser.is_chosen('b') && !chooser.is_chosen('a'));
        // Rechecked and found cheaper: the other is favoured.
        until_recheck(&mut chooser, 0.1);
        assert_eq!(round(&mut chooser, 0.05), 'a');
        assert!(chooser.is_chosen('a') && !chooser.is_chosen('b'));
        let forced = Chooser::new(['a', 'b'], 'a', Some('b'));
        assert!(forced.is_chosen('b') && !forced.is_chosen('a'));
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
            assert!(chooser.is_chosen('b'));
        }
        // Cheaper by more at its next recheck: it takes over.
        for _ in 0..=RECHECK {
            if chooser.next() == 'a' {
                break;
            }
            round(&mut chooser, 1.0);
        }
        assert_eq!(round(&mut chooser, 0.9), 'a');
        assert!(chooser.is_chosen('a'));
        // A tie then keeps it.
        assert_eq!(round(&mut chooser, 1.0), 'a');
        assert!(chooser.is_chosen('a'));
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
