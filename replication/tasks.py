"""Stopping the background tasks the replication parts run (fetchers, the ISR-change sender,
the controller's per-broker senders). Who may call it: their shutdown methods, on the loop."""
from __future__ import annotations

import asyncio
import logging

log = logging.getLogger(__name__)


async def cancel_and_wait(task: "asyncio.Task[object] | None") -> None:
    """Cancel ``task`` and wait until it has finished, so nothing it owns is used after its
    owner closes. A task that already failed does not make shutdown fail; its error is logged
    (it would otherwise be lost with the task)."""
    if task is None:
        return
    task.cancel()
    try:
        await task
    except asyncio.CancelledError:
        pass
    except Exception:
        log.exception("Task %s had failed before it was stopped", task.get_name())
