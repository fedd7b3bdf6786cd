"""The seed data set of the reference implementation: a small, complete ERP installation.

`seed_resources(contract)` returns every resource the server holds after a fresh start, as it
serves them. The data set exists so that a newcomer, an integrator's client or the conformance
suite finds something real behind every endpoint and every profile of the contract:

- Parties of all four profiles (34): the own organization (Employer) "Eris Produkcja Sp. z o.o.",
  whose NIP (`OWN_ORGANIZATION_NIP`) is the company that cost-calculation reports are ordered for
  and the `owner` of every other resource; 16 Contractors (domestic with NIP, REGON and EU VAT
  number, two branches with a 14-digit REGON and `partOf` their head office, foreign ones with an
  EU VAT number only, bank accounts in `contained`); 12 Employees with PESEL; 5 AssetHolders.
  More than 20, so the default page size (20) shows paging. Installation ids live in the
  namespaces of each profile (contractor and its warehouse copy, employee, asset-holder).
- One PartyRole per party but the asset holders (roles employer, employee, customer, supplier,
  payer). A PartyRole carries the reference-key identifier of the party that plays it, so
  `participant`, `scope`, `partyFrom` and `partyTo` name it in the Party namespace, as the
  contract's filters do (`participant`: internal Party namespace; `scope=<Party namespace>|<id>`).
- The Employer is also owned by itself: the owner is the company keeping the register.
- PartyRelationships: employer-employee for every employee, superior-subordinate for the
  reporting lines of a three-level organization.
- Locations of every profile (Warehouse, StorageLocation, UsagePlace) plus one site without a
  profile; NamingSystems (one per namespace of the installation); Capabilities and
  GrantAssignments (who may approve leave for whom, who may order reports, a contractor's portal).
- Fixed assets of every asset kind with components, cost centers in a hierarchy, allocations to
  a location, a cost center and a responsible person, and movement documents: four with scan
  content (PDF or text) and workflow data, two without content (`$document-content` answers 404).
- DocumentReferences: HR inbox documents (HrInboxDocument) and warehouse documents
  (WarehouseDocument) with positions, `basedOn` chains and participants.
- Every ValueSet of the terminology, taken from the `profiles/` files as they are.

Every reference names its target by a reference-key identifier that exists in the set; every
resource validates without an error (tests/test_seed.py). The data are fixed: no clock, and the
few generated values (tax numbers, serial numbers, names of the large set) come from
`random.Random(SEED)`, so two calls give equal data.

`large=N` adds N Contractors, each with a PartyRole and a GrantAssignment, for benchmarks
(`eris serve --seed large:N`); they are cheap to build (100,000 in a few seconds) and just as
valid.
"""

from __future__ import annotations

import base64
import copy
import gc
import random
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any, ClassVar

from profiles import Contract

SEED = 20250117
"""Seed of every random choice of the data set."""

OWN_ORGANIZATION_NIP = "7251801126"
"""NIP of the own organization (the Employer): the company that reports are ordered for
(`CompanyTaxNo`) and the owner of every seed resource."""

OWN_ORGANIZATION_NAME = "Eris Produkcja Sp. z o.o."

Resource = dict[str, Any]


def own_organization_nip() -> str:
    """NIP of the own organization: the `CompanyTaxNo` of report orders and the seed's owner."""
    return OWN_ORGANIZATION_NIP


# -- registry numbers with their check digits --------------------------------------------------

_NIP_WEIGHTS = (6, 5, 7, 2, 3, 4, 5, 6, 7)
_REGON9_WEIGHTS = (8, 9, 2, 3, 4, 5, 6, 7)
_REGON14_WEIGHTS = (2, 4, 8, 5, 0, 9, 7, 3, 6, 1, 2, 4, 8)
_PESEL_WEIGHTS = (1, 3, 7, 9, 1, 3, 7, 9, 1, 3)


def _nip(nine_digits: str) -> str | None:
    """The NIP with these first nine digits, or None when no check digit exists (checksum 10)."""
    checksum = sum(int(d) * w for d, w in zip(nine_digits, _NIP_WEIGHTS, strict=True)) % 11
    return None if checksum == 10 else nine_digits + str(checksum)


def _regon(digits: str) -> str:
    """A 9-digit REGON from 8 digits, or a 14-digit (local unit) REGON from 13 digits."""
    weights = _REGON9_WEIGHTS if len(digits) == 8 else _REGON14_WEIGHTS
    return digits + str(sum(int(d) * w for d, w in zip(digits, weights, strict=True)) % 11 % 10)


