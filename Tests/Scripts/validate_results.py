"""Checks real JSON-RPC results against the result schemas rpc.discover advertises.

Reads {"discover": <OpenRPC document>, "results": {"method": result, ...}} on stdin and validates
each result with jsonschema's draft-07 validator against that method's `result.schema`.
Prints "ok" and exits 0, or prints every mismatch (method, path, message) and exits 1.
"""
import json
import sys

import jsonschema

given = json.load(sys.stdin)
schemas = {method["name"]: method["result"]["schema"] for method in given["discover"]["methods"]}
problems = []
for name, result in given["results"].items():
    if name not in schemas:
        problems.append(f"{name}: not in rpc.discover")
        continue
    validator = jsonschema.Draft7Validator(schemas[name])
    for error in validator.iter_errors(result):
        path = "/".join(str(part) for part in error.absolute_path)
        problems.append(f"{name}: at '{path}': {error.message}")
missing = sorted(set(schemas) - set(given["results"]))
if missing:
    problems.append(f"methods not called: {', '.join(missing)}")
print("\n".join(problems) if problems else "ok")
sys.exit(1 if problems else 0)
