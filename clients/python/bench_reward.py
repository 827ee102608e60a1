"""Side-by-side timing: qeval's reward service against the way RL training repos
compute an execution-match reward (Python sqlite3 in a process pool, a timeout per
query, results compared as sets), on the same pairs.

    python3 clients/python/bench_reward.py --db-root ../shared/data/spider/database \
        --pairs ../shared/data/spider/oracle/c3_chatgpt.jsonl --qeval-cmd "go run ./cmd/qeval"

Both sides start warm: the baseline's pool is up, qeval's gold results are cached
(a training loop asks the same gold queries over and over). Prints pairs/s of each,
their ratio, and how many verdicts differ (the baseline's set comparison is not the
Spider rules, so a few differ).
"""

import argparse
import json
import multiprocessing
import os
import re
import shlex
import sqlite3
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from qeval_client import QevalClient  # noqa: E402

def _execute(db_path, sql):
    # a connection per query, as the reward functions of the training repos open one
    con = sqlite3.connect("file:%s?mode=ro" % db_path, uri=True)
    try:
        con.text_factory = lambda b: b.decode(errors="ignore")
        return con.execute(sql).fetchall()
    finally:
        con.close()


def _reward(args):
    db_path, gold, pred = args
    try:
        gold_rows = _execute(db_path, gold)
        pred_rows = _execute(db_path, pred)
    except Exception:
        return 0.0
    return 1.0 if set(map(tuple, gold_rows)) == set(map(tuple, pred_rows)) else 0.0


def baseline(pool, pairs, root, timeout):
    jobs = [pool.apply_async(_reward, ((os.path.join(root, p["db"], p["db"] + ".sqlite"), p["gold"], p["pred"]),)) for p in pairs]
    out = []
    for j in jobs:
        try:
            out.append(j.get(timeout=timeout))
        except multiprocessing.TimeoutError:
            out.append(0.0)
    return out


def service(client, pairs, batch, threads):
    chunks = [pairs[i:i + batch] for i in range(0, len(pairs), batch)]
    with ThreadPoolExecutor(threads) as ex:
        results = list(ex.map(client.exec_match, chunks))
    return [1.0 if r["match"] else 0.0 for chunk in results for r in chunk]


def start_server(cmd, root):
    args = shlex.split(cmd) + ["serve", "--addr", "127.0.0.1:0", "--db-root", root, "--judge", "none", "--no-cache",
                               "--data-dir", os.path.join("/tmp", "qeval-bench-%d" % os.getpid())]
    proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    for line in proc.stderr:
        m = re.search(r"serving on (http://\S+?)/? ", line)
        if m:
            threading.Thread(target=lambda: [None for _ in proc.stderr], daemon=True).start()
            return proc, m.group(1).rstrip("/")
    raise SystemExit("qeval serve did not start")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--db-root", required=True)
    ap.add_argument("--pairs", required=True, help="JSON lines with db_id, gold, pred (the oracle files)")
    ap.add_argument("--qeval-cmd", default="qeval")
    ap.add_argument("--url", help="a running qeval serve --db-root (instead of starting one)")
    ap.add_argument("--rounds", type=int, default=5, help="passes over the pairs")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--threads", type=int, default=4)
    ap.add_argument("--workers", type=int, default=os.cpu_count())
    args = ap.parse_args()

    pairs = []
    with open(args.pairs) as f:
        for line in f:
            it = json.loads(line)
            pairs.append({"db": it["db_id"], "gold": it["gold"], "pred": it["pred"], "timeout_ms": 5000})
    work = pairs * args.rounds

    proc = None
    url = args.url
    if url is None:
        proc, url = start_server(args.qeval_cmd, args.db_root)
    try:
        client = QevalClient(url)
        service(client, pairs, args.batch, args.threads)  # warm-up: databases open, gold cached
        t = time.perf_counter()
        ours = service(client, work, args.batch, args.threads)
        qeval_s = time.perf_counter() - t

        with multiprocessing.Pool(args.workers) as pool:
            baseline(pool, pairs[: args.workers * 4], args.db_root, 30)  # warm-up
            t = time.perf_counter()
            theirs = baseline(pool, work, args.db_root, 30)
            base_s = time.perf_counter() - t
    finally:
        if proc is not None:
            proc.terminate()
            proc.wait()

    differ = sum(1 for a, b in zip(ours, theirs) if a != b) // args.rounds
    print("pairs: %d (%d x %d)" % (len(work), len(pairs), args.rounds))
    print("qeval service : %8.0f pairs/s  (%.2f s, batches of %d, %d client threads)" % (len(work) / qeval_s, qeval_s, args.batch, args.threads))
    print("python pool   : %8.0f pairs/s  (%.2f s, %d processes, sqlite3, set comparison)" % (len(work) / base_s, base_s, args.workers))
    print("ratio         : %8.1f x" % (base_s / qeval_s))
    print("verdicts that differ (per pass): %d of %d" % (differ, len(pairs)))


if __name__ == "__main__":
    main()
