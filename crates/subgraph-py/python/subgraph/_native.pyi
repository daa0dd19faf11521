"""Types of the native module (crates/subgraph-py/src/lib.rs); the package's functions are in
__init__.py."""

from os import PathLike
from typing import Iterator, Optional, Union

import numpy as np
import numpy.typing as npt

class SubgraphError(ValueError): ...

class QueryArgs:
    """The query calls' keyword arguments, checked: a wrong type is a TypeError naming the
    argument, an unknown name (semantics, filter, device) a SubgraphError listing the names,
    a limit or threads below 1 a SubgraphError. semantics None: "embed" for a Graph, "homomorphism" for a
    pattern; gpus a positive number or "all"."""

    def __init__(
        self,
        semantics: Optional[str],
        limit: Optional[int],
        timeout: Optional[float],
        threads: Optional[int],
        filter: str,
        device: str,
        gpus: Union[int, str],
    ) -> None: ...

class Graph:
    @staticmethod
    def from_file(
        path: Union[str, PathLike[str]],
        format: Optional[str] = None,
        directed: bool = False,
        vertex_labels: Optional[Union[str, PathLike[str]]] = None,
        vertex_props: Optional[Union[str, PathLike[str]]] = None,
        ids: str = "compact",
    ) -> Graph: ...
    @staticmethod
    def from_arrays(
        num_vertices: int,
        src: npt.NDArray[np.int64],
        dst: npt.NDArray[np.int64],
        vertex_labels: Optional[Union[npt.NDArray[np.int64], list[str]]] = None,
        edge_labels: Optional[Union[npt.NDArray[np.int64], list[str]]] = None,
        directed: bool = False,
    ) -> Graph:
        """Labels are numbers, or strings: names, numbered 0..k in byte order as a file's."""
    @staticmethod
    def from_edges(
        src: npt.ArrayLike,
        dst: npt.ArrayLike,
        vertex_labels: Optional[npt.ArrayLike] = None,
        edge_labels: Optional[npt.ArrayLike] = None,
        directed: bool = False,
        num_vertices: Optional[int] = None,
    ) -> Graph: ...
    def save(self, path: Union[str, PathLike[str]]) -> None: ...
    @property
    def num_vertices(self) -> int: ...
    @property
    def num_edges(self) -> int: ...
    @property
    def directed(self) -> bool: ...
    def labels(self) -> npt.NDArray[np.uint32]: ...
    def original_ids(self) -> Union[None, npt.NDArray[np.uint64], list[str]]: ...

class Result:
    embeddings: int
    complete: bool
    stopped: Optional[str]
    elapsed_ms: float
    filter_ms: float
    order_ms: float
    space_ms: float
    enumerate_ms: float
    trial_ms: float
    compare_ms: float
    probe_ms: float
    spasm_ms: float
    filter: str
    order: str
    automorphisms: Optional[int]
    unique: Optional[int]
    device: str
    note: Optional[str]
    rows: Optional[int]
    columns: Optional[list[str]]

class MatchBatches(Iterator[npt.NDArray[np.uint32]]):
    result: Optional[Result]
    columns: Optional[list[str]]
    count_star: bool
    def __init__(self, data: Graph, query: Union[Graph, str], args: QueryArgs) -> None: ...
    def __next__(self) -> npt.NDArray[np.uint32]: ...

def run_query_py(
    data: Graph, query: Union[Graph, str], args: QueryArgs, collect: bool, unique: bool
) -> tuple[Result, Optional[npt.NDArray[np.uint32]]]: ...
def explain(
    data: Graph,
    query: Union[Graph, str],
    semantics: Optional[str] = None,
    filter: str = "auto",
    timeout: Optional[float] = None,
) -> list[dict[str, object]]:
    """The plans of a Graph, or of each label expansion of a pattern's text (key "expansion"):
    order, vertices, tail, estimated_embeddings, estimated_cost, chosen. semantics None:
    "embed" for a Graph, "homomorphism" for a pattern."""

def cluster_process(
    manifest: Union[str, PathLike[str]],
    query: Union[str, PathLike[str]],
    hosts: Union[str, PathLike[str]],
    process: int,
    threads: int = 1,
    semantics: Optional[str] = None,
    limit: Optional[int] = None,
    timeout: Optional[float] = None,
    order: Optional[str] = None,
    symmetry: bool = True,
    cache_memory: Optional[int] = None,
    connect_timeout: float = 30.0,
) -> Optional[list[dict[str, object]]]:
    """One process of a cluster count (subgraph.cluster runs it in a process of its own):
    process 0's records, None on the others."""

def cluster_partition(
    data: Graph, parts: int, output: Union[str, PathLike[str]], by: str = "hash"
) -> str:
    """subgraph.cluster.partition: the manifest's path."""

class AnnIndex:
    @staticmethod
    def build(
        x: npt.NDArray[np.float32],
        metric: str,
        graph: str,
        degree: int,
        d_min: Optional[int],
        ef_construction: Optional[int],
        prune: str,
        labels: Optional[npt.NDArray[np.int64]],
        seed: int,
        device: str,
        gpus: int,
        threads: Optional[int],
    ) -> "AnnIndex": ...
    def search(
        self,
        q: npt.NDArray[np.float32],
        k: int,
        ef: Optional[int],
        labels: Optional[npt.NDArray[np.int64]],
        mask: Optional[npt.NDArray[np.bool_]],
        brute_force: bool,
        threads: Optional[int],
        precision: str,
    ) -> tuple[npt.NDArray[np.int64], npt.NDArray[np.float32]]: ...
    def add(self, x: npt.NDArray[np.float32], labels: Optional[npt.NDArray[np.int64]], threads: Optional[int]) -> None: ...
    def save(self, path: str) -> None: ...
    @staticmethod
    def load(path: str, device: str, gpus: int) -> "AnnIndex": ...
    def __len__(self) -> int: ...
    @property
    def dim(self) -> int: ...
    @property
    def metric(self) -> str: ...
    @property
    def graph(self) -> str: ...
    @property
    def degree(self) -> int: ...
    @property
    def device(self) -> str: ...
    @property
    def has_labels(self) -> bool: ...
