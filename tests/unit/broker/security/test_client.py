"""The inter-broker client's SASL exchange (ClientSecurity) against the server's session."""
import asyncio

import pytest

from kafpy.protocol import messages as M

from kafpy.broker.security.client import ClientSecurity
from kafpy.broker.security.sasl_errors import SaslAuthenticationError
from kafpy.broker.security.scram import new_credential
from kafpy.broker.security.session import AUTHENTICATED, ListenerSecurity


class _Credentials:
    """A user-config store holding one SCRAM credential (the session's ``user_configs``)."""

    def __init__(self, user, mechanism, password):
        self.creds = {(user, mechanism): new_credential(mechanism, password)}

    def credential(self, user, mechanism):
        return self.creds.get((user, mechanism))

    async def refresh(self, user):
        return None


def _login(client: ClientSecurity, listener: ListenerSecurity):
    session = listener.new_session(None, lambda: 0.0)

    async def exchange(api_key, body):
        if api_key == 17:
            code, mechanisms = session.handshake(1, body.mechanism)
            return M.SaslHandshakeResponse(error_code=code, mechanisms=mechanisms)
        code, message, token, _ = await session.authenticate(body.auth_bytes)
        return M.SaslAuthenticateResponse(error_code=code, error_message=message, auth_bytes=token)

    asyncio.run(client.authenticate(exchange))
    return session


@pytest.mark.parametrize("mechanism", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_login_as_the_broker_user(mechanism):
    listener = ListenerSecurity("SASL_SSL", "SASL_SSL", mechanisms=[mechanism],
                                user_configs=_Credentials("broker", mechanism, "s3cret"))
    session = _login(ClientSecurity("SASL_SSL", None, mechanism, "broker", "s3cret"), listener)
    assert session.state == AUTHENTICATED and str(session.principal) == "User:broker"
    with pytest.raises(SaslAuthenticationError):
        _login(ClientSecurity("SASL_SSL", None, mechanism, "broker", "wrong"), listener)


def test_plain_login_and_a_mechanism_the_listener_does_not_enable():
    listener = ListenerSecurity("SASL_PLAINTEXT", "SASL_PLAINTEXT", mechanisms=["PLAIN"], plain_users={"b": "p"})
    assert str(_login(ClientSecurity("SASL_PLAINTEXT", None, "PLAIN", "b", "p"), listener).principal) == "User:b"
    with pytest.raises(SaslAuthenticationError, match="UNSUPPORTED_SASL_MECHANISM"):
        _login(ClientSecurity("SASL_PLAINTEXT", None, "SCRAM-SHA-256", "b", "p"), listener)
