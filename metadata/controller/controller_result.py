"""What a controller operation produces, as Kafka's ``ControllerResult``.

Who makes it: every manager of ``kafpy.metadata.controller``; who reads it: the quorum
controller, which appends ``records`` to the metadata log (as one atomic batch when
``is_atomic``) and answers with ``response`` once they are committed."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Generic, TypeVar

from kafpy.protocol.errors import ErrorCode
from kafpy.protocol.messages import Message

T = TypeVar("T", covariant=True)  # frozen: a result of a subtype is a result of its base
U = TypeVar("U")


@dataclass(frozen=True)
class ControllerResult(Generic[T]):
    """The records to append and the response to give once they commit."""

    records: list[Message]
    response: T
    is_atomic: bool = False

    @staticmethod
    def of(records: list[Message], response: U) -> ControllerResult[U]:
        return ControllerResult(records, response, False)

    @staticmethod
    def atomic_of(records: list[Message], response: U) -> ControllerResult[U]:
        return ControllerResult(records, response, True)


@dataclass(frozen=True)
class ApiError:
    """An error code and its message (Kafka's ``ApiError``); ``NONE`` for success."""

    error: ErrorCode = ErrorCode.NONE
    message: str | None = field(default=None)

    def is_success(self) -> bool:
        return self.error == ErrorCode.NONE


API_ERROR_NONE = ApiError()


class ControllerError(Exception):
    """A request the controller refuses: the ``ApiError`` to answer with (what Kafka's
    managers throw as an ``ApiException``)."""

    def __init__(self, error: ErrorCode, message: str | None = None) -> None:
        super().__init__(message or error.name)
        self.api_error = ApiError(error, message)

    @property
    def error(self) -> ErrorCode:
        return self.api_error.error
