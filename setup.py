"""Maps the repository's top-level folders to one installed name, ``kafpy``.

``broker/`` installs as ``kafpy/broker``, ``protocol/`` as ``kafpy/protocol``, and so on, so
that site-packages gains ``kafpy`` alone. Everything else about the package is declared in
pyproject.toml; only this mapping needs code, since it lists every subpackage.
"""
from setuptools import find_packages, setup

FLOORS = ["broker", "protocol", "storage", "replication", "coordinator", "metrics", "web", "registry", "rest", "scripts",
          "spark_jobs"]

packages = ["kafpy"]
package_dir = {"kafpy": "kafpy"}
for floor in FLOORS:
    for pkg in [floor] + [f"{floor}.{sub}" for sub in find_packages(floor)]:
        packages.append(f"kafpy.{pkg}")
        package_dir[f"kafpy.{pkg}"] = pkg.replace(".", "/")

# Kafka's message schemas, from which protocol/messages.py is generated (kafpy.protocol.generate)
package_data = {"kafpy": ["py.typed"], "kafpy.protocol": ["schema/*.json"]}

setup(packages=packages, package_dir=package_dir, package_data=package_data)
