"""Handing back to the operating system the memory that a node's start-up freed.

Python compiles a module from source when it finds no bytecode cache it can use and cannot
write one: a read-only install, or ``PYTHONDONTWRITEBYTECODE=1`` as many container images
set. Compiling the generated ``protocol/messages.py`` (half a megabyte of source) leaves about
25 MB of freed blocks in glibc's heap that the process would otherwise keep for its whole
life, a third more than the node's resident size with the cache. One ``malloc_trim(0)`` once
the node has started returns them; with the cache it finds little to return. Called by
``broker/__main__.py`` only, once per process. A C library without ``malloc_trim`` (musl)
is left alone.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import logging

log = logging.getLogger("kafka.server.KafkaServer")


def release_startup_memory() -> bool:
    """``malloc_trim(0)``: True when the C library has it and released memory."""
    name = ctypes.util.find_library("c")
    if name is None:
        return False
    try:
        trim = ctypes.CDLL(name).malloc_trim
    except (OSError, AttributeError):
        return False
    trim.argtypes = [ctypes.c_size_t]
    trim.restype = ctypes.c_int
    released = bool(trim(0))
    log.debug("Start-up memory handed back to the system: %s", released)
    return released
