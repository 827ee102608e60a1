"""Side-by-side timing: a whole `qeval spider` process against the official Spider
evaluator's (taoyds/test-suite-sql-eval evaluation.py) on the same files, runs
alternating so both see the same machine.

    python3 clients/python/bench_spider.py --official /path/to/test-suite-sql-eval \
        --spider ../shared/data/spider --qeval bin/qeval --etype match

--etype match|exec|all is passed to both; the predictions are
predictions/c3_chatgpt_no_wta1.txt unless --pred names others. Prints the median and
fastest wall time of each side and their ratio. Build qeval first (`go build -o
bin/qeval ./cmd/qeval`): `go run` would time the compiler. NLTK's punkt model need not
be installed: the official script is started with NLTK's sentence splitter replaced
by one that splits nothing, which changes no timing.
"""

import argparse
import os
import statistics
import subprocess
import sys
import time

# Started with `python3 -c PATH ARGS…`: runs evaluation.py at PATH as its own main,
# NLTK's sentence splitter replaced first (the punkt model is often not installed).
OFFICIAL = """
import os, runpy, sys
path = sys.argv[1]
sys.path.insert(0, os.path.dirname(path))
import nltk.tokenize
nltk.tokenize.sent_tokenize = lambda text, language="english": [text]
sys.argv = [path] + sys.argv[2:]
runpy.run_path(path, run_name="__main__")
"""


def timed(cmd):
    start = time.perf_counter()
    subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--official", required=True, help="folder of test-suite-sql-eval (holds evaluation.py)")
    ap.add_argument("--spider", required=True, help="Spider folder: dev_gold_no_wta1.sql, predictions/, database/, tables.json")
    ap.add_argument("--qeval", default="bin/qeval", help="the qeval binary")
    ap.add_argument("--etype", default="match", choices=["match", "exec", "all"])
    ap.add_argument("--pred", default="predictions/c3_chatgpt_no_wta1.txt", help="predictions, relative to --spider")
    ap.add_argument("--runs", type=int, default=5, help="official runs (qeval runs three times as many)")
    a = ap.parse_args()

    sp = a.spider.rstrip("/") + "/"
    args = ["--gold", sp + "dev_gold_no_wta1.sql", "--pred", sp + a.pred, "--db", sp + "database",
            "--table", sp + "tables.json", "--etype", a.etype]
    evaluation = os.path.join(os.path.abspath(a.official), "evaluation.py")
    official = [sys.executable, "-c", OFFICIAL, evaluation] + args
    ours = [a.qeval, "spider"] + args

    timed(official), timed(ours)  # both read their files once before timing
    off, q = [], []
    for _ in range(a.runs):
        off.append(timed(official))
        q.extend(timed(ours) for _ in range(3))
    mo, mq = statistics.median(off), statistics.median(q)
    print("official evaluation.py --etype %s: median %.3f s (fastest %.3f s, %d runs)" % (a.etype, mo, min(off), len(off)))
    print("qeval spider --etype %s:          median %.4f s (fastest %.4f s, %d runs)" % (a.etype, mq, min(q), len(q)))
    print("ratio of medians: %.1fx" % (mo / mq))


if __name__ == "__main__":
    main()
