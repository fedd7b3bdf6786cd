"""`eris validate` as a user runs it: exit codes, inputs, output formats."""

import json
import subprocess
import sys
from pathlib import Path

import pytest
from project_paths import ROOT

from conformance.cli import main

EXAMPLES = ROOT / "tests" / "data" / "examples"
CONTRACTOR = json.loads((EXAMPLES / "party-contractor.json").read_text())


def _broken_status(document):
    document = json.loads(json.dumps(document))
    document["status"]["coding"][0]["code"] = "gone"
    return document


@pytest.fixture
def files(tmp_path):
    def write(name, content):
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
        return str(path)

    return write


def test_readme_run_command_payloads_are_valid(capsys):
    assert main(["validate", str(EXAMPLES / "party-contractor.json"), str(EXAMPLES / "notification.json")]) == 0
    assert "2 document(s) checked: 0 invalid" in capsys.readouterr().out


def test_write_and_report_order_examples_are_valid():
    assert main(["validate", "--write", str(EXAMPLES / "write")]) == 0
    assert main(["validate", "--resource-type", "ReportOrder", str(EXAMPLES / "report-order")]) == 0


def test_error_exits_1_and_text_line_names_file_pointer_and_code(files, capsys):
    path = files("bad.json", _broken_status(CONTRACTOR))
    assert main(["validate", path]) == 1
    line = capsys.readouterr().out.splitlines()[0]
    assert line.startswith(f"{path}:/status/coding/0/code: error: ")
    assert line.endswith("[binding-code-not-in-value-set]")


def test_invalid_json_exits_2_with_line_and_column(files, capsys):
    path = files("broken.json", '{\n  "resourceType": "Party",\n  "id": \n}')
    assert main(["validate", path]) == 2
    out = capsys.readouterr().out
    assert f"{path}:4:1: error: cannot be read: invalid JSON" in out


def test_unreadable_input_does_not_stop_the_others(files, capsys):
    good = files("good.json", CONTRACTOR)
    assert main(["validate", str(Path(good).parent / "missing.json"), good]) == 2
    out = capsys.readouterr().out
    assert "no such file or folder" in out
    assert "1 document(s) checked" in out


def test_array_elements_are_located_by_index(files, capsys):
    path = files("many.json", [CONTRACTOR, _broken_status(CONTRACTOR)])
    assert main(["validate", path]) == 1
    assert f"{path}:/1/status/coding/0/code: error" in capsys.readouterr().out


def test_ndjson_reports_line_numbers_and_keeps_going_after_a_bad_line(files, capsys):
    lines = [json.dumps(CONTRACTOR), "{not json", json.dumps(_broken_status(CONTRACTOR))]
    path = files("bulk.ndjson", "\n".join(lines) + "\n")
    assert main(["validate", path]) == 2
    out = capsys.readouterr().out
    assert f"{path}:2:2: error: cannot be read" in out
    assert f"{path}:3:/status/coding/0/code: error" in out
    assert "2 document(s) checked: 1 invalid" in out


def test_concatenated_json_values_are_read_as_ndjson(files, capsys):
    path = files("stream.json", json.dumps(CONTRACTOR) + "\n" + json.dumps(_broken_status(CONTRACTOR)) + "\n")
    assert main(["validate", path]) == 1
    assert f"{path}:2:/status" in capsys.readouterr().out


def test_folder_is_searched_recursively(files, capsys):
    first = files("tree/a.json", CONTRACTOR)
    files("tree/deeper/b.ndjson", json.dumps(_broken_status(CONTRACTOR)) + "\n")
    files("tree/notes.txt", "not a payload")
    assert main(["validate", str(Path(first).parent)]) == 1
    assert "2 document(s) checked: 1 invalid" in capsys.readouterr().out


def test_stdin_is_read_with_dash():
    result = subprocess.run(
        [sys.executable, "-m", "conformance.cli", "validate", "-"],
        input=json.dumps(_broken_status(CONTRACTOR)),
        capture_output=True,
        text=True,
        cwd=ROOT,
    )
    assert result.returncode == 1
    assert "<stdin>:/status/coding/0/code: error" in result.stdout


def test_write_context_rejects_a_party_without_profile(files, capsys):
    path = files("w.json", {"resourceType": "Party", "name": {"coding": [{"display": "X"}]}})
    assert main(["validate", "--write", path]) == 1
    assert "[profile-unrecognised]" in capsys.readouterr().out


def test_meta_profile_suffices_on_write_but_not_as_served(files, capsys):
    body = json.loads((EXAMPLES / "write" / "party-contractor-create.json").read_text())
    path = files("w.json", {**body, "id": "p1", "identifier": [{"system": "https://example.com/id", "value": "1"}]})
    assert main(["validate", "--write", path]) == 0
    assert main(["validate", path]) == 1
    assert "[profile-evidence-missing]" in capsys.readouterr().out


def test_json_format_lists_issues_with_codes_and_pointers(files, capsys):
    path = files("bad.json", _broken_status(CONTRACTOR))
    assert main(["validate", "--format", "json", path]) == 1
    report = json.loads(capsys.readouterr().out)
    assert report["summary"]["invalid"] == 1
    issue = report["results"][0]["issues"][0]
    assert issue == {
        "severity": "error",
        "code": "binding-code-not-in-value-set",
        "location": "/status/coding/0/code",
        "message": issue["message"],
        "requirement": "ERIS-PARTY-003",
    }


