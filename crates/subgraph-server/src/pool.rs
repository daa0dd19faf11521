//! The GPU engines of one graph, one per device (`--gpus N`), each lent to one query at a
//! time ([`Pool`], a query's borrowing [`Loan`]); at most `--max-concurrent` queries a device
//! wait for or run on them (`Places`), each having given back its CPU turn meanwhile. A
//! fault that poisons a device's context puts the device out of service for every graph on
//! it ([`Fleet`]): their engines there are dropped (a lent one when it comes back), and a
//! background thread reopens each (a new context, the graph uploaded again), retrying with a
//! growing pause, while the other devices and the CPU serve. Under a supervisor ([`crate::supervisor`]) a fault is handed over
//! instead ([`Fleet::hand_over_faults`]): the driver keeps a poisoned context for the life of
//! the process, so a new server process opens the device while this one serves on without it.
//! Generic over the engine, so that a test drives it with a fake one.

use std::collections::BTreeMap;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, OnceLock, Weak};
use std::time::Duration;
use subgraph::{GpuSet, Lender};
use subgraph_core::sink::Control;

/// Opens a graph's engine on a device (its ordinal): the reopening after a fault.
pub type Opener<E> = Box<dyn Fn(usize) -> Result<E, String> + Send + Sync>;

/// How often a waiting query looks at its stop flag and deadline.
const WAIT_STEP: Duration = Duration::from_millis(25);

/// One device's engine in a pool.
enum Slot<E> {
    Idle(E),
    /// Lent to a query; `poisoned` where its device faulted meanwhile (on another graph's query).
    Lent {
        poisoned: Option<String>,
    },
    /// Out of service after a fault, while a thread reopens it.
    Broken {
        why: String,
    },
}

/// A device of a pool as `GET /v1/graphs` and `GET /v1/health` show it.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct DeviceState {
    pub device: usize,
    /// `ready`, `busy` (running a query) or `reopening` (after a fault).
    pub state: &'static str,
    /// Why it is out of service, while it is.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub why: Option<String>,
}

/// A graph's engines, one per device, lent one query at a time.
pub struct Pool<E> {
    devices: Vec<usize>,
    places: Places,
    slots: Mutex<Vec<Slot<E>>>,
    freed: Condvar,
    open: Opener<E>,
    fleet: Arc<Fleet>,
    me: Weak<Pool<E>>,
}

/// Something a fault on a device reaches: every pool with an engine there.
trait Poison: Send + Sync {
    fn poison(&self, device: usize, why: &str);
}

/// Every pool of the server, for a fault to reach all graphs on its device (they share the
/// device's context), and the faults and reopenings counted by device.
pub struct Fleet {
    pools: Mutex<Vec<Weak<dyn Poison>>>,
    counts: Mutex<BTreeMap<usize, DeviceCounts>>,
    /// The pause before the first reopening, doubled after each failed one up to `most`.
    first: Duration,
    most: Duration,
    /// Where a fault is handed over to a new process instead of reopened here.
    handover: OnceLock<Handover>,
    /// Queries that may wait for or run on each device, for each graph.
    per_device: usize,
}

/// Told of each fault (the device, why, the counts with it) where a new server process is to
/// open the device ([`Fleet::hand_over_faults`]).
pub type Handover = Box<dyn Fn(usize, &str, BTreeMap<usize, DeviceCounts>) + Send + Sync>;

/// A device's faults and its reopenings since the server started: graphs' engines reopened in
/// this process, or the device opened again by a new server process after a fault.
#[derive(Debug, Default, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct DeviceCounts {
    pub faults: u64,
    pub reopened: u64,
}

impl Fleet {
    /// A fleet whose reopenings wait `first` and then, after each failure, twice as long up
    /// to `most`, and whose pools take `per_device` queries a device (waiting or running).
    pub fn new(first: Duration, most: Duration, per_device: usize) -> Arc<Fleet> {
        Arc::new(Fleet {
            pools: Mutex::default(),
            counts: Mutex::default(),
            first,
            most,
            handover: OnceLock::new(),
            per_device: per_device.max(1),
        })
    }

