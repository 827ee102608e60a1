"""The reward-function recipes, called the way verl and TRL call them, against a live
`qeval serve` (see live_server.py)."""

import os
import sys

import live_server  # sets up the import of qeval_client
import qeval_client
from qeval_client import QevalError, compute_score, compute_score_batch, make_grpo_reward

GOLD = "SELECT count(*) FROM item WHERE price < 2"
RIGHT = "Two items cost less.\n```sql\nSELECT COUNT(id) FROM item WHERE price < 2;\n```"
WRONG = "SELECT count(*) FROM item"


class InstalledTest(live_server.LiveServerTest):
    def test_imported_from_where_asked(self):
        here = os.path.dirname(os.path.abspath(qeval_client.__file__))
        source = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        if live_server.INSTALLED:
            # the installed package, not a copy of the source on sys.path
            self.assertTrue(here.startswith(sys.prefix), "qeval_client from %s, not from %s" % (here, sys.prefix))
            self.assertNotEqual(here, source)
        else:
            self.assertEqual(here, source)


class VerlTest(live_server.LiveServerTest):
    def test_reward_function(self):
        # verl's NaiveRewardManager: custom_reward_function.name=compute_score, keyword arguments
        self.assertEqual(compute_score(data_source="spider", solution_str=RIGHT, ground_truth=GOLD, extra_info={"db_id": "shop"}), 1.0)
        self.assertEqual(compute_score(data_source="spider", solution_str=WRONG,
                                       ground_truth={"query": GOLD, "db_id": "shop"}, extra_info=None), 0.0)

    def test_batch_reward_manager(self):
        # verl's BatchRewardManager: compute_score(data_sources=, solution_strs=, ground_truths=, extra_infos=)
        before = self.batches()
        scores = compute_score_batch(
            data_sources=["spider", "spider", "spider", "spider"],
            solution_strs=[RIGHT, WRONG, "I do not know.", "SELECT name FROM item"],
            ground_truths=[GOLD, {"gold": GOLD, "db_id": "shop"}, GOLD, {"sql": "SELECT name FROM item WHERE price > 1", "db": "shop"}],
            extra_infos=[{"db_id": "shop"}, None, {"db_id": "shop"}, {"partial": True}],
        )
        self.assertEqual(scores[:3], [1.0, 0.0, 0.0])
        self.assertAlmostEqual(scores[3], 6 / 7, places=6)
        # three responses with SQL, one request
        self.assertEqual(self.batches() - before, 1)

    def test_batch_split_past_the_server_limit(self):
        old = qeval_client.MAX_BATCH
        qeval_client.MAX_BATCH = 2
        try:
            before = self.batches()
            scores = compute_score_batch(["s"] * 5, [RIGHT, WRONG, RIGHT, WRONG, RIGHT], [GOLD] * 5, [{"db_id": "shop"}] * 5)
        finally:
            qeval_client.MAX_BATCH = old
        self.assertEqual(scores, [1.0, 0.0, 1.0, 0.0, 1.0])
        self.assertEqual(self.batches() - before, 3)

    def test_batch_lists_of_other_lengths(self):
        with self.assertRaises(QevalError) as ctx:
            compute_score_batch(["spider"], [RIGHT, WRONG], [GOLD, GOLD])
        self.assertIn("must be as long", str(ctx.exception))


class TRLTest(live_server.LiveServerTest):
    def test_grpo_reward_conversational(self):
        reward = make_grpo_reward()
        self.assertEqual(reward.__name__, "exec_match_reward")  # TRL logs rewards by this name
        before = self.batches()
        # GRPOTrainer: reward_func(prompts=, completions=, **the dataset's other columns, one list each)
        scores = reward(
            prompts=[[{"role": "user", "content": "How many items cost under 2?"}]] * 3,
            completions=[[{"role": "assistant", "content": RIGHT}], [{"role": "assistant", "content": WRONG}],
                         [{"role": "assistant", "content": "No idea."}]],
            query=[GOLD] * 3, db_id=["shop"] * 3, question=["How many items cost under 2?"] * 3,
            completion_ids=[[1], [2], [3]], trainer_state=None,
        )
        self.assertEqual(scores, [1.0, 0.0, 0.0])
        self.assertEqual(self.batches() - before, 1)

    def test_grpo_reward_text_and_partial(self):
        reward = make_grpo_reward(partial=True)
        scores = reward(prompts=["p", "p"], completions=["SELECT name FROM item", "SELECT name FROM item WHERE price > 1"],
                        gold=["SELECT name FROM item WHERE price > 1"] * 2, db=["shop"] * 2)
        self.assertAlmostEqual(scores[0], 6 / 7, places=6)
        self.assertEqual(scores[1], 1.0)

    def test_grpo_reward_needs_the_columns(self):
        with self.assertRaises(QevalError) as ctx:
            make_grpo_reward()(prompts=["p"], completions=[RIGHT], db_id=["shop"])
        self.assertIn("gold SQL column", str(ctx.exception))
