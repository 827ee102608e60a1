"""Tests of the Python client against a live `qeval serve`.

The server is started here from QEVAL_CMD (default: `qeval` on PATH), e.g.

    QEVAL_CMD="go run ./cmd/qeval" python3 -m unittest discover -s clients/python/tests

`go test ./cmd/qeval -run PythonClient` runs them with the test binary as qeval.
"""

import os
import re
import shlex
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import threading
import time
import unittest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import qeval_client  # noqa: E402
from qeval_client import QevalClient, QevalError, compute_score, extract_sql  # noqa: E402


class ExtractSQLTest(unittest.TestCase):
    def test_fence_wins_and_the_last_one(self):
        text = "Try:\n```sql\nSELECT 1\n```\nBetter:\n```sql\nSELECT name FROM item;\n```\n"
        self.assertEqual(extract_sql(text), "SELECT name FROM item")

    def test_plain_fence(self):
        self.assertEqual(extract_sql("```\nSELECT 2\n```"), "SELECT 2")

    def test_last_select_not_a_subquery(self):
        self.assertEqual(extract_sql("The answer is SELECT a FROM t WHERE b IN (SELECT c FROM u); done"),
                         "SELECT a FROM t WHERE b IN (SELECT c FROM u)")

    def test_with_and_union_kept_whole(self):
        self.assertEqual(extract_sql("Query: WITH x AS (SELECT 1 AS v) SELECT v FROM x"),
                         "WITH x AS (SELECT 1 AS v) SELECT v FROM x")
        self.assertEqual(extract_sql("SELECT a FROM t UNION SELECT b FROM u"), "SELECT a FROM t UNION SELECT b FROM u")

    def test_last_statement(self):
        self.assertEqual(extract_sql("First try: SELECT 1;\n\nBetter: SELECT 2"), "SELECT 2")

    def test_none(self):
        self.assertIsNone(extract_sql("I cannot answer that."))
        self.assertIsNone(extract_sql(""))
        self.assertIsNone(extract_sql(None))


def _build_root(root):
    os.makedirs(os.path.join(root, "shop"))
    con = sqlite3.connect(os.path.join(root, "shop", "shop.sqlite"))
    con.executescript("""
        CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL);
        INSERT INTO item VALUES (1,'pen',1.5),(2,'ink',3.0),(3,'pad',2.25),(4,'nib',0.5);
    """)
    con.commit()
    con.close()


class LiveServerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cmd = os.environ.get("QEVAL_CMD")
        if not cmd:
            if not shutil.which("qeval"):
                raise unittest.SkipTest("no qeval to start: set QEVAL_CMD (e.g. \"go run ./cmd/qeval\") or put qeval on PATH")
            cmd = "qeval"
        cls.tmp = tempfile.mkdtemp(prefix="qeval-py-")
        root = os.path.join(cls.tmp, "dbs")
        _build_root(root)
        args = shlex.split(cmd) + ["serve", "--addr", "127.0.0.1:0", "--db-root", root, "--judge", "none",
                                   "--no-cache", "--data-dir", os.path.join(cls.tmp, "data")]
        cls.proc = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        url, lines = None, []
        deadline = time.time() + 120  # go run may compile first
        while time.time() < deadline:
            line = cls.proc.stderr.readline()
            if not line:
                break
            lines.append(line)
            m = re.search(r"serving on (http://\S+?)/? ", line)
            if m:
                url = m.group(1).rstrip("/")
                break
        if url is None:
            cls.proc.kill()
            raise RuntimeError("qeval serve did not start: " + "".join(lines))
        # keep reading stderr so the server never blocks on a full pipe
        threading.Thread(target=lambda: [None for _ in cls.proc.stderr], daemon=True).start()
        cls.url = url
        os.environ["QEVAL_URL"] = url
        qeval_client._default_client = None
        cls.client = QevalClient(url)

    @classmethod
    def tearDownClass(cls):
        cls.proc.terminate()
        try:
            cls.proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            cls.proc.kill()
        shutil.rmtree(cls.tmp, ignore_errors=True)

    def test_exec_match_in_order_with_bad_pairs_alone(self):
        gold = "SELECT name FROM item WHERE price > 1"
        res = self.client.exec_match([
            {"db": "shop", "gold": gold, "pred": "SELECT name FROM item WHERE price >= 1.5"},
            {"db": "shop", "gold": gold, "pred": "SELECT name FROM item"},
            {"db": "nowhere", "gold": gold, "pred": gold},
            {"db": "shop", "gold": gold, "pred": "DROP TABLE item"},
            {"db": "shop", "gold": gold, "pred": "SELECT name FROM item", "partial": True},
        ])
        self.assertEqual([r["outcome"] for r in res], ["match", "mismatch", "skipped", "pred_error", "mismatch"])
        self.assertTrue(res[0]["match"])
        self.assertIsNone(res[0]["error"])
        self.assertIn("pairs[2].db", res[2]["error"])
        self.assertAlmostEqual(res[4]["partial"], 6 / 7, places=6)
        self.assertTrue(res[1]["cached_gold"] or res[0]["cached_gold"])

    def test_exec_match_with_results(self):
        res = self.client.exec_match([{"db": "shop", "gold": "SELECT name FROM item WHERE price > 1", "pred": "SELECT name FROM item"}],
                                     results=True)
        self.assertEqual(sorted(r[0] for r in res[0]["gold_results"]["rows"]), ["ink", "pad", "pen"])
        self.assertEqual(len(res[0]["pred_results"]["rows"]), 4)
        self.assertEqual(res[0]["pred_results"]["columns"][0]["name"], "name")
        self.assertFalse(res[0]["gold_results"]["truncated"])
        self.assertNotIn("gold_results", self.client.exec_match([{"db": "shop", "gold": "SELECT 1", "pred": "SELECT 1"}])[0])

    def test_compute_score(self):
        gold = "SELECT count(*) FROM item WHERE price < 2"
        good = "Let me count.\n```sql\nSELECT COUNT(id) FROM item WHERE price < 2;\n```"
        self.assertEqual(compute_score("spider", good, gold, {"db_id": "shop"}), 1.0)
        self.assertEqual(compute_score("spider", "SELECT count(*) FROM item", {"gold": gold, "db_id": "shop"}), 0.0)
        self.assertEqual(compute_score("spider", "no idea", gold, {"db_id": "shop"}), 0.0)
        partial = compute_score("spider", "SELECT name FROM item", {"sql": "SELECT name FROM item WHERE price > 1", "db": "shop"},
                                {"partial": True})
        self.assertAlmostEqual(partial, 6 / 7, places=6)
        with self.assertRaises(QevalError):
            compute_score("spider", good, gold)  # no database

    def test_errors_are_clear(self):
        with self.assertRaises(QevalError) as ctx:
            self.client._request("POST", "/api/exec-match", {"pairs": "not a list"})
        self.assertEqual(ctx.exception.status, 400)
        with self.assertRaises(QevalError) as ctx:
            QevalClient("http://127.0.0.1:9", timeout=2).exec_match([{"db": "shop", "gold": "SELECT 1", "pred": "SELECT 1"}])
        self.assertIn("cannot reach qeval", str(ctx.exception))

    def test_stats(self):
        self.client.exec_match([{"db": "shop", "gold": "SELECT 1", "pred": "SELECT 1"}])
        st = self.client.stats()
        self.assertGreaterEqual(st["pairs"], 1)
        self.assertIn("p99", st["batch_ms"])


if __name__ == "__main__":
    unittest.main()