    /// Faults from now on go to `handover` (a new process opens the device; this one keeps it
    /// out of service), counted on from `counts` (those of the processes before this one).
    pub fn hand_over_faults(&self, counts: BTreeMap<usize, DeviceCounts>, handover: Handover) {
        lock(&self.counts).extend(counts);
        let _ = self.handover.set(handover);
    }

    /// Faults and reopenings by device, for every device a pool has used.
    pub fn counts(&self) -> BTreeMap<usize, DeviceCounts> {
        lock(&self.counts).clone()
    }

    /// A fault on `device`: counted (and handed over, where a new process is to reopen it),
    /// and every pool's engine there put out of service.
    fn fault(&self, device: usize, why: &str) {
        let counts = {
            let mut counts = lock(&self.counts);
            counts.entry(device).or_default().faults += 1;
            counts.clone()
        };
        if let Some(handover) = self.handover.get() {
            handover(device, why, counts);
        }
        let pools: Vec<_> = {
            let mut pools = lock(&self.pools);
            pools.retain(|p| p.strong_count() > 0);
            pools.iter().filter_map(Weak::upgrade).collect()
        };
        for pool in pools {
            pool.poison(device, why);
        }
    }
}

/// `m` locked, also where a thread panicked while it held it: the server serves on with the
/// value as that thread left it (the crate's one spelling of it).
pub(crate) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl<E: Send + 'static> Pool<E> {
    /// A pool of `engines`, the one of `devices[i]` at `i`; `open` reopens one after a fault.
    pub fn new(devices: Vec<usize>, engines: Vec<E>, open: Opener<E>, fleet: &Arc<Fleet>) -> Arc<Pool<E>> {
        assert_eq!(devices.len(), engines.len(), "one engine per device");
        let slots = Mutex::new(engines.into_iter().map(Slot::Idle).collect());
        let pool = Arc::new_cyclic(|me| Pool {
            devices: devices.clone(),
            places: Places::new(fleet.per_device * devices.len()),
            slots,
            freed: Condvar::new(),
            open,
            fleet: fleet.clone(),
            me: me.clone(),
        });
        let weak: Weak<dyn Poison> = Arc::downgrade(&pool) as Weak<dyn Poison>;
        lock(&fleet.pools).push(weak);
        let mut counts = lock(&fleet.counts);
        for &d in &devices {
            counts.entry(d).or_default();
        }
        pool
    }

    /// A free engine and its slot: at once where one is idle, else once one is given back;
    /// why none, where every device is out of service or `stop` says the query need not wait.
    pub fn take(&self, stop: &dyn Fn() -> bool) -> Result<(usize, E), String> {
        let mut slots = lock(&self.slots);
        loop {
            if let Some(i) = slots.iter().position(|s| matches!(s, Slot::Idle(_))) {
                let Slot::Idle(engine) = std::mem::replace(&mut slots[i], Slot::Lent { poisoned: None }) else {
                    unreachable!("an idle slot")
                };
                return Ok((i, engine));
            }
            if !slots.iter().any(|s| matches!(s, Slot::Lent { .. })) {
                let why: Vec<String> = (slots.iter().zip(&self.devices))
                    .filter_map(|(s, d)| match s {
                        Slot::Broken { why } => Some(format!("GPU {d}: {why}")),
                        _ => None,
                    })
                    .collect();
                return Err(format!("no GPU is in service, being reopened after a fault ({})", why.join("; ")));
            }
            if stop() {
                return Err("the query was stopped while it waited for a GPU".into());
            }
            slots = self.freed.wait_timeout(slots, WAIT_STEP).unwrap_or_else(|e| e.into_inner()).0;
        }
    }

    /// `engine` back in slot `i` after its query; `fault` where the query poisoned its device,
    /// which then goes out of service for every graph and is reopened (a fault counted once:
    /// not again by a query that met it after another graph's query did).
    pub fn give(&self, i: usize, engine: E, fault: Option<String>) {
        let known = matches!(lock(&self.slots)[i], Slot::Lent { poisoned: Some(_) });
        if let (Some(why), false) = (&fault, known) {
            self.fleet.fault(self.devices[i], why);
        }
        let mut slots = lock(&self.slots);
        let broken = match &mut slots[i] {
            Slot::Lent { poisoned: Some(why) } => Some(std::mem::take(why)),
            _ => None,
        };
        let dropped = match broken {
            Some(why) => {
                slots[i] = Slot::Broken { why };
                Some(engine)
            }
            None => {
                slots[i] = Slot::Idle(engine);
                None
            }
        };
        drop(slots);
        self.freed.notify_all();
        if let Some(engine) = dropped {
            // Its context released before the new one is made.
            drop(engine);
            self.recover(i);
        }
    }

    /// Slot `i`'s engine never came back (its query's thread panicked): reopened.
    pub fn lost(&self, i: usize) {
        lock(&self.slots)[i] = Slot::Broken { why: "its engine was lost with a query that panicked".into() };
        self.freed.notify_all();
        self.reopen(i);
    }

    /// Each device's state.
    pub fn states(&self) -> Vec<DeviceState> {
        let slots = lock(&self.slots);
        (slots.iter().zip(&self.devices))
            .map(|(s, &device)| match s {
                Slot::Idle(_) => DeviceState { device, state: "ready", why: None },
                Slot::Lent { .. } => DeviceState { device, state: "busy", why: None },
                Slot::Broken { why } => DeviceState { device, state: "reopening", why: Some(why.clone()) },
            })
            .collect()
    }

    /// Slot `i` after a fault: reopened here, or, where faults are handed over, left out of
    /// service for the new process to open the device.
    fn recover(&self, i: usize) {
        if self.fleet.handover.get().is_none() {
            return self.reopen(i);
        }
        if let Slot::Broken { why } = &mut lock(&self.slots)[i] {
            why.push_str("; a new server process is opening the device");
        }
    }

    /// Reopens slot `i` on a thread of its own, until it opens (or the pool is gone: its graph
    /// was reloaded), pausing longer after each failure.
    fn reopen(&self, i: usize) {
        let (me, device) = (self.me.clone(), self.devices[i]);
        let (mut pause, most) = (self.fleet.first, self.fleet.most);
        std::thread::spawn(move || loop {
            std::thread::sleep(pause);
            let Some(pool) = me.upgrade() else { return };
            match (pool.open)(device) {
                Ok(engine) => {
                    let mut slots = lock(&pool.slots);
                    if matches!(slots[i], Slot::Broken { .. }) {
                        slots[i] = Slot::Idle(engine);
                        lock(&pool.fleet.counts).entry(device).or_default().reopened += 1;
                    }
                    drop(slots);
                    pool.freed.notify_all();
                    eprintln!("subgraph serve: GPU {device} reopened, its graph uploaded again; back in service");
                    return;
                }
                Err(e) => {
                    if let Slot::Broken { why } = &mut lock(&pool.slots)[i] {
                        let first = why.split("; reopening failed: ").next().unwrap_or_default().to_string();
                        *why = format!("{first}; reopening failed: {e}");
                    }
                    eprintln!("subgraph serve: GPU {device} could not be reopened ({e}); trying again in {pause:?}");
                    pause = (pause * 2).min(most);
                }
            }
        });
    }
}

