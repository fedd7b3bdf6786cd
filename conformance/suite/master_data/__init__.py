"""Resources and their fields / Party, Location, ValueSet, NamingSystem; Endpoints / Master data and access:
GET, POST and PATCH /v1/parties, GET /v1/value-sets, GET /v1/naming-systems."""
