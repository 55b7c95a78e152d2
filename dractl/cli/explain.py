"""``dractl explain``."""

from __future__ import annotations

import argparse
import gc
import io
import sys
from typing import IO, Literal

from dractl.cli.options import (
    add_cel_engine,
    add_color,
    add_feature_gates,
    add_kubernetes_version,
    add_max_file_size,
    add_paths,
    cel_engine_name,
    features,
    limits,
    positive_float,
    positive_int,
    use_color,
)

DESCRIPTION = """\
Run the scheduler's allocator over the inputs: which devices each node would give the claims, and why not others.

Inputs are any mix of Pods and workloads (their claim templates become claims as the
resource-claim controller makes them), ResourceClaims, ResourceClaimTemplates, DeviceClasses,
ResourceSlices (any version), Nodes and already allocated claims.
"""

EPILOG = """
Examples:
  dractl explain examples/explain/gpu-pod/
  dractl explain --pod ml/train-0 examples/explain/gpu-pod/
  dractl explain --claim ml/train-0-gpus --node gpu-node-2 --verbose examples/explain/gpu-pod/
  dractl explain -o json examples/explain/first-available/
  dractl explain -o html --output-file report.html examples/explain/gpu-pod/
  dractl explain --replicas max examples/explain/replicas/
  dractl explain examples/explain/gpu-pod/pod.yaml - < examples/explain/gpu-pod/cluster.yaml

Exit codes: 0 the claims fit on at least one node (a Pod: the scheduler would place it), 1 they
fit nowhere (a Pod stays Pending), 2 usage error or bad input.
"""


def arguments(parser: argparse.ArgumentParser) -> None:
    add_paths(parser)
    parser.add_argument(
        "--claim",
        metavar="NAME",
        action="append",
        help="Only this claim (or the claims made from this template; <workload>-<n>-<claim>: "
        "the claim of a workload's replica n): NAME (namespace default) or NAMESPACE/NAME. Repeatable.",
    )
    parser.add_argument(
        "--pod",
        metavar="[NAMESPACE/]NAME",
        help="Only this Pod of a cluster dump (namespace default): its claims, with those the "
        "resource-claim controller made from templates; other claims' allocations are in use.",
    )
    parser.add_argument(
        "--node",
        metavar="NAME",
        action="append",
        help="Only this node (default: every node the input knows of). Repeatable.",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FORMAT",
        choices=("text", "json", "yaml", "html"),
        default="text",
        help="Output: text, json, yaml or html (a page with a picture of the cluster).",
    )
    parser.add_argument(
        "--output-file",
        metavar="FILE",
        help="Write the output to FILE (replaced whole), not to stdout.",
    )
    parser.add_argument(
        "-v",
        "--verbose",
        action="store_true",
        help="Every node and every rejected device, not a summary.",
    )
    parser.add_argument(
        "--timeout",
        metavar="SECONDS",
        type=positive_float,
        default=10.0,
        help="Per node, as the scheduler's filterTimeout: a node whose search takes longer is "
        "unschedulable (timed out); every other node is still evaluated.",
    )
    parser.add_argument(
        "--run-timeout",
        metavar="SECONDS",
        type=positive_float,
        help="A budget for the whole run (default: none): nodes not searched by then are "
        "reported as not evaluated.",
    )
    parser.add_argument(
        "--replicas",
        metavar="N|max",
        type=_replicas,
        help="Place this many replicas of each workload instead of its own count; max: until one "
        "does not fit (at most 10000).",
    )
    parser.add_argument(
        "--placement",
        metavar="pack|spread",
        default="pack",
        help="The node each replica of a workload gets: pack fills one node before the next, "
        "spread goes round the feasible nodes (an approximation of the scheduler's scoring).",
    )
    parser.add_argument(
        "-j",
        "--jobs",
        metavar="N",
        type=positive_int,
        help="Processes for a large input: its documents are read, and its nodes searched, in "
        "that many (default: one per CPU; used only when it pays). The output is the same "
        "whatever the number.",
    )
    parser.add_argument(
        "--scheduler-config",
        metavar="FILE",
        help="A KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1) as kube-scheduler "
        "takes it: the profile for the Pod's schedulerName, its plugins and their arguments "
        "(default: kube-scheduler's default profile).",
    )
    add_kubernetes_version(parser)
    add_feature_gates(parser)
    add_cel_engine(parser)
    add_color(parser)
    add_max_file_size(parser)


