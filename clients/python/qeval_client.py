"""A client of qeval's exec-match reward service, standard library only.

    from qeval_client import QevalClient, compute_score

    client = QevalClient("http://127.0.0.1:8080")
    client.exec_match([{"db": "concert_singer", "gold": "SELECT ...", "pred": "SELECT ..."}])

Reward functions for RL trainers: the model's response, the gold SQL and the
database come in, 1.0 or 0.0 (or partial credit) goes out. compute_score is verl's
reward function, compute_score_batch the one of verl's batch reward manager (a whole
batch in one request), make_grpo_reward() makes TRL's GRPOTrainer reward function. The
server is read from QEVAL_URL (default http://127.0.0.1:8080) and its token from
QEVAL_TOKEN.
"""

import json
import os
import re
import urllib.error
import urllib.request

__all__ = ["QevalClient", "QevalError", "compute_score", "compute_score_batch", "extract_sql", "make_grpo_reward"]

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


def _pair(data_source, solution_str, ground_truth, extra_info):
    """The exec-match pair of one response, or None when the response holds no SQL."""
    extra = dict(extra_info or {})
    if isinstance(ground_truth, dict):
        gold = ground_truth.get("gold") or ground_truth.get("sql") or ground_truth.get("query")
        db = ground_truth.get("db_id") or ground_truth.get("db")
    else:
        gold, db = ground_truth, None
    db = db or extra.get("db_id") or extra.get("db")
    if not gold or not db:
        raise QevalError("%s: no gold SQL or no database (db_id) in ground_truth or extra_info" % (data_source,))
    pred = extract_sql(solution_str)
    if pred is None:
        return None
    pair = {"db": db, "gold": gold, "pred": pred}
    for k in ("mode", "timeout_ms", "partial"):
        if extra.get(k) is not None:
            pair[k] = extra[k]
    return pair


def _reward(pair, res):
    if pair.get("partial") and res.get("partial") is not None:
        return float(res["partial"])
    return 1.0 if res.get("match") else 0.0


# The most pairs sent in one request: the server's default --max-pairs.
MAX_BATCH = 4096


def _score_pairs(pairs, client=None):
    """Rewards of pairs (None: a response without SQL, 0.0 without a call), asking the
    service in batches of at most MAX_BATCH pairs."""
    client = client or _client()
    out = [0.0] * len(pairs)
    todo = [i for i, p in enumerate(pairs) if p is not None]
    for start in range(0, len(todo), MAX_BATCH):
        chunk = todo[start:start + MAX_BATCH]
        results = client.exec_match([pairs[i] for i in chunk])
        for i, res in zip(chunk, results):
            out[i] = _reward(pairs[i], res)
    return out


def compute_score(data_source, solution_str, ground_truth, extra_info=None):
    """The execution-match reward of one sampled response: verl's reward function
    (custom_reward_function.path=.../qeval_client.py, custom_reward_function.name=compute_score).

    ground_truth is the gold SQL (a string) or a dict with "gold" (or "sql", "query") and
    "db_id" (or "db"); the database may also come in extra_info["db_id"] (or "db").
    extra_info may set "mode", "timeout_ms" and "partial" (True: partial credit, BIRD's
    soft F1). Returns 1.0 for a match, 0.0 otherwise (or the partial credit when asked).
    No SQL in the response scores 0.0 without a call.
    """
    return _score_pairs([_pair("compute_score(%s)" % data_source, solution_str, ground_truth, extra_info)])[0]


def compute_score_batch(data_sources, solution_strs, ground_truths, extra_infos=None, **kwargs):
    """The rewards of a whole batch in one request: verl's batch reward manager
    (reward_model.reward_manager=batch, custom_reward_function.name=compute_score_batch).

    The lists are parallel, as compute_score's arguments one by one (extra_infos may be
    None); returns a list of floats. Other keyword arguments are ignored.
    """
    solution_strs = list(solution_strs)
    n = len(solution_strs)
    data_sources = list(data_sources) if data_sources is not None else [None] * n
    ground_truths = list(ground_truths)
    extra_infos = list(extra_infos) if extra_infos is not None else [None] * n
    if not (len(data_sources) == len(ground_truths) == len(extra_infos) == n):
        raise QevalError("compute_score_batch: %d data_sources, %d solution_strs, %d ground_truths, %d extra_infos: the lists must be as long"
                         % (len(data_sources), n, len(ground_truths), len(extra_infos)))
    pairs = [_pair("compute_score_batch item %d (%s)" % (i, data_sources[i]), solution_strs[i], ground_truths[i], extra_infos[i])
             for i in range(n)]
    return _score_pairs(pairs)


def _completion_text(c):
    """The text of a TRL completion: a string, or (conversational) a list of messages
    whose last one is the answer."""
    if isinstance(c, str):
        return c
    if isinstance(c, (list, tuple)) and c:
        last = c[-1]
        return last.get("content") if isinstance(last, dict) else str(last)
    return None


def make_grpo_reward(partial=False, mode=None, timeout_ms=None, client=None):
    """A reward function for TRL's GRPOTrainer (reward_funcs=[make_grpo_reward()]).

    TRL calls it with the batch's completions and the dataset's other columns, one list
    each: the gold SQL in "query" (Spider's name), "gold" or "sql", the database in
    "db_id" (or "db"). Completions may be text or conversations (the last message is
    scored). All completions of a call go to the service in one request. partial=True
    gives BIRD's soft F1 as partial credit; mode and timeout_ms are passed on per pair.
    """

    def exec_match_reward(prompts=None, completions=None, **columns):
        completions = list(completions or [])
        gold = next((columns[k] for k in ("query", "gold", "sql") if columns.get(k) is not None), None)
        dbs = next((columns[k] for k in ("db_id", "db") if columns.get(k) is not None), None)
        if gold is None or dbs is None:
            raise QevalError("exec_match_reward: the dataset needs a gold SQL column (query, gold or sql) and a database column (db_id or db); it has %s"
                             % ", ".join(sorted(columns)))
        extra = {"partial": partial or None, "mode": mode, "timeout_ms": timeout_ms}
        pairs = [_pair("exec_match_reward completion %d" % i, _completion_text(c), {"gold": gold[i], "db_id": dbs[i]}, extra)
                 for i, c in enumerate(completions)]
        return _score_pairs(pairs, client)

    return exec_match_reward
