"""Real storage servers for report deliveries (Azurite for blob, Samba for smb), started on free loopback ports
and stopped by process id, and readers that find what a target delivered into a store."""

from conformance.stores.azurite import Azurite
from conformance.stores.process import StoreUnavailable
from conformance.stores.samba import Samba

__all__ = ["Azurite", "Samba", "StoreUnavailable"]
