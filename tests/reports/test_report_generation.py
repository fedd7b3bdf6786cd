"""Generation of the retrospective reports (reports/generate.py, reports/layouts.py) and their data
from the reference implementation (reference_impl/report_data.py): row counts, the documented
layout, reproducible amounts, the real depreciation, streaming into a sink that stays open, and
the errors of an unknown report or format."""

from __future__ import annotations

import io
import math
from collections.abc import Iterator
from decimal import Decimal

import pyarrow as pa
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq
import pytest
from project_paths import ROOT

from profiles import load_contract
from profiles.validator import Validator
from reference_impl.report_data import monthly_depreciation, report_data
from reference_impl.search import QueryBuilder, load_operations
from reference_impl.seed import OWN_ORGANIZATION_NAME, OWN_ORGANIZATION_NIP, seed_resources
from reference_impl.state import Service
from reference_impl.store import Store
from reports.crypto import ArtifactEncryptor, SessionKey, decrypt_stream
from reports.generate import WRITE_BUFFER_BYTES, CostCenterBasis, ReportData, ReportRequest, write_report
from reports.layouts import COST_ELEMENTS, DESCRIPTION, LAYOUTS, layout_markdown

COST = "cost-calculation"
PRODUCTS = "product-level-cost-calculation"
FORMATS = ("parquet", "csv")
DATA = ReportData(
    company_tax_no="7251801126",
    company_name="Eris Produkcja Sp. z o.o.",
    cost_centers=(
        CostCenterBasis("CC-110", "Administracja", Decimal("1457.50")),
        CostCenterBasis("CC-210", "Wydział obróbki", Decimal("17244.17")),
        CostCenterBasis("CC-900", 'Projekt, wdrożenie "ERP"', Decimal("0")),
    ),
    product_count=37,
)


class MemorySink(io.RawIOBase):
    """A write-only raw stream like the encrypting one: keeps what it gets and how it got it."""

    def __init__(self) -> None:
        super().__init__()
        self.data = bytearray()
        self.write_sizes: list[int] = []

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        if self.closed:
            raise ValueError("write to a closed sink")
        chunk = bytes(data)
        self.data += chunk
        self.write_sizes.append(len(chunk))
        return len(chunk)


def generate(
    report_id: str, file_format: str, data: ReportData = DATA, *, month: int = 6, batch_rows: int = 50
) -> tuple[int, MemorySink]:
    sink = MemorySink()
    rows = write_report(ReportRequest(report_id, file_format, 2024, month), data, sink, batch_rows=batch_rows)
    return rows, sink


def read_back(report_id: str, file_format: str, content: bytes) -> pa.Table:
    """The table of a report file, read with the column types of the layout."""
    schema = LAYOUTS[report_id].schema
    if file_format == "parquet":
        return pq.read_table(pa.BufferReader(content))
    convert = pa_csv.ConvertOptions(
        column_types={field.name: field.type for field in schema}, strings_can_be_null=False
    )
    return pa_csv.read_csv(pa.BufferReader(content), convert_options=convert)


def rows_of(report_id: str, file_format: str, **options) -> list[dict]:
    _, sink = generate(report_id, file_format, **options)
    return read_back(report_id, file_format, bytes(sink.data)).to_pylist()


def expected_rows(report_id: str, data: ReportData = DATA) -> int:
    units = len(data.cost_centers) if report_id == COST else data.product_count
    return units * len(COST_ELEMENTS)


# -- row counts and layout ---------------------------------------------------------------------------


@pytest.mark.parametrize("file_format", FORMATS)
@pytest.mark.parametrize("report_id", [COST, PRODUCTS])
def test_a_report_has_eight_rows_per_unit_and_says_so(report_id, file_format):
    rows, sink = generate(report_id, file_format)
    assert rows == expected_rows(report_id) == read_back(report_id, file_format, bytes(sink.data)).num_rows


