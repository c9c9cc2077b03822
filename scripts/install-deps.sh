#!/usr/bin/env bash
# Installs everything the test suite needs: the project (editable, with its test extras),
# Debian's ZooKeeper and kcat, Apache Kafka's jars (3.9 and the newest 4.x served),
# Spark's Kafka connector, Apache's metadata shell (4.3.1) and the Go test programs (built with
# the machine's `go`).
# Idempotent: a warm run only checks markers and returns.
#
# Jars go to ${KAFPY_CACHE:-$HOME/.cache/kafpy}/kafka-<version>/libs/,
# ${KAFPY_CACHE}/spark-kafka-<spark version>/ (read by tests/support/kafka_dist.py),
# ${KAFPY_CACHE}/connect-mirror-<version>/ (MirrorMaker 2) and ${KAFPY_CACHE}/kafka-shell-4.3.1/libs/
# (Apache's metadata shell).
#
# Environment:
#   KAFPY_CACHE            where the jars go (default ~/.cache/kafpy)
#   KAFPY_KAFKA_3_VERSION  the 3.x line (default 3.9.1)
#   KAFPY_KAFKA_4_VERSIONS candidates for the 4.x line, newest first; the first that
#                          resolves is used (default "4.4.0 4.3.1 4.2.0 4.1.1 4.0.0")
#   KAFPY_STREAMS_VERSIONS candidates for Kafka Streams and its examples jar, newest first
#                          (default "4.4.0 4.0.0"; the examples jar is not published for
#                          every release)
#   PYTHON                 the interpreter to install into; default as the launch scripts
#                          choose it (scripts/kafpy-python.sh): the active virtual environment,
#                          else the checkout's .venv, created when missing
set -euo pipefail

REPO="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
CACHE="${KAFPY_CACHE:-$HOME/.cache/kafpy}"
KAFKA_3_VERSION="${KAFPY_KAFKA_3_VERSION:-3.9.1}"
KAFKA_4_VERSIONS="${KAFPY_KAFKA_4_VERSIONS:-4.4.0 4.3.1 4.2.0 4.1.1 4.0.0}"
STREAMS_VERSIONS="${KAFPY_STREAMS_VERSIONS:-4.4.0 4.0.0}"
# The log4j2 SLF4J 1.x binding for Kafka 4.x (Kafka 4 publishes slf4j-api 1.7 in its poms and
# ships log4j2 in its distribution; 3.9 brings slf4j-reload4j through its own poms).
LOG4J2_VERSION="2.25.5"
. "$REPO/scripts/kafpy-python.sh"
PYTHON=$(kafpy_python "$REPO" --create)
START=$(date +%s)

log() { echo "[install-deps] $*" >&2; }
die() { echo "[install-deps] ERROR: $*" >&2; exit 1; }

mkdir -p "$CACHE"

# ---------------------------------------------------------------- Java and Maven
command -v java >/dev/null || die "java not found: install a JDK 17+ (Debian: openjdk-17-jdk-headless)"
JAVA_MAJOR=$(java -XshowSettings:properties -version 2>&1 | sed -n 's/^ *java.specification.version = \([0-9]*\).*/\1/p')
[[ -n "$JAVA_MAJOR" && "$JAVA_MAJOR" -ge 17 ]] || die "java is version '${JAVA_MAJOR:-unknown}', need 17 or newer"
command -v mvn >/dev/null || die "mvn not found: install Maven (Debian: maven)"
log "java $JAVA_MAJOR and mvn found"

