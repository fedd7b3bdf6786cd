"""`eris requirements` and the catalogue: the shipped one loads, a malformed one is refused, a suite's coverage."""

from __future__ import annotations

import json

import pytest
from small_certifications import write_suite

from conformance.catalogue.requirements import coverage, load_catalogue
from conformance.cli import main

pytestmark = pytest.mark.slow  # with the rest of the tests of eris certify


def test_the_shipped_catalogue_loads_with_unique_ids():
    catalogue = load_catalogue()
    assert catalogue and len({r.id for r in catalogue}) == len(catalogue)
    assert {r.level for r in catalogue} <= {"MUST", "SHOULD", "INFO"}


ROW = '[[requirement]]\nid = "{id}"\nsection = "S"\ntext = "T"\nlevel = "{level}"\n'


@pytest.mark.parametrize(
    ("text", "error"),
    [
        (ROW.format(id="ERIS-X-001", level="MUST") * 2, "ERIS-X-001 is given twice"),
        (ROW.format(id="ERIS-X-001", level="MAY"), "level must be one of MUST, SHOULD, INFO"),
        (ROW.format(id="X-1", level="MUST"), "not of the form ERIS-<AREA>-<NNN>"),
        ('[[requirement]]\nid = "ERIS-X-001"\nsection = "S"\nlevel = "MUST"\n', "text must be a non-empty string"),
        (ROW.format(id="ERIS-X-001", level="MUST") + 'tests = ["x"]\n', "unknown field(s) tests"),
        ("[[requirement]\n", "is not TOML"),
        ("requirement = 3\n", "array of tables"),
    ],
)
def test_a_malformed_catalogue_is_a_value_error_naming_the_problem(tmp_path, text, error):
    path = tmp_path / "requirements.toml"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(ValueError) as raised:
        load_catalogue(path)
    assert error in str(raised.value) and str(path) in str(raised.value)


def test_coverage_reads_marks_on_functions_classes_pytestmark_and_params_without_running(tmp_path):
    suite = write_suite(
        tmp_path,
        {
            "test_one.py": """
                import pytest
                from pytest import mark

                pytestmark = [pytest.mark.requirement("ERIS-M-001"), pytest.mark.slow]
                BOTH = ("ERIS-C-001", "ERIS-C-002")
                raise SystemExit("coverage must not import the suite")

                @pytest.mark.requirement("ERIS-F-001", "ERIS-F-002")
                def test_function(): ...

                @mark.requirement(*BOTH)
                async def test_async(): ...

                @pytest.mark.parametrize("x", [1, pytest.param(2, marks=pytest.mark.requirement("ERIS-P-001"))])
                def test_param(x): ...

                @pytest.mark.requirement("ERIS-K-001")
                class TestClass:
                    pytestmark = pytest.mark.requirement("ERIS-K-002")

                    @pytest.mark.requirement("ERIS-F-001")
                    def test_method(self): ...

                    def helper(self): ...

                @pytest.mark.requirement("ERIS-H-001")
                def helper(): ...
            """,
            "test_two.py": "def test_unmarked(): ...\n",
            "helpers.py": "import pytest\n@pytest.mark.requirement('ERIS-H-002')\ndef test_not_a_test_file(): ...\n",
        },
    )
    found = coverage(suite)
    one = "pkg/suite/test_one.py"
    assert found == {
        "ERIS-M-001": [
            f"{one}::test_function",
            f"{one}::test_async",
            f"{one}::test_param",
            f"{one}::TestClass::test_method",
        ],
        "ERIS-F-001": [f"{one}::test_function", f"{one}::TestClass::test_method"],
        "ERIS-F-002": [f"{one}::test_function"],
        "ERIS-C-001": [f"{one}::test_async"],
        "ERIS-C-002": [f"{one}::test_async"],
        "ERIS-P-001": [f"{one}::test_param"],
        "ERIS-K-001": [f"{one}::TestClass::test_method"],
        "ERIS-K-002": [f"{one}::TestClass::test_method"],
    }


def test_coverage_of_a_suite_file_that_does_not_parse_is_a_value_error_with_its_line(tmp_path):
    suite = write_suite(tmp_path, {"test_bad.py": "def test_x(:\n    pass\n"})
    with pytest.raises(ValueError, match=r"test_bad\.py:1: the suite file does not parse"):
        coverage(suite)


def test_eris_requirements_lists_levels_counts_untested_and_json(tmp_path, capsys):
    first = load_catalogue()[0].id
    suite = write_suite(
        tmp_path, {"test_x.py": f"import pytest\n@pytest.mark.requirement('{first}')\ndef test_x(): ...\n"}
    )
    assert main(["requirements", "--suite", str(suite)]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].split()[:3] == [first, load_catalogue()[0].level, "1"]
    assert lines[-1].startswith(f"{len(load_catalogue())} requirements: 1 cited by a test")

    assert main(["requirements", "--suite", str(suite), "--untested", "--format", "json"]) == 0
    listed = json.loads(capsys.readouterr().out)["requirements"]
    assert first not in {row["id"] for row in listed}
    assert len(listed) == len(load_catalogue()) - 1 and all(row["tests"] == [] for row in listed)


def test_eris_requirements_of_a_broken_suite_is_exit_2_in_one_line(tmp_path, capsys):
    suite = write_suite(tmp_path, {"test_bad.py": "def test_x(:\n"})
    assert main(["requirements", "--suite", str(suite)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "does not parse" in err
