"""Tests of the Python client against a live `qeval serve`.

The server is started here from QEVAL_CMD (default: `qeval` on PATH), e.g.

    QEVAL_CMD="go run ./cmd/qeval" python3 -m unittest discover -s clients/python/tests

`go test ./cmd/qeval -run PythonClient` runs them with the test binary as qeval.
"""

import unittest

import live_server  # sets up the import of qeval_client
from qeval_client import QevalClient, QevalError, compute_score, extract_sql


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


class LiveServerTest(live_server.LiveServerTest):
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