@pytest.mark.parametrize("report_id", [COST, PRODUCTS])
def test_parquet_schema_is_the_documented_layout_with_its_descriptions(report_id):
    _, sink = generate(report_id, "parquet")
    schema = pq.read_schema(pa.BufferReader(bytes(sink.data)))
    layout = LAYOUTS[report_id].schema
    assert schema.equals(layout, check_metadata=False)
    assert [field.metadata for field in schema] == [field.metadata for field in layout]


@pytest.mark.parametrize("report_id", [COST, PRODUCTS])
def test_csv_has_a_header_of_the_layout_columns_and_parses_to_its_types(report_id):
    _, sink = generate(report_id, "csv")
    header = bytes(sink.data).split(b"\n", 1)[0].decode("utf-8")
    layout = LAYOUTS[report_id].schema
    assert header == ",".join(layout.names)
    table = read_back(report_id, "csv", bytes(sink.data))
    assert [(field.name, field.type) for field in table.schema] == [(field.name, field.type) for field in layout]


@pytest.mark.parametrize("report_id", [COST, PRODUCTS])
def test_parquet_and_csv_of_one_order_hold_the_same_values(report_id):
    assert rows_of(report_id, "parquet") == rows_of(report_id, "csv")


def test_every_column_is_documented_and_shown_in_the_markdown():
    markdown = layout_markdown()
    for report_id, layout in LAYOUTS.items():
        assert f"### `{report_id}`" in markdown
        for field in layout.schema:
            assert field.metadata[DESCRIPTION].strip()
            assert f"| `{field.name}` | {field.type} |" in markdown


def test_cost_calculation_rows_are_cost_center_by_cost_element():
    rows = rows_of(COST, "parquet")
    assert [(r["cost_center"], r["cost_element"]) for r in rows] == [
        (center.code, element) for center in DATA.cost_centers for element in COST_ELEMENTS
    ]
    names = {r["cost_center"]: r["cost_center_name"] for r in rows}
    assert names == {center.code: center.name for center in DATA.cost_centers}
    assert {(r["company_tax_no"], r["year"], r["month"], r["currency"]) for r in rows} == {
        (DATA.company_tax_no, 2024, 6, "PLN")
    }


def test_products_go_round_robin_to_the_cost_centers_and_carry_a_unit_cost():
    rows = rows_of(PRODUCTS, "parquet")
    codes = [center.code for center in DATA.cost_centers]
    for index, row in enumerate(rows):
        product = index // len(COST_ELEMENTS)
        assert row["product_code"] == f"P-{product + 1:06d}"
        assert row["cost_center"] == codes[product % len(codes)]
        assert row["cost_element"] == COST_ELEMENTS[index % len(COST_ELEMENTS)]
        assert row["quantity"] >= 1 and row["amount"] >= 0
        expected = (row["amount"] / row["quantity"]).quantize(Decimal("0.0001"), rounding="ROUND_HALF_UP")
        assert row["unit_cost"] == expected, row
    assert len({r["quantity"] for r in rows[:8]}) == 1  # one quantity per product


def test_without_cost_centers_products_have_an_empty_cost_center_and_the_cost_report_no_rows():
    data = ReportData("7251801126", "x", (), product_count=3)
    assert {r["cost_center"] for r in rows_of(PRODUCTS, "csv", data=data)} == {""}
    for file_format in FORMATS:
        rows, sink = generate(COST, file_format, data)
        assert rows == 0 == read_back(COST, file_format, bytes(sink.data)).num_rows


# -- amounts -----------------------------------------------------------------------------------------


def test_the_depreciation_element_is_the_cost_centers_monthly_depreciation():
    data = ReportData("1", "x", (CostCenterBasis("A", "a", Decimal("1.005")), *DATA.cost_centers), 0)
    found = {
        r["cost_center"]: r["amount"] for r in rows_of(COST, "csv", data=data) if r["cost_element"] == "depreciation"
    }
    expected = {center.code: center.monthly_depreciation for center in DATA.cost_centers}
    assert found == {"A": Decimal("1.01"), **expected}


