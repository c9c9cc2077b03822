"""Fixtures of the security tests: the test certificates, made once per session."""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.security.certs import make_certs


@pytest.fixture(scope="session")
def certs(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return make_certs(tmp_path_factory.mktemp("kafpy-certs"))