impl<E: Send + 'static> Poison for Pool<E> {
    /// Puts the pool's engine on `device` out of service: an idle one dropped and reopened at
    /// once, a lent one when it comes back.
    fn poison(&self, device: usize, why: &str) {
        let mut dropped = Vec::new();
        let mut slots = lock(&self.slots);
        for (i, slot) in slots.iter_mut().enumerate().filter(|(i, _)| self.devices[*i] == device) {
            match slot {
                Slot::Idle(_) => {
                    let Slot::Idle(engine) = std::mem::replace(slot, Slot::Broken { why: why.to_string() }) else {
                        unreachable!("an idle slot")
                    };
                    dropped.push((i, engine));
                }
                Slot::Lent { poisoned } => *poisoned = Some(why.to_string()),
                Slot::Broken { .. } => {}
            }
        }
        drop(slots);
        for (i, engine) in dropped {
            drop(engine);
            self.recover(i);
        }
    }
}

/// The queries a pool takes at once, waiting for a device or running on one: beyond them a
/// query waits, holding its CPU turn (so that a full GPU queue holds back the admission).
struct Places {
    held: Mutex<usize>,
    freed: Condvar,
    most: usize,
}

impl Places {
    fn new(most: usize) -> Places {
        Places { held: Mutex::new(0), freed: Condvar::new(), most }
    }

