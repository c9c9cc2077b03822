"""Everything the project imports of its own lives under ``kafpy``: no file imports one of the
generic top-level names the repository's folders have (``broker``, ``storage``, ...), which
would load a second copy of a module, or a user's own package of that name."""
import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
FLOORS = ("broker", "protocol", "storage", "replication", "coordinator", "metrics", "web", "registry", "rest",
          "scripts", "spark_jobs")
BARE = re.compile(rf"^\s*(from|import)\s+({'|'.join(FLOORS)})(\.|\s|$)", re.M)


def test_no_module_imports_a_floor_by_its_bare_name():
    offenders = []
    for path in REPO.rglob("*.py"):
        rel = path.relative_to(REPO)
        if rel.parts[0] in (".venv", "build", "dist") or "site-packages" in rel.parts:
            continue
        for m in BARE.finditer(path.read_text(encoding="utf-8")):
            offenders.append(f"{rel}: {m.group(0).strip()}")
    assert offenders == []


def test_the_checkout_package_reaches_the_floors_beside_it():
    import kafpy
    import kafpy.storage.log as log

    assert Path(log.__file__).resolve().is_relative_to(REPO)
    assert kafpy.__version__
