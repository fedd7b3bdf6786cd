"""Generation of the two retrospective reports (`cost-calculation`, `product-level-cost-calculation`)
as Parquet or CSV, streamed: one Arrow record batch of at most `batch_rows` rows is built and
written at a time, so memory stays flat whatever the number of rows.

The amounts are simulated but reproducible. Every amount is drawn from a counter-based hash
(splitmix64's finaliser, computed with Arrow kernels) of a seed taken from the request and the
company, and of the row's key (cost center or product, and cost element). A row's values do not
depend on the batch it falls into nor on the file format, so the same order gives byte-identical
files, and the Parquet and CSV files of one order hold the same values. Only the depreciation of
a cost center is real data: the `monthly_depreciation` of its basis.
"""

from __future__ import annotations

import hashlib
import io
from dataclasses import dataclass
from decimal import ROUND_HALF_UP, Decimal
from typing import Protocol

import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pa_csv
import pyarrow.parquet as pq

from profiles.limits import LIMITS
from reports.layouts import AMOUNT, COST_ELEMENTS, CURRENCY, UNIT_COST, layout_of

__all__ = ["REPORT_FORMATS", "ByteSink", "CostCenterBasis", "ReportData", "ReportRequest", "write_report"]

REPORT_FORMATS = ("parquet", "csv")
DEFAULT_BATCH_ROWS = 65_536


@dataclass(frozen=True)
class CostCenterBasis:
    """A cost center active in the reported month, with the real part of its costs."""

    code: str
    name: str
    monthly_depreciation: Decimal
    """Depreciation of the fixed assets booked to the cost center in the month."""


@dataclass(frozen=True)
class ReportData:
    """What the source system knows about the company the report is ordered for."""

    company_tax_no: str
    company_name: str
    cost_centers: tuple[CostCenterBasis, ...]
    """Those active in the month."""
    product_count: int
    """Size of the (simulated) product catalogue."""


@dataclass(frozen=True)
class ReportRequest:
    """The part of a report order that decides the file's content."""

    report_id: str
    format: str
    year: int
    month: int


WRITE_BUFFER_BYTES = 1 << 20


def write_report(
    request: ReportRequest, data: ReportData, sink: ByteSink, *, batch_rows: int = DEFAULT_BATCH_ROWS
) -> int:
    """Write the whole report file into `sink` and return its number of rows. `sink` stays open (its
    owner closes it, e.g. to append the encryption tag). ValueError for an unknown reportId or format,
    a month outside the contract's Month range, or a batch size below 1."""
    layout = layout_of(request.report_id)
    if request.format not in REPORT_FORMATS:
        raise ValueError(f"unknown report format {request.format!r}; known: {', '.join(REPORT_FORMATS)}")
    if request.month not in LIMITS.month:
        raise ValueError(f"month must be {LIMITS.month}, not {request.month}")
    if batch_rows < 1:
        raise ValueError(f"batch_rows must be 1 or more, not {batch_rows}")
    units = _units_of(request, data)
    row_count = units.count * len(COST_ELEMENTS)
    # pyarrow's writers write in small pieces (a CSV row block, a parquet page); gathered into 1 MiB
    # by pyarrow before they reach Python, they cost one call each downstream, which lets the
    # encryption run at the speed of the cipher (bench/reports.py).
    with (
        pa.PythonFile(_KeepOpen(sink), mode="w") as file,
        pa.BufferedOutputStream(file, buffer_size=WRITE_BUFFER_BYTES) as buffered,
    ):
        writer = _open_writer(request.format, buffered, layout.schema)
        try:
            for start in range(0, row_count, batch_rows):
                writer.write_batch(units.batch(layout.schema, start, min(start + batch_rows, row_count)))
        finally:
            writer.close()
    return row_count


def _open_writer(file_format: str, file: pa.NativeFile, schema: pa.Schema) -> pq.ParquetWriter | pa_csv.CSVWriter:
    if file_format == "parquet":
        # Each write_batch call becomes one row group: a reader can stream the file back batch by batch.
        return pq.ParquetWriter(file, schema, compression="snappy")
    return pa_csv.CSVWriter(
        file, schema, write_options=pa_csv.WriteOptions(include_header=True, delimiter=",", quoting_header="none")
    )


class ByteSink(Protocol):
    """Where a report is written: a binary stream, which may take part of a write (a raw stream) and says how much."""

    def write(self, data: memoryview, /) -> int | None: ...


class _KeepOpen(io.RawIOBase):
    """Passes writes through to a stream but never closes it, whatever pyarrow closes."""

    def __init__(self, target: ByteSink) -> None:
        super().__init__()
        self._target = target

    def writable(self) -> bool:
        return True

    def write(self, data: bytes | bytearray | memoryview) -> int:  # type: ignore[override]
        view = memoryview(data).cast("B")
        done = 0
        while done < len(view):  # a raw stream may take part of a write
            taken = self._target.write(view[done:])
            if not taken:
                raise OSError("the report sink accepted no bytes")
            done += taken
        return done


