"""HTTP client of `gagar serve`, standard library only (urllib, json)."""

import json
import random
import time
import urllib.error
import urllib.request

from .errors import (
    BadRequest,
    GagarError,
    JobFailed,
    JobTimeout,
    NotFound,
    Overloaded,
    RequestError,
    ServiceUnavailable,
    Unauthorized,
)

_RETRY_STATUSES = {429, 502, 503, 504}
_FINAL = {"completed", "failed"}


class GagarClient:
    """Calls a gagar service: advantages, verification, grading, whole RL steps.

    Every call may be retried safely: ``/v1/advantages`` is a pure computation, and the service
    derives a job's id from its content, so sending the same verify/grade/step request again
    returns the job already there instead of starting a second one. Connection errors, 429 (after
    the Retry-After the service sends), 502, 503 and 504 are retried ``retries`` times with
    exponential back-off and jitter; other errors raise at once as the typed errors of
    ``gagar_client.errors``.

    ``timeout`` bounds one HTTP exchange. The job methods (``verify``, ``grade``, ``step``) ask the
    service to hold the answer up to ``wait`` seconds, then poll ``/v1/jobs/{id}`` until the job is
    done or ``job_timeout`` seconds have passed.
    """

    def __init__(
        self,
        base_url,
        token=None,
        *,
        timeout=120.0,
        retries=5,
        backoff=0.5,
        max_backoff=30.0,
        wait=60,
        poll=2.0,
    ):
        self.base_url = base_url.rstrip("/")
        self.token = token
        self.timeout = timeout
        self.retries = retries
        self.backoff = backoff
        self.max_backoff = max_backoff
        self.wait = wait
        self.poll = poll

    # -- the service's routes ------------------------------------------------------------------

    def health(self):
        return self._request("GET", "/healthz")

    def advantages(self, groups, rankings=None, options=None):
        """GRPO-family advantages with GAGAR redistribution: ``{"rows": [...], "warnings": [...]}``.

        ``groups`` are gagar Group records; ``schemaVersion`` is filled in when missing, and a
        missing ``patch`` is sent as "" (advantages do not read patches). ``rankings`` may come
        from your own grader as just ``{"groupId", "ranking"}``.
        """
        body = {"groups": [_group_record(g) for g in groups]}
        if rankings:
            body["rankings"] = list(rankings)
        if options:
            body["options"] = dict(options)
        return self._request("POST", "/v1/advantages", body)

    def verify(self, rollouts, *, job_timeout=None):
        """Verdicts for rollouts ``{"id", "taskId", "patch", "groupId"?}``, in order."""
        return self._run_job("/v1/verify", {"rollouts": list(rollouts)}, job_timeout)["verdicts"]

    def grade(self, groups, grader="static", options=None, *, job_timeout=None):
        """Rankings of the groups' passing candidates, in order."""
        body = {"groups": [_group_record(g) for g in groups], "grader": grader}
        if options:
            body["options"] = dict(options)
        return self._run_job("/v1/grade", body, job_timeout)["rankings"]

    def step(self, groups, *, grader="static", grader_options=None, options=None, job_timeout=None):
        """One RL step for your rollouts: verify, filter, grade, advantages.

        ``groups`` are ``{"id", "taskId", "candidates": [{"id", "patch", "trajectory"?}]}``
        (``groups_from_batch`` in ``gagar_client.verl`` builds them from verl-shaped arrays).
        Returns ``{"rows", "groups", "verdicts", "metrics"}``.
        """
        body = {"groups": list(groups), "grader": grader}
        if grader_options:
            body["graderOptions"] = dict(grader_options)
        if options:
            body["options"] = dict(options)
        return self._run_job("/v1/steps", body, job_timeout)

    def submit(self, path, body):
        """Posts a job request without waiting; returns the job (``jobId``, ``state``, …)."""
        return self._request("POST", path, dict(body, wait=False))

    def job(self, job_id):
        return self._request("GET", f"/v1/jobs/{job_id}")

    def wait_for(self, job_id, job_timeout=None):
        """Polls a job until it is done; returns its result, raises JobFailed or JobTimeout."""
        deadline = None if job_timeout is None else time.monotonic() + job_timeout
        while True:
            job = self.job(job_id)
            if job["state"] in _FINAL:
                return _result(job)
            if deadline is not None and time.monotonic() >= deadline:
                raise JobTimeout(job_id, job_timeout)
            time.sleep(self.poll)

    # -- transport -----------------------------------------------------------------------------

    def _run_job(self, path, body, job_timeout):
        started = time.monotonic()
        job = self._request("POST", path, dict(body, wait=self.wait))
        if job["state"] in _FINAL:
            return _result(job)
        left = None if job_timeout is None else max(0.0, job_timeout - (time.monotonic() - started))
        return self.wait_for(job["jobId"], left)

    def _request(self, method, path, body=None):
        data = None if body is None else json.dumps(body).encode("utf-8")
        headers = {"accept": "application/json"}
        if data is not None:
            headers["content-type"] = "application/json"
        if self.token:
            headers["authorization"] = f"Bearer {self.token}"
        last = None
        for attempt in range(self.retries + 1):
            request = urllib.request.Request(self.base_url + path, data=data, headers=headers, method=method)
            try:
                with urllib.request.urlopen(request, timeout=self.timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as e:
                error = _error_from(e)
                if e.code not in _RETRY_STATUSES:
                    raise error from None
                last = error
                delay = _retry_after(e) if e.code == 429 else None
            except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as e:
                reason = getattr(e, "reason", e)
                last = ServiceUnavailable(f"{method} {self.base_url}{path}: {reason}")
                delay = None
            if attempt == self.retries:
                break
            if delay is None:
                delay = min(self.max_backoff, self.backoff * 2**attempt)
                delay *= random.uniform(0.5, 1.0)
            time.sleep(delay)
        raise last


def _group_record(group):
    record = dict(group)
    record.setdefault("schemaVersion", 1)
    record["candidates"] = [dict(c, patch=c.get("patch", "")) for c in group["candidates"]]
    return record


def _result(job):
    if job["state"] == "failed":
        raise JobFailed(job["jobId"], job.get("error", "failed"))
    return job["result"]


def _retry_after(http_error):
    value = http_error.headers.get("retry-after")
    try:
        return max(0.0, float(value))
    except (TypeError, ValueError):
        return None


def _error_from(http_error):
    """The typed error for an HTTP error answer, with the service's message and field."""
    status = http_error.code
    try:
        payload = json.loads(http_error.read().decode("utf-8"))["error"]
        code, message, field = payload.get("code", ""), payload.get("message", ""), payload.get("field")
    except (ValueError, KeyError, TypeError, AttributeError):
        code, message, field = "", f"HTTP {status}", None
    if status == 401:
        return Unauthorized(status, code, message)
    if status == 404:
        return NotFound(status, code, message)
    if status == 429:
        return Overloaded(message, _retry_after(http_error))
    if status >= 500:
        return ServiceUnavailable(f"HTTP {status}: {message}")
    if 400 <= status < 500:
        return BadRequest(status, code, message, field)
    return RequestError(status, code, message, field) if status >= 400 else GagarError(message)