    /// A place, once one is free; why none where `stop` says the query need not wait.
    fn take(&self, stop: &dyn Fn() -> bool) -> Result<(), String> {
        let mut held = lock(&self.held);
        while *held >= self.most {
            if stop() {
                return Err("the query was stopped while it waited for a GPU".into());
            }
            held = self.freed.wait_timeout(held, WAIT_STEP).unwrap_or_else(|e| e.into_inner()).0;
        }
        *held += 1;
        Ok(())
    }

    fn give(&self) {
        *lock(&self.held) -= 1;
        self.freed.notify_one();
    }
}

/// What a query does about its CPU turn around a GPU: `away` once it holds a place at the
/// GPUs (it gives the turn back), `back` where it returns to the CPU without having run there.
pub struct Turns {
    pub away: Box<dyn Fn() + Send + Sync>,
    pub back: Box<dyn Fn() + Send + Sync>,
}

/// One query's borrowing from a pool: a place at its GPUs (`Places`), then at most one
/// engine, taken when the query goes to the GPU, given back by [`Loan::settle`] (or, where
/// the query's thread panicked, reopened when the loan is dropped).
pub struct Loan<E: Send + 'static> {
    pool: Arc<Pool<E>>,
    control: Arc<Control>,
    lent: Mutex<Option<usize>>,
    placed: std::sync::atomic::AtomicBool,
    turns: Option<Turns>,
}

impl<E: Send + 'static> Loan<E> {
    /// A loan for the query `control` stops.
    pub fn new(pool: Arc<Pool<E>>, control: Arc<Control>) -> Loan<E> {
        Loan { pool, control, lent: Mutex::new(None), placed: Default::default(), turns: None }
    }

    /// The loan, telling `turns` when the query leaves the CPU for the GPUs and comes back.
    pub fn with_turns(mut self, turns: Turns) -> Loan<E> {
        self.turns = Some(turns);
        self
    }

    /// An engine for the query: a place at the pool's GPUs, waiting for one (holding its CPU
    /// turn), then a free engine, waiting for one (without it), until the query is stopped.
    pub fn borrow(&self) -> Result<E, String> {
        let stop = || self.control.should_stop();
        self.pool.places.take(&stop)?;
        self.placed.store(true, std::sync::atomic::Ordering::SeqCst);
        if let Some(t) = &self.turns {
            (t.away)();
        }
        match self.pool.take(&stop) {
            Ok((i, engine)) => {
                *lock(&self.lent) = Some(i);
                Ok(engine)
            }
            Err(e) => {
                self.unplace();
                if let Some(t) = &self.turns {
                    (t.back)();
                }
                Err(e)
            }
        }
    }

    /// The loan's place given back, where it holds one.
    fn unplace(&self) {
        if self.placed.swap(false, std::sync::atomic::Ordering::SeqCst) {
            self.pool.places.give();
        }
    }

    /// The device the query borrowed, where it did.
    pub fn device(&self) -> Option<usize> {
        lock(&self.lent).map(|i| self.pool.devices[i])
    }

    /// The engine back after the query (None: lost), with the fault that poisoned its device.
    pub fn settle(&self, engine: Option<E>, fault: Option<String>) {
        let Some(i) = lock(&self.lent).take() else { return };
        match engine {
            Some(engine) => self.pool.give(i, engine, fault),
            None => self.pool.lost(i),
        }
        self.unplace();
    }
}

impl<E: Send + 'static> Drop for Loan<E> {
    fn drop(&mut self) {
        if let Some(i) = lock(&self.lent).take() {
            self.pool.lost(i);
        }
        self.unplace();
    }
}

impl Lender for Loan<Box<GpuSet>> {
    fn lend(&self) -> Result<Box<GpuSet>, String> {
        self.borrow()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::time::Instant;

    /// A fake device's context, as a CUDA primary context: once poisoned, it stays so while
    /// any engine made on it lives; the next engine opened after them makes a new one.
    #[derive(Default)]
    struct Context {
        generation: u64,
        poisoned: bool,
        live: BTreeMap<u64, usize>,
    }

    type Devices = Arc<[Arc<Mutex<Context>>; 2]>;

    /// A fake engine on a device's context of some generation.
    #[derive(Debug)]
    struct Fake {
        context: Arc<Mutex<Context>>,
        generation: u64,
    }

    impl std::fmt::Debug for Context {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            write!(f, "context {} (poisoned: {}, live: {:?})", self.generation, self.poisoned, self.live)
        }
    }

