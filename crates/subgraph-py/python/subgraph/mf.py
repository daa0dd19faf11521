"""Matrix factorisation by stochastic gradient descent (HSGD*, Yu's thesis ch. 3): a model
R ~ P.Q^T of ratings, trained on every CPU core, on the GPU, or on both at once, as
`subgraph mf train` trains it.

    import numpy as np, subgraph.mf
    model = subgraph.mf.train(users, items, ratings, rank=16, epochs=20,
                              test=(test_users, test_items, test_ratings))
    model.history[-1]["test_rmse"]              # per epoch: RMSE, time, the CPU's share
    model.predict(users[:5], items[:5])         # float32 predictions
    ids, scores = model.recommend(users[0], k=10)   # a user's top items, best first
    model.save("m.sgm"); subgraph.mf.Model.load("m.sgm")

Ids are any non-negative integers (up to 2^64 - 1), compacted as the command line compacts a
file's: row j of `P` is user `user_ids[j]`, row j of `Q` item `item_ids[j]`. A user or an item
that training never saw is predicted as the training mean, in `predict` and in the test RMSE
(which counts it). The train RMSE is LIBMF's, from the errors met during the epoch's updates;
`elapsed_ms` counts training time alone, evaluation excluded.
"""

import numpy as _np

from ._native import MfModel as _MfModel
from ._native import SubgraphError

__all__ = ["train", "Model", "SubgraphError"]


def _ids(values, name):
    """A one-dimensional array of non-negative integers as uint64."""
    array = _np.asarray(values)
    if array.ndim == 0:
        array = array.reshape(1)
    if array.ndim != 1:
        raise SubgraphError(f"{name} must be a one-dimensional array of integer ids")
    if array.size == 0:
        return _np.zeros(0, dtype=_np.uint64)
    if not _np.issubdtype(array.dtype, _np.integer) or array.dtype == _np.bool_:
        raise SubgraphError(f"{name} must hold integer ids, not {array.dtype}")
    if _np.issubdtype(array.dtype, _np.signedinteger):
        bad = _np.flatnonzero(array < 0)
        if bad.size:
            i = int(bad[0])
            raise SubgraphError(f"{name}[{i}] is {array[i]}: ids are non-negative integers")
    return _np.ascontiguousarray(array, dtype=_np.uint64)


def _values(values, name):
    """A one-dimensional array of finite numbers as float32."""
    array = _np.asarray(values)
    if array.ndim != 1:
        raise SubgraphError(f"{name} must be a one-dimensional array of numbers")
    if array.size and not (_np.issubdtype(array.dtype, _np.number) and not _np.iscomplexobj(array)):
        raise SubgraphError(f"{name} must hold real numbers, not {array.dtype}")
    with _np.errstate(over="ignore"):
        out = _np.ascontiguousarray(array, dtype=_np.float32)
    bad = _np.flatnonzero(~_np.isfinite(out))
    if bad.size:
        i = int(bad[0])
        raise SubgraphError(f"{name}[{i}] is {array[i]}: ratings must be finite numbers within float32's range")
    return out


def _ratings(users, items, ratings, what):
    """(users, items, ratings) checked: one of each a rating, at least one rating."""
    prefix = f"{what} " if what else ""
    u = _ids(users, prefix + "users")
    i = _ids(items, prefix + "items")
    r = _values(ratings, prefix + "ratings")
    if not (len(u) == len(i) == len(r)):
        raise SubgraphError(
            f"{prefix}users, items and ratings must have one entry per rating: {len(u)}, {len(i)} and {len(r)} given"
        )
    if len(r) == 0:
        raise SubgraphError(f"{prefix}users, items and ratings are empty: no ratings")
    return u, i, r


def _signed(ids):
    """Ids as int64 where every one fits, as numpy code expects; else as uint64."""
    if ids.size == 0 or int(ids.max()) < 2**63:
        return ids.astype(_np.int64)
    return ids


