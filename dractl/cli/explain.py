"""``dractl explain``."""

from __future__ import annotations

import sys
from typing import Annotated, Literal

import typer

from dractl.cli.options import (
    DEFAULT_KUBERNETES_VERSION,
    DEFAULT_MAX_FILE_SIZE,
    CelEngine,
    Color,
    ColorOption,
    FeatureGates,
    KubernetesVersion,
    MaxFileSize,
    Paths,
    cel_engine_name,
    features,
    limits,
    use_color,
)

EPILOG = """
[b]Examples[/b]

  kubectl get resourceslices,deviceclasses,resourceclaims,resourceclaimtemplates,nodes,pods -A -o yaml | dractl explain - --pod NS/NAME
  dractl explain examples/explain/gpu-pod/
  kubectl get resourceslices,deviceclasses,resourceclaims,nodes -A -o yaml | dractl explain pod.yaml -
  dractl explain --claim ml/two-gpus --node node-1 --verbose cluster.yaml claim.yaml
  dractl explain -o json cluster.yaml claim.yaml
  dractl explain --replicas max cluster.yaml deployment.yaml

Exit codes: 0 the claims fit on at least one node, 1 they fit nowhere, 2 usage error or bad input.
"""


def explain(
    paths: Paths,
    claim: Annotated[
        list[str] | None,
        typer.Option(
            "--claim",
            help="Only this claim (or the claims made from this template): NAME (namespace default) or "
            "NAMESPACE/NAME. Repeatable.",
        ),
    ] = None,
    pod: Annotated[
        str | None,
        typer.Option(
            "--pod",
            metavar="[NAMESPACE/]NAME",
            help="Only this Pod of a cluster dump (namespace default): its claims, with those "
            "the resource-claim controller made from templates; other claims' allocations are in use.",
        ),
    ] = None,
    node: Annotated[
        list[str] | None,
        typer.Option("--node", help="Only this node (default: every node the input knows of). Repeatable."),
    ] = None,
    output: Annotated[str, typer.Option("--output", "-o", help="Output: text, json or yaml.")] = "text",
    verbose: Annotated[
        bool, typer.Option("--verbose", "-v", help="Every node and every rejected device, not a summary.")
    ] = False,
    timeout: Annotated[
        float,
        typer.Option(
            "--timeout",
            help="Per node, as the scheduler's filterTimeout: a node whose search takes longer is "
            "unschedulable (timed out); every other node is still evaluated.",
        ),
    ] = 10.0,
    run_timeout: Annotated[
        float | None,
        typer.Option(
            "--run-timeout",
            help="A budget for the whole run in seconds (default: none): nodes not searched by then are "
            "reported as not evaluated.",
        ),
    ] = None,
    replicas: Annotated[
        str | None,
        typer.Option(
            "--replicas",
            metavar="N|max",
            help="Place this many replicas of each workload instead of its own count; max: until one "
            "does not fit (at most 10000).",
        ),
    ] = None,
    placement: Annotated[
        str,
        typer.Option(
            "--placement",
            metavar="pack|spread",
            help="The node each replica of a workload gets: pack fills one node before the next, spread "
            "goes round the feasible nodes (an approximation of the scheduler's scoring).",
        ),
    ] = "pack",
    kubernetes_version: KubernetesVersion = DEFAULT_KUBERNETES_VERSION,
    feature_gates: FeatureGates = None,
    cel_engine: CelEngine = None,
    color: ColorOption = Color.auto,
    max_file_size: MaxFileSize = DEFAULT_MAX_FILE_SIZE,
) -> None:
    """Run the scheduler's allocator over the inputs: which devices each node would give the claims, and why not others.

    Inputs are any mix of Pods and workloads (their claim templates become claims as the
    resource-claim controller makes them), ResourceClaims, ResourceClaimTemplates,
    DeviceClasses, ResourceSlices (any version), Nodes and already allocated claims.
    """
    from dractl.api.model import build_all
    from dractl.api.workspace import Workspace
    from dractl.explain.inputs import decode_errors
    from dractl.explain.render import render_text, to_data
    from dractl.explain.run import ExplainSettings
    from dractl.explain.run import explain as run_explain
    from dractl.explain.workloads import PLACEMENTS
    from dractl.load import load_paths
    from dractl.load.sources import read_stdin

    if output not in ("text", "json", "yaml"):
        raise typer.BadParameter(f"unknown output {output!r}; choose text, json or yaml", param_hint="--output")
    if timeout <= 0:
        raise typer.BadParameter("must be positive", param_hint="--timeout")
    if run_timeout is not None and run_timeout <= 0:
        raise typer.BadParameter("must be positive", param_hint="--run-timeout")
    if placement not in PLACEMENTS:
        raise typer.BadParameter(f"unknown placement {placement!r}; choose pack or spread", param_hint="--placement")
    settings = ExplainSettings(
        features=features(kubernetes_version, feature_gates),
        claims=tuple(claim or ()),
        pod=pod,
        nodes=tuple(node or ()),
        timeout=timeout,
        run_timeout=run_timeout,
        cel_engine=cel_engine_name(cel_engine),
        replicas=_replicas(replicas),
        placement=placement,  # type: ignore[arg-type]
    )
    input_limits = limits(max_file_size)
    stdin = read_stdin(input_limits.max_file_bytes) if "-" in paths else None
    # Read for reference: values and positions, no comments (many times faster on a dump).
    loaded = load_paths(paths, stdin=stdin, limits=input_limits, comments=False)
    for message in loaded.unreadable:
        typer.echo(f"dractl: error: {message}", err=True)
    for diagnostic in loaded.diagnostics:
        if diagnostic.severity.value == "error":
            typer.echo(f"dractl: error: {diagnostic.position}: {diagnostic.message}", err=True)
    if loaded.failed:
        raise typer.Exit(2)
    objects = build_all(loaded.objects)
    undecodable = decode_errors(objects, settings.features.release)
    for error in undecodable:
        typer.echo(f"dractl: error: {error}", err=True)
    if undecodable:
        raise typer.Exit(2)
    explanation = run_explain(Workspace(objects), settings)
    if output == "text":
        render_text(explanation, sys.stdout, verbose=verbose, color=use_color(color))
    elif output == "json":
        import json

        json.dump(to_data(explanation, verbose), sys.stdout, indent=2)
        sys.stdout.write("\n")
    else:
        import yaml

        # libyaml's emitter when PyYAML has it: the pure-Python one takes seconds per MB.
        dumper = getattr(yaml, "CSafeDumper", yaml.SafeDumper)
        yaml.dump(
            to_data(explanation, verbose), sys.stdout, Dumper=dumper, sort_keys=False,
            default_flow_style=False, allow_unicode=True,
        )
    if not explanation.satisfiable:
        raise typer.Exit(1)


def _replicas(value: str | None) -> int | Literal["max"] | None:
    from dractl.explain.workloads import REPLICAS_MAX

    if value is None or value == "max":
        return value
    if not value.isdigit() or int(value) > REPLICAS_MAX:
        raise typer.BadParameter(
            f"{value!r} is not a number of replicas from 0 to {REPLICAS_MAX} or max", param_hint="--replicas"
        )
    return int(value)
