"""The kube-scheduler's Filter phase for one Pod, as dractl explain runs it.

Layer between :mod:`dractl.allocator` (the DynamicResources plugin's engine) and
:mod:`dractl.explain`. One module per plugin in :mod:`dractl.scheduler.plugins` (a
:class:`~dractl.scheduler.plugin.Plugin` with its PreEnqueue / PreFilter / Filter / PostFilter
and the scheduler's reason strings); :mod:`dractl.scheduler.framework` runs a profile's plugins
in order and :mod:`dractl.scheduler.fit_error` words the FailedScheduling text.
"""