    impl Fake {
        fn open(context: &Arc<Mutex<Context>>) -> Result<Fake, String> {
            let mut c = lock(context);
            let generation = c.generation;
            let live = c.live.get(&generation).copied().unwrap_or(0);
            if c.poisoned {
                if live > 0 {
                    return Err(format!("{live} engine(s) still hold the poisoned context"));
                }
                c.poisoned = false;
                c.generation += 1;
            }
            let generation = c.generation;
            *c.live.entry(generation).or_default() += 1;
            Ok(Fake { context: context.clone(), generation })
        }
    }

    impl Drop for Fake {
        fn drop(&mut self) {
            *lock(&self.context).live.entry(self.generation).or_default() -= 1;
        }
    }

    /// The engines alive on `device`.
    fn alive(devices: &Devices, device: usize) -> usize {
        lock(&devices[device]).live.values().sum()
    }

    /// A fault on `device`'s context (the kernel's, before the query's error reaches the pool).
    fn poison(devices: &Devices, device: usize) {
        lock(&devices[device]).poisoned = true;
    }

    /// A pool over `devices` opening fakes.
    fn pool(fleet: &Arc<Fleet>, live: &Devices, devices: Vec<usize>) -> Arc<Pool<Fake>> {
        let engines = devices.iter().map(|&d| Fake::open(&live[d]).unwrap()).collect();
        let live = live.clone();
        let open: Opener<Fake> = Box::new(move |d| Fake::open(&live[d]));
        Pool::new(devices, engines, open, fleet)
    }

    fn fleet() -> Arc<Fleet> {
        Fleet::new(Duration::from_millis(20), Duration::from_millis(40), 2)
    }

    fn devices() -> Devices {
        Arc::new([Arc::default(), Arc::default()])
    }

    fn states(pool: &Pool<Fake>) -> Vec<(usize, &'static str)> {
        pool.states().iter().map(|s| (s.device, s.state)).collect()
    }

    /// Waits (at most 5 s) until every device of `pool` is ready.
    fn until_ready(pool: &Pool<Fake>) {
        until_states(pool, |states| states.iter().all(|s| s.state == "ready"));
    }

    /// Waits (at most 5 s) until `ok` holds of `pool`'s device states.
    fn until_states(pool: &Pool<Fake>, ok: impl Fn(&[DeviceState]) -> bool) {
        let start = Instant::now();
        while !ok(&pool.states()) {
            assert!(start.elapsed() < Duration::from_secs(5), "{:?}", pool.states());
            std::thread::sleep(Duration::from_millis(5));
        }
    }

