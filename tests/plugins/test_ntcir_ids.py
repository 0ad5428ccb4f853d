"""The ``ntcir`` writer's id allocation on Arrow columns: the documented order (sites by host
then port, pages per site in input then record order, doc ids over site then page, then the
link targets that are no page in URL order) against a plain-Python statement of the rules on
random rows; the table in ``(input, seq)`` order, targets first, so each final task finds its
rows by binary search; ids kept from a tree; the lists in doc id order."""

from __future__ import annotations

import random

import pyarrow as pa
from crawlmill.core.reduce_tables import rows_of_input
from crawlmill.plugins.writers.ntcir import _schema
from crawlmill.plugins.writers.ntcir_ids import allocate, list_rows


class _Ctx:
    def __init__(self) -> None:
        self.counts: dict[str, int] = {}

    def count(self, name: str, n: int = 1) -> None:
        self.counts[name] = self.counts.get(name, 0) + n


def _rows(items: list[dict], chunks: int = 3) -> pa.Table:
    schema = pa.schema([*_schema(), ("input", pa.int32()), ("seq", pa.int64())])
    table = pa.Table.from_pylist(items, schema=schema)
    size = max(1, len(items) // chunks)  # several chunks, as the memory-mapped task files
    return pa.concat_tables([table.slice(i, size) for i in range(0, len(items), size)] or [table])


def _random_rows(n: int, seed: int = 3) -> list[dict]:
    rng = random.Random(seed)
    hosts = ["b.example.jp", "a.example.jp", "é.example.jp", "a.example.jpx", "z.jp"]
    items = []
    for i in range(n):
        host = rng.choice(hosts)
        port = rng.choice([80, 8080, 443])
        items.append({
            "host": host, "port": port, "url": f"http://{host}:{port}/p{i}",
            "links": [f"http://{rng.choice(hosts)}/p{rng.randrange(2 * n)}"
                      for _ in range(rng.randrange(3))],
            "dups": [f"http://dup/{i}"] if i % 4 == 0 else [],
            "site_hint": None, "page_hint": None, "doc_hint": None,
            "input": i % 4, "seq": i // 4,
        })  # fmt: skip
    items.sort(key=lambda r: (r["input"], r["seq"]))
    return items


def _expected(items: list[dict]) -> tuple[dict[tuple[int, int], tuple[str, int, str]], list]:
    """The documented rules, stated plainly: (input, seq) -> (site, page, doc); targets."""
    order = sorted({(r["host"], r["port"]) for r in items})
    site_of = {where: f"{n + 1:06d}" for n, where in enumerate(order)}
    counters: dict[str, int] = {}
    ids = {}
    for r in sorted(items, key=lambda r: (r["input"], r["seq"])):
        site = site_of[(r["host"], r["port"])]
        counters[site] = counters.get(site, 0) + 1
        ids[(r["input"], r["seq"])] = [site, counters[site]]
    for n, key in enumerate(sorted(ids, key=lambda k: tuple(ids[k]))):
        ids[key] = (*ids[key], f"NW{n + 1:09d}")
    pages = {r["url"] for r in items}
    targets = sorted({u for r in items for u in r["links"] if u not in pages})
    return ids, targets


def test_ids_follow_the_documented_order_and_the_table_is_in_input_order():
    items = _random_rows(400)
    ctx = _Ctx()
    table = allocate(_rows(items), None, ctx)
    ids, targets = _expected(items)
    got = table.to_pylist()
    assert [r["input"] for r in got] == sorted(r["input"] for r in got)  # input order
    assert [(r["input"], r["seq"]) for r in got if r["input"] >= 0] == sorted(ids)
    assert {(r["input"], r["seq"]): (r["site"], r["page"], r["doc"])
            for r in got if r["input"] >= 0} == ids  # fmt: skip
    first_target = len(items) + 1
    assert [(r["doc"], r["url"]) for r in got if r["input"] < 0] == [
        (f"NW{first_target + n:09d}", u) for n, u in enumerate(targets)
    ]
    assert ctx.counts == {"sites": 15, "pages": 400, "targets": len(targets)}
    for index in range(4):  # each task's rows by binary search
        mine = rows_of_input(table, index).to_pylist()
        assert [r["seq"] for r in mine] == list(range(100))
        assert {r["input"] for r in mine} == {index}


def test_rows_out_of_input_order_are_sorted_first():
    items = _random_rows(60)
    shuffled = items[:]
    random.Random(1).shuffle(shuffled)
    a = allocate(_rows(items), None, _Ctx()).to_pylist()
    b = allocate(_rows(shuffled), None, _Ctx()).to_pylist()
    assert a == b


def test_ids_kept_and_lists_in_doc_order():
    items = _random_rows(40)
    where = sorted({(r["host"], r["port"]) for r in items}, reverse=True)
    for n, r in enumerate(reversed(items)):  # hints whose doc order is not the input order
        r["site_hint"] = f"{7 * where.index((r['host'], r['port'])) + 1:06d}"
        r["page_hint"], r["doc_hint"] = n + 1, f"NW{5 * n + 3:09d}"
    ctx = _Ctx()
    table = allocate(_rows(items), None, ctx)
    assert ctx.counts["ids-kept"] == 40
    got = {(r["input"], r["seq"]): r["doc"] for r in table.to_pylist() if r["input"] >= 0}
    assert got == {(r["input"], r["seq"]): r["doc_hint"] for r in items}
    skipped: list[str] = []
    lists = {k: list(v) for k, v in list_rows(table, {}, skipped.append).items()}
    by_doc = sorted(items, key=lambda r: r["doc_hint"])
    assert lists["doclist"] == [[r["doc_hint"], r["url"]] for r in by_doc]
    assert lists["linklist"] == [[r["doc_hint"], u] for r in by_doc for u in r["links"]]
    assert lists["duplist"] == sorted([u, r["doc_hint"]] for r in items for u in r["dups"])
    docs = [d for d, _ in lists["targetlist"]]
    assert docs == sorted(docs) and len(docs) == table.num_rows
    assert [s for s, *_ in lists["sitelist"]] == sorted({r["site_hint"] for r in items})
    assert skipped == []


def test_no_rows_no_table_rows():
    assert allocate(_rows([]), None, _Ctx()).num_rows == 0


def test_duplicates_by_url_and_content_against_a_plain_statement():
    """README 4: "only one URL which was found first is selected"; 5: duplist holds "pages
    having a same content". Stated plainly over random rows (repeated URLs and payload
    digests, some empty): a URL's first capture is its page, a later capture shares its doc
    id; a first capture whose digest an earlier page has shares that page's doc id and
    brings its URL to duplist; only pages get a site page number."""
    rng = random.Random(11)
    items = []
    for i in range(300):
        host = rng.choice(["a.jp", "b.jp", "c.jp"])
        items.append({
            "host": host, "port": 80, "url": f"http://{host}/p{rng.randrange(120)}",
            "links": [], "dups": [], "site_hint": None, "page_hint": None, "doc_hint": None,
            "scheme": "http", "aliases": [],
            "digest": rng.choice([None, *(f"{d:040x}" for d in range(90))]),
            "input": i % 3, "seq": i // 3,
        })  # fmt: skip
    items.sort(key=lambda r: (r["input"], r["seq"]))
    first_url: dict[str, tuple] = {}
    first_digest: dict[str, tuple] = {}
    primary: dict[tuple, tuple] = {}
    by_content: set[tuple] = set()
    for r in items:
        key = (r["input"], r["seq"])
        if r["url"] in first_url:
            primary[key] = primary[first_url[r["url"]]]
            continue
        first_url[r["url"]] = key
        if r["digest"] and r["digest"] in first_digest:
            primary[key] = first_digest[r["digest"]]
            by_content.add(key)
            continue
        primary[key] = key
        if r["digest"]:
            first_digest[r["digest"]] = key
    pages = [r for r in items if primary[(r["input"], r["seq"])] == (r["input"], r["seq"])]
    assert by_content and len(pages) < len(items) - len(by_content)  # both kinds occur
    ids, _ = _expected(pages)
    table = allocate(_rows(items), None, _Ctx())
    got = {(r["input"], r["seq"]): r for r in table.to_pylist() if r["input"] >= 0}
    assert len(got) == len(items)
    for key, row in got.items():
        site, page, doc = ids[primary[key]]
        assert row["doc"] == doc
        if primary[key] == key:
            assert (row["site"], row["page"], row["dups"]) == (site, page, [])
        else:
            assert (row["site"], row["page"]) == ("", 0)
            assert row["dups"] == ([row["url"]] if key in by_content else [])
    lists = {k: list(v) for k, v in list_rows(table, {}, lambda *a: None).items()}
    assert [d for d, _ in lists["doclist"]] == sorted(doc for _, _, doc in ids.values())
    assert lists["duplist"] == sorted([got[k]["url"], got[k]["doc"]] for k in by_content)
