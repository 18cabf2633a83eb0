"""Conditional writes on object stores: create-if-absent and compare-and-swap of one object.

An object store has no atomic rename and no exclusive create in the POSIX sense, but S3, GCS and
Azure Blob all answer a PUT carrying a precondition: ``If-None-Match: *`` (write only if no object
is there) and ``If-Match: <etag>`` (write only if the object is still the version read). Those two
are what a commit protocol needs where several writers share a bucket:

* a completed instant is created only if absent, so of two writers publishing the same file one
  fails instead of both "succeeding" (:meth:`~hudi_sql.storage.object_store.ObjectStore.write_bytes`
  with ``overwrite=False``);
* Apache Hudi 1.1's ``StorageBasedLockProvider`` keeps its lease in one object, created with the
  first and renewed and released with the second (:mod:`hudi_sql.commit.storage_lock`).

pyarrow's file systems send no preconditions, so these calls go through ``obstore`` (the Python
binding of the Rust ``object_store`` crate, which Delta and Iceberg's Rust clients use for the same
purpose), configured from the same Hadoop keys as the pyarrow backend. HDFS has no such calls here
(its own create is exclusive, but pyarrow's Hadoop client does not expose it).
"""

from __future__ import annotations

__all__ = ["CONDITIONAL_FAMILIES", "ConditionalObjects", "Versioned", "conditional_available"]

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from hudi_sql.errors import StorageError
from hudi_sql.storage.uri import split_uri

if TYPE_CHECKING:
    from hudi_sql.storage.settings import StorageSettings

#: Backend families (:func:`hudi_sql.storage.object_store.backend_scheme`) whose stores take preconditions.
CONDITIONAL_FAMILIES = frozenset({"s3", "gcs", "azure"})


def conditional_available() -> bool:
    """Whether ``obstore`` is installed (it is a dependency of hudi-sql; a trimmed install may lack it)."""
    try:
        import obstore  # noqa: F401
    except ImportError:
        return False
    return True


@dataclass(frozen=True)
class Versioned:
    """An object's bytes and the version (its ETag) a conditional replace names."""

    data: bytes
    version: str


def _s3_store(bucket: str, settings: StorageSettings) -> Any:
    from obstore.store import S3Store

    access = settings.s3_access(bucket)
    config: Any = {"conditional_put": "etag", "virtual_hosted_style_request": not access.path_style}
    client: Any = {}
    if access.endpoint:
        config["endpoint"] = access.endpoint
        client["allow_http"] = access.endpoint.startswith("http://")
    if access.region:
        config["region"] = access.region
    if access.access_key and access.secret_key:
        config["access_key_id"], config["secret_access_key"] = access.access_key, access.secret_key
        if access.session_token:
            config["session_token"] = access.session_token
    return S3Store(bucket, config=config, client_options=client or None)


def _gcs_store(bucket: str, settings: StorageSettings) -> Any:
    from obstore.store import GCSStore

    config: Any = {}
    root = settings.get("fs.gs.storage.root.url")
    if root:
        config["base_url"] = root.rstrip("/")
    return GCSStore(bucket, config=config or None)


def _azure_store(authority: str, settings: StorageSettings) -> Any:
    from obstore.store import AzureStore

    container, _, host = authority.partition("@")
    config: Any = {"account_name": host.split(".", 1)[0]}
    account_key = settings.get(f"fs.azure.account.key.{host}")
    if account_key:
        config["account_key"] = account_key
    return AzureStore(container, config=config)


@dataclass
class ConditionalObjects:
    """Conditional reads and writes of single objects in one bucket (container)."""

    family: str
    authority: str
    settings: StorageSettings
    _store: Any = field(default=None, repr=False)

    def __getstate__(self) -> dict[str, Any]:  # the client is rebuilt in each process
        return {"family": self.family, "authority": self.authority, "settings": self.settings, "_store": None}

    @property
    def store(self) -> Any:
        if self._store is None:
            if self.family not in CONDITIONAL_FAMILIES:
                raise StorageError(f"No conditional writes on '{self.family}' stores here.")
            try:
                if self.family == "s3":
                    self._store = _s3_store(self.authority, self.settings)
                elif self.family == "gcs":
                    self._store = _gcs_store(self.authority, self.settings)
                else:
                    self._store = _azure_store(self.authority, self.settings)
            except ImportError as error:
                raise StorageError("Conditional writes on object stores need the package 'obstore'.",
                                   help="pip install obstore") from error
        return self._store

    def _key(self, uri: str) -> str:
        return split_uri(uri)[2]

    def _failed(self, action: str, uri: str, error: Exception) -> StorageError:
        first = str(error).strip().splitlines()[0] if str(error).strip() else repr(error)
        return StorageError(f"Cannot {action} '{uri}': {first}")

    def read(self, uri: str) -> Versioned | None:
        """The object's bytes and version; ``None`` when there is no object."""
        import obstore
        from obstore.exceptions import NotFoundError

        try:
            result = obstore.get(self.store, self._key(uri))
            data = bytes(result.bytes())
        except (NotFoundError, FileNotFoundError):
            return None
        except Exception as error:
            raise self._failed("read", uri, error) from error
        return Versioned(data, str(result.meta.get("e_tag") or ""))

    def create(self, uri: str, data: bytes) -> str | None:
        """Write *data* only if no object is at *uri*: its version, or ``None`` if one was there."""
        import obstore
        from obstore.exceptions import AlreadyExistsError, PreconditionError

        try:
            put = obstore.put(self.store, self._key(uri), data, mode="create")
        except (AlreadyExistsError, PreconditionError, FileExistsError):
            return None
        except Exception as error:
            raise self._failed("create", uri, error) from error
        return str(put.get("e_tag") or "")

    def replace(self, uri: str, data: bytes, version: str) -> str | None:
        """Write *data* only if the object is still at *version*: the new version, or ``None``
        when another writer changed (or deleted) it since."""
        import obstore
        from obstore.exceptions import NotFoundError, PreconditionError

        try:
            put = obstore.put(self.store, self._key(uri), data, mode={"e_tag": version})
        except (PreconditionError, NotFoundError, FileNotFoundError):
            return None
        except Exception as error:
            raise self._failed("replace", uri, error) from error
        return str(put.get("e_tag") or "")
