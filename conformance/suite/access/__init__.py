"""Resources and their fields / Capability, GrantAssignment; Endpoints / Master data and access: rules for
access reads; read-only master data."""
