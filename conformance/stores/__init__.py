"""Real storage servers for report deliveries (Azurite for blob, Samba for smb), started on free loopback ports
and stopped by process id, and readers that find what a target delivered into a store."""

from conformance.stores.azurite import Azurite, azurite_executable
from conformance.stores.process import StoreUnavailable
from conformance.stores.samba import Samba, smbd_executable

__all__ = ["Azurite", "Samba", "StoreUnavailable", "startable_stores"]


def startable_stores() -> list[str]:
    """The storage types whose store server is installed here, so that the suite can start it."""
    return [name for name, found in (("blob", azurite_executable), ("smb", smbd_executable)) if found()]
