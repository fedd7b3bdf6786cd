"""Resources and their fields / Report order; States and transitions / Progress of a report order; Endpoints /
POST /v1/reports (encryption, decryption); Authentication; Errors / POST /v1/reports."""
