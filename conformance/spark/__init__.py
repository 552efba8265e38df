"""Trace validation and simulation campaigns on Spark (PySpark): one verdict per trace, at any scale.

``kraftcheck spark validate`` reads traces through Spark's ``binaryFile`` source (folders, globs,
any URI the installation reads), validates each on the executors with the existing validator
(the spec compiled once per executor process) and writes the ``verdicts`` and ``coverage``
Parquet tables; ``kraftcheck spark simulate`` does the same for seeds simulated on the executors,
keeping only the traces that fail. Outputs go only through Spark's writers, so a retried or
speculative task never adds a row.

Modules: ``session`` (the SparkSession), ``inputs`` (traces as size-balanced partitions),
``spec_cache`` (the spec shipped with the job, one compiled validator per process),
``sim_source`` (the only module that imports the reference implementation), ``tables``
(schemas, rows, coverage aggregation, summary), ``progress`` (driver-side progress),
``validate_job`` and ``simulate_job`` (the two jobs), ``cli`` (the subcommand).
"""
