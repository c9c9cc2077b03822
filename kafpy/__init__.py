"""kafpy: a Kafka broker in pure Python, installed under this one name.

For a test, a notebook or a laptop: `kafpy.embedded` starts brokers from Python
(``from kafpy import EmbeddedBroker``), `kafpy.pytest_plugin` gives pytest fixtures
(``kafka_bootstrap_servers``, ``kafpy_topic``, ``kafpy_broker``, ``kafpy_cluster``) as soon
as kafpy is installed, and the console scripts run the broker (``kafpy-server``) and
Kafka's tools under their Apache names (``kafka-topics.sh``...).

```python
from kafka import KafkaProducer
from kafpy import EmbeddedBroker

with EmbeddedBroker() as broker:
    broker.create_topic("orders", partitions=3)
    producer = KafkaProducer(bootstrap_servers=broker.bootstrap_servers)
    producer.send("orders", b"first").get(timeout=30)
```

The repository keeps the broker's floors as top-level folders (``broker/``, ``protocol/``,
``storage/``, ...); ``kafpy/broker`` and its siblings are committed relative symlinks to them
(``kafpy/broker -> ../broker``), so ``kafpy.broker`` is an ordinary subpackage to Python,
mypy and an IDE alike, and building the wheel copies the folders in as ``kafpy/broker/...``.
Those symlinks are the one list of floors: the packaging, the linter's banned bare names and
the architecture tests are read from or checked against them.
"""
from __future__ import annotations

__version__ = "0.2.0"

# The public API, imported on first use: the broker process imports this package too and
# must not pay for what only a caller of the embedded API needs.
_LAZY = {"EmbeddedBroker": "kafpy.embedded", "EmbeddedCluster": "kafpy.embedded",
         "create_topics": "kafpy.embedded"}
__all__ = ["__version__"]  # and the names of _LAZY, resolved by __getattr__


def __getattr__(name: str) -> object:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'kafpy' has no attribute {name!r}")
    import importlib
    return getattr(importlib.import_module(module), name)
