"""The requirement catalogue and the conformance suite keep each other whole: IDs are unique, every
MUST requirement is checked by a conformance test, and every requirement a test cites exists."""

from __future__ import annotations

from conformance.catalogue.requirements import coverage, load_catalogue


def test_every_must_requirement_has_a_conformance_test():
    covered = coverage()
    untested = [r.id for r in load_catalogue() if r.level == "MUST" and not covered.get(r.id)]
    assert untested == []


def test_every_cited_requirement_is_in_the_catalogue():
    known = {r.id for r in load_catalogue()}
    assert sorted(set(coverage()) - known) == []


def test_ids_are_unique_and_levels_are_closed(tmp_path):
    catalogue = load_catalogue()
    assert len({r.id for r in catalogue}) == len(catalogue)
    assert {r.level for r in catalogue} <= {"MUST", "SHOULD", "INFO"}
    duplicated = tmp_path / "requirements.toml"
    row = '[[requirement]]\nid = "ERIS-X-001"\nsection = "s"\ntext = "t"\nlevel = "MUST"\n'
    duplicated.write_text(row + "\n" + row)
    try:
        load_catalogue(duplicated)
    except ValueError as error:
        assert "ERIS-X-001" in str(error)
    else:
        raise AssertionError("a duplicated id was loaded")
