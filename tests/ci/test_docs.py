"""The documentation a newcomer reads holds: every link and every repository path it names exists (a file moved or
deleted leaves no stale pointer), README.md and bench/README.md stay short enough to be read, and docs/selftest.md
is what docs/selftest.py writes from the self-test's catalogue."""

from __future__ import annotations

import importlib.util
import re
import subprocess
from collections import Counter
from functools import cache
from pathlib import Path

import pytest
from project_paths import ROOT

README_MAX_LINES = 200
BENCH_README_MAX_LINES = 250

LINK = re.compile(r"!?\[[^\]]*\]\(([^)\s]+)(?:\s+\"[^\"]*\")?\)")
FENCE = re.compile(r"^\s*(```|~~~)")
INLINE_CODE = re.compile(r"(`+)(.+?)\1")
# what stands around a path in prose or a command line, and a `path:line` suffix
WORD_EDGES = "\"'()[],;"
LINE_SUFFIX = re.compile(r":\d+(-\d+)?$")
# placeholders and shell syntax: such a word names no one file
NOT_A_PATH = re.compile(r"[<>{}$|=@…]|://")
MACHINE_PATH = re.compile(r"(?<![\w.])/(work|home|root|tmp)/[^\s`'\")]*")
# a markdown page named anywhere in the text, prose included
PAGE_NAME = re.compile(r"(?<![\w/.-])([\w./-]*\w\.md)\b")


def documentation() -> list[Path]:
    """Every markdown page of the repository: README.md, docs/, bench/README.md and the READMEs of data folders."""
    return sorted(ROOT / name for name in repository_files() if name.endswith(".md"))


@cache
def repository_files() -> frozenset[str]:
    """The files of the repository as git knows them (tracked, or new and not ignored): what a clone holds."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    return frozenset(name for name in listed.split("\0") if name and (ROOT / name).exists())


@cache
def repository_folders() -> frozenset[str]:
    return frozenset(str(parent) for name in repository_files() for parent in Path(name).parents if str(parent) != ".")


def in_repository(relative: str) -> bool:
    relative = relative.rstrip("/")
    if any(mark in relative for mark in "*?["):
        return any(Path(name).match(relative) for name in repository_files())
    return relative in repository_files() or relative in repository_folders()


def top_level() -> set[str]:
    return {Path(name).parts[0] for name in repository_files()}


def slug(heading: str) -> str:
    """GitHub's anchor of a heading: lower case, punctuation but - and _ dropped, spaces to -."""
    text = re.sub(r"[`*]", "", heading.strip()).lower()
    text = re.sub(r"[^\w\- ]", "", text)
    return text.replace(" ", "-")


def anchors(page: Path) -> set[str]:
    found: set[str] = set()
    seen: Counter[str] = Counter()
    fenced = False
    for line in page.read_text(encoding="utf-8").splitlines():
        if FENCE.match(line):
            fenced = not fenced
        elif not fenced and (heading := re.match(r"#{1,6}\s+(.*)", line)):
            base = slug(heading.group(1))
            found.add(f"{base}-{seen[base]}" if seen[base] else base)  # a repeated heading: -1, -2, as GitHub does
            seen[base] += 1
    return found


def relative_to_root(page: Path, target: str) -> str | None:
    """`target` (relative to `page`'s folder) relative to the repository's root; None when it leaves the repository."""
    resolved = (page.parent / target).resolve()
    try:
        return resolved.relative_to(ROOT).as_posix()
    except ValueError:
        return None


def broken_links(page: Path, text: str) -> list[str]:
    broken = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target):  # https:, mailto:
            continue
        path, _, fragment = target.partition("#")
        linked = page if not path else page.parent / path
        relative = relative_to_root(page, path) if path else relative_to_root(page, page.name)
        if relative is None or not in_repository(relative):
            broken.append(f"link ({target}): {relative or path} is not in the repository")
        elif fragment and linked.suffix == ".md" and fragment not in anchors(linked):
            broken.append(f"link ({target}): {relative} has no heading #{fragment}")
    return broken


def code_words(text: str) -> list[str]:
    """The words of inline code and of fenced blocks: where a page names files and commands."""
    words: list[str] = []
    fenced = False
    for line in text.splitlines():
        if FENCE.match(line):
            fenced = not fenced
            continue
        spans = [line] if fenced else [match.group(2) for match in INLINE_CODE.finditer(line)]
        for span in spans:
            words.extend(word.strip(WORD_EDGES) for word in span.split())
    return words


