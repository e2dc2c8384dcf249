"""Typed errors of the gagar client: what went wrong decides what the caller should do."""


class GagarError(Exception):
    """Base class of every error the client raises."""


class RequestError(GagarError):
    """The service refused the request (4xx): fix the request, retrying will not help.

    ``status`` is the HTTP status, ``code`` the service's error code, ``field`` the dotted path of
    the bad field in the request body when there is one (e.g. ``groups.0.candidates.2.passed``).
    """

    def __init__(self, status, code, message, field=None):
        super().__init__(message)
        self.status = status
        self.code = code
        self.message = message
        self.field = field


class BadRequest(RequestError):
    """400, 413, 415: malformed JSON, a schema violation, an unknown task, a body too large."""


class Unauthorized(RequestError):
    """401: no token, or not the service's token."""


class NotFound(RequestError):
    """404: an unknown job id (or one dropped after the service's retention time)."""


class Overloaded(GagarError):
    """429 after every retry: the service's queue stayed over its bound. ``retry_after`` in seconds."""

    def __init__(self, message, retry_after=None):
        super().__init__(message)
        self.retry_after = retry_after


class ServiceUnavailable(GagarError):
    """The service could not be reached or kept failing (connection errors, 5xx) after every retry."""


class JobFailed(GagarError):
    """The job ran and failed (e.g. a verification that kept failing for infrastructure reasons)."""

    def __init__(self, job_id, error):
        super().__init__(f"job {job_id} failed: {error}")
        self.job_id = job_id
        self.error = error


class JobTimeout(GagarError):
    """The job did not finish within the time the caller allowed; it may still finish later."""

    def __init__(self, job_id, seconds):
        super().__init__(f"job {job_id} did not finish within {seconds} s; poll it with client.job()")
        self.job_id = job_id