def test_sarif_output_has_the_sarif_2_1_0_shape(files, capsys):
    path = files("bad.json", _broken_status(CONTRACTOR))
    assert main(["validate", "--format", "sarif", path]) == 1
    sarif = json.loads(capsys.readouterr().out)
    # the members SARIF 2.1.0 requires (sections 3.13, 3.14, 3.19, 3.27), checked by hand: no network here
    assert sarif["version"] == "2.1.0"
    run = sarif["runs"][0]
    assert run["tool"]["driver"]["name"] == "eris"
    assert {rule["id"] for rule in run["tool"]["driver"]["rules"]} == {r["ruleId"] for r in run["results"]}
    assert all(r["level"] in {"error", "warning", "note", "none"} and r["message"]["text"] for r in run["results"])
    result = sarif["runs"][0]["results"][0]
    assert result["ruleId"] == "binding-code-not-in-value-set"
    assert result["level"] == "error"
    assert result["locations"][0]["logicalLocations"][0]["fullyQualifiedName"] == "/status/coding/0/code"


def test_output_file_option(files, tmp_path):
    path = files("bad.json", _broken_status(CONTRACTOR))
    out = tmp_path / "report.sarif"
    assert main(["validate", "--format", "sarif", "-o", str(out), path]) == 1
    assert json.loads(out.read_text())["version"] == "2.1.0"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--resource-type", "Invoice"], "unknown --resource-type 'Invoice'"),
        (["--profile", "Nurse"], "unknown --profile 'Nurse'"),
        (["--config", "/nonexistent/eris.toml"], "no such file"),
    ],
)
def test_bad_options_exit_2_with_a_one_line_reason(files, capsys, options, message):
    path = files("good.json", CONTRACTOR)
    assert main(["validate", *options, path]) == 2
    err = capsys.readouterr().err
    assert message in err
    assert len(err.strip().splitlines()) == 1


def test_config_changes_the_installation(files, capsys):
    config = files("installation.toml", '[installation]\nvocab_url = "https://other.example/vocab"\n')
    path = files("good.json", CONTRACTOR)
    assert main(["validate", path]) == 0
    assert main(["validate", "--config", config, path]) == 1
    assert "[binding-no-coding-from-value-set]" in capsys.readouterr().out


def test_bad_config_value_is_a_clear_error(files, capsys):
    config = files("installation.toml", '[installation]\ninstallation = "seven"\n')
    assert main(["validate", "--config", config, files("good.json", CONTRACTOR)]) == 2
    assert "must be a number" in capsys.readouterr().err


def test_an_open_choice_is_information_and_an_error_under_strict(files, capsys):
    """Attribute's structure is not shown: a code written as a CodeableConcept passes, reported as
    information; --strict demands the reference implementation's bare code."""
    document = json.loads(json.dumps(CONTRACTOR))
    document["attribute"] = [
        {"code": {"coding": [{"system": "urn:example:attribute", "code": "finance"}]}, "value": "1"}
    ]
    path = files("party.json", document)
    assert main(["validate", path]) == 0
    assert "open-choice" in capsys.readouterr().out
    assert main(["validate", "--strict", path]) == 1
    assert "open-choice" in capsys.readouterr().out


def test_a_newline_in_a_file_name_cannot_forge_a_line_of_the_text_output(tmp_path, capsys):
    forged = tmp_path / "a\nforged.json: error: everything is fine [ok].json"
    forged.write_text('{"resourceType": "Party", "id": 1}', encoding="utf-8")
    assert main(["validate", str(forged)]) == 1
    lines = capsys.readouterr().out.splitlines()
    findings, summary = lines[:-1], lines[-1]
    assert findings and all(line.startswith(str(tmp_path)) and "a\\nforged" in line for line in findings), lines
    assert "checked" in summary


@pytest.mark.parametrize(
    ("content", "named"),
    [
        ('{"a": NaN}', "NaN is not a JSON number"),
        ('{"a": 1, "a": 2}', "appears twice"),
        ('{"a": "\\ud800"}', "lone UTF-16 surrogate"),
        ('{"a": ' + "1" * 5000 + "}", "5000 characters"),
        ("[" * 3000 + "]" * 3000, "nested more than"),
    ],
    ids=["nan", "duplicate-member", "lone-surrogate", "huge-integer", "deep"],
)
def test_json_the_strict_intake_refuses_is_reported_as_unreadable_not_a_traceback(tmp_path, capsys, content, named):
    path = tmp_path / "hostile.json"
    path.write_text(content, encoding="utf-8")
    assert main(["validate", str(path)]) == 2
    captured = capsys.readouterr()
    assert named in captured.out and "Traceback" not in captured.err


def test_a_run_of_validate_imports_no_event_loop_nor_package_metadata(files):
    """asyncio (serve and proxy only) and importlib.metadata (the version, in JSON and SARIF reports) were a third of
    the start of every `eris validate`, which a run with --jobs 2 pays before its workers fork."""
    path = files("party.json", CONTRACTOR)
    code = (
        "import sys\n"
        "from conformance.cli import main\n"
        f"status = main(['validate', {path!r}])\n"
        "print(status, sorted({'asyncio', 'importlib.metadata'} & set(sys.modules)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT)
    assert done.stdout.splitlines()[-1] == "0 []"
