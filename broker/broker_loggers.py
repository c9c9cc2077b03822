"""The broker's loggers as ``kafka-configs --entity-type broker-loggers`` sees and changes
them (Kafka's Log4jController): every logger the broker has, with its effective level under
Log4j's names, and a level set or reset on a running broker. Like Kafka's, the change is
this broker's alone and lasts until it restarts (nothing is stored in ZooKeeper).

Who may call it: the DescribeConfigs and IncrementalAlterConfigs handlers.
"""
from __future__ import annotations

import logging

ROOT_LOGGER = "root"
DYNAMIC_BROKER_LOGGER_CONFIG = 6   # the config source DescribeConfigs reports for a logger
# Log4j's level names, and the Python level each stands for
LEVELS = {"TRACE": 5, "DEBUG": logging.DEBUG, "INFO": logging.INFO, "WARN": logging.WARNING,
          "ERROR": logging.ERROR, "FATAL": logging.CRITICAL, "OFF": logging.CRITICAL + 10}
_NAMES = {v: k for k, v in LEVELS.items()}


def _name_of(level: int) -> str:
    if level in _NAMES:
        return _NAMES[level]
    return "WARN" if level == logging.WARNING else logging.getLevelName(level)


def current_loggers() -> dict[str, str]:
    """Logger name -> effective level (Log4j's name), the root logger as ``root``."""
    out = {ROOT_LOGGER: _name_of(logging.getLogger().getEffectiveLevel())}
    for name, logger in list(logging.root.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger):
            out[name] = _name_of(logger.getEffectiveLevel())
    return out


class LoggerConfigError(ValueError):
    """A logger or level Kafka would refuse (answered INVALID_CONFIG)."""


def check_level(name: str, level: str) -> int:
    """The Python level of a Log4j level name; Kafka refuses a level it does not know."""
    lvl = LEVELS.get(level.strip().upper())
    if lvl is None:
        raise LoggerConfigError(f"Cannot set the log level of {name} to {level} as it is not a supported log level. "
                                f"Valid log4j levels are {', '.join(LEVELS)}")
    return lvl


def set_level(name: str, level: str) -> None:
    """Sets ``name``'s level (``root`` for the root logger)."""
    lvl = check_level(name, level)
    (logging.getLogger() if name == ROOT_LOGGER else logging.getLogger(name)).setLevel(lvl)


def unset_level(name: str) -> None:
    """Back to inheriting (Kafka: the root logger's level); the root logger cannot be unset."""
    if name == ROOT_LOGGER:
        raise LoggerConfigError("Removing the log level of the root logger is not allowed")
    logging.getLogger(name).setLevel(logging.NOTSET)


def check_logger_exists(name: str) -> None:
    if name != ROOT_LOGGER and name not in logging.root.manager.loggerDict:
        raise LoggerConfigError(f"Logger {name} does not exist!")
