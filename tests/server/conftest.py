"""A workspace folder of three files (a DeviceClass, a ResourceSlice, a ResourceClaim) and a
language client connected over stdio to ``python -m dractl server`` rooted in it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_lsp
from lsprotocol import types
from pytest_lsp import ClientServerConfig, LanguageClient

DEVICE_CLASS = """\
apiVersion: resource.k8s.io/v1
kind: DeviceClass
metadata:
  name: gpu.example.com
spec:
  selectors:
  - cel:
      expression: device.driver == "gpu.example.com"
"""

SLICE = """\
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
      model: {string: A100}
      memory: {int: 40}
    capacity:
      memory: {value: 40Gi}
  - name: gpu-1
    attributes:
      model: {string: A100}
      memory: {int: 40}
    capacity:
      memory: {value: 40Gi}
  - name: gpu-2
    attributes:
      model: {string: H100}
    capacity:
      memory: {value: 80Gi}
"""

# line 11 (0-based): count -1 is invalid (DRA120); line 14: the selector fails on gpu-2 (DRA210)
CLAIM = """\
apiVersion: resource.k8s.io/v1
kind: ResourceClaim
metadata:
  name: two-gpus
  namespace: ml
spec:
  devices:
    requests:
    - name: gpus
      exactly:
        deviceClassName: gpu.example.com
        count: -1
        selectors:
        - cel:
            expression: device.attributes["gpu.example.com"].memory >= 40
"""

SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "dractl", "server"])


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "deviceclass.yaml").write_text(DEVICE_CLASS)
    (tmp_path / "slice.yaml").write_text(SLICE)
    (tmp_path / "claim.yaml").write_text(CLAIM)
    return tmp_path


@pytest_lsp.fixture(config=SERVER)
async def client(lsp_client: LanguageClient, folder: Path):  # type: ignore[no-untyped-def]
    # VS Code's capabilities say it registers file watches when asked; so does this client
    lsp_client.feature(types.CLIENT_REGISTER_CAPABILITY)(lambda params: None)
    await lsp_client.initialize_session(
        types.InitializeParams(
            capabilities=pytest_lsp.client_capabilities("visual-studio-code"),
            root_uri=folder.as_uri(),
            workspace_folders=[types.WorkspaceFolder(uri=folder.as_uri(), name="ws")],
            initialization_options={"debounceMs": 50},
        )
    )
    yield
    await lsp_client.shutdown_session()
