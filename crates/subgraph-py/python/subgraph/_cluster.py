"""One process of a cluster count, started by subgraph.cluster.count in a process of its own:
`python -m subgraph._cluster ARGS OUT`, ARGS a JSON object of cluster_process's keyword
arguments. Process 0 writes its records as one JSON list into the file OUT (standard output
is timely's, which reports its connection retries there). An error is one line on standard
error and exit status 1."""

import json
import sys

from . import _native


def main(argv):
    try:
        records = _native.cluster_process(**json.loads(argv[1]))
    except _native.SubgraphError as e:
        print(f"subgraph: error: {e}", file=sys.stderr)
        return 1
    if records is not None:
        with open(argv[2], "w", encoding="utf-8") as f:
            json.dump(records, f)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