def run(args: argparse.Namespace) -> int:
    from dractl.api.decoding import decode_errors
    from dractl.api.model import build_all
    from dractl.api.workspace import Workspace
    from dractl.errors import UsageError
    from dractl.explain.render import render_text, to_data, to_yaml
    from dractl.explain.run import UNREAD, ExplainSettings
    from dractl.explain.run import explain as run_explain
    from dractl.explain.workloads import PLACEMENTS
    from dractl.forking import available_cpus
    from dractl.load import load_paths
    from dractl.load.sources import read_stdin

    if args.placement not in PLACEMENTS:
        raise UsageError(
            f"--placement: unknown placement {args.placement!r}; choose pack or spread"
        )
    jobs = args.jobs or available_cpus()
    profiles = None
    if args.scheduler_config is not None:
        from dractl.scheduler.config import load_scheduler_config

        profiles = load_scheduler_config(args.scheduler_config)
    settings = ExplainSettings(
        features=features(args.kubernetes_version, args.feature_gates),
        claims=tuple(args.claim or ()),
        pod=args.pod,
        nodes=tuple(args.node or ()),
        timeout=args.timeout,
        run_timeout=args.run_timeout,
        replicas=args.replicas,
        placement=args.placement,
        cel_engine=cel_engine_name(args.cel_engine),
        jobs=jobs,
        output=args.output,
        verbose=args.verbose,
        scheduler_profiles=profiles,
    )
    input_limits = limits(args.max_file_size)
    stdin = read_stdin(input_limits.max_file_bytes) if "-" in args.paths else None
    # Read for reference: values, no comments (many times faster on a dump), and positions found
    # when a message asks for one (rarely: for a mistake in the input).
    # The trees hold no cycles and live to the end: the collector, which would walk them again
    # and again while they grow (a tenth of a large cluster's run), is off while they are read,
    # and they are then left out of its walks (frozen).
    gc.disable()
    try:
        loaded = load_paths(
            args.paths,
            stdin=stdin,
            limits=input_limits,
            comments=False,
            omit=UNREAD,
            marks=False,
            jobs=jobs,
        )
    finally:
        gc.freeze()
        gc.enable()
    for message in loaded.skipped:
        print(visible(f"dractl: warning: {message}", one_line=True), file=sys.stderr)
    for message in loaded.unreadable:
        print(visible(f"dractl: error: {message}", one_line=True), file=sys.stderr)
    for diagnostic in loaded.diagnostics:
        if diagnostic.severity.value == "error":
            line = f"dractl: error: {diagnostic.position}: {diagnostic.message}"
            print(visible(line, one_line=True), file=sys.stderr)
    if loaded.failed:
        return 2
    objects = build_all(loaded.objects, share=True)
    undecodable = decode_errors(objects, settings.features.release)
    for error in undecodable:
        print(visible(f"dractl: error: {error}", one_line=True), file=sys.stderr)
    if undecodable:
        return 2
    explanation = run_explain(Workspace(objects), settings)
    # Rendered whole, then written with the inputs' control characters made visible (names,
    # values and messages come from the manifests; JSON and YAML escape them themselves).
    buffer = io.StringIO()
    out: IO[str] = buffer
    shown = visible
    if args.output == "text":
        color = use_color(args.color, sys.stdout if args.output_file is None else buffer)
        render_text(explanation, out, verbose=args.verbose, color=color)
        shown = visible_but_colors if color else visible
    elif args.output == "json":
        from dractl.report.json import dumps

        out.write(dumps(to_data(explanation, args.verbose)))
        out.write("\n")
    elif args.output == "yaml":
        out.write(to_yaml(to_data(explanation, args.verbose)))
    else:
        from dractl.explain.html_report import render_html

        out.write(render_html(explanation))
    text = buffer.getvalue() if args.output in ("json", "yaml") else shown(buffer.getvalue())
    if args.output_file is not None:
        from dractl.convert.writer import write_atomic

        write_atomic(args.output_file, text)
    else:
        sys.stdout.write(text)
    if not explanation.satisfiable:
        return 1
    return 0


def visible(text: str, *, one_line: bool = False) -> str:
    """``text`` with its control characters escaped; ``one_line`` for a message on stderr,
    which a newline in a name from the input must not split (its second line would name no
    place)."""
    from dractl.report.escape import visible

    return visible(text, one_line=one_line)


def visible_but_colors(text: str) -> str:
    from dractl.report.escape import visible_but_colors

    return visible_but_colors(text)


def _replicas(value: str) -> int | Literal["max"]:
    from dractl.explain.workloads import REPLICAS_MAX

    if value == "max":
        return value
    if not value.isdigit() or int(value) > REPLICAS_MAX:
        raise argparse.ArgumentTypeError(
            f"{value!r} is not a number of replicas from 0 to {REPLICAS_MAX} or max"
        )
    return int(value)
