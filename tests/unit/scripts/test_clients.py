"""kafpy.scripts._clients.admin_client: the command config reaches the factory, and the client is
closed whatever happens, without a failing close hiding the command's own error."""
import pytest

from kafpy.scripts._clients import admin_client


class Admin:
    def __init__(self, fail_close: bool = False) -> None:
        self.closed = False
        self.fail_close = fail_close

    def close(self) -> None:
        self.closed = True
        if self.fail_close:
            raise ConnectionError("broker gone")


def test_command_config_is_read_and_client_closed(tmp_path):
    conf = tmp_path / "admin.properties"
    conf.write_bytes(b"client.id=tool\\u002d1\n")
    seen = {}
    admin = Admin()

    def factory(bootstrap, config):
        seen.update(bootstrap=bootstrap, config=config)
        return admin

    with admin_client("h:1", str(conf), factory) as got:
        assert got is admin and not admin.closed
    assert seen == {"bootstrap": "h:1", "config": {"client.id": "tool-1"}}
    assert admin.closed


def test_failing_close_does_not_hide_the_error():
    admin = Admin(fail_close=True)
    with pytest.raises(KeyError, match="the command's own"):
        with admin_client("h:1", None, lambda b, c: admin):
            raise KeyError("the command's own")
    assert admin.closed
    with admin_client("h:1", None, lambda b, c: admin):
        pass  # and a clean command stays clean