@pytest.mark.parametrize("file_format", FORMATS)
@pytest.mark.parametrize("report_id", [COST, PRODUCTS])
def test_the_same_order_gives_the_same_bytes(report_id, file_format):
    assert generate(report_id, file_format)[1].data == generate(report_id, file_format)[1].data


@pytest.mark.parametrize("report_id", [COST, PRODUCTS])
def test_the_batch_size_does_not_change_the_values(report_id):
    assert rows_of(report_id, "parquet", batch_rows=7) == rows_of(report_id, "parquet", batch_rows=65_536)


@pytest.mark.parametrize("report_id", [COST, PRODUCTS])
def test_another_month_has_other_simulated_amounts_but_the_same_depreciation(report_id):
    june, july = rows_of(report_id, "parquet", month=6), rows_of(report_id, "parquet", month=7)
    drawn = [(a["amount"], b["amount"]) for a, b in zip(june, july, strict=True) if a["cost_element"] != "depreciation"]
    assert sum(a != b for a, b in drawn) > len(drawn) * 0.9
    if report_id == COST:
        assert [r["amount"] for r in june if r["cost_element"] == "depreciation"] == [
            r["amount"] for r in july if r["cost_element"] == "depreciation"
        ]


def test_a_cost_center_keeps_its_amounts_when_another_one_comes_or_goes():
    fewer = ReportData(DATA.company_tax_no, DATA.company_name, DATA.cost_centers[1:], DATA.product_count)
    kept = [r for r in rows_of(COST, "parquet") if r["cost_center"] != DATA.cost_centers[0].code]
    assert rows_of(COST, "parquet", data=fewer) == kept


# -- streaming into a sink that stays open -----------------------------------------------------------


@pytest.mark.parametrize("file_format", FORMATS)
def test_the_sink_stays_open_and_writable(file_format):
    _, sink = generate(PRODUCTS, file_format)
    assert not sink.closed
    sink.write(b"tag")


def test_a_report_written_into_the_encrypting_stream_decrypts_to_the_report():
    session = SessionKey.generate()
    artifact = io.BytesIO()
    encryptor = ArtifactEncryptor(artifact, session, chunk_size=4096)
    rows = write_report(ReportRequest(PRODUCTS, "parquet", 2024, 6), DATA, encryptor, batch_rows=64)
    assert not encryptor.closed
    encryptor.close()  # the tag: only possible because write_report left the stream open
    artifact.seek(0)
    plaintext = b"".join(decrypt_stream(artifact, session))
    assert read_back(PRODUCTS, "parquet", plaintext).num_rows == rows == expected_rows(PRODUCTS)


@pytest.fixture(scope="module")
def large_parquet() -> tuple[int, MemorySink, list[int]]:
    """A product-level report of 400,000 rows in batches of 16,384, with the bytes Arrow holds at each write."""
    data = ReportData("7251801126", "x", DATA.cost_centers, product_count=50_000)
    held: list[int] = []

    class WatchedSink(MemorySink):
        def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
            held.append(pa.total_allocated_bytes())
            return super().write(data)

    sink = WatchedSink()
    rows = write_report(ReportRequest(PRODUCTS, "parquet", 2024, 6), data, sink, batch_rows=16_384)
    return rows, sink, held


def test_a_large_report_is_written_one_row_group_per_batch(large_parquet):
    rows, sink, _ = large_parquet
    metadata = pq.ParquetFile(pa.BufferReader(bytes(sink.data))).metadata
    assert rows == metadata.num_rows == 400_000
    assert metadata.num_row_groups == math.ceil(rows / 16_384)
    assert max(metadata.row_group(i).num_rows for i in range(metadata.num_row_groups)) <= 16_384
    # streamed in pieces of pyarrow's 1 MiB buffer, not as one file at the end
    assert len(sink.write_sizes) >= len(sink.data) // WRITE_BUFFER_BYTES > 1
    assert max(sink.write_sizes) <= WRITE_BUFFER_BYTES


