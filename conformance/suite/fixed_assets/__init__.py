"""Resources and their fields / Fixed-asset resources; Endpoints / Fixed assets: the read-only records,
fixed-asset documents, $document-content and the writes of workflow data."""
