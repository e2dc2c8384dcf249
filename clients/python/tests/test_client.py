"""Tests of the gagar Python client.

The service tests need a running `gagar serve` over gagar's example pack: GAGAR_URL (and
GAGAR_TOKEN if it has one). gagar's own test suite starts one and runs this file with python3
(test/python-client.e2e.test.ts). The retry and helper tests need nothing.
"""

import http.server
import json
import os
import socket
import threading
import unittest
from pathlib import Path

from gagar_client import (
    BadRequest,
    GagarClient,
    NotFound,
    Overloaded,
    ServiceUnavailable,
    Unauthorized,
    advantages_for_batch,
    groups_from_batch,
)

EXAMPLES = Path(__file__).resolve().parents[3] / "examples"
URL = os.environ.get("GAGAR_URL")
TOKEN = os.environ.get("GAGAR_TOKEN")


def jsonl(path):
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def rollouts(task):
    return {r["id"]: r for r in jsonl(EXAMPLES / "rollouts" / f"{task}.jsonl")}


@unittest.skipUnless(URL, "GAGAR_URL is not set: no gagar service to test against")
class ServiceTest(unittest.TestCase):
    def setUp(self):
        self.client = GagarClient(URL, TOKEN, poll=0.2)

    def test_health(self):
        self.assertEqual(self.client.health()["status"], "ok")

    def test_advantages_from_a_trainers_own_rankings(self):
        groups = jsonl(EXAMPLES / "advantages" / "groups.jsonl")
        rankings = [{"groupId": r["groupId"], "ranking": r["ranking"]} for r in jsonl(EXAMPLES / "advantages" / "rankings.jsonl")]
        result = self.client.advantages(groups, rankings)
        rows = result["rows"]
        self.assertEqual(len(rows), sum(len(g["candidates"]) for g in groups))
        first = [r for r in rows if r["groupId"] == groups[0]["id"]]
        passing = [r for r in first if r["tier"] is not None]
        self.assertAlmostEqual(sum(r["advantage"] for r in passing), sum(r["baseAdvantage"] for r in passing), places=9)
        best = min(passing, key=lambda r: r["tier"])
        self.assertGreater(best["advantage"], best["baseAdvantage"])

    def test_verify_gives_one_verdict_per_rollout_in_order(self):
        ini = rollouts("tinyini-delimiter")
        sent = [
            {"id": "a", "taskId": "tinyini-delimiter", "patch": ini["tinyini-delimiter-r01"]["patch"]},
            {"id": "b", "taskId": "tinyini-delimiter", "patch": ini["tinyini-delimiter-r06"]["patch"], "groupId": "g"},
            {"id": "c", "taskId": "tinyini-delimiter", "patch": ini["tinyini-delimiter-r01"]["patch"]},
        ]
        verdicts = self.client.verify(sent)
        self.assertEqual([v["rolloutId"] for v in verdicts], ["a", "b", "c"])
        self.assertEqual([v["reason"] for v in verdicts], ["passed", "tests-failed", "passed"])
        self.assertEqual(verdicts[1]["groupId"], "g")

    def test_a_step_from_verl_shaped_arrays(self):
        ini = rollouts("tinyini-delimiter")
        chosen = [f"tinyini-delimiter-r0{i}" for i in (1, 2, 5, 6)] + [f"tinyini-delimiter-r{i}" for i in ("08", "09", "10")]
        uids = ["u1"] * 4 + ["u2"] * 3  # the second group: three failures, dropped by the filter
        patches = [ini[c]["patch"] for c in chosen]
        lengths = [ini[c]["trajectory"]["tokens"] for c in chosen]
        groups = groups_from_batch(uids, ["tinyini-delimiter"] * 7, patches, token_counts=lengths)
        step = self.client.step(groups)
        self.assertEqual([(g["id"], g["kept"], g["passed"]) for g in step["groups"]], [("u1", True, 3), ("u2", False, 0)])
        self.assertIn("ranking", step["groups"][0])
        advantages = advantages_for_batch(step["rows"], uids)
        self.assertEqual(len(advantages), 7)
        self.assertTrue(all(a > 0 for a in advantages[:3]))
        self.assertLess(advantages[3], 0)
        self.assertEqual(advantages[4:], [0.0, 0.0, 0.0])
        self.assertAlmostEqual(sum(advantages[:4]), 0.0, places=9)  # GAGAR keeps GRPO's group sum
        self.assertEqual(step["metrics"]["groupsKept"], 1)

    def test_a_bad_request_raises_a_located_bad_request(self):
        with self.assertRaises(BadRequest) as caught:
            self.client.verify([{"id": "a", "taskId": "no-such-task", "patch": ""}])
        self.assertEqual(caught.exception.status, 400)
        self.assertEqual(caught.exception.field, "rollouts.0.taskId")
        self.assertIn('no task pack "no-such-task"', str(caught.exception))

    @unittest.skipUnless(TOKEN, "the service has no token")
    def test_a_wrong_token_is_unauthorized(self):
        with self.assertRaises(Unauthorized):
            GagarClient(URL, "not-the-token").job("anything")

    def test_an_unknown_job_is_not_found(self):
        with self.assertRaises(NotFound):
            self.client.job("verify-0000")


