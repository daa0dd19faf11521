//! SGSI's partition-based pipeline (§6.2, `../shared/papers/gsi-sgsi.md` §6.3): host data a
//! pass reads piece by piece (the data graph's segments, a parked table's blocks) is copied one
//! piece ahead on the copy stream, double buffered, while the kernels read the piece before.

use std::ops::ControlFlow;

use crate::buffer::Lane;

/// Calls `each` with each of `order` (items a pass reads, in order) and, for those `copied`
/// says are not on the device, their copies as `arrive` hands them over ([`Gpu::arrived`]):
/// started by `start` on [`Lane::Ahead`] one item ahead where `pipeline` (the copy stream
/// fills the next item's buffers while the kernels `each` launches read this one's), else on
/// [`Lane::Now`] when the item comes. At most two items' copies are held at once. The pass ends
/// early where `each` says [`ControlFlow::Break`]; nothing is copied after. However the pass
/// ends (finished, broken off, or failed), a copy already started for the next item is handed
/// to `arrive` (which makes the default stream wait for it) and dropped, so that no copy from
/// host memory is left running where the default stream does not see it.
///
/// [`Gpu::arrived`]: crate::Gpu::arrived
pub fn pipelined<A, B, E>(
    pipeline: bool,
    order: &[usize],
    copied: &dyn Fn(usize) -> bool,
    start: &dyn Fn(usize, Lane) -> Result<A, E>,
    arrive: &dyn Fn(A) -> Result<B, E>,
    each: &mut dyn FnMut(usize, Option<B>) -> Result<ControlFlow<()>, E>,
) -> Result<(), E> {
    let copies: Vec<usize> = order.iter().copied().filter(|&i| copied(i)).collect();
    let mut ahead: Option<A> = None;
    let mut pass = || -> Result<(), E> {
        let mut next = 0;
        for &i in order {
            let arrived = if copied(i) {
                debug_assert_eq!(copies[next], i);
                next += 1;
                let arriving = match ahead.take() {
                    Some(a) => a,
                    None => start(i, if pipeline { Lane::Ahead } else { Lane::Now })?,
                };
                let arrived = arrive(arriving)?;
                if pipeline {
                    if let Some(&j) = copies.get(next) {
                        ahead = Some(start(j, Lane::Ahead)?);
                    }
                }
                Some(arrived)
            } else {
                None
            };
            if each(i, arrived)?.is_break() {
                break;
            }
        }
        Ok(())
    };
    let passed = pass();
    let drained = ahead.map_or(Ok(()), |a| arrive(a).map(drop));
    passed.and(drained)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::CudaError;
    use std::cell::RefCell;

    /// The pass over `order` (copied as `copied` says), ending after item `last`; the log of
    /// copies started and items read.
    fn pass(pipeline: bool, order: &[usize], copied: &dyn Fn(usize) -> bool, last: usize) -> Vec<String> {
        let log = RefCell::new(Vec::new());
        let start = |i: usize, lane: Lane| {
            log.borrow_mut().push(format!("copy {i} {lane:?}"));
            Ok(i)
        };
        let arrive = |i: usize| {
            log.borrow_mut().push(format!("arrive {i}"));
            Ok(i)
        };
        let mut each = |i: usize, arrived: Option<usize>| {
            assert_eq!(arrived.is_some(), copied(i), "item {i}");
            assert!(arrived.is_none_or(|a| a == i), "item {i} got {arrived:?}");
            log.borrow_mut().push(format!("read {i}"));
            Ok(if i == last { ControlFlow::Break(()) } else { ControlFlow::Continue(()) })
        };
        pipelined::<_, _, CudaError>(pipeline, order, copied, &start, &arrive, &mut each).unwrap();
        log.into_inner()
    }

    /// With the pipeline, each copied item's copy starts on the copy stream before the item
    /// before it is read (the first before anything); without, on the default stream right
    /// before it is read. Every item is read once, in order, with its copy exactly when copied,
    /// each copy handed over (the default stream made to wait for it) before the next starts.
    #[test]
    fn copies_start_one_ahead_with_the_pipeline() {
        let order = [0, 2, 3, 5, 6, 9];
        let copied = |i: usize| i != 3 && i != 6;
        let ahead = [
            "copy 0 Ahead",
            "arrive 0",
            "copy 2 Ahead",
            "read 0",
            "arrive 2",
            "copy 5 Ahead",
            "read 2",
            "read 3",
            "arrive 5",
            "copy 9 Ahead",
            "read 5",
            "read 6",
            "arrive 9",
            "read 9",
        ];
        let now = [
            "copy 0 Now",
            "arrive 0",
            "read 0",
            "copy 2 Now",
            "arrive 2",
            "read 2",
            "read 3",
            "copy 5 Now",
            "arrive 5",
            "read 5",
            "read 6",
            "copy 9 Now",
            "arrive 9",
            "read 9",
        ];
        assert_eq!(pass(true, &order, &copied, usize::MAX), ahead);
        assert_eq!(pass(false, &order, &copied, usize::MAX), now);
    }

    /// A pass that ends early reads nothing more, copies at most the one item ahead, and
    /// hands that copy to `arrive` (waited for, then dropped).
    #[test]
    fn a_pass_ended_early_copies_no_further() {
        let order = [0, 1, 2, 3];
        let all = |_: usize| true;
        let ahead =
            ["copy 0 Ahead", "arrive 0", "copy 1 Ahead", "read 0", "arrive 1", "copy 2 Ahead", "read 1", "arrive 2"];
        assert_eq!(pass(true, &order, &all, 1), ahead);
        let now = ["copy 0 Now", "arrive 0", "read 0", "copy 1 Now", "arrive 1", "read 1"];
        assert_eq!(pass(false, &order, &all, 1), now);
    }
}
