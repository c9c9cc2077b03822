"""The admin requests kafka-acls needs (DescribeAcls, CreateAcls, DeleteAcls), sent raw
through the project's codec over one blocking connection to a bootstrap server, with the
versions both sides support (from ApiVersions). ACL requests may go to any broker of a
cluster, as Kafka's admin client sends them to the least loaded one.

Connections are PLAINTEXT, SSL (``ssl.truststore.location`` a PEM file, or no
verification of the broker's certificate with ``ssl.endpoint.identification.algorithm=``
and no truststore) or SASL_PLAINTEXT / SASL_SSL with the PLAIN mechanism (username and
password from ``sasl.jaas.config``), as configured by ``--command-config``.

Who may call it: scripts.kafka_acls. Keeps nothing on disk.
"""
from __future__ import annotations

import re
import socket
import ssl
import struct

from kafpy.protocol import codec
from kafpy.protocol.codec import MessageT
from kafpy.protocol import messages
from kafpy.protocol.api_keys import ApiKey
from kafpy.protocol.errors import ErrorCode
from kafpy.scripts._clients import BrokerError

from kafpy.broker.security.acl import (AccessControlEntry, AclBinding, AclBindingFilter, AclOperation, AclPermissionType,
                                 PatternType, ResourcePattern, ResourceType)

_JAAS_OPTION = re.compile(r'(\w+)\s*=\s*"([^"]*)"')


