"""``CALL help()``: the procedures, their arguments and output columns (Hudi's ``HelpProcedure``)."""

from __future__ import annotations

from typing import Any

from hudi_sql.sql.procedures import Arg, ProcedureContext, lookup, procedure, registry


def _cell(text: object) -> str:
    return f"{text!s:<30}"


@procedure(
    "help",
    args=[Arg("cmd")],
    output="result string",
    description="Lists the procedures, or shows one procedure's arguments and output columns.",
)
def help_procedure(ctx: ProcedureContext, args: dict[str, Any]) -> list[tuple[Any, ...]]:
    if not args["cmd"]:
        lines = [
            "synopsis",
            "\tcall [command]([key1]=>[value1],[key2]=>[value2])",
            "commands and description",
        ]
        for name, proc in sorted(registry().items()):
            lines.append(f"\t{name}\t{proc.description}")
        lines.append("You can use 'call help(cmd=>[command])' to view the detailed parameters of the command")
        return [("\n".join(lines) + "\n",)]
    proc = lookup(str(args["cmd"]).strip())
    lines = [
        "parameters:",
        "\t" + "\t".join(_cell(h) for h in ("param", "type_name", "default_value", "required")),
    ]
    for arg in proc.args:
        lines.append(
            "\t" + "\t".join(_cell(v) for v in (arg.name, arg.type, arg.default, str(arg.required).lower()))
        )
    lines += ["outputType:", "\t" + "\t".join(_cell(h) for h in ("name", "type_name", "nullable"))]
    for name, type_name in proc.output_fields():
        lines.append("\t" + "\t".join(_cell(v) for v in (name, type_name, "true")))
    return [("\n".join(lines) + "\n",)]
