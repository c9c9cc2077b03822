#!/usr/bin/env bash
# kafpy-cluster: a local N-node KRaft cluster from this checkout (python -m kafpy.local_cluster), from any working directory.
exec "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/kafpy-run-module.sh" kafpy.local_cluster "$@"