# ---------------------------------------------------------------- Debian packages
need_apt=()
[[ -x /usr/share/zookeeper/bin/zkServer.sh ]] || need_apt+=(zookeeper)
command -v kcat >/dev/null || need_apt+=(kcat)
command -v openssl >/dev/null || need_apt+=(openssl)            # the TLS tests make their certificates
command -v ip >/dev/null || need_apt+=(iproute2)               # the fault tests' network namespaces
# the fault tests' log disks: an ext4 file system on a loop device each (sbin: not on a user's PATH)
PATH="$PATH:/usr/sbin:/sbin" command -v losetup >/dev/null || need_apt+=(mount)
PATH="$PATH:/usr/sbin:/sbin" command -v mkfs.ext4 >/dev/null || need_apt+=(e2fsprogs)
command -v prometheus >/dev/null || need_apt+=(prometheus)      # the metrics tests scrape a cluster with it
command -v chromium >/dev/null || need_apt+=(chromium)          # the status page's browser test
command -v chromedriver >/dev/null || need_apt+=(chromium-driver)
if ((${#need_apt[@]})); then
    command -v apt-get >/dev/null || die "missing ${need_apt[*]} and no apt-get to install them"
    log "apt-get install ${need_apt[*]}"
    SUDO=""
    [[ $(id -u) -eq 0 ]] || SUDO="sudo"
    $SUDO apt-get update -q >&2
    DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q --no-install-recommends "${need_apt[@]}" >&2
else
    log "zookeeper, kcat, openssl, ip, losetup, mkfs.ext4, prometheus and chromium already installed"
fi

# ---------------------------------------------------------------- Python packages
# Reinstall when pyproject.toml changed, the editable install points at another checkout,
# the interpreter is another one (its prefix: each venv has its own), or a test dependency
# does not import.
PY_MARK="$CACHE/pip-$( (cat "$REPO/pyproject.toml"; echo "$REPO"; "$PYTHON" -VV;
                        "$PYTHON" -c 'import sys; print(sys.prefix)') | sha256sum | cut -c1-16)"
py_ok() {
    [[ -f "$PY_MARK" ]] || return 1
    # from / so that a stray kafpy.egg-info in the checkout does not shadow the installed one
    (cd / && "$PYTHON" - "$REPO") <<'EOF' >/dev/null 2>&1
import importlib.metadata as md, json, sys
d = md.distribution("kafpy")
url = json.loads(d.read_text("direct_url.json") or "{}").get("url", "")
assert url.rstrip("/") == "file://" + sys.argv[1].rstrip("/"), url
import pyspark, confluent_kafka, aiokafka, kafka, kazoo, crc32c, lz4, snappy, zstandard  # noqa
import uvloop, pytest, pytest_timeout, hypothesis  # noqa
import aiohttp, prometheus_client, selenium, yaml, ruff, mypy  # noqa
import celpy, jsonata  # noqa
from confluent_kafka.schema_registry.rules.cel.cel_executor import CelExecutor  # noqa
from confluent_kafka.schema_registry.rules.cel.cel_field_executor import CelFieldExecutor  # noqa
from confluent_kafka.schema_registry.rules.jsonata.jsonata_executor import JsonataExecutor  # noqa
EOF
}
log "python: $PYTHON"
if py_ok; then
    log "python packages already installed (kafpy editable from $REPO)"
else
    log "pip install -e $REPO[test]"
    "$PYTHON" -m pip install -q -e "$REPO[test]" >&2
    rm -f "$CACHE"/pip-*
    touch "$PY_MARK"
fi

# ---------------------------------------------------------------- Maven helper
# fetch_jars DEST "group:artifact:version ..." : copies the runtime closure of the given
# artifacts into DEST (atomically: DEST appears only when complete). With FETCH_ALONE=1 in
# its environment, only the named artifacts (no dependencies), with strict checksums.
fetch_jars() {
    local dest="$1"; shift
    local work
    work=$(mktemp -d)
    {
        echo '<project xmlns="http://maven.apache.org/POM/4.0.0"><modelVersion>4.0.0</modelVersion>'
        echo '<groupId>kafpy.deps</groupId><artifactId>deps</artifactId><version>1</version><packaging>pom</packaging>'
        echo '<dependencies>'
        local coord g a v
        for coord in "$@"; do
            IFS=: read -r g a v <<<"$coord"
            echo "<dependency><groupId>$g</groupId><artifactId>$a</artifactId><version>$v</version>"
            [[ -n "${FETCH_ALONE:-}" ]] && echo "<exclusions><exclusion><groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions>"
            echo "</dependency>"
        done
        echo '</dependencies></project>'
    } >"$work/pom.xml"
    local try ok=""
    for try in 1 2; do  # a second try rides over a dropped connection
        # shellcheck disable=SC2046
        if (cd "$work" && mvn -B -q $([[ $try -gt 1 ]] && echo -U) $([[ -n "${FETCH_ALONE:-}" ]] && echo -C) \
                dependency:copy-dependencies -DincludeScope=runtime \
                -DoutputDirectory="$work/libs" >"$work/mvn.log" 2>&1); then
            ok=1
            break
        fi
        log "mvn failed (try $try):"
        tail -20 "$work/mvn.log" >&2
        rm -rf "$work/libs"
    done
    if [[ -z "$ok" ]]; then
        rm -rf "$work"
        return 1
    fi
    rm -rf "$dest"
    mkdir -p "$(dirname "$dest")"
    mv "$work/libs" "$dest"
    rm -rf "$work"
}

# fetch_first NAME "VERSIONS" GROUP:ARTIFACT...: sets $fetched to the first candidate version
# whose jars are already in $CACHE/NAME-<version> (a warm run: any will do), else to the first
# that Maven Central resolves (each GROUP:ARTIFACT at that version, with its dependencies);
# empty when none does.
fetch_first() {
    local name="$1" versions="$2"; shift 2
    local v a coords
    fetched=""
    for v in $versions; do
        if [[ -f "$CACHE/$name-$v/.complete" ]]; then
            log "$name $v jars present in $CACHE/$name-$v"; fetched="$v"; return 0
        fi
    done
    for v in $versions; do
        coords=()
        for a in "$@"; do coords+=("$a:$v"); done
        log "fetching ${coords[0]} with mvn into $CACHE/$name-$v"
        if fetch_jars "$CACHE/$name-$v" "${coords[@]}"; then
            echo "$v" >"$CACHE/$name-$v/.complete"; fetched="$v"; return 0
        fi
        log "$name $v did not resolve; trying the next version"
    done
}

kafka_artifacts() {
    local v="$1" a
    for a in kafka_2.13 kafka-tools kafka-clients kafka-storage kafka-server-common \
             kafka-metadata kafka-raft kafka-group-coordinator; do
        echo "org.apache.kafka:$a:$v"
    done
    if [[ "$v" == 4.* ]]; then
        echo "org.apache.logging.log4j:log4j-api:$LOG4J2_VERSION"
        echo "org.apache.logging.log4j:log4j-core:$LOG4J2_VERSION"
        echo "org.apache.logging.log4j:log4j-slf4j-impl:$LOG4J2_VERSION"
    fi
}

install_kafka() {
    local v="$1" home="$CACHE/kafka-$1"
    if [[ -f "$home/.complete" ]]; then
        log "Kafka $v jars present in $home/libs"
        return 0
    fi
    log "fetching Apache Kafka $v jars with mvn into $home/libs"
    # shellcheck disable=SC2046
    fetch_jars "$home/libs" $(kafka_artifacts "$v") || return 1
    rm -rf "$home/cds"  # class-data-sharing archives of older jars (tests/support/kafka_dist.py)
    echo "$v" >"$home/.complete"
    log "Kafka $v: $(ls "$home/libs" | wc -l) jars"
}

# ---------------------------------------------------------------- Kafka jars
install_kafka "$KAFKA_3_VERSION" || die "could not fetch Kafka $KAFKA_3_VERSION from Maven Central"
got4=""
for v in $KAFKA_4_VERSIONS; do
    if install_kafka "$v"; then got4="$v"; break; fi
    log "Kafka $v did not resolve; trying the next 4.x version"
done
[[ -n "$got4" ]] || die "no Kafka 4.x version resolved (tried $KAFKA_4_VERSIONS)"
echo "$got4" >"$CACHE/kafka-4.version"

# ---------------------------------------------------------------- Apache's metadata shell
# kafka-metadata-shell (org.apache.kafka.shell.MetadataShell) for tests/support/metadata_shell.py.
# Maven Central serves no kafka-shell 4.4.0, and 4.3.1's shell does not run on the 4.4.0 jars
# (kafka.tools.TerseFailure and org.apache.kafka.common.utils.Exit moved in 4.4): the Kafka
# modules it loads come at 4.3.1, alone (FETCH_ALONE) and checked against the SHA-256 sums
# below, with jline; the third-party jars (jackson, argparse4j, scala, slf4j, log4j2, ...) are
# hard links to the cached 4.x ones (the same major and minor versions 4.3.1's poms name).
SHELL_VERSION="4.3.1"
SHELL_HOME="$CACHE/kafka-shell-$SHELL_VERSION"
SHELL_SUMS="
87eb2949010806fd99d18832503b08b2e9aa48c232532d20ec1c0b636d68dc47  kafka-shell-4.3.1.jar
52501b7b47510c66f898871adaf6d2968ab7246561d44ced43643a8a587f0b36  kafka-clients-4.3.1.jar
4d73a96c6474a4ebdd67a1cee14da1a94cfd6bb9e6e252685ba5667d8ab7f898  kafka-metadata-4.3.1.jar
46abbf89806dd22d848e997cdfb1431524cab4ec88e38a7d2806e20b24a70609  kafka-raft-4.3.1.jar
d7c719f749579a399011f0df7414de8a78f10f074a6122caa550fdb141351575  kafka-server-common-4.3.1.jar
01d736599ec3b0cdbb0480c15219170b28cdae189785e7f0c6f1f26e528eaebc  kafka-server-4.3.1.jar
b098abef5ff878e76f60cd6c559b9baa5663ccb1b55f2837558b22c329d32423  kafka_2.13-4.3.1.jar
97e3facddd2914a58f28ec91ef35f8da69963eab3651196e97f487924f6dac98  kafka-storage-4.3.1.jar
bc2b22639fa554494461d101d599e01bae840d97c4f46e18fdf3d2fe41a47098  kafka-storage-api-4.3.1.jar
4ab56d002e1624185c874199e9e0ffb243dbeb9f68b4d0cadf48ce2f617a1126  kafka-group-coordinator-4.3.1.jar
d81bc1a3739ff6c9b21815baae00022306342a16d3d94e6a2621201b9980a30d  kafka-group-coordinator-api-4.3.1.jar
66a86b8c89718216ffa72fe4e44b9d1bdf3472e4cb9200c36a0742a25febbdba  kafka-coordinator-common-4.3.1.jar
8ceeed7346127e652ea5c650b217890aaff14919f967d27fadce420745bd3066  kafka-share-coordinator-4.3.1.jar
c64aaa2a88d8fd382c4800204872917686e542043c7916c9e8797d939d8eb313  kafka-transaction-coordinator-4.3.1.jar
a177738b52cf41ff4865c4a441c4fc7fdf2262648159e0de6ced2f842acf52e9  jline-3.30.4.jar
"
if [[ -f "$SHELL_HOME/.complete" ]]; then
    log "metadata shell $SHELL_VERSION jars present in $SHELL_HOME/libs"
else
    log "fetching kafka-shell $SHELL_VERSION and the Kafka $SHELL_VERSION modules it loads with mvn into $SHELL_HOME/libs"
    shell_coords=()
    while read -r _sum jar; do
        [[ -n "$jar" ]] || continue
        artifact="${jar%-*.jar}"
        version="${jar##*-}"; version="${version%.jar}"
        group="org.apache.kafka"; [[ "$artifact" == jline ]] && group="org.jline"
        shell_coords+=("$group:$artifact:$version")
    done <<<"$SHELL_SUMS"
    rm -f "$SHELL_HOME/.complete"
    FETCH_ALONE=1 fetch_jars "$SHELL_HOME/libs" "${shell_coords[@]}" \
        || die "could not fetch kafka-shell $SHELL_VERSION and its Kafka modules"
    (cd "$SHELL_HOME/libs" && sha256sum --quiet -c - <<<"$(grep . <<<"$SHELL_SUMS")") \
        || { rm -rf "$SHELL_HOME"; die "the metadata shell $SHELL_VERSION jars do not match their SHA-256 sums"; }
    for jar in "$CACHE/kafka-$got4/libs"/*.jar; do
        case "$(basename "$jar")" in kafka*|connect-*) continue ;; esac
        ln -f "$jar" "$SHELL_HOME/libs/" 2>/dev/null || cp "$jar" "$SHELL_HOME/libs/"
    done
    echo "$SHELL_VERSION" >"$SHELL_HOME/.complete"
    log "metadata shell $SHELL_VERSION: $(ls "$SHELL_HOME/libs" | wc -l) jars"
fi

# ---------------------------------------------------------------- Spark Kafka connector
SPARK_VERSION=$("$PYTHON" -c 'import pyspark; print(pyspark.__version__)')
SPARK_JARS_DIR=$("$PYTHON" -c 'import os, pyspark; print(os.path.join(os.path.dirname(pyspark.__file__), "jars"))')
SPARK_DEST="$CACHE/spark-kafka-$SPARK_VERSION"
if [[ -f "$SPARK_DEST/.complete" ]]; then
    log "Spark Kafka connector $SPARK_VERSION present in $SPARK_DEST"
else
    log "fetching spark-sql-kafka-0-10_2.13:$SPARK_VERSION with mvn into $SPARK_DEST"
    tmp_libs="$CACHE/.spark-kafka-$SPARK_VERSION.tmp"
    fetch_jars "$tmp_libs" "org.apache.spark:spark-sql-kafka-0-10_2.13:$SPARK_VERSION" \
        || die "could not fetch spark-sql-kafka-0-10_2.13:$SPARK_VERSION (is that pyspark version's connector on Maven Central?)"
    # Keep only the jars whose artifact pyspark's own jars dir lacks (name without version).
    rm -rf "$SPARK_DEST"
    mkdir -p "$SPARK_DEST"
    have=$(ls "$SPARK_JARS_DIR" | sed -E 's/-[0-9]+(\.[0-9A-Za-z_]+)*(-[A-Za-z0-9.]+)?\.jar$//' | sort -u)
    for jar in "$tmp_libs"/*.jar; do
        name=$(basename "$jar" | sed -E 's/-[0-9]+(\.[0-9A-Za-z_]+)*(-[A-Za-z0-9.]+)?\.jar$//')
        if ! grep -qxF "$name" <<<"$have"; then
            cp "$jar" "$SPARK_DEST/"
        fi
    done
    rm -rf "$tmp_libs"
    echo "$SPARK_VERSION" >"$SPARK_DEST/.complete"
    log "Spark Kafka connector: $(ls "$SPARK_DEST" | tr '\n' ' ')"
fi

# ---------------------------------------------------------------- Kafka Streams jars
# kafka-streams-examples (WordCountDemo) and kafka-streams with their dependencies, for the
# exactly-once Streams test (tests/support/kafka_dist.py kafka_streams_libs).
fetch_first kafka-streams "$STREAMS_VERSIONS" org.apache.kafka:kafka-streams-examples \
    org.apache.kafka:kafka-streams
gotstreams="$fetched"
[[ -n "$gotstreams" ]] || die "no kafka-streams-examples version resolved (tried $STREAMS_VERSIONS)"
# Kafka Streams 4.4 itself (its examples jar is not published), for the Streams group test
# (KIP-1071, group.protocol=streams): tests/support/kafka_dist.py kafka_streams_4_libs.
fetch_first kafka-streams-lib "4.4.0" org.apache.kafka:kafka-streams
[[ -n "$fetched" ]] || die "kafka-streams 4.4.0 did not resolve"

# ---------------------------------------------------------------- MirrorMaker 2 jars
# connect-mirror and connect-mirror-client (Kafka's libs above lack them) with their
# dependencies, for the MirrorMaker 2 test (tests/integration/security/mirror_maker.py):
# the 4.x line when Maven Central has it, else the 3.x line.
fetch_first connect-mirror "$got4 $KAFKA_3_VERSION" org.apache.kafka:connect-mirror \
    org.apache.kafka:connect-mirror-client
gotmirror="$fetched"
[[ -n "$gotmirror" ]] || die "no connect-mirror version resolved (tried $got4 $KAFKA_3_VERSION)"

# ---------------------------------------------------------------- Go test programs
# The Go programs the tests run (franz-go's transactional client in
# tests/integration/transactions/franz/), built with the machine's `go` into $CACHE/go/bin,
# their modules from the Go module proxy into $CACHE/go/mod, checked against the committed
# go.sum (tests/support/go_build.py: the tests call it too, and reuse what is built here).
(cd "$REPO" && KAFPY_CACHE="$CACHE" "$PYTHON" - <<'EOF') || die "building the Go test programs failed"
import sys
from pathlib import Path
from tests.support.go_build import build_go
for mod in sorted(Path("tests").rglob("go.mod")):
    print(f"[install-deps] Go program {mod.parent}: {build_go(mod.parent)}", file=sys.stderr)
EOF

log "done in $(($(date +%s) - START)) s (Kafka $KAFKA_3_VERSION and $got4, Spark $SPARK_VERSION, Streams $gotstreams, MirrorMaker $gotmirror, cache $CACHE)"
