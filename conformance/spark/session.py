"""The SparkSession of a job: the given master, else ``spark-submit``'s, else ``local[*]``."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from pyspark.sql import SparkSession

DEFAULT_MASTER = "local[*]"


def spark_session(master: str | None, app_name: str) -> SparkSession:
    """A session for ``master``; under ``spark-submit`` (no ``--master`` here) its own master.

    In local mode the executors' Python is this interpreter, so they import the same code."""
    from pyspark.sql import SparkSession

    under_submit = "PYSPARK_GATEWAY_PORT" in os.environ
    chosen = master or (None if under_submit else DEFAULT_MASTER)
    builder = SparkSession.builder.appName(app_name).config("spark.ui.showConsoleProgress", "false")
    if chosen is not None:
        builder = builder.master(chosen)
    if chosen is not None and chosen.startswith("local"):
        builder = builder.config("spark.pyspark.python", sys.executable)
        builder = builder.config("spark.pyspark.driver.python", sys.executable)
    spark = builder.getOrCreate()
    spark.sparkContext.setLogLevel("ERROR")
    return spark