    #[test]
    fn a_fault_takes_its_device_out_until_reopened_while_the_other_serves() {
        let (fleet, live) = (fleet(), devices());
        let p = pool(&fleet, &live, vec![0, 1]);
        let (a, ea) = p.take(&|| false).unwrap();
        let (b, eb) = p.take(&|| false).unwrap();
        assert_eq!((a, b), (0, 1));
        assert_eq!(states(&p), [(0, "busy"), (1, "busy")]);
        // Both lent: a query waits, until its stop.
        assert!(p.take(&|| true).unwrap_err().contains("stopped while it waited"));
        poison(&live, 0);
        p.give(a, ea, Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()));
        assert_eq!(p.states()[0].why.as_deref(), Some("CUDA_ERROR_ILLEGAL_ADDRESS"));
        p.give(b, eb, None);
        // Device 0 reopening, device 1 serves.
        let (c, ec) = p.take(&|| false).unwrap();
        assert_eq!(c, 1);
        p.give(c, ec, None);
        until_ready(&p);
        assert_eq!(fleet.counts()[&0], DeviceCounts { faults: 1, reopened: 1 });
        assert_eq!(fleet.counts()[&1], DeviceCounts::default());
        assert_eq!((alive(&live, 0), lock(&live[0]).generation), (1, 1));
    }

    #[test]
    fn no_device_in_service_is_answered_at_once_and_a_failed_reopening_is_retried() {
        let (fleet, live) = (fleet(), devices());
        let p = pool(&fleet, &live, vec![0]);
        let (i, e) = p.take(&|| false).unwrap();
        // An engine of the device kept alive elsewhere: the context stays poisoned, reopening fails.
        let held = Fake::open(&live[0]).unwrap();
        poison(&live, 0);
        p.give(i, e, Some("CUDA_ERROR_LAUNCH_FAILED".into()));
        let start = Instant::now();
        let err = p.take(&|| false).unwrap_err();
        assert!(start.elapsed() < Duration::from_secs(1));
        assert!(err.contains("no GPU is in service") && err.contains("GPU 0: CUDA_ERROR_LAUNCH_FAILED"), "{err}");
        while !p.states()[0].why.as_deref().unwrap_or("").contains("reopening failed") {
            assert!(start.elapsed() < Duration::from_secs(5), "{:?}", p.states());
            std::thread::sleep(Duration::from_millis(5));
        }
        drop(held);
        until_ready(&p);
        assert_eq!(fleet.counts()[&0], DeviceCounts { faults: 1, reopened: 1 });
    }

    #[test]
    fn a_fault_reaches_every_graph_on_its_device() {
        let (fleet, live) = (fleet(), devices());
        let (a, b, c) = (pool(&fleet, &live, vec![0]), pool(&fleet, &live, vec![0]), pool(&fleet, &live, vec![1]));
        // Graph b's engine is lent when graph a's query faults: poisoned, dropped when it returns.
        let (ib, eb) = b.take(&|| false).unwrap();
        let (ia, ea) = a.take(&|| false).unwrap();
        poison(&live, 0);
        a.give(ia, ea, Some("CUDA_ERROR_MISALIGNED_ADDRESS".into()));
        assert_eq!(states(&b), [(0, "busy")]);
        assert_eq!(alive(&live, 0), 1, "b's engine still holds the context");
        // b's query meets the fault too: the same fault, not counted again.
        b.give(ib, eb, Some("CUDA_ERROR_MISALIGNED_ADDRESS".into()));
        assert_eq!(states(&b), [(0, "reopening")]);
        until_ready(&a);
        until_ready(&b);
        assert_eq!(states(&c), [(1, "ready")]);
        assert_eq!(fleet.counts()[&0], DeviceCounts { faults: 1, reopened: 2 });
        // An idle engine is dropped at once.
        let (ia, ea) = a.take(&|| false).unwrap();
        poison(&live, 0);
        a.give(ia, ea, Some("CUDA_ERROR_HARDWARE_STACK_ERROR".into()));
        until_ready(&a);
        until_ready(&b);
        assert_eq!(fleet.counts()[&0], DeviceCounts { faults: 2, reopened: 4 });
    }

    #[test]
    fn a_fault_handed_over_is_told_once_and_not_reopened_here() {
        let (fleet, live) = (fleet(), devices());
        let told = Arc::new(Mutex::new(Vec::new()));
        let to = told.clone();
        let before = BTreeMap::from([(0, DeviceCounts { faults: 2, reopened: 2 })]);
        fleet.hand_over_faults(
            before,
            Box::new(move |device, why, counts| lock(&to).push((device, why.to_string(), counts))),
        );
        let (a, b) = (pool(&fleet, &live, vec![0, 1]), pool(&fleet, &live, vec![0]));
        let (i, e) = a.take(&|| false).unwrap();
        poison(&live, 0);
        a.give(i, e, Some("CUDA_ERROR_ILLEGAL_ADDRESS".into()));
        std::thread::sleep(Duration::from_millis(100));
        // Both graphs' engines on device 0 out of service, for good in this process; device 1 serves.
        assert_eq!(states(&a), [(0, "reopening"), (1, "ready")]);
        assert_eq!(states(&b), [(0, "reopening")]);
        let why = a.states()[0].why.clone().unwrap();
        assert!(why.contains("CUDA_ERROR_ILLEGAL_ADDRESS") && why.contains("a new server process"), "{why}");
        let told = lock(&told).clone();
        let counts = BTreeMap::from([(0, DeviceCounts { faults: 3, reopened: 2 }), (1, DeviceCounts::default())]);
        assert_eq!(told, [(0, "CUDA_ERROR_ILLEGAL_ADDRESS".to_string(), counts)]);
        assert_eq!(alive(&live, 0), 0, "the poisoned context's engines dropped");
        // A lost engine (a panicked query) is reopened here all the same: its context is sound.
        let (j, _) = a.take(&|| false).unwrap();
        a.lost(j);
        until_states(&a, |states| states.iter().any(|s| s.device == 1 && s.state == "ready"));
    }

    /// A loan counting how often its query left the CPU and came back.
    fn counted_loan(
        p: &Arc<Pool<Fake>>,
        control: Arc<Control>,
        moves: &Arc<[std::sync::atomic::AtomicUsize; 2]>,
    ) -> Loan<Fake> {
        let (away, back) = (moves.clone(), moves.clone());
        let turns = Turns {
            away: Box::new(move || _ = away[0].fetch_add(1, std::sync::atomic::Ordering::SeqCst)),
            back: Box::new(move || _ = back[1].fetch_add(1, std::sync::atomic::Ordering::SeqCst)),
        };
        Loan::new(p.clone(), control).with_turns(turns)
    }

    #[test]
    fn a_device_takes_its_places_and_a_query_leaves_the_cpu_only_with_one() {
        use std::sync::atomic::Ordering::SeqCst;
        let (fleet, live) = (fleet(), devices());
        // Two places on the one device: one query runs, one waits for the engine.
        let p = pool(&fleet, &live, vec![0]);
        let moves: Arc<[std::sync::atomic::AtomicUsize; 2]> = Arc::default();
        let a = counted_loan(&p, Arc::new(Control::unlimited()), &moves);
        let ea = a.borrow().unwrap();
        let waiter = |moves: &Arc<[std::sync::atomic::AtomicUsize; 2]>| {
            let (p, moves) = (p.clone(), moves.clone());
            std::thread::spawn(move || {
                let loan = counted_loan(&p, Arc::new(Control::unlimited()), &moves);
                let engine = loan.borrow().unwrap();
                loan.settle(Some(engine), None);
            })
        };
        let b = waiter(&moves);
        let start = Instant::now();
        while moves[0].load(SeqCst) < 2 {
            assert!(start.elapsed() < Duration::from_secs(5));
            std::thread::sleep(Duration::from_millis(5));
        }
        // A third waits for a place, keeping its CPU turn.
        let c = waiter(&moves);
        std::thread::sleep(Duration::from_millis(100));
        assert_eq!(moves[0].load(SeqCst), 2, "the third left the CPU without a place");
        a.settle(Some(ea), None);
        b.join().unwrap();
        c.join().unwrap();
        assert_eq!((moves[0].load(SeqCst), moves[1].load(SeqCst)), (3, 0));
        // A query stopped while it waits for the engine comes back to the CPU and frees its place.
        let held = counted_loan(&p, Arc::new(Control::unlimited()), &moves);
        let engine = held.borrow().unwrap();
        let stopped = Control::new(None, Arc::new(std::sync::atomic::AtomicBool::new(true)));
        let gone = counted_loan(&p, Arc::new(stopped), &moves);
        assert!(gone.borrow().unwrap_err().contains("stopped"));
        assert_eq!((moves[0].load(SeqCst), moves[1].load(SeqCst)), (5, 1));
        held.settle(Some(engine), None);
        drop(gone);
        assert_eq!(*lock(&p.places.held), 0, "every place given back");
    }

    #[test]
    fn a_loan_settles_its_engine_and_a_lost_one_is_reopened() {
        let (fleet, live) = (fleet(), devices());
        let p = pool(&fleet, &live, vec![1]);
        let loan = Loan::new(p.clone(), Arc::new(Control::unlimited()));
        assert_eq!(loan.device(), None);
        let engine = loan.borrow().unwrap();
        assert_eq!(loan.device(), Some(1));
        loan.settle(Some(engine), None);
        assert_eq!(states(&p), [(1, "ready")]);
        // A query's thread that panicked: its engine gone, the loan dropped.
        let loan = Loan::new(p.clone(), Arc::new(Control::unlimited()));
        drop(loan.borrow().unwrap());
        drop(loan);
        assert_eq!(states(&p), [(1, "reopening")]);
        until_ready(&p);
        assert_eq!(fleet.counts()[&1], DeviceCounts { faults: 0, reopened: 1 });
    }
}
