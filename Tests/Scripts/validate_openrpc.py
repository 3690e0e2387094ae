"""Validates an OpenRPC document (JSON on stdin) with tools nobody here wrote.

- The `openrpc` package's models of the OpenRPC 1.x specification parse the whole document.
- Every parameter and result schema is checked against the JSON Schema draft-07 meta-schema
  that the `jsonschema` package ships (OpenRPC's content descriptors hold draft-07 schemas).
- The rules the OpenRPC meta-schema states beyond types: a semantic `openrpc` version, unique
  method names, unique parameter names within a method, required parameters before optional ones.

Prints "ok" and exits 0, or prints every problem and exits 1.
"""
import json
import re
import sys

import jsonschema
import openrpc

document = json.load(sys.stdin)
problems = []

try:
    openrpc.OpenRPC.model_validate(document)
except Exception as error:  # pydantic's ValidationError, listed whole
    problems.append(f"openrpc model: {error}")

if not re.fullmatch(r"1\.\d+\.\d+", str(document.get("openrpc", ""))):
    problems.append(f"openrpc version {document.get('openrpc')!r} is not 1.x.y")

names = [method.get("name") for method in document.get("methods", [])]
if len(names) != len(set(names)):
    problems.append("method names are not unique")

for method in document.get("methods", []):
    params = method.get("params", [])
    param_names = [param.get("name") for param in params]
    if len(param_names) != len(set(param_names)):
        problems.append(f"{method['name']}: parameter names are not unique")
    seen_optional = False
    for param in params:
        if not param.get("required", False):
            seen_optional = True
        elif seen_optional:
            problems.append(f"{method['name']}: required parameter {param['name']} after an optional one")
    descriptors = params + [method.get("result", {})]
    for descriptor in descriptors:
        try:
            jsonschema.Draft7Validator.check_schema(descriptor.get("schema", {}))
        except jsonschema.SchemaError as error:
            problems.append(f"{method['name']}.{descriptor.get('name')}: {error.message}")

if problems:
    print("\n".join(problems))
    sys.exit(1)
print("ok")
