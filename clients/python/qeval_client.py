"""A client of qeval's exec-match reward service, standard library only.

    from qeval_client import QevalClient, compute_score

    client = QevalClient("http://127.0.0.1:8080")
    client.exec_match([{"db": "concert_singer", "gold": "SELECT ...", "pred": "SELECT ..."}])

compute_score has the signature reward functions of common RL trainers take
(verl's custom_reward_function, for one): the model's response, the gold SQL and the
database come in, 1.0 or 0.0 (or partial credit) goes out. The server is read from
QEVAL_URL (default http://127.0.0.1:8080) and its token from QEVAL_TOKEN.
"""

import json
import os
import re
import urllib.error
import urllib.request

__all__ = ["QevalClient", "QevalError", "compute_score", "extract_sql"]

DEFAULT_URL = "http://127.0.0.1:8080"


class QevalError(Exception):
    """The service answered with an error, or could not be reached."""

    def __init__(self, message, code=None, status=None):
        super().__init__(message)
        self.code = code
        self.status = status


class QevalClient:
    """Talks to `qeval serve`: exec_match sends a batch of pairs, stats reads counters."""

    def __init__(self, url=None, token=None, timeout=60.0):
        self.url = (url or os.environ.get("QEVAL_URL") or DEFAULT_URL).rstrip("/")
        self.token = token if token is not None else os.environ.get("QEVAL_TOKEN")
        self.timeout = timeout

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        req = urllib.request.Request(self.url + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", "application/json")
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return json.loads(resp.read().decode("utf-8"))
        except urllib.error.HTTPError as e:
            raw = e.read().decode("utf-8", "replace")
            try:
                err = json.loads(raw).get("error") or {}
            except ValueError:
                err = {}
            raise QevalError(err.get("message") or raw or str(e), code=err.get("code"), status=e.code) from None
        except (urllib.error.URLError, OSError) as e:
            raise QevalError("cannot reach qeval at %s: %s" % (self.url, e)) from None

    def exec_match(self, pairs, results=False):
        """Judges pairs of {"db", "gold", "pred"[, "mode", "timeout_ms", "partial"]}.

        Returns one result per pair, in order: {"match", "outcome", "error", "pred_ms",
        "cached_gold"[, "partial"]}, and with results=True also "pred_results" and
        "gold_results" ({"columns", "rows", "truncated"}; null for a query that failed).
        A bad pair gets its own error; it never fails the batch.
        """
        pairs = list(pairs)
        if not pairs:
            return []
        body = {"pairs": pairs}
        if results:
            body["results"] = True
        return self._request("POST", "/api/exec-match", body)["results"]

    def stats(self):
        """Counts, gold-cache hits and latency quantiles of the service."""
        return self._request("GET", "/api/exec-match/stats")


_FENCE = re.compile(r"```[ \t]*(?:sql|sqlite|postgresql|postgres|mysql|duckdb)?[ \t]*\n(.*?)```", re.IGNORECASE | re.DOTALL)
_START = re.compile(r"\b(?:WITH|SELECT)\b", re.IGNORECASE)


def _balanced(text):
    """Whether text never closes a parenthesis it did not open (so it is not the tail
    of a subquery)."""
    depth = 0
    for ch in text:
        if ch == "(":
            depth += 1
        elif ch == ")":
            depth -= 1
            if depth < 0:
                return False
    return True


def extract_sql(text):
    """The SQL of a model's response, or None if there is none.

    The last fenced block (```sql ... ```) wins. Without one, the last query written
    in the text: its last SELECT or WITH that is not inside parentheses, extended back
    over the SELECTs and WITHs of the same statement (a UNION, a WITH ... AS (...)),
    up to the first semicolon after it. A statement ends at a semicolon, a blank line
    or a colon (as in "Here is the query:").
    """
    if not text:
        return None
    fences = _FENCE.findall(text)
    if fences:
        return fences[-1].strip().rstrip(";").strip() or None
    starts = [m.start() for m in _START.finditer(text)]
    starts = [s for s in starts if _balanced(text[s:].split(";", 1)[0])]
    if not starts:
        return None
    k = len(starts) - 1
    while k > 0:
        gap = text[starts[k - 1]:starts[k]]
        if ";" in gap or "\n\n" in gap or ":" in gap:
            break
        k -= 1
    sql = text[starts[k]:].split(";", 1)[0].strip()
    return sql or None


_default_client = None


def _client():
    global _default_client
    if _default_client is None:
        _default_client = QevalClient()
    return _default_client


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """The execution-match reward of one sampled response.

    ground_truth is the gold SQL (a string) or a dict with "gold" (or "sql") and "db_id"
    (or "db"); the database may also come in extra_info["db_id"] (or "db"). extra_info
    may set "mode", "timeout_ms" and "partial" (True: partial credit, BIRD's soft F1).
    Returns 1.0 for a match, 0.0 otherwise (or the partial credit when asked).
    No SQL in the response scores 0.0 without a call.
    """
    extra = dict(extra_info or {})
    if isinstance(ground_truth, dict):
        gold = ground_truth.get("gold") or ground_truth.get("sql")
        db = ground_truth.get("db_id") or ground_truth.get("db")
    else:
        gold, db = ground_truth, None
    db = db or extra.get("db_id") or extra.get("db")
    if not gold or not db:
        raise QevalError("compute_score(%s): no gold SQL or no database (db_id) in ground_truth or extra_info" % data_source)
    pred = extract_sql(solution_str)
    if pred is None:
        return 0.0
    pair = {"db": db, "gold": gold, "pred": pred}
    for k in ("mode", "timeout_ms", "partial"):
        if k in extra:
            pair[k] = extra[k]
    res = _client().exec_match([pair])[0]
    if pair.get("partial") and res.get("partial") is not None:
        return float(res["partial"])
    return 1.0 if res.get("match") else 0.0
