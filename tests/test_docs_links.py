"""The project's documents link to what is there: every relative link in README.md and
docs/*.md names a file of the checkout, and a link to a heading (``FILE.md#heading``) names a
heading of that file, as GitHub makes its anchors. Links that leave the checkout (the shared
rules documents beside it) are not checked: a clone may not have them beside it."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.conftest import ROOT

DOCUMENTS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
_CODE = re.compile(r"```.*?```|`[^`\n]*`", re.DOTALL)
_ID = re.compile(r'<a id="([^"]+)"></a>')  # an anchor of its own, such as a decision's


def _anchors(path: Path) -> set[str]:
    """The anchors GitHub gives the headings of ``path``: lower case, punctuation dropped,
    spaces made hyphens, a repeated heading numbered ``-1``, ``-2``...; and the anchors the
    file names itself (``<a id="d16"></a>``)."""
    seen: dict[str, int] = {}
    text = _CODE.sub("", path.read_text(encoding="utf-8"))
    anchors = set(_ID.findall(text))
    for line in text.splitlines():
        heading = re.match(r"#{1,6}\s+(.*)", line)
        if not heading:
            continue
        slug = re.sub(r"[^\w\- ]", "", heading.group(1).strip().lower()).replace(" ", "-")
        count = seen.get(slug, 0)
        seen[slug] = count + 1
        anchors.add(slug if count == 0 else f"{slug}-{count}")
    return anchors


def _links(path: Path) -> list[str]:
    return _LINK.findall(_CODE.sub("", path.read_text(encoding="utf-8")))


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda p: p.name)
def test_every_relative_link_names_a_file_and_heading_that_are_there(document: Path) -> None:
    broken = []
    for link in _links(document):
        if re.match(r"[a-z]+:", link):  # https:, mailto:
            continue
        target, _, anchor = link.partition("#")
        path = (document.parent / target).resolve() if target else document
        if not path.is_relative_to(ROOT.resolve()):
            continue  # beside the checkout, not in it
        if not path.exists():
            broken.append(f"{link}: no such file")
        elif anchor and path.suffix == ".md" and anchor not in _anchors(path):
            broken.append(f"{link}: no such heading in {path.name}")
    assert not broken, f"{document.name}: {broken}"


def test_the_link_check_finds_links() -> None:
    """The check above reads links as the documents write them (it is not vacuous)."""
    readme = _links(ROOT / "README.md")
    assert "docs/decisions.md#rules-profiles" in readme
    assert "docs/scenarios.md" in readme
    assert "rules-profiles" in _anchors(ROOT / "docs" / "decisions.md")


def test_every_decision_a_document_names_links_to_it() -> None:
    """A decision (``D16``) named in a document is a link to it, so that a reader gets there
    in one click; each decision has the anchor its number names."""
    text = (ROOT / "docs" / "decisions.md").read_text(encoding="utf-8")
    marked = re.findall(r'^<a id="d(\d+)"></a>\*\*D(\d+)\.', text, re.MULTILINE)
    assert marked and all(anchor == number for anchor, number in marked)
    assert len(marked) == len(re.findall(r"^(?:<a [^>]*></a>)?\*\*D\d+\.", text, re.MULTILINE))
    decisions = {number for number, _ in marked}
    bare = []
    for document in DOCUMENTS:
        # what is neither code, nor a link already, nor a decision's own title
        prose = re.sub(r"\[[^\]]*\]\([^)]*\)|^<a [^>]*></a>\*\*D\d+\.", "",
                       _CODE.sub("", document.read_text(encoding="utf-8")), flags=re.MULTILINE)
        bare += [f"{document.name}: D{n}" for n in re.findall(r"\bD(\d+)\b", prose)
                 if n in decisions]
    assert not bare, bare


def test_ci_runs_the_readme_test_command() -> None:
    """CI runs the README's second command (set up, then the tests), word for word, so that
    what the README promises a new machine is what CI proves."""
    block = re.search(r"```sh\n(.*?)```", (ROOT / "README.md").read_text(encoding="utf-8"), re.S)
    assert block, "the README opens with no command block"
    commands = [line.split("#")[0].strip() for line in block.group(1).splitlines()]
    assert len(commands) == 2 and commands[1].startswith("./setup.sh && ")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    assert [line for line in ci if line and not line.startswith("#")][-1] == commands[1]
