"""Python client of `gagar serve` (standard library only): GAGAR advantages, sandboxed verification,
groupwise grading and whole RL steps for trainers such as verl, OpenRLHF, slime, SkyRL or ART."""

from .client import GagarClient
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
from .verl import advantages_for_batch, groups_from_batch

__all__ = [
    "GagarClient",
    "GagarError",
    "RequestError",
    "BadRequest",
    "Unauthorized",
    "NotFound",
    "Overloaded",
    "ServiceUnavailable",
    "JobFailed",
    "JobTimeout",
    "groups_from_batch",
    "advantages_for_batch",
]
