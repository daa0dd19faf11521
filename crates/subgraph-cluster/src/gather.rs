//! One all-gather over timely: every worker's items to every worker (timely's `Broadcast`),
//! for what the workers of a query exchange whole and once, the candidate sets (`filter`) and
//! the tallies process 0 sums (`run`); small beside the partial matches `dataflow` routes
//! (BiGJoin's deployment on timely, Ammar et al., VLDB 2018 §5).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use timely::communication::Allocate;
use timely::dataflow::operators::{Broadcast, Input, Inspect, Probe};
use timely::dataflow::{InputHandle, ProbeHandle};
use timely::worker::Worker;
use timely::ExchangeData;

/// Every worker's `items`, on every worker, in the order they arrived; returns once all are in.
/// Every worker of the computation must call it, in the same sequence of calls.
pub fn all_gather<A: Allocate, T: ExchangeData>(worker: &mut Worker<A>, items: Vec<T>) -> Vec<T> {
    let got: Rc<RefCell<Vec<T>>> = Rc::default();
    let mut input: InputHandle<u64, T> = InputHandle::new();
    let probe = ProbeHandle::new();
    worker.dataflow::<u64, _, _>(|scope| {
        let into = got.clone();
        scope
            .input_from(&mut input)
            .broadcast()
            .inspect(move |x: &T| into.borrow_mut().push(x.clone()))
            .probe_with(&probe);
    });
    for x in items {
        input.send(x);
    }
    input.close();
    while !probe.done() {
        worker.step_or_park(Some(Duration::from_millis(5)));
    }
    got.take()
}
