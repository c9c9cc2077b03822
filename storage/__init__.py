"""Partition log storage in Kafka's on-disk format (see docs/INTERFACES.md, "storage/")."""

from . import errors
from .config import LogConfig
from .errors import *  # noqa: F401,F403 - every storage exception, listed in errors.__all__
from .log import FetchDataInfo, Log, LogAppendInfo
from .log_manager import LogManager
from .segment import FileRecordsSlice

__all__ = ["LogConfig", "LogManager", "Log", "LogAppendInfo", "FetchDataInfo", "FileRecordsSlice",
           *errors.__all__]
