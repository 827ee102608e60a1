"""Side-by-side timing: one `qeval bird` process (EX and soft-F1) against BIRD's official
scripts (bird-bench/mini_dev evaluation/evaluation_ex.py, then evaluation_f1.py) on the
same items, runs alternating so both see the same machine.

    python3 clients/python/bench_bird.py --official /path/to/mini_dev/evaluation \
        --spider ../shared/data/spider --qeval bin/qeval

The items are a Spider prediction file (one query per line, DAIL-SQL's unless --pred
names another) converted to BIRD's format in a temporary folder, with the Spider gold;
the difficulties are simple, moderate, challenging in turn (the scripts need all three).
The official scripts run with --num_cpus 2. Where the func_timeout, psycopg2 or pymysql
packages are not installed, they are started with stand-ins: func_timeout calls the
query directly (the real one also starts a watchdog thread per query, so the stand-in
only makes the official side faster), and the two drivers, which SQLite runs never
call, are empty modules. Build qeval first (`go build -o bin/qeval ./cmd/qeval`).
"""

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

# Started with `python3 -c PATH ARGS…`: runs the official script at PATH as its own main,
# with stand-ins for the modules that are not installed.
OFFICIAL = """
import importlib.util, os, runpy, sys, types
path = sys.argv[1]
sys.path.insert(0, os.path.dirname(path))
if importlib.util.find_spec("func_timeout") is None:
    ft = types.ModuleType("func_timeout")
    class FunctionTimedOut(Exception):
        pass
    ft.FunctionTimedOut = FunctionTimedOut
    ft.func_timeout = lambda timeout, func, args=(), kwargs=None: func(*args, **(kwargs or {}))
    sys.modules["func_timeout"] = ft
for name in ("psycopg2", "pymysql"):
    if importlib.util.find_spec(name) is None:
        sys.modules[name] = types.ModuleType(name)
sys.argv = [path] + sys.argv[2:]
runpy.run_path(path, run_name="__main__")
"""


def timed(cmds):
    start = time.perf_counter()
    for cmd in cmds:
        subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def convert(spider, pred, out):
    """Writes pred.json, gold.sql and diff.jsonl of BIRD's formats into out."""
    with open(os.path.join(spider, "dev_gold_no_wta1.sql")) as f:
        gold = f.read().strip().split("\n")
    with open(os.path.join(spider, pred)) as f:
        preds = f.read().strip().split("\n")
    if len(gold) != len(preds):
        sys.exit("%s: %d lines, the gold has %d" % (pred, len(preds), len(gold)))
    items = {str(i): p + "\t----- bird -----\t" + g.rsplit("\t", 1)[1] for i, (g, p) in enumerate(zip(gold, preds))}
    with open(os.path.join(out, "pred.json"), "w") as f:
        json.dump(items, f)
    with open(os.path.join(out, "gold.sql"), "w") as f:
        f.write("\n".join(gold) + "\n")
    with open(os.path.join(out, "diff.jsonl"), "w") as f:
        for i in range(len(gold)):
            f.write(json.dumps({"question_id": i, "difficulty": ("simple", "moderate", "challenging")[i % 3]}) + "\n")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--official", required=True, help="folder of evaluation_ex.py and evaluation_f1.py")
    ap.add_argument("--spider", required=True, help="Spider folder: dev_gold_no_wta1.sql, predictions/, database/")
    ap.add_argument("--qeval", default="bin/qeval", help="the qeval binary")
    ap.add_argument("--pred", default="predictions/dailsql_gpt4_no_wta1.txt", help="predictions, relative to --spider")
    ap.add_argument("--runs", type=int, default=5, help="official runs (qeval runs three times as many)")
    a = ap.parse_args()

    tmp = tempfile.mkdtemp(prefix="bench_bird")
    convert(a.spider, a.pred, tmp)
    pred, gold, diff = (os.path.join(tmp, n) for n in ("pred.json", "gold.sql", "diff.jsonl"))
    db_root = os.path.join(os.path.abspath(a.spider), "database") + "/"
    args = ["--predicted_sql_path", pred, "--ground_truth_path", gold, "--db_root_path", db_root,
            "--num_cpus", "2", "--diff_json_path", diff, "--output_log_path", os.devnull]
    official = [[sys.executable, "-c", OFFICIAL, os.path.join(os.path.abspath(a.official), s)] + args
                for s in ("evaluation_ex.py", "evaluation_f1.py")]
    ours = [[a.qeval, "bird", "--pred", pred, "--gold", gold, "--diff", diff, "--db-root", db_root]]

    timed(official), timed(ours)  # both read their files once before timing
    off, q = [], []
    for _ in range(a.runs):
        off.append(timed(official))
        q.extend(timed(ours) for _ in range(3))
    mo, mq = statistics.median(off), statistics.median(q)
    print("official evaluation_ex.py + evaluation_f1.py: median %.3f s (fastest %.3f s, %d runs)" % (mo, min(off), len(off)))
    print("qeval bird (EX and soft-F1):                  median %.4f s (fastest %.4f s, %d runs)" % (mq, min(q), len(q)))
    print("ratio of medians: %.1fx" % (mo / mq))


if __name__ == "__main__":
    main()
