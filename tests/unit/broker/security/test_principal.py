import pytest

from kafpy.broker.security.principal import ANONYMOUS, KafkaPrincipal


def test_str_and_parse_round_trip():
    p = KafkaPrincipal.from_string("User:CN=a:b,OU=x")
    assert p == KafkaPrincipal("User", "CN=a:b,OU=x")
    assert str(p) == "User:CN=a:b,OU=x"
    assert str(ANONYMOUS) == "User:ANONYMOUS"
    assert KafkaPrincipal.user("alice") in {KafkaPrincipal("User", "alice")}


@pytest.mark.parametrize("text", ["alice", ":alice", ""])
def test_parse_rejects_missing_type(text):
    with pytest.raises(ValueError):
        KafkaPrincipal.from_string(text)