# -- the rows: units (cost centers or products) x cost elements ------------------------------------

_U64 = pa.uint64()
_ELEMENT_COUNT = len(COST_ELEMENTS)
_ELEMENT_NAMES = pa.array(COST_ELEMENTS, pa.string())

# Ranges of the simulated amounts per cost element, in grosze (lowest, highest); the spread stays
# below 2**32 so that a 32-bit draw times the spread fits in 64 bits. Depreciation of a cost center
# is never drawn.
_COST_CENTER_RANGES = {
    "depreciation": (0, 0),
    "materials": (200_000, 18_000_000),
    "energy": (80_000, 4_500_000),
    "external-services": (50_000, 6_000_000),
    "salaries": (1_500_000, 32_000_000),
    "social-security": (300_000, 6_500_000),
    "taxes-and-fees": (20_000, 1_200_000),
    "other": (10_000, 900_000),
}
_PRODUCT_RANGES = {
    "depreciation": (500, 250_000),
    "materials": (5_000, 4_000_000),
    "energy": (1_000, 300_000),
    "external-services": (0, 500_000),
    "salaries": (4_000, 2_500_000),
    "social-security": (800, 500_000),
    "taxes-and-fees": (100, 60_000),
    "other": (100, 90_000),
}
_QUANTITY_RANGE = (1, 5_000)
_QUANTITY_STREAM = 0x51_7C_C1_B7_27_22_0A_95  # keeps the quantity draws apart from the amount draws

_PRODUCT_KINDS = ("Obudowa", "Wspornik", "Kołnierz", "Tuleja", "Wałek", "Płyta", "Rama", "Pokrywa", "Uchwyt", "Zawias")
_PRODUCT_SERIES = ("OM", "KX", "TR", "PL", "ZN", "WB", "MS")


class _Units:
    """The subjects of a report's rows; row r is unit r // 8 and cost element r % 8."""

    count: int

    def __init__(self, request: ReportRequest, data: ReportData) -> None:
        self._seed = _seed(request, data)
        self._constants = (
            pa.scalar(data.company_tax_no, pa.string()),
            pa.scalar(request.year, pa.int16()),
            pa.scalar(request.month, pa.int8()),
        )

    def batch(self, schema: pa.Schema, start: int, stop: int) -> pa.RecordBatch:
        """The rows start..stop-1 of the report."""
        row = pa.array(range(start, stop), pa.int64())
        unit = pc.divide(row, _ELEMENT_COUNT)
        element = pc.subtract(row, pc.multiply(unit, _ELEMENT_COUNT))
        size = stop - start
        leading = [pa.repeat(value, size) for value in self._constants]
        columns = [*leading, *self._columns(unit, element), pa.repeat(pa.scalar(CURRENCY, pa.string()), size)]
        return pa.RecordBatch.from_arrays(columns, schema=schema)

    def _columns(self, unit: pa.Array, element: pa.Array) -> list[pa.Array]:
        raise NotImplementedError


class _CostCenters(_Units):
    def __init__(self, request: ReportRequest, data: ReportData) -> None:
        super().__init__(request, data)
        centers = data.cost_centers
        self.count = len(centers)
        self._codes = pa.array([center.code for center in centers], pa.string())
        self._names = pa.array([center.name for center in centers], pa.string())
        # keyed by code, so that a cost center keeps its amounts when others come or go
        self._keys = pa.array([_hash64(center.code.encode("utf-8")) for center in centers], _U64)
        self._depreciation = pa.array([_grosze(center.monthly_depreciation) for center in centers], pa.int64())

    def _columns(self, unit: pa.Array, element: pa.Array) -> list[pa.Array]:
        row_key = pc.add(pc.multiply(pc.take(self._keys, unit), pa.scalar(_ELEMENT_COUNT, _U64)), element.cast(_U64))
        drawn = _draw(self._seed, row_key, element, _COST_CENTER_RANGES)
        depreciation = pc.equal(element, COST_ELEMENTS.index("depreciation"))
        amount = pc.if_else(depreciation, pc.take(self._depreciation, unit), drawn)
        return [
            pc.take(self._codes, unit),
            pc.take(self._names, unit),
            pc.take(_ELEMENT_NAMES, element),
            _as_decimal(amount, AMOUNT),
        ]


