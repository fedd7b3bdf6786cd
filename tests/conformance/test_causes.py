"""Failed requirements grouped by their first cause (conformance/certification/causes.py)."""

from conformance.certification.causes import group_by_cause, signature


def test_the_particulars_of_a_message_do_not_make_another_cause():
    first = "AssertionError: GET http://127.0.0.1:41041/v1/capabilities?count=100: no nextToken (and 3 more findings)"
    second = "GET http://127.0.0.1:5555/v1/capabilities?count=20: no nextToken"
    assert signature(first) == signature(second)


def test_other_paths_other_codes_and_other_words_are_other_causes():
    base = signature("GET /v1/parties answered 500")
    assert signature("GET /v1/locations answered 500") != base
    assert signature("GET /v1/parties did not find 'party-1', which carries that value") != base
    assert signature("the 202 answer lacks ['executionId'] [schema-required]") != signature(
        "the 202 answer lacks ['executionId'] [schema-type]"
    )


def test_a_group_is_led_by_its_first_requirement_and_keeps_the_order():
    causes = group_by_cause(
        [
            ("ERIS-READ-001", "GET http://h:1/v1/parties?count=5: no nextToken"),
            ("ERIS-PARTY-015", "PATCH /v1/parties answered 500"),
            ("ERIS-READ-002", "GET http://h:2/v1/parties?offset=20: no nextToken"),
        ]
    )
    assert [(c.lead, c.requirements) for c in causes] == [
        ("ERIS-READ-001", ["ERIS-READ-001", "ERIS-READ-002"]),
        ("ERIS-PARTY-015", ["ERIS-PARTY-015"]),
    ]
