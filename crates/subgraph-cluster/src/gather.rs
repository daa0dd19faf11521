//! One all-gather over timely: every worker's items to every worker (timely's `Broadcast`),
//! for what the workers of a query exchange whole and once, the lists' sizes (`replicate`)
//! and the tallies process 0 sums (`run`); small beside the partial matches `dataflow` routes
//! (BiGJoin's deployment on timely, Ammar et al., VLDB 2018 §5). And its variant for what each
//! process needs once, not each worker: every worker's items to each process's first worker
//! (the candidate sets `filter` unites, the lists `replicate` copies).

use std::cell::RefCell;
use std::rc::Rc;
use std::time::Duration;
use timely::communication::Allocate;
use timely::container::CapacityContainerBuilder;
use timely::dataflow::channels::pact::Exchange;
use timely::dataflow::operators::generic::Operator;
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

/// Every worker's `items` on the first worker of each process (`threads` workers a process),
/// in the order they arrived; empty on the other workers. Returns once all are in. Every worker
/// of the computation must call it, in the same sequence of calls. Each item is one record of
/// the exchange: send many small things as a few batches of them.
pub fn to_each_process<A: Allocate, T: ExchangeData>(worker: &mut Worker<A>, items: Vec<T>, threads: usize) -> Vec<T> {
    let got: Rc<RefCell<Vec<T>>> = Rc::default();
    let mut input: InputHandle<u64, (u64, T)> = InputHandle::new();
    let probe = ProbeHandle::new();
    worker.dataflow::<u64, _, _>(|scope| {
        let into = got.clone();
        scope
            .input_from(&mut input)
            .unary::<CapacityContainerBuilder<Vec<()>>, _, _, _>(
                Exchange::new(|(to, _): &(u64, T)| *to),
                "to each process",
                |_, _| {
                    move |input, _| {
                        input.for_each(|_, data| into.borrow_mut().extend(data.drain(..).map(|(_, x)| x)));
                    }
                },
            )
            .probe_with(&probe);
    });
    let firsts: Vec<u64> = (0..worker.peers()).step_by(threads).map(|w| w as u64).collect();
    let (&last, rest) = firsts.split_last().expect("a process has a first worker");
    for x in items {
        rest.iter().for_each(|&to| input.send((to, x.clone())));
        input.send((last, x));
    }
    input.close();
    while !probe.done() {
        worker.step_or_park(Some(Duration::from_millis(5)));
    }
    got.take()
}