class _Products(_Units):
    def __init__(self, request: ReportRequest, data: ReportData) -> None:
        super().__init__(request, data)
        if data.product_count < 0:
            raise ValueError(f"product_count must be 0 or more, not {data.product_count}")
        self.count = data.product_count
        self._center_codes = [center.code for center in data.cost_centers] or [""]

    def _columns(self, unit: pa.Array, element: pa.Array) -> list[pa.Array]:
        first, last = unit[0].as_py(), unit[-1].as_py()
        products = range(first, last + 1)
        # per product of the batch (an eighth of its rows), then spread over the rows
        local = pc.subtract(unit, first)
        codes = pa.array([f"P-{product + 1:06d}" for product in products], pa.string())
        names = pa.array([_product_name(product) for product in products], pa.string())
        centers = pa.array([self._center_codes[product % len(self._center_codes)] for product in products], pa.string())
        product_key = unit.cast(_U64)
        quantity = _draw_between(self._seed ^ _QUANTITY_STREAM, product_key, *_QUANTITY_RANGE)
        row_key = pc.add(pc.multiply(product_key, pa.scalar(_ELEMENT_COUNT, _U64)), element.cast(_U64))
        amount = _draw(self._seed, row_key, element, _PRODUCT_RANGES)
        # ten-thousandths of the currency, rounded half up: (2 * 100 * grosze + q) // (2 * q)
        unit_cost = pc.divide(pc.add(pc.multiply(amount, 200), quantity), pc.multiply(quantity, 2))
        return [
            pc.take(codes, local),
            pc.take(names, local),
            pc.take(centers, local),
            pc.take(_ELEMENT_NAMES, element),
            quantity,
            _as_decimal(amount, AMOUNT),
            _as_decimal(unit_cost, UNIT_COST),
        ]


def _units_of(request: ReportRequest, data: ReportData) -> _Units:
    return _CostCenters(request, data) if request.report_id == "cost-calculation" else _Products(request, data)


def _product_name(product: int) -> str:
    kind = _PRODUCT_KINDS[product % len(_PRODUCT_KINDS)]
    series = _PRODUCT_SERIES[product // len(_PRODUCT_KINDS) % len(_PRODUCT_SERIES)]
    return f"{kind} {series}-{product + 1}"


# -- reproducible amounts --------------------------------------------------------------------------


def _seed(request: ReportRequest, data: ReportData) -> int:
    """The format is left out on purpose: the Parquet and CSV files of one order hold the same values."""
    text = "|".join((request.report_id, data.company_tax_no, str(request.year), str(request.month)))
    return _hash64(text.encode("utf-8"))


def _hash64(data: bytes) -> int:
    return int.from_bytes(hashlib.blake2b(data, digest_size=8).digest(), "big")


_GOLDEN_GAMMA = pa.scalar(0x9E3779B97F4A7C15, _U64)
_MIX_1 = pa.scalar(0xBF58476D1CE4E5B9, _U64)
_MIX_2 = pa.scalar(0x94D049BB133111EB, _U64)


def _uniform32(seed: int, keys: pa.Array) -> pa.Array:
    """A 32-bit draw per key (uint64 in [0, 2**32)): splitmix64 of seed + key * gamma. Arrow's integer
    kernels wrap around on overflow, which is the modulo 2**64 the mix needs."""
    mixed = pc.add(pc.multiply(keys, _GOLDEN_GAMMA), pa.scalar(seed, _U64))
    for shift, multiplier in ((30, _MIX_1), (27, _MIX_2)):
        mixed = pc.multiply(pc.bit_wise_xor(mixed, pc.shift_right(mixed, pa.scalar(shift, _U64))), multiplier)
    mixed = pc.bit_wise_xor(mixed, pc.shift_right(mixed, pa.scalar(31, _U64)))
    return pc.shift_right(mixed, pa.scalar(32, _U64))


def _scaled(draw: pa.Array, lowest: pa.Array | pa.Scalar, spread: pa.Array | pa.Scalar) -> pa.Array:
    """lowest + draw * spread / 2**32: a draw mapped onto [lowest, lowest + spread), as int64."""
    return pc.add(pc.shift_right(pc.multiply(draw, spread), pa.scalar(32, _U64)), lowest).cast(pa.int64())


def _draw_between(seed: int, keys: pa.Array, lowest: int, highest: int) -> pa.Array:
    return _scaled(_uniform32(seed, keys), pa.scalar(lowest, _U64), pa.scalar(highest - lowest + 1, _U64))


def _draw(seed: int, keys: pa.Array, element: pa.Array, ranges: dict[str, tuple[int, int]]) -> pa.Array:
    """An amount in grosze per row, within the range of the row's cost element."""
    bounds = [ranges[name] for name in COST_ELEMENTS]
    lowest = pc.take(pa.array([low for low, _ in bounds], _U64), element)
    spread = pc.take(pa.array([high - low + 1 for low, high in bounds], _U64), element)
    return _scaled(_uniform32(seed, keys), lowest, spread)


def _grosze(amount: Decimal) -> int:
    return int(amount.quantize(Decimal("0.01"), rounding=ROUND_HALF_UP).scaleb(2))


def _as_decimal(units: pa.Array, decimal_type: pa.Decimal128Type) -> pa.Array:
    """int64 counts of the smallest unit (10**-scale) as decimals. Arrow will not cast int64 straight to a
    decimal of precision 18 (it asks for 19 digits plus the scale), so the counts become decimals of scale 0
    and their 128-bit unscaled values are then read at the wanted scale, without a copy."""
    return pc.cast(units, pa.decimal128(38, 0)).view(decimal_type)
