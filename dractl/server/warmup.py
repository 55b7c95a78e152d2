"""What the server's own process lints before a lint set's checks are forked (see
:mod:`.isolated`): a small sample of every kind, and the set's objects other than ResourceSlices.

A forked check inherits what its parent has loaded: the rule modules, the schemas, the CEL
environments, the selectors compiled, the regular expressions compiled on first use. Without
them every check would load them again (a check of a 300-line manifest took 160 ms instead of
10). This lint loads them, and compiles the set's selectors, without evaluating any on the
workspace's devices: evaluating is what the CEL engine leaks on, and the devices are most of what
a run builds and lets go (a first check of 500 manifests in the server's process left it 95 MB
larger). The sample's three devices take the device checks and the allocator through their code.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from dractl.lint.engine import Settings
    from dractl.load import LoadResult

log = logging.getLogger(__name__)

SAMPLE_PATH = "dractl-server-warm-up.yaml"
SAMPLE = """\
apiVersion: v1
kind: Namespace
metadata:
  name: ml
---
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
---
apiVersion: resource.k8s.io/v1
kind: ResourceSlice
metadata:
  name: node-1-gpus
spec:
  driver: gpu.example.com
  nodeName: node-1
  pool:
    name: node-1
    generation: 1
    resourceSliceCount: 1
  devices:
  - name: gpu-0
    attributes:
      model: {string: H100}
      index: {int: 0}
      ecc: {bool: true}
      driverVersion: {version: 1.2.3}
      dra.example.com/numa: {int: 0}
    capacity:
      memory: {value: 80Gi}
  - name: gpu-1
    attributes:
      model: {string: A100}
      index: {int: 1}
      ecc: {bool: false}
      driverVersion: {version: 1.2.3}
      dra.example.com/numa: {int: 1}
    capacity:
      memory: {value: 40Gi}
  - name: gpu-2
    attributes:
      model: {string: H100}
      index: {int: 2}
      ecc: {bool: true}
      driverVersion: {version: 1.2.3}
      dra.example.com/numa: {int: 1}
    capacity:
      memory: {value: 80Gi}
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: gpu
  namespace: ml
spec:
  devices:
    requests:
    - name: gpu
      exactly:
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].model == "H100"
    - name: either
      firstAvailable:
      - name: large
        deviceClassName: gpu.example.com
        selectors:
        - cel:
            expression: device.capacity["gpu.example.com"].memory.compareTo(quantity("64Gi")) >= 0
      - name: any
        deviceClassName: gpu.example.com
        count: 2
---
apiVersion: resource.k8s.io/v1
kind: ResourceClaimTemplate
metadata:
  name: one-gpu
  namespace: ml
spec:
  spec:
    devices:
      requests:
      - name: gpu
        exactly:
          deviceClassName: gpu.example.com
          selectors:
          - cel:
              expression: device.attributes["gpu.example.com"].driverVersion.isGreaterThan(semver("1.0.0"))
---
apiVersion: v1
kind: Pod
metadata:
  name: trainer
  namespace: ml
spec:
  resourceClaims:
  - name: gpu
    resourceClaimName: gpu
  - name: job
    resourceClaimTemplateName: one-gpu
  containers:
  - name: main
    image: registry.example.com/trainer:1.0
    resources:
      claims:
      - name: gpu
      - name: job
"""


# The settings the sample was linted with in this process: once for each is enough.
_sampled: list[Settings] = []


def warm_up(loaded: LoadResult, settings: Settings) -> None:
    """Lint the sample (once per settings), then ``loaded`` without its ResourceSlices, here
    (apart: no selector of the workspace meets a device in this process). The answers are not
    used, nor a failure: the check that follows meets it and reports it."""
    from dractl.lint.engine import lint
    from dractl.load import LoadResult, load_text

    runs = []
    if settings not in _sampled:
        _sampled.append(settings)
        runs.append(load_text(SAMPLE, SAMPLE_PATH, comments=False))
    runs.append(
        LoadResult(
            files=list(loaded.files),
            objects=[o for o in loaded.objects if o.kind != "ResourceSlice"],
            diagnostics=list(loaded.diagnostics),
        )
    )
    for run in runs:
        try:
            lint(run, settings)
        except Exception:
            log.debug("warm-up lint failed", exc_info=True)
