"""Where a store's endpoint and credentials come from: the keys a Spark / Apache Hudi user already sets.

A Spark user reaching S3 sets Hadoop's keys (``spark.hadoop.fs.s3a.endpoint``,
``fs.s3a.access.key`` …) on the session, in ``core-site.xml`` or on the SparkContext's Hadoop
configuration; an Apache Hudi job adds nothing of its own. :class:`StorageSettings` gathers
exactly those keys (the ``fs.`` family, prefix ``spark.hadoop.`` / ``hadoop.`` stripped) once, on
the driver, from the session and the operation's options; the backends read them
(:mod:`hudi_sql.storage.object_store`). The settings are a plain frozen value, so a
:class:`~hudi_sql.storage.fs.Storage` carrying them pickles into Spark tasks, which have no
Spark configuration of their own to consult.

What no key gives, the store's own client finds as it always does: the ``AWS_*`` environment,
instance credentials, ``GOOGLE_APPLICATION_CREDENTIALS``.
"""

from __future__ import annotations

__all__ = ["STORE_KEY_PREFIXES", "S3Access", "StorageSettings"]

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

#: The Hadoop key families the object-store backends read.
STORE_KEY_PREFIXES = ("fs.s3a.", "fs.s3.", "fs.gs.", "fs.azure.", "fs.defaultFS")

_SPARK_PREFIXES = ("spark.hadoop.", "hadoop.")


def _store_key(key: str) -> str | None:
    """*key* as Hadoop names it when it is an object-store key (any prefix stripped), else ``None``."""
    for prefix in _SPARK_PREFIXES:
        if key.startswith(prefix):
            key = key[len(prefix):]
            break
    return key if key.startswith(STORE_KEY_PREFIXES) else None


@dataclass(frozen=True)
class StorageSettings:
    """The object-store keys in force: Hadoop names (``fs.s3a.endpoint``) to values."""

    hadoop: tuple[tuple[str, str], ...] = ()

    @classmethod
    def of(cls, *sources: Mapping[str, Any] | Iterable[tuple[str, Any]] | None) -> StorageSettings:
        """Settings from key-value *sources*, later ones winning; keys outside the store families are left out."""
        merged: dict[str, str] = {}
        for source in sources:
            if not source:
                continue
            pairs = source.items() if isinstance(source, Mapping) else source
            for key, value in pairs:
                name = _store_key(str(key))
                if name is not None and value is not None:
                    merged[name] = str(value)
        return cls(tuple(sorted(merged.items())))

    @classmethod
    def from_spark(cls, spark: SparkSession | None, options: Mapping[str, Any] | None = None) -> StorageSettings:
        """The session's Hadoop configuration, its ``spark.hadoop.*`` conf, then *options* (the most specific)."""
        sources: list[Any] = []
        if spark is not None:
            sources.append(_hadoop_configuration(spark))
            # the session's conf: the SparkConf it was built with and keys set since (spark.conf.set, SET)
            runtime = getattr(spark.conf, "getAll", None) or {}
            sources.append({k: v for k, v in runtime.items() if _store_key(k)})
        sources.append(options)
        return cls.of(*sources)

    def merged(self, other: StorageSettings) -> StorageSettings:
        return StorageSettings.of(self.hadoop, other.hadoop)

    def get(self, key: str, default: str | None = None) -> str | None:
        for name, value in self.hadoop:
            if name == key:
                return value
        return default

    def for_bucket(self, family: str, bucket: str, key: str) -> str | None:
        """Hadoop's per-bucket override (``fs.s3a.bucket.<bucket>.<key>``) before the family's key."""
        return self.get(f"{family}bucket.{bucket}.{key}") or self.get(f"{family}{key}")

    def s3_access(self, bucket: str) -> S3Access:
        """How to reach the S3 bucket *bucket* (:class:`S3Access`), read once for every client."""

        def key(name: str) -> str | None:
            return self.for_bucket("fs.s3a.", bucket, name)

        endpoint = key("endpoint") or os.environ.get("AWS_ENDPOINT_URL_S3") or os.environ.get("AWS_ENDPOINT_URL")
        if endpoint and "://" not in endpoint:
            ssl = (key("connection.ssl.enabled") or "true").strip().lower() == "true"
            endpoint = f"{'https' if ssl else 'http'}://{endpoint}"
        region = key("endpoint.region")
        if endpoint and not region:
            # a custom endpoint (an S3-compatible store) answers in any region; without one named
            # the AWS SDK would ask the instance-metadata service and wait out its timeout
            region = os.environ.get("AWS_DEFAULT_REGION") or "us-east-1"
        access, secret = key("access.key"), key("secret.key")
        credentials = (access, secret, key("session.token")) if access and secret else (None, None, None)
        path_style = (key("path.style.access") or "false").strip().lower() == "true" or bool(endpoint)
        return S3Access(endpoint.rstrip("/") if endpoint else None, region, *credentials, path_style=path_style)


@dataclass(frozen=True)
class S3Access:
    """How to reach one S3 bucket: Hadoop's S3A keys (``fs.s3a.endpoint``, ``.access.key``,
    ``.secret.key``, ``.session.token``, ``.endpoint.region``, ``.path.style.access``,
    ``.connection.ssl.enabled``, per bucket first), else the AWS SDKs' own ``AWS_ENDPOINT_URL_S3`` /
    ``AWS_ENDPOINT_URL`` / ``AWS_DEFAULT_REGION`` environment, which a plain Spark session's
    executors may carry instead of Hadoop keys. What is ``None`` the store's client finds itself
    (its credential chain, AWS's endpoint)."""

    endpoint: str | None  # a URL with its scheme; None: AWS itself
    region: str | None
    access_key: str | None
    secret_key: str | None
    session_token: str | None
    path_style: bool = False


def _hadoop_configuration(spark: SparkSession) -> dict[str, str]:
    """The ``fs.*`` store keys of the SparkContext's Hadoop configuration (``core-site.xml`` and runtime sets)."""
    try:
        conf = spark.sparkContext._jsc.hadoopConfiguration()  # type: ignore[union-attr]
    except Exception:  # noqa: BLE001 - a Spark Connect session has no JVM here; its conf keys still count
        return {}
    out: dict[str, str] = {}
    for prefix in ("fs.s3a.", "fs.gs.", "fs.azure."):
        found = conf.getPropsWithPrefix(prefix)
        for key in found.keySet().toArray():
            out[prefix + str(key)] = str(found.get(key))
    return out
