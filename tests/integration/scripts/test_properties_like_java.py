"""The tools and the broker read .properties files exactly as java.util.Properties.load does:
the unit-test cases and the project's config files, parsed by a real JVM and by
broker.properties, must give the same keys and values."""
from __future__ import annotations

import json
import shutil
import subprocess

from kafpy.broker.properties import load_properties
from tests.integration.scripts.tools import REPO
from tests.unit.broker.test_properties import CASES

# Prints each file's properties as one JSON object a line, {"error": message} when load fails.
PROPS_DUMP = r"""
import java.io.*;
import java.nio.file.*;
import java.util.*;

public class PropsDump {
    static String q(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') b.append('\\').append(c);
            else if (c < 0x20 || c > 0x7e) b.append(String.format("\\u%04x", (int) c));
            else b.append(c);
        }
        return b.append('"').toString();
    }
    public static void main(String[] args) throws IOException {
        for (String f : args) {
            Properties p = new Properties();
            try (InputStream in = Files.newInputStream(Paths.get(f))) {
                p.load(in);
            } catch (IllegalArgumentException e) {
                System.out.println("{\"error\": " + q(e.getMessage()) + "}");
                continue;
            }
            StringJoiner j = new StringJoiner(", ", "{", "}");
            for (String k : new TreeSet<>(p.stringPropertyNames())) j.add(q(k) + ": " + q(p.getProperty(k)));
            System.out.println(j);
        }
    }
}
"""


def python_view(path) -> dict[str, str]:
    try:
        return load_properties(path)
    except ValueError as e:
        return {"error": str(e)}


def test_same_properties_as_java(tmp_path):
    java = shutil.which("java")
    assert java, "a JDK is needed (scripts/install-deps.sh checks for one)"
    source = tmp_path / "PropsDump.java"
    source.write_text(PROPS_DUMP)
    files = []
    for name, (data, _) in sorted(CASES.items()):
        path = tmp_path / f"{name}.properties"
        path.write_bytes(data)
        files.append(path)
    files += sorted((REPO / "config").glob("*.properties"))
    res = subprocess.run([java, str(source), *map(str, files)], capture_output=True, text=True,
                         timeout=120, check=True)
    lines = res.stdout.splitlines()
    assert len(lines) == len(files)
    for path, line in zip(files, lines):
        assert python_view(path) == json.loads(line), path.name