def _pesel(birth_date: str, serial: int, female: bool) -> str:
    year, month, day = (int(part) for part in birth_date.split("-"))
    month += {18: 80, 19: 0, 20: 20, 21: 40, 22: 60}[year // 100]
    sex = (serial % 5) * 2 + (0 if female else 1)
    digits = f"{year % 100:02d}{month:02d}{day:02d}{serial % 1000:03d}{sex}"
    checksum = sum(int(d) * w for d, w in zip(digits, _PESEL_WEIGHTS, strict=True))
    return digits + str((10 - checksum % 10) % 10)


def _iban_pl(bank: str, account: str) -> str:
    """A Polish IBAN (valid ISO 13616 check digits) from an 8-digit bank code and 16-digit account."""
    bban = bank + account
    remainder = int(bban + "252100") % 97  # "PL00" moved to the end, P=25, L=21
    return f"PL{98 - remainder:02d}{bban}"


def _nip_sequence(start: int) -> Iterator[str]:
    """Valid NIPs in increasing order from a 9-digit start."""
    number = start
    while True:
        nip = _nip(f"{number:09d}")
        if nip is not None:
            yield nip
        number += 1


# -- small real documents -------------------------------------------------------------------------


def _pdf(lines: list[str]) -> bytes:
    """A one-page PDF 1.4 with these ASCII lines of text, with a correct cross-reference table."""
    text = "\n".join(
        f"BT /F1 11 Tf 56 {780 - 16 * i} Td ({line.replace(chr(92), '').replace('(', '[').replace(')', ']')}) Tj ET"
        for i, line in enumerate(lines)
    ).encode("ascii")
    objects = [
        b"<< /Type /Catalog /Pages 2 0 R >>",
        b"<< /Type /Pages /Kids [3 0 R] /Count 1 >>",
        b"<< /Type /Page /Parent 2 0 R /MediaBox [0 0 595 842] "
        b"/Resources << /Font << /F1 4 0 R >> >> /Contents 5 0 R >>",
        b"<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>",
        b"<< /Length %d >>\nstream\n%s\nendstream" % (len(text), text),
    ]
    out = bytearray(b"%PDF-1.4\n")
    offsets = []
    for number, body in enumerate(objects, start=1):
        offsets.append(len(out))
        out += b"%d 0 obj\n%s\nendobj\n" % (number, body)
    xref = len(out)
    out += b"xref\n0 %d\n0000000000 65535 f \n" % (len(objects) + 1)
    out += b"".join(b"%010d 00000 n \n" % offset for offset in offsets)
    out += b"trailer\n<< /Size %d /Root 1 0 R >>\nstartxref\n%d\n%%%%EOF\n" % (len(objects) + 1, xref)
    return bytes(out)


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


# -- the fixed part of the data set ---------------------------------------------------------------


@dataclass(frozen=True)
class _Key:
    """How references name one resource: its type, reference-key identifier and display."""

    resource_type: str
    system: str
    value: str
    display: str


# The tables below are data, kept one row per line.
# fmt: off

# Contractors: name, city, street, postal code, country, role, status, branch of (row index) or None.
_CONTRACTORS: tuple[tuple[str, str, str, str, str, str, str, int | None], ...] = (
    ("Hurtownia Stali Metalex Sp. z o.o.", "Katowice", "ul. Hutnicza 8", "40-241", "PL", "supplier", "active", None),
    ("Biuro Rachunkowe Bilans s.c.", "Łódź", "ul. Zielona 27", "90-604", "PL", "supplier", "active", None),
    ("TransKraj Transport S.A.", "Poznań", "ul. Składowa 3", "61-897", "PL", "supplier", "active", None),
    ("Budmar Handel Sp. z o.o.", "Warszawa", "al. Jerozolimskie 181", "02-222", "PL", "customer", "active", None),
    ("Budmar Handel Sp. z o.o. Oddział Kraków", "Kraków", "ul. Półłanki 64", "30-740", "PL", "customer", "active", 3),
    ("Budmar Handel Sp. z o.o. Oddział Gdańsk", "Gdańsk", "ul. Marynarki Polskiej 71", "80-557", "PL", "payer",
     "active", 3),
    ("Drukarnia Offset Plus Sp. j.", "Lublin", "ul. Mełgiewska 7", "20-209", "PL", "supplier", "active", None),
    ("Energia Centrum S.A.", "Łódź", "ul. Tymienieckiego 9", "90-350", "PL", "supplier", "active", None),
    ("Serwis IT Bajt Sp. z o.o.", "Wrocław", "ul. Legnicka 55", "54-203", "PL", "supplier", "active", None),
    ("Meble Kowalczyk Jan Kowalczyk", "Radom", "ul. Słowackiego 112", "26-600", "PL", "customer", "active", None),
    ("Chempol Chemia Przemysłowa Sp. z o.o.", "Płock", "ul. Chemików 5", "09-411", "PL", "supplier", "active", None),
    ("Karton-Pak Opakowania Sp. z o.o.", "Bydgoszcz", "ul. Przemysłowa 14", "85-758", "PL", "supplier", "inactive",
     None),
    ("Maschinenbau Keller GmbH", "Stuttgart", "Industriestraße 40", "70565", "DE", "supplier", "active", None),
    ("Strojírny Brno s.r.o.", "Brno", "Křenová 65", "602 00", "CZ", "customer", "active", None),
    ("Logistique Rhône SARL", "Lyon", "12 rue de Gerland", "69007", "FR", "supplier", "inactive", None),
    ("Van Dijk Packaging B.V.", "Rotterdam", "Waalhaven 120", "3089 JB", "NL", "customer", "deleted", None),
)
_EU_VAT_PREFIX = {"DE": ("DE", 9), "CZ": ("CZ", 8), "FR": ("FR", 11), "NL": ("NL", 9)}
_EU_TRADING = {0, 3, 7, 10}  # domestic contractors that also have a PL EU VAT number

# Employees: first name, last name, birth date, female, position, superior (row index) or None.
_EMPLOYEES: tuple[tuple[str, str, str, bool, str, int | None], ...] = (
    ("Anna", "Nowak", "1971-03-14", True, "Dyrektor zarządzający", None),
    ("Piotr", "Wiśniewski", "1978-11-02", False, "Kierownik produkcji", 0),
    ("Katarzyna", "Wójcik", "1983-06-21", True, "Kierownik kadr i finansów", 0),
    ("Tomasz", "Kowalczyk", "1985-01-30", False, "Kierownik magazynu", 1),
    ("Magdalena", "Kamińska", "1990-09-09", True, "Technolog", 1),
    ("Michał", "Lewandowski", "1992-04-17", False, "Operator CNC", 1),
    ("Agnieszka", "Zielińska", "1988-12-05", True, "Specjalista utrzymania ruchu", 1),
    ("Krzysztof", "Szymański", "1975-07-28", False, "Główny księgowy", 2),
    ("Joanna", "Woźniak", "1994-02-11", True, "Administrator IT", 2),
    ("Paweł", "Dąbrowski", "1996-10-23", False, "Specjalista ds. płac", 2),
    ("Ewa", "Kozłowska", "1981-05-19", True, "Specjalista ds. kadr", 2),
    ("Marcin", "Jankowski", "2001-08-03", False, "Stażysta", 2),
)
_EMPLOYEE_HIRED = ("2008-02-01", "2012-09-01", "2014-03-01", "2015-06-01", "2017-10-01", "2019-01-02",
                   "2016-04-01", "2010-05-04", "2020-02-03", "2021-07-01", "2013-11-04", "2024-07-01")
_EMPLOYMENT_TYPE = (0, 0, 0, 0, 0, 0, 0, 0, 3, 1, 0, 2)  # index into the employment-type value set
_FORMER_EMPLOYEE = 11  # the intern: left at the end of 2024

# Asset holders: name, has a NIP, part of the own organization.
_ASSET_HOLDERS: tuple[tuple[str, bool, bool], ...] = (
    ("Dział Utrzymania Ruchu", False, True),
    ("Lesco Leasing Finansowy S.A.", True, False),
    ("Rentpol Wynajem Maszyn Sp. z o.o.", True, False),
    ("Jan Mazur", False, False),
    ("Fundacja Rozwoju Techniki", True, False),
)

# Capabilities: code, name, description, valid from, valid to.
_CAPABILITIES: tuple[tuple[str, str, str, str, str | None], ...] = (
    ("hr.inbox.read", "Odczyt skrzynki kadrowej", "Read documents of the HR inbox.", "2020-01-01", None),
    ("hr.leave.approve", "Akceptacja wniosków urlopowych", "Approve leave requests of the persons in scope.",
     "2020-01-01", None),
    ("assets.document.approve", "Zatwierdzanie dokumentów środków trwałych",
     "Approve fixed-asset movement documents.", "2021-01-01", None),
    ("warehouse.document.approve", "Zatwierdzanie dokumentów magazynowych", "Approve warehouse documents.",
     "2021-01-01", None),
    ("finance.report.order", "Zamawianie raportów retrospektywnych",
     "Order retrospective reports (cost calculation) for the company in scope.", "2022-01-01", None),
    ("crm.portal.access", "Dostęp do portalu kontrahenta", "Sign in to the contractor portal.", "2022-06-01", None),
    ("legacy.export", "Eksport do systemu archiwalnego", "Export to the legacy archive; withdrawn.", "2015-01-01",
     "2024-12-31"),
)

# Cost centers: code, name, parent code, start, end.
_COST_CENTERS: tuple[tuple[str, str, str | None, str, str | None], ...] = (
    ("CC-100", "Zarząd", None, "2008-01-01", None),
    ("CC-110", "Administracja", "CC-100", "2008-01-01", None),
    ("CC-120", "Kadry i płace", "CC-100", "2010-01-01", None),
    ("CC-200", "Produkcja", None, "2008-01-01", None),
    ("CC-210", "Wydział obróbki", "CC-200", "2008-01-01", None),
    ("CC-220", "Utrzymanie ruchu", "CC-200", "2012-01-01", None),
    ("CC-300", "Logistyka", None, "2008-01-01", None),
    ("CC-310", "Magazyny", "CC-300", "2008-01-01", None),
    ("CC-900", "Projekt wdrożenia ERP", "CC-100", "2022-01-01", "2023-12-31"),
)

# Locations: code, profile (None: a site without a profile), name, parent code, manager (employee row).
_LOCATIONS: tuple[tuple[str, str | None, str, str | None, int], ...] = (
    ("SITE-01", None, "Zakład Łódź, ul. Przemysłowa 12", None, 0),
    ("WH-01", "Warehouse", "Magazyn surowców", "SITE-01", 3),
    ("WH-02", "Warehouse", "Magazyn wyrobów gotowych", "SITE-01", 3),
    ("WH-01-A01", "StorageLocation", "Regał A, półka 01", "WH-01", 3),
    ("WH-01-A02", "StorageLocation", "Regał A, półka 02", "WH-01", 3),
    ("WH-02-B01", "StorageLocation", "Pole odkładcze B01", "WH-02", 3),
    ("UP-001", "UsagePlace", "Hala produkcyjna nr 1", "SITE-01", 1),
    ("UP-002", "UsagePlace", "Biuro zarządu", "SITE-01", 0),
    ("UP-003", "UsagePlace", "Serwerownia", "SITE-01", 8),
    ("UP-004", "UsagePlace", "Warsztat utrzymania ruchu", "SITE-01", 6),
)

# Fixed assets: number, name, asset kind, status, acquired, initial value, depreciation rate (%), usage place,
# cost center, responsible person (employee row), holder (asset-holder row), manufacturer, model.
_ASSETS: tuple[tuple[str, str, str, str, str, int, float, str | None, str, int | None, int | None, str, str], ...] = (
    ("ST-2015-0001", "Hala produkcyjna nr 1", "building", "in-use", "2015-03-31", 4_850_000, 2.5, "UP-001", "CC-210",
     1, None, "Budrex", "hala stalowa 60x24"),
    ("ST-2019-0002", "Centrum obróbcze CNC", "machinery", "in-use", "2019-05-20", 612_000, 14.0, "UP-001", "CC-210",
     5, None, "Haas", "VF-2"),
    ("ST-2020-0003", "Wózek widłowy", "machinery", "in-use", "2020-08-12", 118_500, 14.0, "WH-01", "CC-310",
     3, 2, "Linde", "H25"),
    ("ST-2021-0004", "Samochód dostawczy", "vehicle", "in-use", "2021-02-26", 164_900, 20.0, None, "CC-300",
     5, 1, "Ford", "Transit"),
    ("ST-2022-0005", "Serwer", "it-equipment", "in-use", "2022-04-04", 58_300, 30.0, "UP-003", "CC-110",
     8, None, "Dell", "PowerEdge R750"),
    ("ST-2022-0006", "Notebook", "it-equipment", "in-use", "2022-09-15", 6_450, 30.0, "UP-002", "CC-120",
     9, None, "Lenovo", "ThinkPad T14"),
    ("ST-2018-0007", "Licencja systemu ERP", "intangible", "in-use", "2018-01-10", 240_000, 50.0, None, "CC-110",
     None, None, "Eris Software", "ERP 4.2"),
    ("ST-2016-0008", "Samochód osobowy", "vehicle", "sold", "2016-06-01", 89_000, 20.0, None, "CC-100",
     0, None, "Skoda", "Octavia"),
    ("ST-2012-0009", "Tokarka", "machinery", "liquidated", "2012-11-20", 74_000, 14.0, None, "CC-210",
     None, None, "TUR", "TUR-50"),
    ("ST-2023-0010", "Kompresor śrubowy", "machinery", "in-use", "2023-07-03", 96_700, 14.0, "UP-004", "CC-220",
     6, 0, "Atlas Copco", "GA30"),
)
# Components: asset row, suffix of the number, name, share of the asset's value.
_COMPONENTS = (
    (1, "01", "Wrzeciono", 0.18),
    (1, "02", "Sterownik CNC", 0.22),
    (4, "01", "Macierz dyskowa", 0.35),
    (4, "02", "Zasilacz UPS", 0.12),
)

# Fixed-asset documents: number, type, status, asset row, date, schema, content (pdf, text, None), workflow status.
_ASSET_DOCUMENTS: tuple[tuple[str, str, str, int, str, str, str | None, str | None], ...] = (
    ("FAD-2023-0001", "acceptance", "posted", 9, "2023-07-03", "OT", "pdf", "approved"),
    ("FAD-2024-0002", "sale", "posted", 7, "2024-03-28", "SP", "pdf", "approved"),
    ("FAD-2024-0003", "liquidation", "closed", 8, "2024-10-15", "LT", "text", "archived"),
    ("FAD-2025-0004", "place-change", "open", 2, "2025-01-09", "MT", "pdf", "in-review"),
    ("FAD-2025-0005", "value-change", "open", 0, "2025-01-13", "ZW", None, None),
    ("FAD-2025-0006", "responsible-person-change", "open", 5, "2025-01-14", "ZO", None, None),
)

# HR inbox documents: number, type (a code of hr-inbox-document-type), employee row, date, source system.
_HR_DOCUMENTS = (
    ("HR-2025-0001", "leave-request", 5, "2025-01-08", "hr-portal"),
    ("HR-2025-0002", "sick-leave-certificate", 6, "2025-01-10", "e-zla"),
    ("HR-2024-0031", "employment-certificate-request", 11, "2024-12-13", "hr-portal"),
    ("HR-2025-0004", "personal-data-change", 9, "2025-01-15", "hr-portal"),
)

# Warehouse documents: number, type, status, contractor row, based on, warehouse, position type, date.
_WAREHOUSE_DOCUMENTS: tuple[tuple[str, str, str, int, str | None, str, str, str], ...] = (
    ("WD-2025-0001", "purchase-order", "approved", 0, None, "WH-01", "order-line", "2025-01-06"),
    ("WD-2025-0002", "goods-receipt", "posted", 0, "WD-2025-0001", "WH-01", "goods-receipt-line", "2025-01-09"),
    ("WD-2025-0003", "sales-order", "approved", 3, None, "WH-02", "order-line", "2025-01-10"),
    ("WD-2025-0004", "goods-issue", "draft", 4, "WD-2025-0003", "WH-02", "goods-issue-line", "2025-01-14"),
)
# Items of warehouse documents: code, name, unit (a code of unit-of-measure), quantity, net unit price.
_ITEMS = (
    ("MAT-0012", "Blacha stalowa 2 mm", "kg", 1200, 9.4),
    ("MAT-0031", "Pręt okrągły fi 20", "m", 300, 18.2),
    ("WG-0105", "Obudowa maszyny OM-5", "pcs", 12, 2450.0),
)

# Names and places of the large set.
_STEMS = ("Agro", "Bud", "Chem", "Drew", "Elektro", "Farm", "Gastro", "Hydro", "Inter", "Kom", "Lux", "Med", "Nord",
          "Opti", "Poli", "Rol", "Stal", "Tech", "Uni", "Wod")
_TAILS = ("ex", "pol", "mar", "tron", "serwis", "trans", "bud", "plast", "net", "land")
_FORMS = ("Sp. z o.o.", "S.A.", "s.c.", "Sp. j.", "Sp. k.")
_CITIES = (("Warszawa", "00-001"), ("Kraków", "30-001"), ("Łódź", "90-001"), ("Wrocław", "50-001"),
           ("Poznań", "60-001"), ("Gdańsk", "80-001"), ("Szczecin", "70-001"), ("Lublin", "20-001"))

# fmt: on


class _Builder:
    """Builds the data set for one installation: every system and code from the contract."""

    def __init__(self, contract: Contract) -> None:
        self.contract = contract
        values = contract.installation.placeholders()
        self.vocab = values["vocab_url"]
        self.ns_url = values["ns_url"]
        self.nip_system = values["nip_system"]
        self.regon_system = values["regon_system"]
        self.eu_vat_system = values["eu_vat_system"]
        self.pesel_system = values["pesel_system"]
        self.ns = {key: contract.installation_namespace_key(key) for key in contract.installation.namespace_keys}
        self.rng = random.Random(SEED)
        self.employer = _Key("Party", self.nip_system, OWN_ORGANIZATION_NIP, OWN_ORGANIZATION_NAME)
        self.contractors: list[_Key] = []
        self.employees: list[_Key] = []
        self.asset_holders: list[_Key] = []
        self.locations: dict[str, _Key] = {}
        self.cost_centers: dict[str, _Key] = {}
        self.capabilities: dict[str, _Key] = {}
        self.assets: list[_Key] = []
        self.components: list[_Key] = []
        self.documents: dict[str, _Key] = {}
        self.used_nips = {OWN_ORGANIZATION_NIP}

    # -- shared pieces ----------------------------------------------------------------------------

    def cc(self, vocabulary: str, code: str, display: str | None = None) -> dict[str, Any]:
        coding = {"system": f"{self.vocab}/{vocabulary}", "code": code}
        if display is not None:
            coding["display"] = display
        return {"coding": [coding]}

    def concepts(self, vocabulary: str) -> list[tuple[str, str | None]]:
        """The (code, display) pairs of a value set of the terminology with listed codes."""
        value_set = self.contract.value_set_resources[f"{self.vocab}/{vocabulary}"]
        return [
            (concept["code"], concept.get("display"))
            for include in value_set["compose"]["include"]
            for concept in include.get("concept", [])
        ]

    def concept(self, vocabulary: str, wanted: str) -> tuple[str, str | None]:
        """A code of an implementation-defined value set: `wanted` when the installation has it, else its
        first code (the content of these sets is fixed at deployment, not by the contract)."""
        concepts = self.concepts(vocabulary)
        return next((pair for pair in concepts if pair[0] == wanted), concepts[0])

    def coded(self, vocabulary: str, wanted: str) -> dict[str, Any]:
        return self.cc(vocabulary, *self.concept(vocabulary, wanted))

    @staticmethod
    def ref(key: _Key, resource_type: str | None = None) -> dict[str, Any]:
        return {
            "type": resource_type or key.resource_type,
            "identifier": {"system": key.system, "value": key.value},
            "display": key.display,
        }

    def role_ref(self, party: _Key) -> dict[str, Any]:
        return self.ref(party, "PartyRole")

    def owner(self) -> list[dict[str, Any]]:
        return [self.ref(self.employer)]

    def profile(self, name: str) -> list[str]:
        return [f"{self.ns_url}/StructureDefinition/{name}"]

    def installation_id(self, key: str, value: str) -> dict[str, str]:
        return {"system": self.ns[key], "value": value}

    def new_nip(self) -> str:
        while True:
            nip = _nip(f"{self.rng.randint(1, 9)}{self.rng.randrange(10**8):08d}")
            if nip is not None and nip not in self.used_nips:
                self.used_nips.add(nip)
                return nip

    def new_regon(self) -> str:
        return _regon(f"{self.rng.randint(1, 9)}{self.rng.randrange(10**7):07d}")

    def address(self, street: str, postal_code: str, city: str, country: str = "PL") -> dict[str, Any]:
        return {
            "use": self.cc("address-use", "work"),
            "type": self.cc("address-type", "physical"),
            "text": f"{street}, {postal_code} {city}",
            "component": [
                {"type": self.cc("address-component-type", "street"), "value": street},
                {"type": self.cc("address-component-type", "postal-code"), "value": postal_code},
                {"type": self.cc("address-component-type", "city"), "value": city},
                {"type": self.cc("address-component-type", "country"), "value": country},
            ],
        }

    def contact(self, kind: str, value: str) -> dict[str, Any]:
        return {"system": self.cc("contact-point-system", kind), "value": value}

    def party(
        self,
        party_id: str,
        profile: str,
        kind: str,
        party_type: str,
        status: str,
        name: str,
        name_code: str,
        number: str,
        identifiers: list[dict[str, Any]],
        updated: str,
    ) -> Resource:
        return {
            "resourceType": "Party",
            "id": party_id,
            "meta": {"profile": self.profile(profile), "lastUpdated": updated},
            "owner": self.owner(),
            "category": [self.cc("party-kind", kind)],
            "status": self.cc("party-status", status),
            "type": self.cc("party-type", party_type),
            "identifier": identifiers,
            "name": self.cc("party-name", name_code, name),
            "number": number,
        }

    def party_role(self, party_id: str, party: _Key, role: str, display: str) -> Resource:
        return {
            "resourceType": "PartyRole",
            "id": f"role-{party_id.removeprefix('party-')}",
            "owner": self.owner(),
            "identifier": [{"system": party.system, "value": party.value}],
            "party": self.ref(party),
            "role": self.cc("party-role", role, display),
        }

    # -- parties ----------------------------------------------------------------------------------

    def parties(self) -> list[Resource]:
        return [self.employer_party(), *self.contractor_parties(), *self.employee_parties(), *self.holder_parties()]

    def employer_party(self) -> Resource:
        party = self.party(
            "party-employer",
            "Employer",
            "employer",
            "finance",
            "active",
            OWN_ORGANIZATION_NAME,
            "finance",
            "P-000001",
            [
                {"system": self.nip_system, "value": OWN_ORGANIZATION_NIP, "type": "TAX"},
                {"system": self.regon_system, "value": _regon("47032135")},
                {"system": self.eu_vat_system, "value": f"PL{OWN_ORGANIZATION_NIP}"},
                self.installation_id("employee", "ORG-0001"),
            ],
            "2024-12-02T07:30:00Z",
        )
        party["address"] = [
            self.address("ul. Przemysłowa 12", "93-373", "Łódź"),
            {**self.address("skr. poczt. 41", "90-001", "Łódź"), "type": self.cc("address-type", "postal")},
        ]
        party["contactPoint"] = [
            self.contact("phone", "+48 42 680 11 00"),
            self.contact("email", "sekretariat@eris-produkcja.example.pl"),
            self.contact("url", "https://eris-produkcja.example.pl"),
        ]
        party["attribute"] = [
            {"code": "finance", "value": "vat-payer"},
            {"code": "assets", "value": "asset-register-keeper"},
        ]
        return party

    def contractor_parties(self) -> list[Resource]:
        parties = []
        heads: dict[int, str] = {}
        for index, (name, city, street, postal, country, _, status, branch_of) in enumerate(_CONTRACTORS):
            number = index + 1
            register_id = f"K-{number:06d}"
            identifiers: list[dict[str, Any]] = [
                self.installation_id("contractor", register_id),
                self.installation_id("contractor-warehouse", register_id),
            ]
            if country != "PL":
                prefix, length = _EU_VAT_PREFIX[country]
                identifiers.append({"system": self.eu_vat_system, "value": prefix + self._digits(length)})
            elif branch_of is not None:  # a branch: the head office's REGON extended to a local unit
                identifiers.append({"system": self.regon_system, "value": _regon(heads[branch_of] + self._digits(4))})
            else:
                nip = self.new_nip()
                regon = self.new_regon()
                heads[index] = regon
                identifiers += [
                    {"system": self.nip_system, "value": nip, "type": "TAX"},
                    {"system": self.regon_system, "value": regon},
                ]
                if index in _EU_TRADING:
                    identifiers.append({"system": self.eu_vat_system, "value": f"PL{nip}"})
            party_id = f"party-contractor-{number:06d}"
            party = self.party(
                party_id,
                "Contractor",
                "contractor",
                "finance",
                status,
                name,
                "finance",
                f"P-{100 + number:06d}",
                identifiers,
                f"2024-{1 + index % 12:02d}-{10 + index:02d}T09:{index * 3:02d}:00Z",
            )
            party["category"].append(self.cc("party-category", "domestic" if country == "PL" else "foreign"))
            party["address"] = [self.address(street, postal, city, country)]
            slug = "".join(ch for ch in name.split()[0].lower() if ch.isascii() and ch.isalnum())
            party["contactPoint"] = [
                self.contact("email", f"biuro@{slug}.example.com"),
                self.contact(
                    "phone",
                    f"+48 {self.rng.randint(12, 91)} {self.rng.randint(100, 999)} "
                    f"{self.rng.randint(10, 99)} {self.rng.randint(10, 99)}",
                ),
            ]
            party["attribute"] = [
                {"code": "finance", "value": f"payment-term-days:{(14, 21, 30, 60)[index % 4]}"},
                {"code": "warehouse", "value": "delivery-point" if index % 3 else "pickup"},
            ]
            if country == "PL" and branch_of is None and index % 2 == 0:
                party["contained"] = [
                    {
                        "resourceType": "BankAccount",
                        "id": "bank-1",
                        "accountNumber": _iban_pl(f"{self.rng.randrange(10**8):08d}", self._digits(16)),
                        "currency": "PLN",
                    }
                ]
            key = _Key("Party", self.ns["contractor"], register_id, name)
            if branch_of is not None:
                head = parties[branch_of]
                head_nip = next(i["value"] for i in head["identifier"] if i["system"] == self.nip_system)
                party["partOf"] = self.ref(
                    _Key("Party", self.nip_system, head_nip, head["name"]["coding"][0]["display"])
                )
            self.contractors.append(key)
            parties.append(party)
        return parties

    def employee_parties(self) -> list[Resource]:
        parties = []
        for index, (first, last, born, female, _, _) in enumerate(_EMPLOYEES):
            number = index + 1
            employee_id = f"E-{number:04d}"
            name = f"{first} {last}"
            party = self.party(
                f"party-employee-{number:04d}",
                "Employee",
                "employee",
                "hr",
                "inactive" if index == _FORMER_EMPLOYEE else "active",
                name,
                "hr",
                f"P-{200 + number:06d}",
                [
                    self.installation_id("employee", employee_id),
                    {"system": self.pesel_system, "value": _pesel(born, 100 + 37 * index, female)},
                ],
                f"2024-11-{1 + index:02d}T12:00:00Z",
            )
            party["address"] = [
                {
                    **self.address(f"ul. Kwiatowa {3 + index}", "90-001", "Łódź"),
                    "use": self.cc("address-use", "home"),
                }
            ]
            login = f"{first[0]}.{last}".lower().translate(_ASCII)
            party["contactPoint"] = [self.contact("email", f"{login}@eris-produkcja.example.pl")]
            superior = _EMPLOYEES[index][5]
            center = "CC-100" if superior is None else "CC-210" if index == 1 or superior == 1 else "CC-120"
            party["attribute"] = [
                {"code": "finance", "value": f"cost-center:{center}"},
                {"code": "assets", "value": "responsible-person"},
            ]
            self.employees.append(_Key("Party", self.ns["employee"], employee_id, name))
            parties.append(party)
        return parties

    def holder_parties(self) -> list[Resource]:
        parties = []
        for index, (name, has_nip, internal) in enumerate(_ASSET_HOLDERS):
            number = index + 1
            holder_id = f"AH-{number:04d}"
            identifiers: list[dict[str, Any]] = [self.installation_id("asset-holder", holder_id)]
            if has_nip:
                identifiers.append({"system": self.nip_system, "value": self.new_nip(), "type": "TAX"})
            party = self.party(
                f"party-asset-holder-{number:04d}",
                "AssetHolder",
                "asset-holder",
                "assets",
                "active",
                name,
                "assets",
                f"P-{300 + number:06d}",
                identifiers,
                f"2024-10-{1 + index:02d}T10:15:00Z",
            )
            party["address"] = [self.address(f"ul. Leasingowa {1 + index}", "00-950", "Warszawa")]
            party["contactPoint"] = [self.contact("phone", f"+48 22 500 {10 + index} 00")]
            party["attribute"] = [{"code": "assets", "value": "internal" if internal else "external"}]
            if internal:
                party["partOf"] = self.ref(self.employer)
            self.asset_holders.append(_Key("Party", self.ns["asset-holder"], holder_id, name))
            parties.append(party)
        return parties

    def _digits(self, count: int) -> str:
        return "".join(str(self.rng.randrange(10)) for _ in range(count))

    # -- roles and relationships ------------------------------------------------------------------

    def party_roles(self) -> list[Resource]:
        roles = [self.party_role("party-employer", self.employer, "employer", "Employer")]
        for index, key in enumerate(self.contractors):
            role = _CONTRACTORS[index][5]
            roles.append(self.party_role(f"party-contractor-{index + 1:06d}", key, role, role.capitalize()))
        for index, key in enumerate(self.employees):
            roles.append(self.party_role(f"party-employee-{index + 1:04d}", key, "employee", "Employee"))
        return roles

    def relationships(self) -> list[Resource]:
        found = []
        employment_types = self.concepts("employment-type")
        for index, key in enumerate(self.employees):
            code = employment_types[_EMPLOYMENT_TYPE[index] % len(employment_types)][0]
            found.append(
                {
                    "resourceType": "PartyRelationship",
                    "id": f"rel-employment-{index + 1:04d}",
                    "owner": self.owner(),
                    "type": self.cc("party-relationship-type", "employer-employee", "Employer - employee"),
                    "partyFrom": self.role_ref(self.employer),
                    "partyTo": self.role_ref(key),
                    "period": {"start": _EMPLOYEE_HIRED[index]}
                    if index != _FORMER_EMPLOYEE
                    else {"start": _EMPLOYEE_HIRED[index], "end": "2024-12-31"},
                    "attribute": [
                        {"code": "employment-id", "value": f"UM/{_EMPLOYEE_HIRED[index][:4]}/{index + 1:04d}"},
                        {"code": "employment-type", "value": code},
                        {"code": "position", "value": _EMPLOYEES[index][4]},
                    ],
                }
            )
        for index, row in enumerate(_EMPLOYEES):
            superior = row[5]
            if superior is None:
                continue
            found.append(
                {
                    "resourceType": "PartyRelationship",
                    "id": f"rel-reporting-{index + 1:04d}",
                    "owner": self.owner(),
                    "type": self.cc("party-relationship-type", "superior-subordinate", "Superior - subordinate"),
                    "partyFrom": self.role_ref(self.employees[superior]),
                    "partyTo": self.role_ref(self.employees[index]),
                    "attribute": [
                        {
                            "code": "hierarchy-level",
                            "value": self.concept(
                                "organization-assignment-hierarchy-level", "department" if superior else "division"
                            )[0],
                        }
                    ],
                }
            )
        return found

    # -- locations --------------------------------------------------------------------------------

    def location_resources(self) -> list[Resource]:
        found = []
        for code, profile, name, parent, manager in _LOCATIONS:
            key = _Key("Location", self.ns["location"], code, name)
            location: Resource = {
                "resourceType": "Location",
                "id": f"location-{code.lower()}",
                "owner": self.owner(),
                "identifier": [self.installation_id("location", code)],
                "name": name,
                "managingParty": self.ref(self.employees[manager]),
            }
            if profile is not None:
                location["meta"] = {"profile": self.profile(profile)}
            if profile == "UsagePlace":
                location["category"] = [self.cc("assets/location-category", "usage-place", "Usage place")]
            if parent is not None:
                location["partOf"] = self.ref(self.locations[parent])
            if code == "SITE-01":
                location["managingParty"] = self.ref(self.employer)
                location["address"] = self.address("ul. Przemysłowa 12", "93-373", "Łódź")
            if code == "WH-01":
                location["contained"] = [
                    {
                        "resourceType": "Location",
                        "id": "dock",
                        "identifier": [self.installation_id("location", "WH-01-DOCK")],
                        "name": "Rampa rozładunkowa",
                    }
                ]
            location["attribute"] = [{"code": "building", "value": "B" if code.startswith("WH-02") else "A"}]
            self.locations[code] = key
            found.append(location)
        return found

    # -- installation metadata ---------------------------------------------------------------------

    _USAGE: ClassVar[dict[str, tuple[str, ...]]] = {
        "nip": ("Party",),
        "regon": ("Party",),
        "eu-vat": ("Party",),
        "fixed-asset-document": ("FixedAssetDocument",),
        "document-reference": ("DocumentReference",),
        "capability": ("Capability",),
        "fixed-asset": ("FixedAsset", "AssetComponent"),
        "location": ("Location",),
        "cost-center": ("CostCenter",),
    }

    def naming_systems(self) -> list[Resource]:
        return [
            {
                "resourceType": "NamingSystem",
                "id": f"ns-{namespace.key}",
                "owner": self.owner(),
                "name": namespace.title,
                "key": namespace.key,
                "system": namespace.system,
                "referenceKey": namespace.reference_key,
                "usage": list(namespace.profiles or self._USAGE.get(namespace.key, ())),
            }
            for namespace in self.contract.namespaces.values()
        ]

    def capability_resources(self) -> list[Resource]:
        found = []
        for code, name, description, valid_from, valid_to in _CAPABILITIES:
            key = _Key("Capability", self.ns["capability"], code, name)
            capability: Resource = {
                "resourceType": "Capability",
                "id": f"capability-{code.replace('.', '-')}",
                "owner": self.owner(),
                "identifier": [self.installation_id("capability", code)],
                "name": name,
                "description": description,
                "validFrom": valid_from,
            }
            if valid_to is not None:
                capability["validTo"] = valid_to
            self.capabilities[code] = key
            found.append(capability)
        return found

    def grant(
        self,
        grant_id: str,
        holder: _Key,
        capabilities: list[str],
        scope: list[_Key],
        basis: str,
        start: str,
        *,
        end: str | None = None,
        given_by: _Key | None = None,
        attributes: tuple[tuple[str, str], ...] | list[tuple[str, str]] = (),
    ) -> Resource:
        grant: Resource = {
            "resourceType": "GrantAssignment",
            "id": grant_id,
            "owner": self.owner(),
            "assignedTo": self.ref(holder),
            "granted": [self.ref(self.capabilities[code]) for code in capabilities],
            "period": {"start": start} if end is None else {"start": start, "end": end},
            "basis": self.cc("grant-basis", basis),
        }
        if scope:
            grant["scope"] = [self.role_ref(key) for key in scope]
        if given_by is not None:
            grant["givenBy"] = self.ref(given_by)
        if attributes:
            grant["attribute"] = [{"code": code, "value": value} for code, value in attributes]
        return grant

    def grants(self) -> list[Resource]:
        e = self.employees
        return [
            self.grant(
                "grant-0001",
                e[2],
                ["hr.inbox.read", "hr.leave.approve"],
                e[7:12],
                "position",
                "2014-03-01",
                given_by=e[0],
                attributes=[
                    ("direct-only", "false"),
                    ("employment-id", "UM/2014/0003"),
                    ("order-path", "ORG-0001/CC-100/CC-120"),
                ],
            ),
            self.grant(
                "grant-0002",
                e[1],
                ["hr.leave.approve"],
                e[3:7],
                "position",
                "2012-09-01",
                given_by=e[0],
                attributes=[
                    ("direct-only", "true"),
                    ("employment-id", "UM/2012/0002"),
                    ("order-path", "ORG-0001/CC-200"),
                ],
            ),
            self.grant(
                "grant-0003",
                e[3],
                ["warehouse.document.approve"],
                [],
                "role",
                "2015-06-01",
                given_by=e[1],
                attributes=[("employment-id", "UM/2015/0004")],
            ),
            self.grant(
                "grant-0004",
                e[4],
                ["assets.document.approve"],
                [],
                "delegation",
                "2025-01-01",
                end="2025-03-31",
                given_by=e[1],
                attributes=[("direct-only", "true")],
            ),
            self.grant(
                "grant-0005",
                e[2],
                ["finance.report.order"],
                [self.employer],
                "position",
                "2022-01-01",
                given_by=e[0],
                attributes=[("order-path", "ORG-0001/CC-100")],
            ),
            self.grant(
                "grant-0006",
                e[7],
                ["finance.report.order", "assets.document.approve"],
                [self.employer],
                "position",
                "2010-05-04",
                given_by=e[0],
                attributes=[("employment-id", "UM/2010/0008"), ("order-path", "ORG-0001/CC-100/CC-110")],
            ),
            self.grant(
                "grant-0007",
                self.contractors[0],
                ["crm.portal.access"],
                [self.contractors[0]],
                "contract",
                "2022-06-01",
                given_by=self.employer,
            ),
            self.grant(
                "grant-0008",
                e[11],
                ["hr.inbox.read", "legacy.export"],
                [],
                "direct",
                "2024-07-01",
                end="2024-12-31",
                given_by=e[2],
                attributes=[("direct-only", "true")],
            ),
        ]

    # -- fixed assets -----------------------------------------------------------------------------

    def cost_center_resources(self) -> list[Resource]:
        found = []
        for code, name, parent, start, end in _COST_CENTERS:
            key = _Key("CostCenter", self.ns["cost-center"], code, name)
            center: Resource = {
                "resourceType": "CostCenter",
                "id": f"cost-center-{code.lower()}",
                "owner": self.owner(),
                "identifier": [self.installation_id("cost-center", code)],
                "name": name,
                "period": {"start": start} if end is None else {"start": start, "end": end},
            }
            if parent is not None:
                center["partOf"] = self.ref(self.cost_centers[parent])
            self.cost_centers[code] = key
            found.append(center)
        return found

    def asset_resources(self) -> list[Resource]:
        found = []
        for index, row in enumerate(_ASSETS):
            number, name, kind, status, acquired, value, rate, _, _, _, holder, maker, model = row
            full_name = f"{name} {maker} {model}" if kind != "building" else name
            key = _Key("FixedAsset", self.ns["fixed-asset"], number, full_name)
            asset = {
                "resourceType": "FixedAsset",
                "id": f"fixed-asset-{index + 1:04d}",
                "owner": self.owner(),
                "identifier": [self.installation_id("fixed-asset", number)],
                "name": full_name,
                "status": self.cc("fixed-asset-status", status),
                "type": self.coded("asset-kind", kind),
                "acquisitionDate": acquired,
                "commissioningDate": acquired,
                **self.values(value, rate, acquired),
                "attribute": [
                    {"code": self.concept("esm-attribute", "manufacturer")[0], "value": maker},
                    {"code": self.concept("esm-attribute", "model")[0], "value": model},
                    {
                        "code": self.concept("esm-attribute", "serial-number")[0],
                        "value": f"SN{self.rng.randrange(10**8):08d}",
                    },
                    {"code": self.concept("esm-attribute", "year-of-manufacture")[0], "value": acquired[:4]},
                ],
            }
            if holder is not None:
                asset["holder"] = self.ref(self.asset_holders[holder])
            self.assets.append(key)
            found.append(asset)
        return found

    def values(self, value: float, rate: float, start: str, *, as_of: int = 2024) -> dict[str, Any]:
        years = max(0, as_of - int(start[:4]))
        depreciation = round(min(value, value * rate / 100 * years), 2)
        tax_rate = min(100.0, rate * 1.5 if rate < 20 else rate)
        tax_depreciation = round(min(value, value * tax_rate / 100 * years), 2)
        return {
            "balanceValue": {
                "initial": float(value),
                "depreciation": depreciation,
                "net": round(value - depreciation, 2),
                "currency": "PLN",
            },
            "taxValue": {
                "initial": float(value),
                "depreciation": tax_depreciation,
                "net": round(value - tax_depreciation, 2),
                "currency": "PLN",
            },
            "depreciation": {"method": "linear", "rate": rate, "taxRate": tax_rate, "start": start},
        }

    def component_resources(self) -> list[Resource]:
        found = []
        for index, (asset_index, suffix, name, share) in enumerate(_COMPONENTS):
            asset_row = _ASSETS[asset_index]
            parent = self.assets[asset_index]
            number = f"{parent.value}/{suffix}"
            key = _Key("AssetComponent", self.ns["fixed-asset"], number, name)
            found.append(
                {
                    "resourceType": "AssetComponent",
                    "id": f"asset-component-{index + 1:04d}",
                    "owner": self.owner(),
                    "identifier": [self.installation_id("fixed-asset", number)],
                    "name": name,
                    "fixedAsset": self.ref(parent),
                    "status": self.cc("fixed-asset-status", asset_row[3]),
                    "acquisitionDate": asset_row[4],
                    **self.values(round(asset_row[5] * share, 2), asset_row[6], asset_row[4]),
                    "attribute": [
                        {
                            "code": self.concept("esm-attribute", "serial-number")[0],
                            "value": f"SN{self.rng.randrange(10**8):08d}",
                        }
                    ],
                }
            )
            self.components.append(key)
        return found

    def allocation(
        self,
        number: int,
        category: str,
        target: _Key,
        start: str,
        *,
        asset: _Key | None = None,
        component: _Key | None = None,
        place: _Key | None = None,
        end: str | None = None,
    ) -> Resource:
        display = {"location": "Location", "cost-center": "Cost center", "responsible-person": "Responsible person"}
        allocation: Resource = {
            "resourceType": "FixedAssetAllocation",
            "id": f"allocation-{number:04d}",
            "owner": self.owner(),
            "category": [self.cc("assets/allocation-category", category, display[category])],
        }
        if asset is not None:
            allocation["fixedAsset"] = self.ref(asset)
        if component is not None:
            allocation["assetComponent"] = self.ref(component)
        allocation["target"] = self.ref(target)
        if place is not None:
            allocation["participant"] = [self.ref(place)]
        allocation["dimension"] = self.cc("fixed-asset-allocation-dimension", category, display[category])
        allocation["period"] = {"start": start} if end is None else {"start": start, "end": end}
        return allocation

    def allocations(self) -> list[Resource]:
        found = []
        for index, row in enumerate(_ASSETS):
            status, acquired, place, center, person = row[3], row[4], row[7], row[8], row[9]
            asset = self.assets[index]
            end = {"sold": "2024-03-28", "liquidated": "2024-10-15"}.get(status)
            if place is not None:
                found.append(
                    self.allocation(len(found) + 1, "location", self.locations[place], acquired, asset=asset, end=end)
                )
            found.append(
                self.allocation(
                    len(found) + 1, "cost-center", self.cost_centers[center], acquired, asset=asset, end=end
                )
            )
            if person is not None:
                found.append(
                    self.allocation(
                        len(found) + 1,
                        "responsible-person",
                        self.employees[person],
                        acquired,
                        asset=asset,
                        end=end,
                        place=self.locations[place] if place is not None else None,
                    )
                )
        ups = self.components[3]
        found.append(
            self.allocation(
                len(found) + 1, "location", self.locations["UP-003"], "2022-04-04", asset=self.assets[4], component=ups
            )
        )
        # a link of a usage place to a cost center (no asset): the workshop is booked to maintenance
        found.append(
            self.allocation(
                len(found) + 1, "cost-center", self.cost_centers["CC-220"], "2012-01-01", place=self.locations["UP-004"]
            )
        )
        return found

    def asset_documents(self) -> list[Resource]:
        found = []
        for index, (number, kind, status, asset_index, date, schema, content, workflow) in enumerate(_ASSET_DOCUMENTS):
            asset = self.assets[asset_index]
            type_code, type_display = self.concept("esm-document-type", kind)
            document: Resource = {
                "resourceType": "FixedAssetDocument",
                "id": f"fixed-asset-document-{index + 1:04d}",
                "owner": self.owner(),
                "identifier": [self.installation_id("fixed-asset-document", number)],
                "status": self.cc("fixed-asset-document-status", status),
                "type": self.cc("esm-document-type", type_code, type_display),
                "date": date,
                "fixedAsset": [self.ref(asset)],
                "attribute": [{"code": "schema", "value": schema}],
            }
            if content is not None:
                title = f"{type_display or kind} {number}"
                lines = [OWN_ORGANIZATION_NAME.translate(_ASCII), title, f"Asset: {asset.value}", f"Date: {date}"]
                if content == "pdf":
                    attachment = {"contentType": "application/pdf", "data": _b64(_pdf(lines)), "title": f"{number}.pdf"}
                else:
                    attachment = {
                        "contentType": "text/plain; charset=utf-8",
                        "data": _b64(("\n".join(lines) + "\n").encode()),
                        "title": f"{number}.txt",
                    }
                attachment["attribute"] = [
                    {"code": "workflow-status", "value": workflow},
                    {"code": "workflow-link", "value": f"https://workflow.example.com/cases/WF-{number[4:]}"},
                    {"code": "workflow-system", "value": "docflow"},
                ]
                document["attachment"] = [attachment]
            self.documents[number] = _Key("FixedAssetDocument", self.ns["fixed-asset-document"], number, number)
            found.append(document)
        return found

    # -- document envelopes -----------------------------------------------------------------------

    def hr_documents(self) -> list[Resource]:
        found = []
        for index, (number, kind, employee, date, system) in enumerate(_HR_DOCUMENTS):
            code, display = self.concept("hr-inbox-document-type", kind)
            person = self.employees[employee]
            lines = [
                OWN_ORGANIZATION_NAME.translate(_ASCII),
                display or code,
                person.display.translate(_ASCII),
                f"Date: {date}",
            ]
            found.append(
                {
                    "resourceType": "DocumentReference",
                    "id": f"document-hr-{index + 1:04d}",
                    "meta": {"profile": self.profile("HrInboxDocument")},
                    "owner": self.owner(),
                    "identifier": [self.installation_id("document-reference", number)],
                    "category": [self.cc("hr/document-category", "hr-inbox-document", "HR inbox document")],
                    "space": self.cc("document-space", "hr", "HR"),
                    "type": self.cc("hr/document-type", code, display),
                    "issueDate": date,
                    "participant": [self.role_ref(person)],
                    "attribute": [{"code": "external-system-name", "value": system}],
                    "attachment": [
                        {"contentType": "application/pdf", "data": _b64(_pdf(lines)), "title": f"{number}.pdf"}
                    ],
                }
            )
            self.documents[number] = _Key("DocumentReference", self.ns["document-reference"], number, number)
        return found

    def warehouse_documents(self) -> list[Resource]:
        found = []
        for index, row in enumerate(_WAREHOUSE_DOCUMENTS):
            number, kind, status, contractor_row, based_on, warehouse, line_type, date = row
            contractor = self.contractors[contractor_row]
            positions = []
            net_total = 0.0
            for line, (item, item_name, unit, quantity, price) in enumerate(
                _ITEMS[2:] if kind in ("sales-order", "goods-issue") else _ITEMS[:2], start=1
            ):
                net = round(quantity * price, 2)
                net_total += net
                positions.append(
                    {
                        "code": self.cc("warehouse/document-position-type", line_type),
                        "value": [
                            {"type": "line-number", "valueInteger": line},
                            {"type": "item", "valueString": f"{item} {item_name}"},
                            {"type": "quantity", "valueDecimal": quantity},
                            {"type": "unit", "valueCodeableConcept": self.coded("unit-of-measure", unit)},
                            {"type": "net-amount", "valueDecimal": net},
                            {"type": "warehouse", "valueReference": self.ref(self.locations[warehouse])},
                        ],
                    }
                )
            if kind in ("purchase-order", "sales-order"):
                positions.append(
                    {
                        "code": self.cc("warehouse/document-position-type", "vat-summary-line"),
                        "value": [
                            {"type": "vat-rate", "valueString": "23"},
                            {"type": "net-amount", "valueDecimal": round(net_total, 2)},
                            {"type": "vat-amount", "valueDecimal": round(net_total * 0.23, 2)},
                            {"type": "contractor", "valueReference": self.ref(contractor)},
                        ],
                    }
                )
            document: Resource = {
                "resourceType": "DocumentReference",
                "id": f"document-warehouse-{index + 1:04d}",
                "meta": {"profile": self.profile("WarehouseDocument")},
                "owner": self.owner(),
                "identifier": [self.installation_id("document-reference", number)],
                "category": [self.cc("warehouse/document-category", "warehouse-document", "Warehouse document")],
                "status": self.cc("warehouse/document-status", status),
                "type": self.cc("warehouse/document-type", kind),
                "issueDate": date,
                "participant": [self.role_ref(contractor), self.role_ref(self.employees[3])],
                "attribute": [{"code": "warehouse", "value": warehouse}],
                "position": positions,
            }
            if based_on is not None:
                document["basedOn"] = [self.ref(self.documents[based_on])]
            self.documents[number] = _Key("DocumentReference", self.ns["document-reference"], number, number)
            found.append(document)
        return found

    # -- the whole set ----------------------------------------------------------------------------

    def build(self) -> list[Resource]:
        parties = self.parties()
        locations = self.location_resources()
        capabilities = self.capability_resources()
        cost_centers = self.cost_center_resources()
        assets = self.asset_resources()
        components = self.component_resources()
        return [
            *parties,
            *self.party_roles(),
            *self.relationships(),
            *locations,
            *self.naming_systems(),
            *capabilities,
            *self.grants(),
            *cost_centers,
            *assets,
            *components,
            *self.allocations(),
            *self.asset_documents(),
            *self.hr_documents(),
            *self.warehouse_documents(),
            *(copy.deepcopy(dict(value_set)) for value_set in self.contract.value_set_resources.values()),
        ]

    # -- the large set ----------------------------------------------------------------------------

    def large(self, count: int) -> list[Resource]:
        """`count` more Contractors, each with one PartyRole and one GrantAssignment."""
        rng = random.Random(SEED + 1)
        nips = _nip_sequence(951_000_000)
        roles = ("customer", "supplier", "payer")
        profile = self.profile("Contractor")
        portal = self.capabilities["crm.portal.access"]
        contractor_ns, warehouse_ns = self.ns["contractor"], self.ns["contractor-warehouse"]
        found: list[Resource] = []
        for offset in range(count):
            number = 100_001 + offset
            register_id = f"K-{number:06d}"
            stem, tail, form = rng.choice(_STEMS), rng.choice(_TAILS), rng.choice(_FORMS)
            city, postal = rng.choice(_CITIES)
            name = f"{stem}{tail} {form} {number}"
            nip = next(nips)
            while nip in self.used_nips:  # never the number of a party of the fixed set
                nip = next(nips)
            party_id = f"party-contractor-{number:06d}"
            key = _Key("Party", contractor_ns, register_id, name)
            role = roles[offset % 3]
            found.append(
                {
                    "resourceType": "Party",
                    "id": party_id,
                    "meta": {"profile": list(profile), "lastUpdated": "2025-01-02T00:00:00Z"},
                    "owner": self.owner(),
                    "category": [self.cc("party-kind", "contractor")],
                    "status": self.cc("party-status", "active"),
                    "type": self.cc("party-type", "finance"),
                    "identifier": [
                        {"system": contractor_ns, "value": register_id},
                        {"system": warehouse_ns, "value": register_id},
                        {"system": self.nip_system, "value": nip, "type": "TAX"},
                    ],
                    "name": self.cc("party-name", "finance", name),
                    "number": f"P-{number + 100_000:06d}",
                    "address": [
                        {
                            "use": self.cc("address-use", "work"),
                            "text": f"ul. Handlowa {1 + offset % 200}, {postal} {city}",
                        }
                    ],
                    "contactPoint": [self.contact("email", f"biuro@k{number}.example.com")],
                    "attribute": [{"code": "finance", "value": f"payment-term-days:{(14, 30)[offset % 2]}"}],
                }
            )
            found.append(
                {
                    "resourceType": "PartyRole",
                    "id": f"role-contractor-{number:06d}",
                    "owner": self.owner(),
                    "identifier": [{"system": contractor_ns, "value": register_id}],
                    "party": self.ref(key),
                    "role": self.cc("party-role", role, role.capitalize()),
                }
            )
            found.append(
                {
                    "resourceType": "GrantAssignment",
                    "id": f"grant-contractor-{number:06d}",
                    "owner": self.owner(),
                    "assignedTo": self.ref(key),
                    "granted": [self.ref(portal)],
                    "scope": [self.role_ref(key)],
                    "period": {"start": "2025-01-02"},
                    "basis": self.cc("grant-basis", "contract"),
                }
            )
        return found


_ASCII = str.maketrans("ąćęłńóśźżĄĆĘŁŃÓŚŹŻ", "acelnoszzACELNOSZZ")


def seed_resources(contract: Contract, *, large: int = 0) -> list[Resource]:
    """Every resource of the seed data set as served, in a fixed order: the fixed set for this
    installation, then `large` more Contractors, each with a PartyRole and a GrantAssignment."""
    if large < 0:
        raise ValueError(f"large must be 0 or more, not {large}")
    builder = _Builder(contract)
    resources = builder.build()
    if large:
        # Millions of small acyclic containers: the cyclic collector would walk them again and again
        # while they are built (2.5 times the build time) and can find nothing to free.
        collecting = gc.isenabled()
        gc.disable()
        try:
            resources += builder.large(large)
        finally:
            if collecting:
                gc.enable()
    return resources


__all__ = ["OWN_ORGANIZATION_NAME", "OWN_ORGANIZATION_NIP", "SEED", "own_organization_nip", "seed_resources"]