def train(
    users,
    items,
    ratings,
    rank=128,
    epochs=20,
    device="auto",
    test=None,
    lr=0.005,
    decay=0.0,
    lambda_p=0.05,
    lambda_q=0.05,
    seed=1,
    threads=None,
    half=False,
    schedule="auto",
    target_rmse=None,
    gpus=None,
    adaptive=False,
):
    """Trains a model of the ratings `ratings[j]` of user `users[j]` for item `items[j]`
    (arrays or sequences of one length: integer ids >= 0, finite numbers).

    rank: k, the length of each factor; epochs: passes over the ratings; lr: gamma, the learning
    rate, which epoch t (from 0) takes as lr / (1 + decay * t^1.5); adaptive: LIBMF's adaptive
    rate instead, each row stepping by lr over the root of its accumulated squared gradient (lr
    is then a base rate, LIBMF's default 0.1; the CPU only); lambda_p, lambda_q: the L2 terms of
    P and Q; seed: the initial factors' and the shuffles'. test: (users, items,
    ratings) evaluated after each epoch (ids of the training set; unseen ones are predicted as
    the training mean and counted). target_rmse: stop at the first epoch whose test RMSE is at
    most this (needs test). device: "auto" (both devices where a GPU is present and the cost
    model predicts a gain, the GPU alone where it does not, the CPU without a GPU), "cpu",
    "gpu" or "hybrid"; schedule: "auto", "halves", "hsgd-star" or "hsgd" (the hybrid's); threads: CPU threads
    (default: every core); gpus: GPUs (default 1; 0: all); half: factors in half precision on
    the GPU. The GIL is released while training; Ctrl-C stops it after the current epoch
    (KeyboardInterrupt)."""
    u, i, r = _ratings(users, items, ratings, "")
    t = None
    if test is not None:
        if not isinstance(test, (tuple, list)) or len(test) != 3:
            raise SubgraphError("test must be a tuple (users, items, ratings)")
        t = _ratings(*test, "test")
    if threads is not None and (not isinstance(threads, int) or threads < 1):
        raise SubgraphError(f"threads {threads!r}: must be an integer of at least 1")
    for name, value in (("rank", rank), ("epochs", epochs), ("seed", seed)):
        if isinstance(value, bool) or not isinstance(value, (int, _np.integer)) or value < 0:
            raise SubgraphError(f"{name} {value!r}: must be a non-negative integer")
    native = _MfModel.train(
        u, i, r, t, int(rank), int(epochs), float(lr), float(decay), float(lambda_p), float(lambda_q),
        int(seed), bool(adaptive), device, schedule, threads, gpus, bool(half), target_rmse,
    )
    return Model(native)


class Model:
    """Factors P (users x k) and Q (items x k), float32, with the original ids of their rows."""

    def __init__(self, native):
        self._native = native
        self._factors = {}
        self.user_ids = _signed(native.user_ids)
        self.item_ids = _signed(native.item_ids)
        for array in (self.user_ids, self.item_ids):
            array.flags.writeable = False
        self.history = [
            {"epoch": e, "train_rmse": tr, "test_rmse": te, "elapsed_ms": ms, "cpu_share": share}
            for e, tr, te, ms, share in native.history
        ]

    def _copy(self, name):
        if name not in self._factors:
            array = getattr(self._native, name)
            array.flags.writeable = False
            self._factors[name] = array
        return self._factors[name]

    @property
    def P(self):
        """The users' factors, (users x k) float32, row j user user_ids[j]'s (read-only: a copy
        of the model's, made at the first use)."""
        return self._copy("P")

    @property
    def Q(self):
        """The items' factors, (items x k) float32, row j item item_ids[j]'s (read-only)."""
        return self._copy("Q")

    @property
    def rank(self):
        return self._native.rank

    @property
    def mean(self):
        """The training ratings' mean: the prediction for a user or item without factors."""
        return self._native.mean

    @property
    def reached_epoch(self):
        """The first epoch whose test RMSE reached target_rmse (None if none did or none was set)."""
        return self._native.reached_epoch

    @property
    def device(self):
        """Where training ran: "cpu", "gpu" or "hybrid" (None for a loaded model)."""
        return self._native.device

    def predict(self, users, items):
        """P[u].Q[i] for each pair of original ids (arrays broadcast against each other, or
        scalars: a scalar pair gives a float); the training mean where the user or the item is
        not in the model."""
        scalar = _np.ndim(users) == 0 and _np.ndim(items) == 0
        u, i = _np.broadcast_arrays(_np.asarray(users), _np.asarray(items))
        shape = u.shape
        out = self._native.predict(_ids(u.reshape(-1), "users"), _ids(i.reshape(-1), "items"))
        return float(out[0]) if scalar else out.reshape(shape)

    def recommend(self, user, k=10, exclude=None):
        """The k items of the highest predicted rating for `user` (an original id), best first:
        (item ids, predictions), two arrays of up to k entries (fewer where the model has fewer
        items left). exclude: item ids to leave out, such as the items the user rated."""
        if _np.ndim(user) != 0:
            raise SubgraphError("user must be one id")
        (u,) = _ids(user, "user")
        if isinstance(k, bool) or not isinstance(k, (int, _np.integer)) or k < 1:
            raise SubgraphError(f"k {k!r}: must be an integer of at least 1")
        e = None if exclude is None else _ids(exclude, "exclude")
        ids, scores = self._native.recommend(int(u), int(k), e)
        return ids.astype(self.item_ids.dtype), scores

    def save(self, path):
        """Writes the model to `path` (.sgm: versioned, checksummed, with the original ids)."""
        self._native.save(str(path))

    @staticmethod
    def load(path):
        """Reads a model written by `save` or `subgraph mf train --output` (validated: version,
        sizes, checksum). Its history is empty."""
        return Model(_MfModel.load(str(path)))

    def __repr__(self):
        return (
            f"subgraph.mf.Model({len(self.user_ids)} users x {len(self.item_ids)} items, rank {self.rank}, "
            f"{len(self.history)} epochs)"
        )
