"""Apache Kafka's MirrorMaker 2 (``connect-mirror-maker.sh``: the dedicated MirrorMaker
driver, ``org.apache.kafka.connect.mirror.MirrorMaker``) as a test process between two
clusters. Its jars (connect-mirror and connect-mirror-client with their dependencies) are
not in Kafka's own libs as tests/support fetches them; scripts/install-deps.sh puts them in
``<cache>/connect-mirror-<version>/``. Output (INFO) goes to ``mm2.out`` in ``work_dir``."""
from __future__ import annotations

import subprocess
from pathlib import Path

from tests.support.kafka_dist import (LOG4J2_CONFIG, LOG4J_CONFIG, KafkaDistMissing, cache_dir, java_executable,
                                      kafka_home)

MAIN = "org.apache.kafka.connect.mirror.MirrorMaker"


def mirror_maker_libs() -> tuple[str, Path]:
    """(version, jars dir) of the newest complete connect-mirror install."""
    found = sorted(d for d in cache_dir().glob("connect-mirror-*")
                   if (d / ".complete").is_file() and any(d.glob("connect-mirror-client-*.jar")))
    if not found:
        raise KafkaDistMissing(f"MirrorMaker 2 jars not found in {cache_dir()}/connect-mirror-<version>; "
                               "run scripts/install-deps.sh")
    d = found[-1]
    return d.name.removeprefix("connect-mirror-"), d


class MirrorMaker:
    """One dedicated MirrorMaker 2 process replicating ``source`` to ``target`` (bootstrap
    strings) with MM2's defaults, except what ``settings`` gives."""

    def __init__(self, work_dir: Path, source: str, target: str, settings: dict[str, object]) -> None:
        self.work_dir = work_dir
        self.output_path = work_dir / "mm2.out"
        props = {"clusters": "src, dst", "src.bootstrap.servers": source, "dst.bootstrap.servers": target,
                 "src->dst.enabled": "true", **settings}
        self.config_path = work_dir / "mm2.properties"
        work_dir.mkdir(parents=True, exist_ok=True)
        self.config_path.write_text("".join(f"{k}={v}\n" for k, v in props.items()))
        self.proc: subprocess.Popen | None = None

    def start(self) -> None:
        version, libs = mirror_maker_libs()
        cp = f"{libs}/*:{kafka_home(version) / 'libs'}/*"
        with open(self.output_path, "wb") as out:
            self.proc = subprocess.Popen(
                [java_executable(), "-Xmx512m", "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1",
                 "-Dkafpy.log.level=INFO", f"-Dlog4j.configuration=file:{LOG4J_CONFIG}",
                 f"-Dlog4j2.configurationFile={LOG4J2_CONFIG}", "-cp", cp, MAIN,
                 str(self.config_path)], stdout=out, stderr=subprocess.STDOUT, cwd=self.work_dir)

    def stop(self) -> None:
        if self.proc is None or self.proc.poll() is not None:
            return
        self.proc.terminate()
        try:
            self.proc.wait(30)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()

    def log_text(self) -> str:
        return self.output_path.read_text(errors="replace") if self.output_path.exists() else ""

    def errors(self) -> list[str]:
        """The ERROR lines MirrorMaker logged, but for its own start-up retry: the checkpoint
        connector refuses to configure its tasks until its first listing of consumer groups
        is back (MirrorCheckpointConnector.taskConfigs throws a RetriableException by design,
        and Connect's herder logs each retry at ERROR whatever the brokers)."""
        lines = self.log_text().splitlines()
        return [line for i, line in enumerate(lines) if "] ERROR " in line and not (
            "Failed to reconfigure connector's tasks (MirrorCheckpointConnector)" in line
            and i + 1 < len(lines) and "Timeout while loading consumer groups" in lines[i + 1])]