def missing_pages(page: Path, text: str) -> list[str]:
    """Markdown pages named in the prose (DESIGN.md, docs/serve.md) that are not in the repository."""
    prose = re.sub(r"[a-z]+://\S+", "", text)
    missing = []
    names = {Path(file).name for file in repository_files()}
    for name in dict.fromkeys(PAGE_NAME.findall(prose)):
        if "/" not in name and name in names:  # a page named by its file name, as in a link's text
            continue
        beside = relative_to_root(page, name)
        if not in_repository(name) and (beside is None or not in_repository(beside)):
            missing.append(f"{name} is not in the repository")
    return missing


def missing_paths(page: Path, text: str) -> list[str]:
    """Code words naming a file or folder of the repository (their first part is one of its top-level entries) that
    is not there."""
    roots = top_level()
    missing = []
    for word in code_words(text):
        word = LINE_SUFFIX.sub("", word.rstrip(".:"))
        if not word or NOT_A_PATH.search(word) or word.startswith(("/", "-", "~")):
            continue
        if "/" in word and word.split("/")[0] in roots and not in_repository(word):
            missing.append(f"`{word}` is not in the repository")
    return missing


def problems(page: Path) -> list[str]:
    text = page.read_text(encoding="utf-8")
    machine = [f"a path of one machine: {match.group(0)}" for match in MACHINE_PATH.finditer(text)]
    return broken_links(page, text) + missing_paths(page, text) + missing_pages(page, text) + machine


@pytest.mark.parametrize("page", documentation(), ids=lambda page: page.relative_to(ROOT).as_posix())
def test_every_link_and_path_a_page_names_exists(page):
    found = problems(page)
    assert not found, f"{page.relative_to(ROOT)}:\n" + "\n".join(found)


def test_the_checks_see_a_missing_file_a_missing_heading_and_a_machine_path(tmp_path):
    page = ROOT / "docs" / "a-page-under-test.md"
    text = (
        "[ok](../README.md) [gone](gone.md) [no such heading](../README.md#no-such-heading) [web](https://example.com)\n"
        "`profiles/rules.py` `profiles/no_such_module.py:12` `certification/report.html` as DESIGN.md says\n"
        "```sh\npython bench/no_such_benchmark.py --repeat 3\n```\n"
        "run it with /work/venv/bin/python\n"
    )
    found = broken_links(page, text) + missing_paths(page, text) + missing_pages(page, text)
    assert found == [
        "link (gone.md): docs/gone.md is not in the repository",
        "link (../README.md#no-such-heading): README.md has no heading #no-such-heading",
        "`profiles/no_such_module.py` is not in the repository",
        "`bench/no_such_benchmark.py` is not in the repository",
        "gone.md is not in the repository",
        "DESIGN.md is not in the repository",
    ]
    assert [match.group(0) for match in MACHINE_PATH.finditer(text)] == ["/work/venv/bin/python"]


def test_the_docs_index_lists_every_page_and_the_readme_links_it():
    index = ROOT / "docs" / "README.md"
    linked = {relative_to_root(index, target.partition("#")[0]) for target in LINK.findall(index.read_text("utf-8"))}
    pages = {name for name in repository_files() if name.startswith("docs/") and name.endswith(".md")}
    unlisted = sorted(pages - linked - {"docs/README.md"})
    assert not unlisted, f"docs/README.md does not list: {unlisted}"
    assert "](docs/README.md)" in (ROOT / "README.md").read_text(encoding="utf-8")


def test_the_readme_is_short():
    lines = len((ROOT / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= README_MAX_LINES, f"README.md has {lines} lines (at most {README_MAX_LINES}: move detail to docs/)"


def test_the_bench_readme_holds_today_s_figures_only():
    lines = len((ROOT / "bench" / "README.md").read_text(encoding="utf-8").splitlines())
    assert lines <= BENCH_README_MAX_LINES, (
        f"bench/README.md has {lines} lines (at most {BENCH_README_MAX_LINES}: the history stays in git)"
    )


def _selftest_generator():
    spec = importlib.util.spec_from_file_location("selftest_page", ROOT / "docs" / "selftest.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_docs_selftest_md_is_what_docs_selftest_py_writes():
    generator = _selftest_generator()
    current = generator.PAGE.read_text(encoding="utf-8")
    deviations = generator.catalogue()
    assert generator.page(current, deviations) == current, "docs/selftest.md is stale: run python docs/selftest.py"
    # and the comparison can fail: a deviation the page does not list makes another page
    added = {"name": "a-fault-not-listed", "kind": "fault", "breaks": "ERIS-READ-001", "summary": "not on the page"}
    assert generator.page(current, [*deviations, added]) != current
