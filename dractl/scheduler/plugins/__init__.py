"""The scheduler plugins dractl knows, one module each, in the default profile's order.

``DEFAULT_ORDER`` is the multiPoint order of kube-scheduler 1.36's default profile
(``pkg/scheduler/apis/config/v1/default_plugins.go``, DynamicResources inserted before
DefaultPreemption); each extension point runs the plugins that implement it in this order.
Plugins that only score, bind or sort are listed for the configuration's sake and implement no
point dractl runs. A plugin module is imported when a profile uses it.
"""

from __future__ import annotations

from importlib import import_module

from dractl.scheduler.plugin import Plugin

DEFAULT_ORDER = (
    "SchedulingGates",
    "PrioritySort",
    "NodeUnschedulable",
    "NodeName",
    "TaintToleration",
    "NodeAffinity",
    "NodePorts",
    "NodeResourcesFit",
    "VolumeRestrictions",
    "EBSLimits",
    "GCEPDLimits",
    "NodeVolumeLimits",
    "AzureDiskLimits",
    "VolumeBinding",
    "VolumeZone",
    "PodTopologySpread",
    "InterPodAffinity",
    "DynamicResources",
    "DefaultPreemption",
    "NodeResourcesBalancedAllocation",
    "ImageLocality",
    "DefaultBinder",
)

# plugin name -> "module:Class" under dractl.scheduler.plugins
MODULES: dict[str, str] = {
    "SchedulingGates": "scheduling_gates:SchedulingGates",
    "NodeUnschedulable": "node_unschedulable:NodeUnschedulable",
    "NodeName": "node_name:NodeName",
    "TaintToleration": "taint_toleration:TaintToleration",
    "NodeAffinity": "node_affinity:NodeAffinity",
    "NodePorts": "node_ports:NodePorts",
    "NodeResourcesFit": "node_resources_fit:NodeResourcesFit",
    "VolumeRestrictions": "noted:VolumeRestrictions",
    "EBSLimits": "noted:EBSLimits",
    "GCEPDLimits": "noted:GCEPDLimits",
    "NodeVolumeLimits": "noted:NodeVolumeLimits",
    "AzureDiskLimits": "noted:AzureDiskLimits",
    "VolumeBinding": "noted:VolumeBinding",
    "VolumeZone": "noted:VolumeZone",
    "PodTopologySpread": "noted:PodTopologySpread",
    "InterPodAffinity": "noted:InterPodAffinity",
    "DynamicResources": "dynamic_resources:DynamicResources",
    "DefaultPreemption": "default_preemption:DefaultPreemption",
}


def plugin_class(name: str) -> type[Plugin] | None:
    """The class of a plugin that takes part in filtering, or None for one that only sorts,
    scores or binds (and plugins dractl does not know)."""
    where = MODULES.get(name)
    if where is None:
        return None
    module, _, cls = where.partition(":")
    found: type[Plugin] = getattr(import_module(f"{__name__}.{module}"), cls)
    return found
