import asyncio

import pytest

from kafpy.broker.security import scram
from kafpy.broker.security.jaas import parse_jaas_config, plain_users
from kafpy.broker.security.plain import PlainServer
from kafpy.broker.security.sasl_errors import SaslAuthenticationError, SaslExchangeError, client_message
from kafpy.broker.security.session import AUTHENTICATED, FAILED, ListenerSecurity, illegal_sasl_state_response
from kafpy.broker.security.ssl_principal import SslPrincipalMapper, distinguished_name


def test_scram_sha256_server_matches_rfc7677_example(monkeypatch):
    salt = __import__("base64").b64decode("W22ZaJ0SNY7soEsUEjb6gQ==")
    cred = scram.new_credential("SCRAM-SHA-256", "pencil", 4096, salt)
    monkeypatch.setattr(scram, "_nonce", lambda: "%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0")
    server = scram.ScramServer("SCRAM-SHA-256", {"user": cred}.get)
    first = server.evaluate(b"n,,n=user,r=rOprNGfwEbeRWgbNEkqO")
    assert first == b"r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096"
    final = server.evaluate(b"c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,"
                            b"p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=")
    assert final == b"v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4="
    assert server.complete and server.authorization_id == "user"


@pytest.mark.parametrize("mech", ["SCRAM-SHA-256", "SCRAM-SHA-512"])
def test_scram_wrong_password_and_unknown_user_fail_alike(mech):
    cred = scram.new_credential(mech, "right")
    for user, password in (("u", "wrong"), ("ghost", "right")):
        server, client = scram.ScramServer(mech, {"u": cred}.get), scram.ScramClient(mech, user, password)
        with pytest.raises(SaslExchangeError):
            server.evaluate(client.final(server.evaluate(client.first())))


def test_scram_credential_string_round_trips():
    cred = scram.new_credential("SCRAM-SHA-512", "pw", 8192)
    text = cred.to_string()
    assert text.startswith("salt=") and text.endswith(",iterations=8192")
    assert scram.ScramCredential.from_string(text) == cred


def test_plain_checks_users_and_authzid():
    assert PlainServer({"alice": "s"}.get).evaluate(b"\0alice\0s") == b""
    for msg, text in ((b"\0alice\0x", "Invalid username or password"), (b"\0bob\0s", "Invalid username or password"),
                      (b"bob\0alice\0s", "authorization id"), (b"\0\0s", "username not specified")):
        with pytest.raises(SaslAuthenticationError, match=text):
            PlainServer({"alice": "s"}.get).evaluate(msg)
    with pytest.raises(SaslExchangeError):
        PlainServer({"alice": "s"}.get).evaluate(b"alice\0s")
    assert client_message(SaslExchangeError("x"), "PLAIN") == (
        "Authentication failed during authentication due to invalid credentials with SASL mechanism PLAIN")


def test_jaas_users():
    entry = parse_jaas_config('org.apache.kafka.common.security.plain.PlainLoginModule required '
                              'username="admin" password="a" user_admin="a" user_alice="alice-secret";')
    assert plain_users(entry) == {"admin": "a", "alice": "alice-secret"}
    for bad in ("X required a=b", "X maybe a=b;", "X required a=;"):
        with pytest.raises(ValueError):
            parse_jaas_config(bad)


def test_certificate_principal_mapping():
    dn = distinguished_name(((("countryName", "US"),), (("organizationName", "Acme, Inc"),),
                             (("organizationalUnitName", "ServiceUsers"),), (("commonName", "alice"),)))
    assert dn == "CN=alice,OU=ServiceUsers,O=Acme\\, Inc,C=US"
    mapper = SslPrincipalMapper("RULE:^CN=(.*?),OU=ServiceUsers.*$/$1/U, DEFAULT")
    assert mapper.principal_name(dn) == "ALICE"
    assert mapper.principal_name("CN=bob,OU=x") == "CN=bob,OU=x"


def _session(reauth_ms=0):
    now = [0.0]
    sec = ListenerSecurity("SASL_PLAINTEXT", "SASL_PLAINTEXT", mechanisms=["PLAIN"], plain_users={"a": "s"},
                           reauth_ms=reauth_ms)
    return sec.new_session(None, lambda: now[0]), now


def test_session_serves_only_sasl_until_authenticated_and_expires():
    s, now = _session(reauth_ms=1000)
    assert s.admits(18) and s.admits(17) and not s.admits(3) and not s.admits(36)
    assert s.handshake(1, "PLAIN") == (0, ["PLAIN"])
    assert s.admits(36) and not s.admits(18)
    assert asyncio.run(s.authenticate(b"\0a\0s")) == (0, None, b"", 1000)
    assert s.state == AUTHENTICATED and str(s.principal) == "User:a" and s.admits(3)
    now[0] = 2.0
    assert not s.admits(3) and s.admits(17)


def test_session_fails_on_bad_password_and_unknown_mechanism():
    s, _ = _session()
    s.handshake(1, "PLAIN")
    code, message, _, _ = asyncio.run(s.authenticate(b"\0a\0x"))
    assert (code, message, s.state) == (58, "Authentication failed: Invalid username or password", FAILED)
    s2, _ = _session()
    assert s2.handshake(1, "GSSAPI")[0] == 33 and s2.failed


def test_session_refuses_out_of_order_requests_as_kafka_does():
    s, _ = _session()
    assert s.admits(18) and not s.admits(18)   # one ApiVersions before the handshake
    assert not s.answers_refusal()             # refused there without an answer
    s.handshake(1, "PLAIN")
    assert not s.admits(18) and s.answers_refusal()
    refusal = illegal_sasl_state_response(18, 3)
    assert refusal.error_code == 34
    assert illegal_sasl_state_response(3, 12) is None   # no top-level error code: closed unanswered
    assert illegal_sasl_state_response(1, 4) is None and illegal_sasl_state_response(1, 7).error_code == 34
