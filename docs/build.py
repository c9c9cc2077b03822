"""Build the API documentation of kafpy's public face from its docstrings, with pdoc.

    python docs/build.py [--out docs/_build]

Pages: the ``kafpy`` package, ``kafpy.embedded`` (brokers and clusters from Python) and
``kafpy.pytest_plugin`` (fixtures and options), plus ``examples.html`` showing every file
of ``docs/examples/`` as it is (each one is a test the suite runs, so the examples shown are
the examples that pass). The broker's floors (``kafpy.broker``, ``kafpy.storage``...) are
the engine, not an API, and are left out. The output is generated: never committed.
"""
from __future__ import annotations

import argparse
import html
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
REPO = DOCS.parent
EXAMPLES = DOCS / "examples"
MODULES = ["kafpy", "kafpy.embedded", "kafpy.pytest_plugin"]


def example_files() -> list[Path]:
    return sorted(EXAMPLES.glob("test_*.py"))


def examples_page() -> str:
    """One HTML page with each example's docstring as its heading text and its code."""
    import ast

    parts = ["<!doctype html><html><head><meta charset='utf-8'><title>kafpy examples</title>",
             "<style>body{font-family:sans-serif;max-width:60em;margin:2em auto}"
             "pre{background:#f6f8fa;padding:1em;overflow:auto}</style></head><body>",
             "<h1>kafpy examples</h1>",
             "<p>Each file is a pytest module using kafpy's fixtures (<code>pip install "
             "kafpy</code>, then <code>python -m pytest</code>). <a href='kafpy.html'>API</a></p>"]
    for path in example_files():
        source = path.read_text()
        summary = ast.get_docstring(ast.parse(source)) or ""
        parts.append(f"<h2 id='{path.stem}'>{html.escape(path.name)}</h2>")
        parts.append(f"<p>{html.escape(summary)}</p>")
        parts.append(f"<pre><code class='language-python'>{html.escape(source)}</code></pre>")
    parts.append("</body></html>")
    return "\n".join(parts)


def build(out: Path) -> list[Path]:
    """Write the pages into ``out``; return the files written."""
    if str(REPO) not in sys.path:
        sys.path.insert(0, str(REPO))
    import pdoc
    import pdoc.render

    out.mkdir(parents=True, exist_ok=True)
    pdoc.render.configure(docformat="markdown", footer_text="kafpy",
                          search=False, show_source=False)
    pdoc.pdoc(*MODULES, output_directory=out)
    (out / "examples.html").write_text(examples_page())
    return sorted(p for p in out.rglob("*.html"))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="Build kafpy's API docs with pdoc.")
    p.add_argument("--out", type=Path, default=DOCS / "_build")
    args = p.parse_args(argv)
    for path in build(args.out):
        print(path)
    return 0


if __name__ == "__main__":
    sys.exit(main())
