"""opsagent's own diagnostic log (structlog), not the transcript: quiet unless asked for."""

from __future__ import annotations

import logging
import sys

import structlog


def configure(verbose: bool = False) -> None:
    level = logging.DEBUG if verbose else logging.ERROR
    structlog.configure(
        wrapper_class=structlog.make_filtering_bound_logger(level),
        logger_factory=structlog.PrintLoggerFactory(file=sys.stderr),
        cache_logger_on_first_use=False,
    )


configure()
