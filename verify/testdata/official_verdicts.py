"""Record the official Spider evaluator's verdict on every counterexample of qeval verify.

Usage (see README.md beside this file):

    python3 official_verdicts.py --data ../shared/data --official TEST_SUITE_SQL_EVAL --cex CEX > spider_counterexamples.jsonl

CEX holds one folder per prediction set, each the --out folder of a `qeval verify` run on
that set's 972-item file (<index>.json beside each <index>.sqlite). For each
counterexample, the database is rebuilt from its recorded INSERT statements in the schema
of the original Spider database (tables, indexes and views first, triggers after the
rows, as qeval does), alone in a folder of its own, and the official evaluator's
exec_eval.eval_exec_match is called on it as evaluation.py calls it (the prediction's
`value` replaced by `1`, plug_value and keep_distinct off). Its verdict is 1 when the
gold and the prediction match on that database, 0 when they differ.
"""

import argparse
import json
import os
import sqlite3
import sys
import tempfile
import types

SETS = ["dailsql_gpt4", "c3_chatgpt", "graphix", "dinsql_gpt4_zero_shot", "spider_pred_example"]


def rebuild(original, inserts, path):
    src = sqlite3.connect("file:%s?mode=ro" % original, uri=True)
    objs = src.execute(
        "SELECT type, sql FROM sqlite_master WHERE sql IS NOT NULL AND name NOT LIKE 'sqlite_%' "
        "ORDER BY CASE type WHEN 'table' THEN 0 WHEN 'index' THEN 1 WHEN 'view' THEN 2 ELSE 3 END, rowid").fetchall()
    src.close()
    db = sqlite3.connect(path)
    db.execute("PRAGMA foreign_keys = ON")
    for kind, sql in objs:
        if kind != "trigger":
            db.execute(sql)
    for ins in inserts:
        db.execute(ins)
    for kind, sql in objs:
        if kind == "trigger":
            db.execute(sql)
    db.commit()
    db.close()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--data", required=True, help="the shared data folder (spider/ inside)")
    ap.add_argument("--official", required=True, help="a checkout of taoyds/test-suite-sql-eval")
    ap.add_argument("--cex", required=True, help="one counterexample folder per prediction set")
    args = ap.parse_args()
    if "tqdm" not in sys.modules:
        try:
            import tqdm  # noqa: F401
        except ImportError:
            # exec_eval imports tqdm for progress bars, which are off here
            sys.modules["tqdm"] = types.SimpleNamespace(tqdm=lambda x: x)
    sys.path.insert(0, args.official)
    from exec_eval import eval_exec_match

    spider = os.path.join(args.data, "spider")
    gold = [l.rstrip("\n").split("\t") for l in open(os.path.join(spider, "dev_gold_no_wta1.sql"))]
    for s in SETS:
        preds = [l.rstrip("\n") for l in open(os.path.join(spider, "predictions", s + "_no_wta1.txt"))]
        folder = os.path.join(args.cex, s)
        if not os.path.isdir(folder):
            continue
        ids = sorted(int(f[:-5]) for f in os.listdir(folder) if f.endswith(".json") and f[:-5].isdigit())
        for i in ids:
            doc = json.load(open(os.path.join(folder, "%d.json" % i)))
            g, db_id = gold[i]
            inserts = doc.get("inserts") or []
            with tempfile.TemporaryDirectory() as tmp:
                os.mkdir(os.path.join(tmp, db_id))
                path = os.path.join(tmp, db_id, db_id + ".sqlite")
                rebuild(os.path.join(spider, "database", db_id, db_id + ".sqlite"), inserts, path)
                verdict = eval_exec_match(db=path, p_str=preds[i].replace("value", "1"), g_str=g,
                                          plug_value=False, keep_distinct=False, progress_bar_for_each_datapoint=False)
            print(json.dumps({"set": s, "index": i, "db_id": db_id, "inserts": inserts, "official": verdict}, ensure_ascii=False))


if __name__ == "__main__":
    main()
