"""A third-party plugin package (tests/third_party_plugin) is pip-installed, listed by
``crawlmill plugins`` and used by name from a YAML pipeline.

The package is pip-installed once per session (tests/shared_build.py: by the first xdist
worker that needs it) into a folder of its own (``pip install --target``), which the ``crawlmill`` processes of these tests have on their ``PYTHONPATH``:
tests running meanwhile in other processes (pytest-xdist workers) never see the plugin, and
nothing is left installed. Everything talks to it through new processes (the ``crawlmill``
console script), as a user would.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import textwrap
import zlib
from collections import Counter
from pathlib import Path

import pytest

from tests.shared_build import built, shared_root

PACKAGE_DIR = Path(__file__).resolve().parent / "third_party_plugin"
DIST = "crawlmill-example-plugin"
#: where the module's fixture installed the plugin (on the PYTHONPATH of :func:`crawlmill`).
SITE: list[Path] = []


def pip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "pip", *args, "--disable-pip-version-check", "--no-input"],
        capture_output=True,
        text=True,
        check=False,
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """Install the example plugin (from a copy, so no build files land in the repository),
    once per session: the first xdist worker installs it, the others share that folder
    (tests/shared_build.py)."""

    def install(into: Path) -> None:
        src = tmp_path_factory.mktemp("plugin") / "third_party_plugin"
        shutil.copytree(
            PACKAGE_DIR, src, ignore=shutil.ignore_patterns("build", "*.egg-info", "__pycache__")
        )
        result = pip("install", "--no-deps", "--target", str(into), str(src))
        assert result.returncode == 0, result.stdout + result.stderr

    site = built(shared_root(tmp_path_factory), "third-party-plugin-site", install)
    assert list(site.glob("crawlmill_example_plugin-*.dist-info")), sorted(site.iterdir())
    SITE[:] = [site]
    yield DIST
    SITE.clear()


def crawlmill(
    *args: str, env: dict | None = None, cwd: Path | None = None
) -> subprocess.CompletedProcess:
    full_env = dict(os.environ)
    for var in ("CRAWLMILL_LOAD_PLUGINS", "CRAWLMILL_DISABLE_PLUGINS"):
        full_env.pop(var, None)
    full_env["PYTHONPATH"] = os.pathsep.join(
        [*map(str, SITE), *filter(None, [os.environ.get("PYTHONPATH")])]
    )
    full_env.update(env or {})
    return subprocess.run(
        ["crawlmill", *args], capture_output=True, text=True, env=full_env, cwd=cwd, check=False
    )


def test_plugins_lists_the_package(installed):
    result = crawlmill("plugins", "--json")
    assert result.returncode == 0, result.stderr
    listing = {p["name"]: p for p in json.loads(result.stdout)}
    example = listing["example"]
    assert example["package"] == DIST
    assert example["version"] == "0.3.1"
    assert example["status"] == "ok", example["error"]
    assert example["module"] == "crawlmill_example_plugin"
    assert set(example["hooks"]) == {
        "crawlmill_detect_format",
        "crawlmill_register_filters",
        "crawlmill_register_readers",
        "crawlmill_register_writers",
    }
    comps = {(c["kind"], c["name"]): c for c in example["components"]}
    assert set(comps) == {
        ("reader", "lines"),
        ("filter", "host"),
        ("filter", "host-quota"),
        ("writer", "jsonl"),
        ("writer", "urllist"),
    }
    hosts = next(o for o in comps[("filter", "host")]["options"] if o["name"] == "hosts")
    assert hosts["required"] is True and hosts["type"] == "list[str]" and hosts["description"]

    text = crawlmill("plugins")
    assert f"example  ({DIST} 0.3.1)  ok" in text.stdout
    assert "writer jsonl: Write one JSON line per record" in text.stdout


LINES = [
    ("http://example.org/a", "2009-01-02", "first page"),
    ("http://other.net/b", "2009-01-03", "not this one"),
    ("http://www.example.org/c", "2009-03-65T08:43:19-0800", "invalid date kept raw"),
]


def expected_line(url: str, date_raw: str | None, kind: str, payload: bytes) -> dict:
    return {
        "url": url,
        "date_raw": date_raw,
        "kind": kind,
        "sha1": hashlib.sha1(payload).hexdigest(),
    }


def test_yaml_pipeline_uses_the_plugin_by_name(installed, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    body = "".join(f"{u}\t{d}\t{t}\n" for u, d, t in LINES) + "a line without tabs\n"
    (data / "crawl.lines").write_text(body)
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(
        textwrap.dedent(
            """\
            version: 1
            inputs: [data/*.lines]       # reader omitted: detected by the plugin's hook
            filters:
              - name: host
                hosts: [example.org]
            writer: {name: jsonl}
            output: ${OUT}
            run: {workers: 1}
            """
        )
    )
    out = tmp_path / "out"
    validate = crawlmill("validate", str(pipeline), "--json", env={"OUT": str(out)})
    assert validate.returncode == 0, validate.stderr
    assert [i["reader"] for i in json.loads(validate.stdout)["inputs"]] == ["lines"]

    result = crawlmill("run", str(pipeline), env={"OUT": str(out)})
    assert result.returncode == 3, result.stderr  # the tab-less line is quarantined
    assert "read 4 = written 2 + dropped 1 (host:other-host 1) + quarantined 1" in result.stderr
    lines = [json.loads(line) for line in (out / "crawl.lines.jsonl").read_text().splitlines()]
    assert lines == [
        expected_line(u, d, "resource", t.encode()) for u, d, t in LINES if "example.org" in u
    ]


def test_bad_option_of_a_plugin_component(installed, tmp_path):
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        "inputs: [x.lines]\nfilters: [{name: host}]\nwriter: {name: jsonl, sufix: .j}\noutput: out\n"
    )
    result = crawlmill("validate", str(pipeline))
    assert result.returncode == 2
    assert "filters[0].hosts: required option is missing" in result.stderr
    assert "writer.sufix: unknown option 'sufix'; did you mean 'suffix'?" in result.stderr


def _warc_reader_available() -> bool:
    result = crawlmill("plugins", "--json")
    listing = json.loads(result.stdout) if result.returncode == 0 else []
    return any(
        c["kind"] == "reader" and c["name"] == "warc" for p in listing for c in p["components"]
    )


def test_plugin_filter_and_writer_on_a_warc(installed, tmp_path, need):
    """Built-in WARC reader and kind filter, third-party host filter and jsonl writer."""
    warcio = need("warcio")
    if not _warc_reader_available():
        pytest.skip("the built-in warc reader is not registered in this checkout")
    from warcio.statusandheaders import StatusAndHeaders
    from warcio.warcwriter import WARCWriter

    pages = [
        ("http://example.org/", b"<html>home</html>"),
        ("http://other.net/", b"<html>elsewhere</html>"),
        ("http://news.example.org/x", b"<html>news</html>"),
    ]
    buf = io.BytesIO()
    writer = WARCWriter(buf, gzip=True)
    writer.write_record(writer.create_warcinfo_record("in.warc.gz", {"software": "test"}))
    for i, (url, body) in enumerate(pages):
        head = StatusAndHeaders("200 OK", [("Content-Type", "text/html")], protocol="HTTP/1.1")
        date = f"2020-01-0{i + 1}T00:00:00Z"
        record = writer.create_warc_record(
            url,
            "response",
            payload=io.BytesIO(body),
            http_headers=head,
            warc_headers_dict={"WARC-Date": date},
        )
        writer.write_record(record)
    assert warcio.__name__ == "warcio"
    (tmp_path / "in.warc.gz").write_bytes(buf.getvalue())
    pipeline = tmp_path / "p.yaml"
    pipeline.write_text(
        textwrap.dedent(
            """\
            inputs: [in.warc.gz]
            reader: warc
            filters:
              - {name: kind, keep: [response]}
              - {name: host, hosts: [example.org]}
            writer: {name: jsonl, suffix: .records.jsonl}
            output: out
            run: {workers: 1}
            """
        )
    )
    result = crawlmill("run", str(pipeline))
    assert result.returncode == 0, result.stderr
    assert (
        "read 4 = written 2 + dropped 2 (kind:wrong-kind 1, host:other-host 1) + quarantined 0"
        in result.stderr
    )
    lines = [
        json.loads(x)
        for x in (tmp_path / "out" / "in.warc.gz.records.jsonl").read_text().splitlines()
    ]
    assert lines == [
        expected_line(url, f"2020-01-0{i + 1}T00:00:00Z", "response", body)
        for i, (url, body) in enumerate(pages)
        if "example.org" in url
    ]


def _quota_inputs(data: Path) -> list[list[str]]:
    """Three inputs whose URLs repeat hosts across files; the URLs of each, in file order."""
    hosts = ["a.example", "b.example", "c.example", "www.a.example", "\u00e9t\u00e9.example"]
    inputs = []
    for j in range(3):
        urls = [f"http://{hosts[(j * 3 + k * 2) % len(hosts)]}/p{j}-{k}" for k in range(9)]
        urls.append(f"http://A.example/Z{j}")  # upper case: sorts before every lower-case URL
        lines = "".join(f"{u}\t2020-01-0{j + 1}\tpage {u}\n" for u in urls)
        (data / f"crawl-{j}.lines").write_text(lines, encoding="utf-8")
        inputs.append(urls)
    return inputs


def _expected_parts(inputs: list[list[str]], quota: int, partitions: int) -> dict[str, bytes]:
    """The urllist files computed without crawlmill: the first ``quota`` URLs of each host in
    input order, hash-partitioned by CRC-32 of the URL bytes, each part sorted by bytes."""
    seen: Counter[str] = Counter()
    parts: list[list[bytes]] = [[] for _ in range(partitions)]
    for urls in inputs:
        for url in urls:
            host = url.split("/")[2].lower()
            seen[host] += 1
            if seen[host] <= quota:
                raw = url.encode("utf-8")
                parts[zlib.crc32(raw) % partitions].append(raw)
    return {
        f"part-{i:05d}.urls": b"".join(u + b"\n" for u in sorted(p)) for i, p in enumerate(parts)
    }


@pytest.mark.parametrize("workers", [1, 2])
def test_a_collect_reduce_filter_and_a_shuffling_writer_of_the_plugin(installed, tmp_path, workers):
    """The plugin's ``host-quota`` (collect/reduce) and ``urllist`` (sorted shuffle), both
    registered only through the entry point, in one pipeline run by the ``crawlmill`` command;
    its part files equal an independent computation."""
    data = tmp_path / "data"
    data.mkdir()
    inputs = _quota_inputs(data)
    pipeline = tmp_path / "pipeline.yaml"
    pipeline.write_text(
        textwrap.dedent(
            f"""\
            inputs: [data/*.lines]
            filters:
              - {{name: host-quota, max: 3}}
            writer: {{name: urllist, partitions: 5}}
            output: out
            run: {{workers: {workers}, progress: never}}
            """
        )
    )
    result = crawlmill("run", str(pipeline), cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    expected = _expected_parts(inputs, 3, 5)
    kept = sum(v.count(b"\n") for v in expected.values())
    read = sum(len(u) for u in inputs)
    assert 0 < kept < read
    assert (
        f"read {read} = written {kept} + dropped {read - kept} "
        f"(host-quota:over-quota {read - kept}) + quarantined 0"
    ) in result.stderr
    out = tmp_path / "out"
    written = {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}
    assert written == expected
    assert all(expected.values())  # every partition holds URLs: each was sorted and merged

    status = crawlmill("status", str(out), "--json")
    assert status.returncode == 0, status.stderr
    stages = json.loads(status.stdout)["stages"]  # the run's stages, from their listings
    assert [(s["label"], s["state"]) for s in stages] == [
        ("collect for host-quota", "done"), ("reduce for host-quota", "done"),
        ("shuffle map", "done"), ("shuffle write", "done"),
    ]  # fmt: skip
    again = crawlmill("run", str(pipeline), cwd=tmp_path)  # complete: nothing is redone
    assert again.returncode == 0, again.stderr
    assert "collecting" not in again.stderr
    assert {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()} == expected