class AclAdminClient:
    def __init__(self, bootstrap: str, props: dict[str, str] | None = None, timeout: float = 30.0) -> None:
        self.props = dict(props or {})
        self.timeout = timeout
        self.correlation = 0
        self.sock = self._connect([s.strip() for s in bootstrap.split(",") if s.strip()])
        try:
            self.versions = self._api_versions()
            if self.props.get("security.protocol", "PLAINTEXT").upper().startswith("SASL"):
                self._sasl_plain()
        except BaseException:
            self.sock.close()
            raise

    # -- the connection ----------------------------------------------------------------
    def _connect(self, servers: list[str]) -> socket.socket:
        last: Exception | None = None
        for server in servers:
            host, _, port = server.rpartition(":")
            try:
                sock = socket.create_connection((host.strip("[]"), int(port)), timeout=self.timeout)
            except (OSError, ValueError) as e:
                last = e
                continue
            if self.props.get("security.protocol", "PLAINTEXT").upper() in ("SSL", "SASL_SSL"):
                sock = self._tls().wrap_socket(sock, server_hostname=host.strip("[]"))
            return sock
        raise ConnectionError(f"no bootstrap server reachable among {servers}: {last}")

    def _tls(self) -> ssl.SSLContext:
        ctx = ssl.create_default_context(cafile=self.props.get("ssl.truststore.location") or None)
        if not self.props.get("ssl.endpoint.identification.algorithm", "https"):
            ctx.check_hostname = False
        if not self.props.get("ssl.truststore.location") and not ctx.check_hostname:
            ctx.verify_mode = ssl.CERT_NONE
        return ctx

    def close(self) -> None:
        self.sock.close()

    def __enter__(self) -> "AclAdminClient":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _recv(self, n: int) -> bytes:
        buf = bytearray()
        while len(buf) < n:
            chunk = self.sock.recv(n - len(buf))
            if not chunk:
                raise ConnectionError("the broker closed the connection")
            buf += chunk
        return bytes(buf)

    def request(self, answer: type[MessageT], api_key: int, version: int, body: messages.Message) -> MessageT:
        """Send `body` and read its response, which is of the API's class `answer`."""
        self.correlation += 1
        header = messages.RequestHeader(request_api_key=api_key, request_api_version=version,
                                 correlation_id=self.correlation, client_id="kafka-acls")
        self.sock.sendall(codec.encode_request(header, body))
        (size,) = struct.unpack(">i", self._recv(4))
        _, resp = codec.decode_response(api_key, version, self._recv(size))
        assert isinstance(resp, answer)  # the API's response class
        return resp

    def _api_versions(self) -> dict[int, int]:
        resp = self.request(messages.ApiVersionsResponse, ApiKey.API_VERSIONS, 0, messages.ApiVersionsRequest())
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code)
        return {k.api_key: k.max_version for k in resp.api_keys}

    def _version(self, api_key: int, ours: int) -> int:
        theirs = self.versions.get(api_key)
        if theirs is None:
            raise BrokerError(ErrorCode.UNSUPPORTED_VERSION, f"The broker does not support api key {api_key}")
        return min(ours, theirs)

    def _sasl_plain(self) -> None:
        mechanism = self.props.get("sasl.mechanism", "GSSAPI").upper()
        if mechanism != "PLAIN":
            raise ValueError(f"kafka-acls supports SASL mechanism PLAIN only, not {mechanism}")
        options = dict(_JAAS_OPTION.findall(self.props.get("sasl.jaas.config", "")))
        v = self._version(ApiKey.SASL_HANDSHAKE, 1)
        resp = self.request(messages.SaslHandshakeResponse, ApiKey.SASL_HANDSHAKE, v, messages.SaslHandshakeRequest(mechanism="PLAIN"))
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code)
        token = f"\0{options.get('username', '')}\0{options.get('password', '')}".encode()
        auth = self.request(messages.SaslAuthenticateResponse, ApiKey.SASL_AUTHENTICATE, self._version(ApiKey.SASL_AUTHENTICATE, 2),
                            messages.SaslAuthenticateRequest(auth_bytes=token))
        if auth.error_code != ErrorCode.NONE:
            raise BrokerError(auth.error_code, auth.error_message)

    # -- the ACL requests --------------------------------------------------------------
    def describe(self, f: AclBindingFilter) -> list[AclBinding]:
        resp = self.request(messages.DescribeAclsResponse, ApiKey.DESCRIBE_ACLS, self._version(ApiKey.DESCRIBE_ACLS, 3), messages.DescribeAclsRequest(
            resource_type_filter=f.resource_type, resource_name_filter=f.name, pattern_type_filter=f.pattern_type,
            principal_filter=f.principal, host_filter=f.host, operation=f.operation,
            permission_type=f.permission_type))
        if resp.error_code != ErrorCode.NONE:
            raise BrokerError(resp.error_code, resp.error_message)
        return [AclBinding(ResourcePattern(ResourceType.of(r.resource_type), r.resource_name,
                                           PatternType.of(r.pattern_type)),
                           AccessControlEntry(a.principal, a.host, AclOperation.of(a.operation),
                                              AclPermissionType.of(a.permission_type)))
                for r in resp.resources for a in r.acls]

    def create(self, bindings: list[AclBinding]) -> None:
        resp = self.request(messages.CreateAclsResponse, ApiKey.CREATE_ACLS, self._version(ApiKey.CREATE_ACLS, 3), messages.CreateAclsRequest(creations=[messages.CreateAclsRequest.AclCreation(
            resource_type=b.pattern.resource_type, resource_name=b.pattern.name,
            resource_pattern_type=b.pattern.pattern_type, principal=b.entry.principal, host=b.entry.host,
            operation=b.entry.operation, permission_type=b.entry.permission_type) for b in bindings]))
        for r in resp.results:
            if r.error_code != ErrorCode.NONE:
                raise BrokerError(r.error_code, r.error_message)

    def delete(self, filters: list[AclBindingFilter]) -> None:
        resp = self.request(messages.DeleteAclsResponse, ApiKey.DELETE_ACLS, self._version(ApiKey.DELETE_ACLS, 3), messages.DeleteAclsRequest(filters=[messages.DeleteAclsRequest.DeleteAclsFilter(
            resource_type_filter=f.resource_type, resource_name_filter=f.name, pattern_type_filter=f.pattern_type,
            principal_filter=f.principal, host_filter=f.host, operation=f.operation,
            permission_type=f.permission_type) for f in filters]))
        for r in resp.filter_results:
            if r.error_code != ErrorCode.NONE:
                raise BrokerError(r.error_code, r.error_message)
