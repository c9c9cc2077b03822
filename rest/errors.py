"""The REST Proxy's content types and error codes (Confluent's ``{"error_code", "message"}``
bodies; 404xx/422xx/500xx codes answered with their first three digits as status)."""
from __future__ import annotations

import json

from aiohttp import web

from kafpy.registry.errors import RestError, http_status

V2_JSON = "application/vnd.kafka.v2+json"
V3_JSON = "application/json"
BINARY_V2 = "application/vnd.kafka.binary.v2+json"
JSON_V2 = "application/vnd.kafka.json.v2+json"
AVRO_V2 = "application/vnd.kafka.avro.v2+json"
JSONSCHEMA_V2 = "application/vnd.kafka.jsonschema.v2+json"
EMBEDDED = {BINARY_V2: "binary", JSON_V2: "json", AVRO_V2: "avro", JSONSCHEMA_V2: "jsonschema"}

FORBIDDEN = 40301
TOPIC_NOT_FOUND = 40401
PARTITION_NOT_FOUND = 40402
CONSUMER_INSTANCE_NOT_FOUND = 40403
LEADER_NOT_AVAILABLE = 40404
CONSUMER_FORMAT_MISMATCH = 40601
CONSUMER_ALREADY_SUBSCRIBED = 40901
CONSUMER_ALREADY_EXISTS = 40902
ILLEGAL_STATE = 40903
UNSUPPORTED_MEDIA_TYPE = 415
PAYLOAD_TOO_LARGE = 413
BAD_REQUEST = 400
UNPROCESSABLE = 422
KEY_SCHEMA_MISSING = 42201
VALUE_SCHEMA_MISSING = 42202
JSON_CONVERSION = 42203
INVALID_CONSUMER_CONFIG = 42204
KAFKA_ERROR = 50002
KAFKA_RETRIABLE_ERROR = 50003
TOO_MANY_CONSUMERS = 50004

__all__ = ["RestError", "reply", "error_reply"]


def reply(body: object, status: int = 200, content_type: str = V2_JSON) -> web.Response:
    if body is None:
        return web.Response(status=status)
    return web.Response(status=status, body=json.dumps(body).encode(), content_type=content_type)


def error_reply(e: RestError, content_type: str = V2_JSON) -> web.Response:
    return reply({"error_code": e.code, "message": e.message}, http_status(e.code), content_type)
