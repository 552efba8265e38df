"""Traces as Spark rows: listed and read by Spark's ``binaryFile`` source, in size-balanced partitions.

Folders are searched recursively for ``*.ndjson`` and ``*.ndjson.gz``; globs and any URI the
Spark installation reads (``file:``, ``hdfs:``, ``s3a:`` ...) work as they do for Spark. A trace
of at most ``max_bytes`` is read as one binary row; a larger one is listed without its content
(Spark reads no bytes of it) and validated streaming from its path by the executor, when that
path is on a file system the executor can open.

Balance: Spark packs files into read partitions largest first, up to a byte budget per partition
(``spark.sql.files.maxPartitionBytes``, each file also counting ``openCostInBytes``); the budget
is set so that the small traces fill about ``partitions`` partitions of equal size. Empty files,
which Spark's file scan skips, get rows of their own (and an ERROR verdict).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import unquote, urlparse

if TYPE_CHECKING:
    from pyspark.sql import DataFrame, SparkSession

TRACE_GLOB = "*.{ndjson,ndjson.gz}"
DEFAULT_MAX_BYTES = 64 << 20
OPEN_COST_BYTES = 16 << 10  # the fixed cost of one trace (model lookup, header, init), in bytes of trace


@dataclass(frozen=True)
class TraceInputs:
    """The traces to validate: a DataFrame of ``path``, ``length``, ``content`` (null for the
    traces above ``max_bytes``), how many there are and how many are streamed from their path."""

    frame: DataFrame
    count: int
    streamed: int


def read_traces(spark: SparkSession, paths: list[str], partitions: int, max_bytes: int = DEFAULT_MAX_BYTES) -> TraceInputs:
    """Trace files under ``paths`` (files, folders, globs, URIs) in about ``partitions`` partitions."""
    from pyspark.sql import functions as F

    listing = (spark.read.format("binaryFile").option("recursiveFileLookup", "true")
               .option("pathGlobFilter", TRACE_GLOB).load(paths))
    small_filter = F.col("length") <= max_bytes
    stats = listing.select("length").agg(
        F.count("*").alias("n"),
        F.sum(F.when(small_filter, 1).otherwise(0)).alias("small"),
        F.sum(F.when(small_filter, F.col("length")).otherwise(0)).alias("small_bytes"),
    ).collect()[0]
    count, small = int(stats["n"]), int(stats["small"] or 0)
    small_bytes = int(stats["small_bytes"] or 0)
    budget = max(1, math.ceil((small_bytes + small * OPEN_COST_BYTES) / max(1, partitions)))
    spark.conf.set("spark.sql.files.openCostInBytes", str(OPEN_COST_BYTES))
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(budget))
    spark.conf.set("spark.sql.files.minPartitionNum", "1")
    frame = listing.where(small_filter).select("path", "length", "content")
    streamed = count - small
    if streamed:
        large = (listing.where(~small_filter).select("path", "length", F.lit(None).cast("binary").alias("content"))
                 .repartition(min(streamed, max(1, partitions))))
        frame = frame.unionByName(large)
    listed = [hadoop_path(uri) for uri in listing.inputFiles()]
    if len(listed) > count:  # Spark's file scan skips empty files: give them rows of their own
        everything = spark.createDataFrame([(p,) for p in listed], "path string")
        empty = everything.join(listing.select("path"), "path", "left_anti").select(
            "path", F.lit(0).cast("long").alias("length"), F.lit(b"").cast("binary").alias("content"))
        frame = frame.unionByName(empty)
        count = len(listed)
    return TraceInputs(frame, count, streamed)


def hadoop_path(uri: str) -> str:
    """A listed file's URI (``file:///a%20b``) as Spark's ``path`` column spells it (``file:/a b``)."""
    parsed = urlparse(uri)
    path = unquote(parsed.path)
    if parsed.scheme == "file":
        return f"file:{path}"
    return f"{parsed.scheme}://{parsed.netloc}{path}" if parsed.scheme else path


def local_path(uri: str) -> str | None:
    """The local file path of a ``file:`` URI (or a plain path); None for other file systems."""
    parsed = urlparse(uri)
    if parsed.scheme in ("", "file"):
        return parsed.path if parsed.scheme else uri
    return None


def display_name(uri: str) -> str:
    """How a trace is named in the tables and messages: its local path, else its URI."""
    return local_path(uri) or uri
