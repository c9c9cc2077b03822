# kafpy-python.sh: sourced (not run) by the scripts that need a Python interpreter; defines
#   kafpy_python BASE_DIR [--create]
# which prints the interpreter for the checkout at BASE_DIR:
#   1. $PYTHON if set;
#   2. else the active virtual environment's python ($VIRTUAL_ENV);
#   3. else the checkout's own BASE_DIR/.venv/bin/python3, so a new terminal works without
#      activating it;
#   4. else, with --create (the install and test scripts, which pip-install into it), a new
#      BASE_DIR/.venv made with `python3 -m venv --system-site-packages` (packages the system
#      already has are reused, nothing is installed into the system: Debian's python is
#      "externally managed", PEP 668, and refuses `pip install`); without --create (the
#      launch scripts, which only import), python3.
# When the venv cannot be made because Debian's python3-venv is missing, it is installed with
# apt-get (as root, or through sudo) and the venv made again; failing that, the function
# prints an explanation on stderr and returns 1.

kafpy_python() {
    local base_dir="$1" create="${2:-}"
    if [ -n "${PYTHON:-}" ]; then
        echo "$PYTHON"
    elif [ -n "${VIRTUAL_ENV:-}" ] && [ -x "$VIRTUAL_ENV/bin/python" ]; then
        echo "$VIRTUAL_ENV/bin/python"
    elif [ -x "$base_dir/.venv/bin/python3" ]; then
        echo "$base_dir/.venv/bin/python3"
    elif [ "$create" = "--create" ]; then
        _kafpy_make_venv "$base_dir" || return 1
        echo "$base_dir/.venv/bin/python3"
    else
        echo python3
    fi
}

_kafpy_make_venv() {
    local base_dir="$1" sudo=""
    echo "[kafpy] creating $base_dir/.venv (python3 -m venv --system-site-packages)" >&2
    if python3 -m venv --system-site-packages "$base_dir/.venv" >&2; then
        return 0
    fi
    rm -rf "$base_dir/.venv"   # a half-made venv (no pip) would be taken as ready next time
    [ "$(id -u)" -eq 0 ] || sudo="sudo"
    if command -v apt-get >/dev/null 2>&1; then
        echo "[kafpy] python3 -m venv failed; installing python3-venv with apt-get" >&2
        $sudo apt-get update -q >&2 \
            && DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -q --no-install-recommends python3-venv >&2 \
            && python3 -m venv --system-site-packages "$base_dir/.venv" >&2 \
            && return 0
        rm -rf "$base_dir/.venv"
    fi
    echo "[kafpy] ERROR: could not create $base_dir/.venv; install the venv module" \
         "(Debian: apt-get install python3-venv), or activate a virtual environment, or set PYTHON" >&2
    return 1
}
