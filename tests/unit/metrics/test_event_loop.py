"""The event loop's idle share between two reads, from wall and thread CPU clocks."""
from kafpy.metrics.event_loop import LoopIdleRatio


def test_idle_is_the_share_of_wall_time_not_on_the_cpu():
    wall, cpu = [100.0], [5.0]
    r = LoopIdleRatio(clock=lambda: wall[0], cpu=lambda: cpu[0])
    wall[0], cpu[0] = 110.0, 7.5      # 2.5 s of CPU in 10 s
    assert r.read() == 0.75
    wall[0], cpu[0] = 111.0, 8.5      # fully busy
    assert r.read() == 0.0
    assert r.read() == 1.0            # no time passed