def test_a_large_report_never_holds_more_than_a_few_batches(large_parquet):
    _, sink, held = large_parquet
    whole = pq.read_table(pa.BufferReader(bytes(sink.data))).nbytes
    assert max(held) < whole / 4, (max(held), whole)


def test_csv_is_written_in_pieces_of_at_most_the_write_buffer():
    rows, sink = generate(PRODUCTS, "csv", ReportData("1", "x", (), product_count=5_000), batch_rows=4_096)
    assert rows == 40_000
    assert len(sink.write_sizes) >= len(sink.data) // WRITE_BUFFER_BYTES > 1
    assert max(sink.write_sizes) <= WRITE_BUFFER_BYTES


# -- errors ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("request_", "named"),
    [
        (ReportRequest("stock-levels", "parquet", 2024, 6), "stock-levels"),
        (ReportRequest(COST, "xlsx", 2024, 6), "xlsx"),
        (ReportRequest(PRODUCTS, "csv", 2024, 13), "13"),
    ],
)
def test_an_unknown_report_format_or_month_is_a_value_error_naming_it(request_, named):
    sink = MemorySink()
    with pytest.raises(ValueError, match=named):
        write_report(request_, DATA, sink)
    assert sink.data == b""


# -- the data of the reference implementation --------------------------------------------------------


@pytest.fixture(scope="module")
def service() -> Iterator[Service]:
    contract = load_contract()
    store = Store()
    seeded = Service(contract, Validator(contract), store, QueryBuilder(contract, store), load_operations())
    seeded.load(seed_resources(contract))
    yield seeded
    store.close()


def test_the_own_organization_has_its_cost_centers_with_their_depreciation(service):
    data = report_data(service, OWN_ORGANIZATION_NIP, 2024, 6, product_count=120)
    assert data is not None
    assert (data.company_tax_no, data.company_name, data.product_count) == (
        OWN_ORGANIZATION_NIP,
        OWN_ORGANIZATION_NAME,
        120,
    )
    depreciation = {center.code: center.monthly_depreciation for center in data.cost_centers}
    assert "CC-900" not in depreciation  # its period ended in 2023
    assert all(amount >= 0 for amount in depreciation.values())
    assert sum(amount > 0 for amount in depreciation.values()) >= 5
    # the hall (4,850,000 at 2.5 %) and the CNC centre (612,000 at 14 %)
    assert depreciation["CC-210"] == Decimal("10104.17") + Decimal("7140.00")
    # the server only: the ERP licence (50 % a year since 2018) was written off by 2020
    assert depreciation["CC-110"] == Decimal("1457.50")


def test_a_cost_center_is_listed_for_the_months_of_its_period(service):
    data = report_data(service, OWN_ORGANIZATION_NIP, 2023, 12, product_count=0)
    assert data is not None
    assert "CC-900" in {center.code for center in data.cost_centers}


def test_an_unknown_tax_number_has_no_report_data(service):
    assert report_data(service, "1234563218", 2024, 6, product_count=10) is None


def test_an_asset_stops_depreciating_once_written_off_and_the_last_month_takes_the_rest():
    asset = {"balanceValue": {"initial": 1000.0}, "depreciation": {"rate": 50.0, "start": "2024-01-15"}}
    by_month = [monthly_depreciation(asset, 2024 + (m - 1) // 12, (m - 1) % 12 + 1) for m in range(1, 27)]
    assert by_month[0] == Decimal("41.67")  # counted from the month of the start
    assert monthly_depreciation(asset, 2023, 12) == 0
    assert sum(by_month) == Decimal("1000.00")
    assert by_month[23] == Decimal("1000.00") - 23 * Decimal("41.67")
    assert by_month[24:] == [0, 0]


def test_docs_reports_md_shows_the_column_layouts_the_code_writes():
    page = (ROOT / "docs" / "reports.md").read_text(encoding="utf-8")
    assert layout_markdown() in page
