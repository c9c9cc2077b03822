"""Partition log storage in Kafka's on-disk format (see docs/INTERFACES.md, "storage/")."""

from kafpy.storage import errors
from kafpy.storage.config import LogConfig
from kafpy.storage.errors import *  # noqa: F401,F403 - every storage exception, listed in errors.__all__
from kafpy.storage.log import FetchDataInfo, Log, LogAppendInfo
from kafpy.storage.log_manager import LogManager
from kafpy.storage.segment import FileRecordsSlice

__all__ = ["LogConfig", "LogManager", "Log", "LogAppendInfo", "FetchDataInfo", "FileRecordsSlice",
           *errors.__all__]
