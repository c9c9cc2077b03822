"""Partition log storage in Kafka's on-disk format (see docs/INTERFACES.md, "storage/")."""

if not __name__.startswith("kafpy."):
    # Reached as a bare top-level name (the checkout on sys.path): refuse, or every module below
    # would load a second time beside its kafpy.* self.
    raise ImportError(f"import kafpy.{__name__}, not {__name__}")

from . import errors
from .config import LogConfig
from .errors import *  # noqa: F401,F403 - every storage exception, listed in errors.__all__
from .log import FetchDataInfo, Log, LogAppendInfo
from .log_manager import LogManager
from .segment import FileRecordsSlice

__all__ = ["LogConfig", "LogManager", "Log", "LogAppendInfo", "FetchDataInfo", "FileRecordsSlice",
           *errors.__all__]
