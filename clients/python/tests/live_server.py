"""A live `qeval serve` for the client's tests, over a small SQLite database "shop".

The server is started from QEVAL_CMD (default: `qeval` on PATH). qeval_client is
imported from the source folder beside this one, unless QEVAL_CLIENT_INSTALLED=1: then
it must come from the installed package (`pip install ./clients/python`), which the
tests check.
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

INSTALLED = os.environ.get("QEVAL_CLIENT_INSTALLED") == "1"
if not INSTALLED:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))

import qeval_client  # noqa: E402
from qeval_client import QevalClient  # noqa: E402


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
    """Starts one server for the class; self.client talks to it, and QEVAL_URL names it
    for the reward functions."""

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

    def batches(self):
        """The number of exec-match requests the server has answered."""
        return self.client.stats()["batches"]