class ScriptedServer:
    """A local HTTP server that answers from a script (status, headers, body) and counts requests."""

    def __init__(self, script):
        self.script = list(script)
        self.requests = 0
        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                self.rfile.read(int(self.headers.get("content-length", 0)))
                outer.requests += 1
                status, headers, body = outer.script.pop(0) if outer.script else (500, {}, {})
                data = json.dumps(body).encode()
                self.send_response(status)
                for k, v in headers.items():
                    self.send_header(k, v)
                self.send_header("content-length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def busy(seconds):
    return (429, {"retry-after": str(seconds)}, {"error": {"status": 429, "code": "queue-full", "message": "queue full"}})


class RetryTest(unittest.TestCase):
    def test_retries_5xx_and_429_then_answers(self):
        server = ScriptedServer([(503, {}, {}), (502, {}, {}), busy(0), (200, {}, {"rows": [], "warnings": []})])
        try:
            client = GagarClient(server.url, retries=3, backoff=0.01)
            self.assertEqual(client.advantages([{"id": "g", "task": {"id": "t"}, "candidates": []}]), {"rows": [], "warnings": []})
            self.assertEqual(server.requests, 4)
        finally:
            server.close()

    def test_gives_up_with_a_typed_error(self):
        server = ScriptedServer([busy(0)] * 3)
        try:
            with self.assertRaises(Overloaded) as caught:
                GagarClient(server.url, retries=2, backoff=0.01).advantages([])
            self.assertEqual(caught.exception.retry_after, 0.0)
            self.assertEqual(server.requests, 3)
        finally:
            server.close()
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = s.getsockname()[1]
        with self.assertRaises(ServiceUnavailable):
            GagarClient(f"http://127.0.0.1:{port}", retries=1, backoff=0.01).advantages([])

    def test_does_not_retry_a_bad_request(self):
        error = {"error": {"status": 400, "code": "bad-request", "message": "request body (field groups): x", "field": "groups"}}
        server = ScriptedServer([(400, {}, error), (200, {}, {})])
        try:
            with self.assertRaises(BadRequest) as caught:
                GagarClient(server.url, retries=3, backoff=0.01).advantages([])
            self.assertEqual((caught.exception.field, server.requests), ("groups", 1))
        finally:
            server.close()


class VerlHelperTest(unittest.TestCase):
    def test_groups_follow_uids_in_first_appearance_order(self):
        groups = groups_from_batch(["b", "a", "b"], ["t2", "t1", "t2"], ["p0", "p1", "p2"], token_counts=[10, 20, 30])
        self.assertEqual([g["id"] for g in groups], ["b", "a"])
        self.assertEqual(groups[0]["candidates"], [
            {"id": "0", "patch": "p0", "trajectory": {"tokens": 10}},
            {"id": "2", "patch": "p2", "trajectory": {"tokens": 30}},
        ])

    def test_refuses_inconsistent_arrays(self):
        with self.assertRaisesRegex(ValueError, "mixes tasks"):
            groups_from_batch(["u", "u"], ["t1", "t2"], ["p", "q"])
        with self.assertRaisesRegex(ValueError, "patches has 1 rows"):
            groups_from_batch(["u", "u"], ["t", "t"], ["p"])

    def test_advantages_map_back_by_group_and_candidate(self):
        rows = [
            {"groupId": "u", "candidateId": "1", "advantage": -0.5},
            {"groupId": "u", "candidateId": "0", "advantage": 0.5},
        ]
        self.assertEqual(advantages_for_batch(rows, ["u", "u", "v"], missing=0.0), [0.5, -0.5, 0.0])
        with self.assertRaises(KeyError):
            advantages_for_batch(rows, ["u", "u", "v"])


if __name__ == "__main__":
    unittest.main()
