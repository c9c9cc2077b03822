"""Requests in progress per client and in total, long polls apart (kafpy.web.admission)."""
from __future__ import annotations

from kafpy.web.admission import Admission, Bound, Budget, Refusal


def test_one_client_holds_its_share_and_no_more():
    a = Admission({Budget.SHORT: Bound(total=4, per_client=2), Budget.LONG_POLL: Bound(total=2, per_client=1)})
    assert a.admit(Budget.SHORT, "User:mallory") is None
    assert a.admit(Budget.SHORT, "User:mallory") is None
    assert a.admit(Budget.SHORT, "User:mallory") is Refusal.CLIENT
    # everyone else still gets in, up to the total
    assert a.admit(Budget.SHORT, "address:10.0.0.1") is None
    assert a.admit(Budget.SHORT, "User:alice") is None
    assert a.admit(Budget.SHORT, "User:bob") is Refusal.TOTAL
    # long polls count apart: the short budget being full does not refuse one
    assert a.admit(Budget.LONG_POLL, "User:bob") is None
    assert a.admit(Budget.LONG_POLL, "User:bob") is Refusal.CLIENT
    a.release(Budget.SHORT, "User:mallory")
    assert a.in_flight(Budget.SHORT) == 3 and a.in_flight(Budget.SHORT, "User:mallory") == 1
    assert a.admit(Budget.SHORT, "User:bob") is None


def test_release_forgets_a_client_and_ignores_what_was_never_admitted():
    a = Admission({Budget.SHORT: Bound(total=2, per_client=2)})
    a.release(Budget.SHORT, "User:nobody")
    assert a.in_flight(Budget.SHORT) == 0
    assert a.admit(Budget.SHORT, "User:x") is None
    a.release(Budget.SHORT, "User:x")
    assert a.pools[Budget.SHORT].by_client == {} and a.in_flight(Budget.SHORT) == 0
