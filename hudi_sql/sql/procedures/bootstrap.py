"""``CALL run_bootstrap``: an existing Parquet table becomes a Hudi table (Apache Hudi 0.15's arguments)."""

from __future__ import annotations

from typing import Any

from catalog.hive.config import HiveSyncConfig
from hudi_sql.config import HudiBootstrapConfig, TableType
from hudi_sql.config.resolve import Resolved
from hudi_sql.engine.bootstrap import BootstrapRequest
from hudi_sql.engine.bootstrap import run_bootstrap as bootstrap
from hudi_sql.errors import UnsupportedFeatureError
from hudi_sql.sql.procedures import Arg, ProcedureContext, parse_options, procedure


@procedure(
    "run_bootstrap",
    args=[
        Arg("table", required=True),
        Arg("table_type", required=True),
        Arg("bootstrap_path", required=True),
        Arg("base_path", required=True),
        Arg("rowKey_field", required=True),
        Arg("base_file_format", default="PARQUET"),
        Arg("partition_path_field", default=""),
        Arg("bootstrap_index_class"),
        Arg("selector_class"),
        Arg("key_generator_class", default="org.apache.hudi.keygen.SimpleKeyGenerator"),
        Arg("full_bootstrap_input_provider"),
        Arg("schema_provider_class", default=""),
        Arg("payload_class", default="org.apache.hudi.common.model.OverwriteWithLatestAvroPayload"),
        Arg("parallelism", "int", default=1500),
        Arg("enable_hive_sync", "boolean", default=False),
        Arg("props_file_path", default=""),
        Arg("bootstrap_overwrite", "boolean", default=False),
        Arg("options"),
    ],
    output="status int",
    description="Write a Hudi table at base_path from the Parquet table at bootstrap_path (left as it is); "
    "selector_class chooses full-record or metadata-only partitions.",
)
def run_bootstrap(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    if str(args["base_file_format"]).upper() != "PARQUET":
        raise UnsupportedFeatureError(f"CALL run_bootstrap: base_file_format '{args['base_file_format']}'.",
                                      help="hudi-sql writes PARQUET base files")
    for name in ("schema_provider_class", "props_file_path"):
        if args[name]:
            raise UnsupportedFeatureError(f"CALL run_bootstrap: {name} is not supported.",
                                          help="the schema is the source's; pass options with SET")
    database, _, name = str(args["table"]).rpartition(".")
    database = database or ctx.spark.catalog.currentDatabase()
    options = {k: v for k, v in ctx.runner.options.items() if k.startswith("hoodie.")}  # SET options
    options.update(parse_options(args["options"], "CALL run_bootstrap"))  # options => 'k=v,...' win
    options[HudiBootstrapConfig.PARALLELISM.key] = str(args["parallelism"])
    if args["selector_class"]:
        options[HudiBootstrapConfig.MODE_SELECTOR.key] = str(args["selector_class"])
    if args["bootstrap_index_class"]:
        options[HudiBootstrapConfig.INDEX_CLASS.key] = str(args["bootstrap_index_class"])
    if args["enable_hive_sync"]:
        options.update({HiveSyncConfig.ENABLED.key: "true", HiveSyncConfig.DATABASE.key: database,
                        HiveSyncConfig.TABLE.key: name})
    selector = Resolved.of(options).bootstrap.mode_selector
    request = BootstrapRequest(
        table_name=name, table_type=TableType.parse(str(args["table_type"])), source_path=str(args["bootstrap_path"]),
        base_path=str(args["base_path"]), record_key_fields=str(args["rowKey_field"]),
        partition_path_field=str(args["partition_path_field"] or ""), key_generator_class=str(args["key_generator_class"]),
        selector_class=str(selector), payload_class=str(args["payload_class"]), database=database,
        overwrite=bool(args["bootstrap_overwrite"]), options=options)
    bootstrap(ctx.spark, request)
    return [(0,)]
