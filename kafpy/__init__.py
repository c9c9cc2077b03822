"""kafpy: a Kafka broker in pure Python, installed under this one name.

The repository keeps the broker's floors as top-level folders (``broker/``, ``protocol/``,
``storage/``, ``replication/``, ``coordinator/``, ``scripts/``, ``spark_jobs/``); installed,
they are ``kafpy.broker``, ``kafpy.protocol``, ... (``setup.py`` maps each folder to its
``kafpy.`` name). In a checkout this package holds only itself, so it adds the folder beside
it to its search path: ``import kafpy.storage`` finds ``<checkout>/storage`` there and
``<site-packages>/kafpy/storage`` installed, and no generic top-level name is ever imported.
"""
from __future__ import annotations

import os as _os

__version__ = "0.2.0"

_here = _os.path.dirname(_os.path.abspath(__file__))
if not _os.path.isfile(_os.path.join(_here, "broker", "__init__.py")):
    _checkout = _os.path.dirname(_here)
    if _os.path.isfile(_os.path.join(_checkout, "broker", "__init__.py")):
        __path__.append(_checkout)  # type: ignore[name-defined]  # noqa: F821
