"""The KRaft metadata image at many partitions: replaying a log into it, applying a small
delta on top of it, and writing it out as a snapshot's records, in process.

    python -m bench.metadata_image [--sizes 10000,100000]

Prints one row per size (partitions, in topics of 100): ``replay_rec_per_s`` (TopicRecord and
PartitionRecord into one delta, then applied), ``small_delta_ms`` (one PartitionChangeRecord
applied onto the full image: what a broker pays per ISR change; the median of 50),
``write_ms`` (``image.records()``) and ``records``.
"""
from __future__ import annotations

import argparse
import statistics
import time

from kafpy.metadata.image.metadata_delta import MetadataDelta
from kafpy.metadata.image.metadata_image import EMPTY_IMAGE, MetadataImage
from kafpy.metadata.image.provenance import MetadataProvenance
from kafpy.protocol import messages as M
from kafpy.protocol.messages import Message

PER_TOPIC = 100


def log_records(partitions: int) -> list[Message]:
    out: list[Message] = []
    for t in range(partitions // PER_TOPIC):
        topic_id = t.to_bytes(16, "big")
        out.append(M.TopicRecord(name=f"scale-{t}", topic_id=topic_id))
        for p in range(PER_TOPIC):
            replicas = [p % 3, (p + 1) % 3, (p + 2) % 3]
            out.append(M.PartitionRecord(partition_id=p, topic_id=topic_id, replicas=replicas,
                                         isr=replicas, leader=replicas[0], leader_epoch=0,
                                         partition_epoch=0))
    return out


def replay(records: list[Message], base: MetadataImage = EMPTY_IMAGE) -> MetadataImage:
    delta = MetadataDelta(base)
    delta.replay_all(records)
    return delta.apply(MetadataProvenance(len(records) - 1, 1, 0))


def main() -> None:
    ap = argparse.ArgumentParser(description=(__doc__ or "").split("\n")[0])
    ap.add_argument("--sizes", default="10000,100000")
    args = ap.parse_args()
    print(f"{'partitions':>10} {'replay_rec_per_s':>16} {'small_delta_ms':>14} {'write_ms':>9} {'records':>8}")
    for size in (int(s) for s in args.sizes.split(",")):
        records = log_records(size)
        t = time.perf_counter()
        image = replay(records)
        replay_s = time.perf_counter() - t
        times = []
        for i in range(50):
            change = M.PartitionChangeRecord(partition_id=i % PER_TOPIC, topic_id=(i % (size // PER_TOPIC)).to_bytes(16, "big"),
                                             isr=[i % 3])
            t = time.perf_counter()
            replay([change], image)
            times.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        written = image.records()
        write_ms = (time.perf_counter() - t) * 1000
        print(f"{size:>10} {len(records) / replay_s:>16.0f} {statistics.median(times):>14.3f} "
              f"{write_ms:>9.1f} {len(written):>8}")


if __name__ == "__main__":
    main()
