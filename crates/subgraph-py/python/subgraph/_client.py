"""A client of `subgraph serve` (the manual's "The query server"), on the standard library alone.

    import subgraph
    c = subgraph.Client("http://127.0.0.1:7878", token="…")
    c.count("hprd", "MATCH (a:1)--(b:1) RETURN count(*)")["embeddings"]   # 590
    rows = c.match("hprd", "MATCH (a:1)--(b:1) RETURN a, b", limit=10)    # [{"a": 2, "b": 7568}, …]
    for row in c.iter_matches("hprd", open("query.graph").read()): ...

A query is a pattern (text starting with MATCH) or a query graph's text (a `pathlib.Path` is
read); options are `subgraph match`'s by name (semantics, limit, timeout, unique, …). A failed
request raises `ServerError`, with the server's `code`, its message and the HTTP status.
"""

import json
import pathlib
import urllib.error
import urllib.request

__all__ = ["Client", "ServerError"]


class ServerError(Exception):
    """A request the server refused or could not answer: `code` (the stable error code, such
    as "unknown_graph" or "busy"), `status` (HTTP) and the server's message."""

    def __init__(self, code, message, status=None):
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message
        self.status = status


def _body(query, options):
    if isinstance(query, pathlib.Path):
        query = query.read_text()
    if not isinstance(query, str):
        raise TypeError("a query is a pattern or a query graph's text (str), or a pathlib.Path")
    key = "pattern" if query.lstrip()[:5].upper() == "MATCH" else "query"
    return json.dumps({key: query, **options}).encode()


def _row(line):
    """A streamed line's match: a query graph's embedding (a list of data vertices) or a
    pattern's row (a dict of its columns)."""
    return line["embedding"] if "embedding" in line else line["row"]


class Matches:
    """The rows of a streamed match, as the server finds them; `record` is the match's record
    (as `count` returns it) once they are all read. Closing it stops the query on the server."""

    def __init__(self, response):
        self._response = response
        self.record = None

    def __iter__(self):
        return self

    def __next__(self):
        if self.record is not None or self._response is None:
            raise StopIteration
        line = self._response.readline()
        if not line:
            self.close()
            raise ServerError("truncated", "the stream ended without its record")
        item = json.loads(line)
        if "code" in item and "message" in item:
            self.close()
            raise ServerError(item["code"], item["message"])
        if "row" in item or "embedding" in item:
            return _row(item)
        self.record = item
        self.close()
        raise StopIteration

    def close(self):
        if self._response is not None:
            self._response.close()
            self._response = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


class Client:
    """A server at `url` (such as "http://127.0.0.1:7878"), asked with `token` where it has a
    token file; each request waits at most `timeout` seconds for the server's answer to begin."""

    def __init__(self, url, token=None, timeout=300):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    def _open(self, method, path, body=None):
        request = urllib.request.Request(self.url + path, data=body, method=method)
        request.add_header("Content-Type", "application/json")
        if self.token is not None:
            request.add_header("Authorization", f"Bearer {self.token}")
        try:
            return urllib.request.urlopen(request, timeout=self.timeout)
        except urllib.error.HTTPError as e:
            raw = e.read()
            try:
                error = json.loads(raw)
                raise ServerError(error["code"], error["message"], e.code) from None
            except (ValueError, KeyError, TypeError):
                raise ServerError("http", raw.decode(errors="replace"), e.code) from None

    def _json(self, method, path, body=None):
        with self._open(method, path, body) as response:
            return json.loads(response.read())

    def health(self):
        """The server's `/v1/health`: status, graphs, running and queued queries."""
        return self._json("GET", "/v1/health")

    def graphs(self):
        """The graphs the token may query, each a dict of name, vertices, edges, device, …"""
        return self._json("GET", "/v1/graphs")["graphs"]

    def count(self, graph, query, **options):
        """The record `subgraph match --format json` prints for `query` on `graph`: a dict of
        embeddings, complete, stopped, elapsed_ms, … (rows for a pattern)."""
        return self._json("POST", f"/v1/graphs/{graph}/match", _body(query, options))

    def iter_matches(self, graph, query, **options):
        """The matches of `query` on `graph` as the server finds them (`Matches`): each a list
        of data vertices for a query graph, a dict of columns for a pattern."""
        return Matches(self._open("POST", f"/v1/graphs/{graph}/match?stream=jsonl", _body(query, options)))

    def match(self, graph, query, **options):
        """Every match of `query` on `graph` (up to `limit`), as `iter_matches` yields them."""
        with self.iter_matches(graph, query, **options) as matches:
            return list(matches)

    def explain(self, graph, query, **options):
        """How `query` is planned on `graph`, as `subgraph explain --format json` says."""
        return self._json("POST", f"/v1/graphs/{graph}/explain", _body(query, options))

    def reload(self, graph):
        """Reads `graph` again from its file on the server (an admin token)."""
        return self._json("POST", f"/v1/graphs/{graph}/reload", b"")["reloaded"]
