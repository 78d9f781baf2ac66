"""Compile progress lines: stage and seconds on stderr (NOVA_PROGRESS=0 silences them)."""

from __future__ import annotations

import logging
import os
import sys

log = logging.getLogger("nova.progress")


def announce(message: str) -> None:
    log.debug(message)
    if os.environ.get("NOVA_PROGRESS", "1") != "0":
        print(message, file=sys.stderr, flush=True)
