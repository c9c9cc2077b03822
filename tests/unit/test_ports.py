"""kafpy._ports: a port handed out is not handed out again by the same process."""
from kafpy import _ports


def test_a_port_handed_out_is_not_drawn_again(monkeypatch):
    first = _ports.free_port()
    real = _ports._random.randint
    drawn: list[int] = []
    forced = iter([first, first])   # the same number twice, then the real draws

    def randint(low: int, high: int) -> int:
        drawn.append(next(forced, None) or real(low, high))
        return drawn[-1]
    monkeypatch.setattr(_ports._random, "randint", randint)
    assert _ports.free_port() != first and drawn[:2] == [first, first]


def test_the_memory_is_bounded():
    for _ in range(_ports._REMEMBERED + 10):
        _ports.free_port()
    assert len(_ports._handed_out) == _ports._REMEMBERED
