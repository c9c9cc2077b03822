"""The broker's entry point raises its open-file limit to the hard one."""
from __future__ import annotations

import resource

from kafpy.broker.__main__ import raise_open_file_limit


def test_soft_open_file_limit_is_raised_to_the_hard_one():
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    lowered = max(64, min(soft, hard) // 2)
    resource.setrlimit(resource.RLIMIT_NOFILE, (lowered, hard))
    try:
        before, after = raise_open_file_limit()
        assert before == lowered
        now = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        assert after == now
        if hard != resource.RLIM_INFINITY:
            assert now == hard
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
