"""Runs one annotated example in a fresh interpreter: `python example_driver.py PROGRAM RESULT
NAME BACKEND`. Standard library and torch only: it runs under whatever Python has torch, which
need not have gbsite installed.

The program's top-level statements run one by one in one namespace. Right after the statement
that binds NAME, NAME is rebound to `torch.compile(NAME, fullgraph=True, backend=BACKEND)`, so
any graph break in it becomes an error. The outcome goes to RESULT as JSON, so that what the
program itself prints can be judged separately.
"""

from __future__ import annotations

import ast
import json
import sys
import traceback
from typing import Any


def binds(statement: ast.stmt, name: str) -> bool:
    if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
        return statement.name == name
    if isinstance(statement, ast.Import | ast.ImportFrom):
        return any((alias.asname or alias.name.split(".")[0]) == name for alias in statement.names)
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, ast.AnnAssign | ast.AugAssign):
        targets = [statement.target]
    return any(
        isinstance(node, ast.Name) and node.id == name
        for target in targets
        for node in ast.walk(target)
    )


def chain(error: BaseException) -> list[str]:
    """Messages of the exceptions `error` was raised from: what a traceback prints too.

    Some graph breaks surface as another exception (GB0039's FailOnRecompileLimitHit) whose
    cause carries the link to the page.
    """
    out: list[str] = []
    seen = {id(error)}
    current = error.__cause__ or error.__context__
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        out.append(f"{type(current).__module__}.{type(current).__qualname__}: {current}")
        current = current.__cause__ or current.__context__
    return out


def main() -> None:
    program, result_path, name, backend = sys.argv[1:5]
    result: dict[str, Any] = {
        "bound": False,
        "status": None,
        "error_type": None,
        "message": "",
        "chain": [],
        "graphs": None,
        "torch": None,
    }
    try:
        source = open(program, encoding="utf-8").read()  # noqa: PTH123, SIM115 - stdlib only
        module = ast.parse(source, filename="<example>")
        namespace: dict[str, Any] = {"__name__": "__main__", "__file__": "<example>"}
        try:
            for statement in module.body:
                code = compile(ast.Module(body=[statement], type_ignores=[]), "<example>", "exec")
                exec(code, namespace)  # running the example is the point
                if not result["bound"] and binds(statement, name):
                    import torch

                    namespace[name] = torch.compile(
                        namespace[name], fullgraph=True, backend=backend
                    )
                    result["bound"] = True
            result["status"] = "completed"
        except BaseException as error:  # every outcome is reported
            result["status"] = "raised"
            result["error_type"] = f"{type(error).__module__}.{type(error).__qualname__}"
            result["message"] = str(error)
            result["chain"] = chain(error)
        try:
            import torch
            from torch._dynamo.utils import counters

            result["torch"] = torch.__version__
            # With fullgraph=True Dynamo counts captured graphs: zero means never called.
            result["graphs"] = int(counters["stats"]["unique_graphs"]) + int(
                counters["frames"]["total"]
            )
        except Exception:  # no torch, or counters moved
            pass
    except BaseException:  # the program could not even be parsed
        result["status"] = "driver-error"
        result["message"] = traceback.format_exc()
    with open(result_path, "w", encoding="utf-8") as out:  # noqa: PTH123
        json.dump(result, out)


if __name__ == "__main__":
    main()
