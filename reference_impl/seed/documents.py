"""HR inbox documents and warehouse documents."""

from __future__ import annotations

from reference_impl.seed.builder import Key
from reference_impl.seed.constants import ASCII, OWN_ORGANIZATION_NAME, Resource
from reference_impl.seed.generated import b64, pdf
from reference_impl.seed.tables import (
    HR_DOCUMENTS,
    ITEMS,
    WAREHOUSE_DOCUMENTS,
)


class DocumentsPart:
    """The part of the seed builder (reference_impl.seed.Builder) for:
    hR inbox documents and warehouse documents."""

    def hr_documents(self) -> list[Resource]:
        found = []
        for index, (number, kind, employee, date, system) in enumerate(HR_DOCUMENTS):
            code, display = self.concept("hr-inbox-document-type", kind)
            person = self.employees[employee]
            lines = [
                OWN_ORGANIZATION_NAME.translate(ASCII),
                display or code,
                person.display.translate(ASCII),
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
                        {"contentType": "application/pdf", "data": b64(pdf(lines)), "title": f"{number}.pdf"}
                    ],
                }
            )
            self.documents[number] = Key("DocumentReference", self.ns["document-reference"], number, number)
        return found

    def warehouse_documents(self) -> list[Resource]:
        found = []
        for index, row in enumerate(WAREHOUSE_DOCUMENTS):
            number, kind, status, contractor_row, based_on, warehouse, line_type, date = row
            contractor = self.contractors[contractor_row]
            positions = []
            net_total = 0.0
            for line, (item, item_name, unit, quantity, price) in enumerate(
                ITEMS[2:] if kind in ("sales-order", "goods-issue") else ITEMS[:2], start=1
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
            self.documents[number] = Key("DocumentReference", self.ns["document-reference"], number, number)
            found.append(document)
        return found

    # -- the whole set ----------------------------------------------------------------------------
